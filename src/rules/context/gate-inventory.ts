/**
 * What `gate` compares between commits (spec/rules.md §2.2), read from the
 * project model at each commit (gate-history.ts reads them): the models the yml under the top folders
 * declare (in git's plain path order, the later of two declarations kept),
 * their data tests as bags, their unit tests, and the hashes of the files
 * the other rules watch (model sql, tests/, reconciliations, package pins,
 * protected paths).
 */
import { compareCodePoints } from "../../core/text.ts";
import { canonicalJson, isMapping, looseEqual, type Mapping, type Value } from "../../core/values.ts";
import type { LoadedConfig } from "../../project/slp/slp-yml.ts";
import type { DbtPaths } from "../../project/dbt/dbt-paths.ts";
import type { ModelDeclaration, Project } from "../../project/model.ts";
import { declaredVersions } from "../../project/nodes/models.ts";
import type { PropertiesFile, Testable } from "../../project/dbt/properties.ts";
import type { SourceFile } from "../../project/files/source.ts";
import type { DataTest } from "../../project/dbt/data-tests.ts";

export type ModelAt = ModelDeclaration;

/** One declaration of a test: its config, the yml it is in, and the test as read (its line, when a finding needs it). */
export interface TestEntry {
  config: Mapping;
  file: string;
  test: DataTest;
}

/** The configs of every declaration of one test with one argument set: a bag, twins accumulate. */
export interface TestSet {
  args: Mapping;
  configs: Mapping[];
  /** The same declarations, with their places, in bag order. */
  entries: TestEntry[];
}

/** What a data test sits on: a model, or (read and gated alike) a seed, a snapshot or a source table. */
export type TestedKind = "model" | "seed" | "snapshot" | "source";

/** One test (model, column, name) with each argument set it is declared with, by canonical arguments. */
export interface TestGroup {
  kind: TestedKind;
  /** The model's, seed's or snapshot's name; `source.table` for a source table. */
  model: string;
  column: string;
  name: string;
  sets: Map<string, TestSet>;
}

export interface UnitAt {
  name: string;
  /** The entry's `model`, "" when missing or falsy. */
  model: Value;
  file: string;
  line: number;
  /** Canonical JSON of the whole entry except `description`. */
  body: string;
}

/** What the yml under the top folders declare at one commit: all a commit inside the walk needs. */
export interface Declared {
  models: Map<string, ModelAt>;
  /** By groupKey(model, column, name). */
  groups: Map<string, TestGroup>;
  /** By unitKey(model, name). */
  units: Map<string, UnitAt>;
  /** Where each seed, snapshot and source table with tests is declared (the later declaration), by ownerKey(kind, name). */
  owners: Map<string, { file: string; line: number }>;
}

/** The full inventory, at the merge-base and at head. Hashes are blob ids. */
export interface Inventory extends Declared {
  /** The project model at this commit. */
  project: Project;
  /** Stem -> path of each `.sql` or `.py` (a model's code) under the top folders (not protected); the later path wins. */
  sqls: Map<string, string>;
  /** Stem -> blob id of that file. */
  code: Map<string, string>;
  /** Every file under a test folder (`tests/`) -> blob id. */
  files: Map<string, string>;
  /** `tests/**.sql` outside `tests/generic/` (every test folder), to read a new one's config. */
  singular: Map<string, SourceFile>;
  /** `analyses/reconciliation_*` (every analysis folder) -> blob id. */
  recons: Map<string, string>;
  /** `packages.yml`, `package-lock.yml`, `dependencies.yml` -> blob id. */
  packages: Map<string, string>;
  /** Every protected path -> blob id. */
  protected: Map<string, string>;
}

/** One commit of the walk and what its yml declare. */
export interface WalkStep {
  commit: string;
  /** `<short sha> by <author>`; the merge-base is labelled by the base ref. */
  label: string;
  declared: Declared;
}

export interface BranchInventories {
  martsPaths: string[];
  /** dbt_project.yml's folders as the base declares them (merge-base and base tip together). */
  dbtPaths: DbtPaths;
  config: LoadedConfig;
  before: Inventory;
  after: Inventory;
  /** The merge-base, each first-parent commit between, then head. */
  walk: WalkStep[];
  /**
   * Every commit the branch brings, parents first, head last: the walk's
   * after the merge-base, and those of side branches merged in (the only
   * ones read beyond the walk, so a linear history costs nothing more).
   */
  range: WalkStep[];
  /** A project-relative file's blob id at each walk position (null where it is absent), read when a rule asks. */
  fileAlongWalk?: (path: string) => Promise<(string | null)[]>;
}

export { PACKAGE_FILES } from "../../project/history/protected.ts";

export function groupKey(model: string, column: string, name: string, kind: TestedKind = "model"): string {
  return JSON.stringify(kind === "model" ? [model, column, name] : [model, column, name, kind]);
}

export function ownerKey(kind: TestedKind, name: string): string {
  return `${kind}\0${name}`;
}

export function unitKey(model: Value, name: string): string {
  return JSON.stringify([canonicalJson(model), name]);
}

/**
 * Merges the declarations of yml files listed in plain string order: a model
 * declared twice keeps the later declaration, data tests of both accumulate,
 * a unit test with the same (model, name) is the later. `modelsOnly` skips
 * tests and unit tests (the commits inside the walk need only models; their
 * files are still read, so a broken one is refused).
 */
export function mergeDeclared(files: readonly PropertiesFile[], modelsOnly: boolean): Declared {
  const declared: Declared = { models: new Map(), groups: new Map(), units: new Map(), owners: new Map() };
  const ordered = [...files].sort((a, b) => compareCodePoints(a.file, b.file));
  const addTests = (kind: TestedKind, owner: string, declaration: Testable) => {
    for (const test of declaration.tests) {
      const key = groupKey(owner, test.column, test.name, kind);
      let group = declared.groups.get(key);
      if (!group) {
        group = { kind, model: owner, column: test.column, name: test.name, sets: new Map() };
        declared.groups.set(key, group);
      }
      let set = group.sets.get(test.argsKey);
      if (!set) {
        set = { args: test.args, configs: [], entries: [] };
        group.sets.set(test.argsKey, set);
      }
      set.configs.push(test.config);
      set.entries.push({ config: test.config, file: declaration.file, test });
    }
    if (kind !== "model" && declaration.tests.length > 0)
      declared.owners.set(ownerKey(kind, owner), { file: declaration.file, line: declaration.line });
  };
  for (const file of ordered) {
    for (const model of file.models) {
      declared.models.set(model.name, model);
      if (!modelsOnly) addTests("model", model.name, model);
    }
    if (modelsOnly) continue;
    // Tests on seeds, snapshots and source tables fail a build like a model's: read and gated alike.
    for (const seed of file.seeds) addTests("seed", seed.name, seed);
    for (const snapshot of file.snapshots) addTests("snapshot", snapshot.name, snapshot);
    for (const table of file.sources) addTests("source", `${table.source}.${table.name}`, table);
    for (const unit of file.unitTests) {
      const { description: _description, ...body } = unit.entry;
      declared.units.set(unitKey(unit.model, unit.name), {
        name: unit.name,
        model: unit.model,
        file: unit.file,
        line: unit.line,
        body: canonicalJson(body),
      });
    }
  }
  return declared;
}

/**
 * G5's "the model changed": its yml entry without `pre_registration` (under
 * `meta` and `config.meta`; the emptied holder stays) plus the blob ids of its
 * sql and of each version's.
 * A pre-registration is how a model is meant to change, so it does not count.
 */
export function modelFingerprint(inventory: Inventory, name: string): string | null {
  const model = inventory.models.get(name);
  if (!model) return null;
  const entry: Mapping = { ...model.entry };
  if (isMapping(entry.meta)) {
    const { pre_registration: _meta, ...meta } = entry.meta;
    entry.meta = meta;
  }
  if (isMapping(entry.config) && isMapping(entry.config.meta)) {
    const { pre_registration: _config, ...meta } = entry.config.meta;
    entry.config = { ...entry.config, meta };
  }
  // Its code is its own file's and each version's (fct_orders_v2.sql).
  const code = [name, ...declaredVersions(model).map((version) => version.definedIn)].map((stem) => inventory.code.get(stem) ?? "");
  return `${canonicalJson(entry)}\0${code.join("\0")}`;
}

/**
 * True when two full inventories hold the same thing in every kind (the "no
 * changes" note). Values compare the way the reference's dictionaries do:
 * configs, specs and pre-registrations by deep equality, the rest exactly.
 */
export function sameInventory(a: Inventory, b: Inventory): boolean {
  const sameMap = <T>(x: Map<string, T>, y: Map<string, T>, equal: (p: T, q: T) => boolean) =>
    x.size === y.size && [...x].every(([key, value]) => y.has(key) && equal(value, y.get(key) as T));
  const exact = (p: unknown, q: unknown) => p === q;
  const sameGroup = (p: TestGroup, q: TestGroup) =>
    sameMap(p.sets, q.sets, (s, t) => s.configs.length === t.configs.length && s.configs.every((c, i) => looseEqual(c, t.configs[i])));
  const sameUnit = (p: UnitAt, q: UnitAt) => p.file === q.file && p.body === q.body && canonicalJson(p.model) === canonicalJson(q.model);
  const sameModel = (p: ModelAt, q: ModelAt) =>
    p.file === q.file && looseEqual(p.spec, q.spec) && looseEqual(p.preRegistration, q.preRegistration);
  return (
    sameMap(a.groups, b.groups, sameGroup) &&
    sameMap(a.units, b.units, sameUnit) &&
    sameMap(a.models, b.models, sameModel) &&
    [...a.models.keys()].every((name) => modelFingerprint(a, name) === modelFingerprint(b, name)) &&
    sameMap(a.sqls, b.sqls, exact) &&
    sameMap(a.code, b.code, exact) &&
    sameMap(a.files, b.files, exact) &&
    sameMap(a.recons, b.recons, exact) &&
    sameMap(a.packages, b.packages, exact) &&
    sameMap(a.protected, b.protected, exact)
  );
}
