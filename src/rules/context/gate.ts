/**
 * What a gate rule sees: the full inventories at the merge-base ("before")
 * and at head ("after"), the walk of commits between with what each one's yml
 * declare, and the marts paths; with memoized helpers for what several rules
 * share (marts membership, the file a model finding names, test groups).
 */
import { canonicalJson, isMapping, pythonStr, type Mapping, type Value } from "../../core/values.ts";
import { compareCodePoints, sortByText } from "../../core/text.ts";
import {
  ownerKey,
  type Inventory,
  type ModelAt,
  type TestedKind,
  type TestEntry,
  type TestGroup,
  type WalkStep,
} from "./gate-inventory.ts";
import type { TcrRecord } from "../../tcr/record.ts";
import type { Config } from "../../schemas/config.ts";
import type { DbtPaths } from "../../project/dbt/dbt-paths.ts";
import { lineageMode, projectChanges, type LineageMode, type ProjectChanges } from "../../project/dbt/lineage.ts";
import { declaredVersions, refReads } from "../../project/nodes/models.ts";
import { samePreRegistration } from "../../project/artifacts/pre-registration.ts";
import { ruleDefiner, type FindingPlace } from "../define-rule.ts";
import type { DataTest } from "../../project/dbt/data-tests.ts";

/**
 * Whether dbt runs one declaration of a data test, beyond what the test
 * itself says: its yml's folder may carry `data_tests:` configs in
 * dbt_project.yml (`+enabled: false`, `+severity: warn`), and a test on a
 * disabled node is disabled with it. Null fields: nothing outside the test
 * stops it or makes it warn.
 */
export interface TestRunState {
  /** Why dbt does not run it, or null. */
  disabledBy: string | null;
  /** Why it only warns (a folder's severity the test itself does not override), or null. */
  warnsBy: string | null;
}

/** One test (model, column, name) on both sides; either side may lack it. */
export interface TestGroupPair {
  kind: TestedKind;
  model: string;
  column: string;
  name: string;
  base?: TestGroup;
  head?: TestGroup;
}

export interface GateInputs {
  before: Inventory;
  after: Inventory;
  /** The merge-base, every first-parent commit between, then head. */
  walk: WalkStep[];
  /** Every commit the branch brings, side branches merged in included, parents first, head last (the walk's when omitted). */
  range?: WalkStep[];
  martsPaths: string[];
  /** The base as the user named it (`main`), for messages. */
  baseName: string;
  /** The TCR loop's record of the walk, when gate verifies commits (--verify-commits, tcr: required); else null. */
  record?: TcrRecord | null;
  /** slp.yml as the base has it. */
  config?: { config: Config };
  /** dbt_project.yml's folders as the base declares them. */
  dbtPaths?: DbtPaths;
  /** A project-relative file's blob id at each walk position (null where absent). */
  fileAlongWalk?: (path: string) => Promise<(string | null)[]>;
}

export class GateContext {
  readonly before: Inventory;
  readonly after: Inventory;
  readonly walk: WalkStep[];
  /** Every commit the branch brings, side branches merged in included, parents first, head last. */
  readonly range: WalkStep[];
  readonly martsPaths: string[];
  readonly baseName: string;
  readonly record: TcrRecord | null;
  /** How far a change is followed downstream (slp.yml `lineage` on the base; all by default). */
  readonly lineage: LineageMode;
  /** The test folders as the base declares them (`tests` by default), without a trailing slash. */
  readonly testFolders: readonly string[];
  /** Where `slp diff` writes its files, project-relative (slp.yml's diff.out on the base, else diff). */
  readonly diffFolder: string;
  readonly #fileAlongWalk: (path: string) => Promise<(string | null)[]>;
  readonly #marts = new Map<string, boolean>();
  readonly #versionFiles = new Map<Inventory, Map<string, string>>();
  #codeChanged?: Set<string>;
  #changes?: Promise<ProjectChanges>;
  #groups?: TestGroupPair[];
  readonly #runStates = new Map<Inventory, Promise<Map<DataTest, TestRunState>>>();
  readonly #canonical = new WeakMap<object, string>();

  constructor(inputs: GateInputs) {
    this.before = inputs.before;
    this.after = inputs.after;
    this.walk = inputs.walk;
    this.range = inputs.range ?? inputs.walk.slice(1);
    this.martsPaths = inputs.martsPaths;
    this.baseName = inputs.baseName;
    this.record = inputs.record ?? null;
    this.lineage = lineageMode(inputs.config?.config.lineage);
    this.testFolders = inputs.dbtPaths?.["test-paths"] ?? ["tests"];
    this.diffFolder = (inputs.config?.config.diff?.out ?? "diff").replace(/^(\.\/)+/, "").replace(/\/+$/, "") || ".";
    this.#fileAlongWalk = inputs.fileAlongWalk ?? (async () => this.walk.map(() => null));
  }

  /** A project-relative file's blob id at each walk position (null where the commit has none), read from git on request. */
  fileAlongWalk(path: string): Promise<(string | null)[]> {
    return this.#fileAlongWalk(path);
  }

  /**
   * The versions of a model's pre-registration along the walk that are this
   * branch's own (neither null nor the base's), each with its walk position:
   * the first is where it was written, each later one that differs an edit.
   */
  preRegistrationVersions(name: string): { text: string; index: number }[] {
    const inherited = this.canonical(this.before.models.get(name)?.preRegistration ?? null);
    const versions: { text: string; index: number }[] = [];
    this.walk.forEach((step, index) => {
      const value = step.declared.models.get(name)?.preRegistration ?? null;
      if (value === null) return;
      const text = this.canonical(value);
      if (text !== inherited) versions.push({ text, index });
    });
    return versions;
  }

  /**
   * The model whose code a `.sql` (by stem) is on one side: the model a
   * version's file versions (`fct_orders_v2` is fct_orders's, as its yml's
   * `versions` say), else the stem itself.
   */
  modelOfCode(side: "before" | "after", stem: string): string {
    const inventory = this[side];
    let files = this.#versionFiles.get(inventory);
    if (files === undefined) {
      files = new Map();
      for (const model of inventory.models.values())
        for (const version of declaredVersions(model)) files.set(version.definedIn, model.name);
      this.#versionFiles.set(inventory, files);
    }
    return files.get(stem) ?? stem;
  }

  /**
   * The models whose code at head is new or differs from the merge-base's, by
   * name: any of their `.sql` files, a version's included (a deleted file is
   * no code at head), or the version their ref() reads.
   */
  get codeChanged(): ReadonlySet<string> {
    if (this.#codeChanged === undefined) {
      this.#codeChanged = new Set();
      for (const [file, id] of this.after.code)
        if (this.before.code.get(file) !== id) this.#codeChanged.add(this.modelOfCode("after", file));
      // A `latest_version` pointed at another version changes what ref() reads, with no file changing.
      for (const model of this.after.models.values()) {
        const base = this.before.models.get(model.name);
        if (base && refReads(base) !== refReads(model)) this.#codeChanged.add(model.name);
      }
    }
    return this.#codeChanged;
  }

  /** True when a project-relative path lies under a marts path. */
  inMarts(path: string | null | undefined): boolean {
    return path !== null && path !== undefined && this.martsPaths.some((prefix) => path.startsWith(prefix));
  }

  /** What the branch changed in the project, node by node, and head's DAG (read once, for the rules that follow changes downstream). */
  changes(): Promise<ProjectChanges> {
    this.#changes ??= projectChanges(this.before.project, this.after.project);
    return this.#changes;
  }

  /**
   * Whether a model's head pre-registration is this branch's own: "missing"
   * (none), "inherited" (the base's prediction, its reason re-spaced or
   * re-cased included), or null when it is a fresh one.
   */
  preRegistrationGap(name: string): "missing" | "inherited" | null {
    const head = this.after.models.get(name)?.preRegistration ?? null;
    if (head === null) return "missing";
    return samePreRegistration(head, this.before.models.get(name)?.preRegistration) ? "inherited" : null;
  }

  /**
   * Marts in gate's sense: the model's yml or sql path, at the merge-base or
   * at head, starts with a marts path. Commits in between never decide it.
   */
  isMarts(name: string): boolean {
    let marts = this.#marts.get(name);
    if (marts === undefined) {
      const paths = [
        this.after.models.get(name)?.file,
        this.before.models.get(name)?.file,
        this.after.sqls.get(name),
        this.before.sqls.get(name),
      ];
      marts = paths.some((path) => this.inMarts(path));
      this.#marts.set(name, marts);
    }
    return marts;
  }

  /** Where a model finding points: the yml declaring it at head (its entry's line), else at the merge-base, else nothing. */
  place(name: string): Required<FindingPlace> {
    const model = this.after.models.get(name) ?? this.before.models.get(name);
    return { file: model?.file ?? "", model: name, line: model?.line ?? null };
  }

  /**
   * Where a finding about one declaration of a test points: the model's place,
   * at the test item's own line when that item sits in the file named.
   */
  testPlace(name: string, entry: TestEntry | undefined): Required<FindingPlace> {
    const place = this.place(name);
    return entry && entry.file === place.file ? { ...place, line: entry.test.line } : place;
  }

  /**
   * Where a finding about a test group points: a model's as testPlace says;
   * a seed's, snapshot's or source table's at the yml declaring it at head
   * (else at the merge-base), at the test item's line when it sits there.
   */
  groupPlace(pair: TestGroupPair, entry?: TestEntry): Required<FindingPlace> {
    if (pair.kind === "model") return entry ? this.testPlace(pair.model, entry) : this.place(pair.model);
    const key = ownerKey(pair.kind, pair.model);
    const owner = this.after.owners.get(key) ?? this.before.owners.get(key);
    const place = { file: owner?.file ?? "", model: pair.model, line: owner?.line ?? null };
    return entry && entry.file === place.file ? { ...place, line: entry.test.line } : place;
  }

  /**
   * How dbt runs each data test declared on one side (by its declaration),
   * as the project's nodes put it together: folder configs along the yml's
   * path, and the node it tests. Only the tests something outside stops or
   * makes warn are in the map; read once per side.
   */
  runStates(side: "before" | "after"): Promise<Map<DataTest, TestRunState>> {
    const inventory = this[side];
    let states = this.#runStates.get(inventory);
    if (!states) {
      states = (async () => {
        const nodes = await inventory.project.nodes();
        const found = new Map<DataTest, TestRunState>();
        for (const test of nodes.dataTests) {
          const own = test.declaration.config;
          const owner = nodes.byId.get(test.on);
          const along = test.fqn.slice(0, -1).join(".");
          let disabledBy: string | null = null;
          // A disabled marts model is G14's, which says its tests go quiet with it.
          if (owner && !owner.enabled && !(owner.kind === "model" && this.isMarts(owner.name)))
            disabledBy = `the ${owner.kind} ${owner.name} it tests is disabled, and dbt disables the tests of a disabled node`;
          else if (!Object.hasOwn(own, "enabled") && Object.hasOwn(test.config, "enabled") && test.config.enabled !== true)
            disabledBy = `its yml ${test.file} sits under ${along}, where dbt_project.yml's data_tests: configs set +enabled: ${String(test.config.enabled)}`;
          const severity = Object.hasOwn(test.config, "severity") ? pythonStr(test.config.severity).toLowerCase() : "error";
          const warnsBy =
            !Object.hasOwn(own, "severity") && severity === "warn"
              ? `its yml ${test.file} sits under ${along}, where dbt_project.yml's data_tests: configs set +severity: ${String(test.config.severity)}`
              : null;
          if (disabledBy !== null || warnsBy !== null) found.set(test.declaration, { disabledBy, warnsBy });
        }
        return found;
      })();
      this.#runStates.set(inventory, states);
    }
    return states;
  }

  /** The models declared at head, sorted by name. */
  get headModels(): ModelAt[] {
    return sortByText(this.after.models.values(), (model) => model.name);
  }

  /** The commits after the merge-base, oldest first, head last. */
  get commits(): WalkStep[] {
    return this.walk.slice(1);
  }

  /** Every test group present on either side, sorted by (model, column, name). */
  get testGroups(): TestGroupPair[] {
    if (!this.#groups) {
      const pairs = new Map<string, TestGroupPair>();
      for (const [side, inventory] of [
        ["base", this.before],
        ["head", this.after],
      ] as const) {
        for (const [key, group] of inventory.groups) {
          const pair = pairs.get(key) ?? { kind: group.kind, model: group.model, column: group.column, name: group.name };
          pair[side] = group;
          pairs.set(key, pair);
        }
      }
      this.#groups = [...pairs.values()].sort(
        (a, b) =>
          compareCodePoints(a.model, b.model) ||
          compareCodePoints(a.column, b.column) ||
          compareCodePoints(a.name, b.name) ||
          compareCodePoints(a.kind, b.kind),
      );
    }
    return this.#groups;
  }

  /** A group's argument sets, sorted by their canonical text. */
  argumentSets(group: TestGroup | undefined): string[] {
    return group ? sortByText(group.sets.keys()) : [];
  }

  /** Paths whose hash differs between two maps (added, removed or edited), sorted. */
  changed(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
    const paths = new Set([...before.keys(), ...after.keys()]);
    return sortByText([...paths].filter((path) => before.get(path) !== after.get(path)));
  }

  /** Canonical JSON, memoized per parsed object (the same yml blob gives the same objects at every commit). */
  canonical(value: Value): string {
    if (value === null || typeof value !== "object") return canonicalJson(value);
    let text = this.#canonical.get(value);
    if (text === undefined) {
      text = canonicalJson(value);
      this.#canonical.set(value, text);
    }
    return text;
  }

  /** The commit label of a walk position: "on main" for the merge-base, else "in commit <sha> by <author>". */
  where(index: number): string {
    const step = this.walk[index] as WalkStep;
    return index === 0 ? `on ${this.baseName}` : `in commit ${step.label}`;
  }
}

/** `model.column`, or `model` for a model-level test; a seed's, snapshot's or source's says which (`source shop.orders.id`). */
export function testOn(group: { kind: TestedKind; model: string; column: string }): string {
  const on = group.column === "" ? group.model : `${group.model}.${group.column}`;
  return group.kind === "model" ? on : `${group.kind} ${on}`;
}

/**
 * Which argument set a finding is about, when the group has two or more:
 * ` (k=v, k2=v2)`, keys sorted, values as Python prints them (`quote=False`,
 * `values=['a', 'b']`); "" when the group has one argument set.
 */
export function whichSuffix(group: TestGroup | undefined, argsKey: string): string {
  if (!group || group.sets.size < 2) return "";
  const args = group.sets.get(argsKey)?.args ?? {};
  return ` (${sortByText(Object.keys(args))
    .map((key) => `${key}=${pythonStr(args[key])}`)
    .join(", ")})`;
}

/** A config's value for a key, null when it lacks it (how a base config "has" a key it does not set). */
export function configValue(config: Mapping, key: string): Value {
  return Object.hasOwn(config, key) ? (config[key] as Value) : null;
}

/** A spec as a mapping, or null. */
export function specOf(model: ModelAt | undefined): Mapping | null {
  return model && isMapping(model.spec) ? model.spec : null;
}

export const defineGateRule = ruleDefiner<GateContext>("gate");
