/**
 * What a gate rule sees: the full inventories at the merge-base ("before")
 * and at head ("after"), the walk of commits between with what each one's yml
 * declare, and the marts paths; with memoized helpers for what several rules
 * share (marts membership, the file a model finding names, test groups).
 */
import { canonicalJson, isMapping, pythonStr, type Mapping, type Value } from "../../core/values.ts";
import { compareCodePoints, sortByText } from "../../core/text.ts";
import type { Inventory, ModelAt, TestEntry, TestGroup, WalkStep } from "./gate-inventory.ts";
import type { TcrRecord } from "../../tcr/record.ts";
import { ruleDefiner, type FindingPlace } from "../define-rule.ts";

/** One test (model, column, name) on both sides; either side may lack it. */
export interface TestGroupPair {
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
  martsPaths: string[];
  /** The base as the user named it (`main`), for messages. */
  baseName: string;
  /** The TCR loop's record of the walk, when gate verifies commits (--verify-commits, tcr: required); else null. */
  record?: TcrRecord | null;
}

export class GateContext {
  readonly before: Inventory;
  readonly after: Inventory;
  readonly walk: WalkStep[];
  readonly martsPaths: string[];
  readonly baseName: string;
  readonly record: TcrRecord | null;
  readonly #marts = new Map<string, boolean>();
  #groups?: TestGroupPair[];
  readonly #canonical = new WeakMap<object, string>();

  constructor(inputs: GateInputs) {
    this.before = inputs.before;
    this.after = inputs.after;
    this.walk = inputs.walk;
    this.martsPaths = inputs.martsPaths;
    this.baseName = inputs.baseName;
    this.record = inputs.record ?? null;
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
      marts = paths.some((path) => path !== undefined && this.martsPaths.some((prefix) => path.startsWith(prefix)));
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
      for (const [side, inventory] of [["base", this.before], ["head", this.after]] as const) {
        for (const [key, group] of inventory.groups) {
          const pair = pairs.get(key) ?? { model: group.model, column: group.column, name: group.name };
          pair[side] = group;
          pairs.set(key, pair);
        }
      }
      this.#groups = [...pairs.values()].sort(
        (a, b) => compareCodePoints(a.model, b.model) || compareCodePoints(a.column, b.column) || compareCodePoints(a.name, b.name),
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

/** `model.column`, or `model` for a model-level test. */
export function testOn(group: { model: string; column: string }): string {
  return group.column === "" ? group.model : `${group.model}.${group.column}`;
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
