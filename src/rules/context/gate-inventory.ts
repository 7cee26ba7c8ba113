/**
 * What `gate` compares between commits (spec/rules.md §2.2), read from the
 * project model at each commit: the models the yml under the top folders
 * declare (in git's plain path order, the later of two declarations kept),
 * their data tests as bags, their unit tests, and the hashes of the files
 * the other rules watch (model sql, tests/, reconciliations, package pins,
 * protected paths).
 */
import { InputError } from "../../core/errors.ts";
import { compareCodePoints } from "../../core/text.ts";
import { canonicalJson, isMapping, looseEqual, type Mapping, type Value } from "../../core/values.ts";
import { baseConfig, projectAt, type Branch } from "../../project/history.ts";
import { ParseStore, ymlIn, type ModelDeclaration, type Project } from "../../project/model.ts";
import { DEFAULT_MARTS_PATHS, normaliseMartsPath, stem, topDirectories } from "../../project/paths.ts";
import { joinPath, matchesProtected, protectedPatterns } from "../../project/protected.ts";
import type { LoadedConfig } from "../../project/config.ts";
import type { PropertiesFile } from "../../project/properties.ts";
import type { SourceFile } from "../../project/source.ts";

export type ModelAt = ModelDeclaration;

/** One declaration of a test: its config, and where its item is. */
export interface TestEntry {
  config: Mapping;
  file: string;
  line: number;
}

/** The configs of every declaration of one test with one argument set: a bag, twins accumulate. */
export interface TestSet {
  args: Mapping;
  configs: Mapping[];
  /** The same declarations, with their places, in bag order. */
  entries: TestEntry[];
}

/** One test (model, column, name) with each argument set it is declared with, by canonical arguments. */
export interface TestGroup {
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
}

/** The full inventory, at the merge-base and at head. Hashes are blob ids. */
export interface Inventory extends Declared {
  /** The project model at this commit. */
  project: Project;
  /** Stem -> path of each `.sql` under the top folders (not protected); the later path wins. */
  sqls: Map<string, string>;
  /** Stem -> blob id of that `.sql`. */
  code: Map<string, string>;
  /** Every file under `tests/` -> blob id. */
  files: Map<string, string>;
  /** `tests/**.sql` outside `tests/generic/`, to read a new one's config. */
  singular: Map<string, SourceFile>;
  /** `analyses/reconciliation_*` -> blob id. */
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
  config: LoadedConfig;
  before: Inventory;
  after: Inventory;
  /** The merge-base, each commit between, then head. */
  walk: WalkStep[];
}

export const PACKAGE_FILES = ["packages.yml", "package-lock.yml", "dependencies.yml"] as const;

export function groupKey(model: string, column: string, name: string): string {
  return JSON.stringify([model, column, name]);
}

export function unitKey(model: Value, name: string): string {
  return JSON.stringify([canonicalJson(model), name]);
}

/**
 * Reads slp.yml from the base, checks the marts paths at head, and reads the
 * project at every commit of the walk: whole at the merge-base and at head,
 * its yml declarations in between.
 */
export async function readInventories(branch: Branch, martsPath: string[] | undefined, store = new ParseStore()): Promise<BranchInventories> {
  const { repo, prefix } = branch;
  const config = await baseConfig(branch);
  const martsPaths = (martsPath ?? config.config.marts_paths ?? DEFAULT_MARTS_PATHS).map(normaliseMartsPath);
  for (const marts of martsPaths) {
    if ((await repo.filesIn(branch.headCommit, [joinPath(prefix, marts)])).length === 0) {
      throw new InputError(`${marts} holds no file at ${branch.headRef}; nothing to check is not OK`, {
        fix: "pass the folder that holds your marts models with --marts-path (or marts_paths in slp.yml on the base branch)",
      });
    }
  }
  const reader = new InventoryReader(branch, store, topDirectories(martsPaths), config.config.protected_paths ?? []);
  const short = (oid: string) => repo.shortSha(oid);
  const before = await reader.full(branch.mergeBase, `commit ${short(branch.mergeBase)}`);
  const walk: WalkStep[] = [{ commit: branch.mergeBase, label: branch.baseRef, declared: before }];
  for (const commit of branch.commits.slice(0, -1)) {
    walk.push({ commit, label: await repo.label(commit), declared: await reader.declared(commit, `commit ${short(commit)}`) });
  }
  const after = await reader.full(branch.headCommit, `${branch.headRef} (${short(branch.headCommit)})`);
  walk.push({ commit: branch.headCommit, label: await repo.label(branch.headCommit), declared: after });
  store.save();
  return { martsPaths, config, before, after, walk };
}

/** Reads inventories at commits of one branch, reusing parses and the declarations of unchanged top folders. */
class InventoryReader {
  readonly #branch: Branch;
  readonly #store: ParseStore;
  readonly #topDirs: readonly string[];
  /** Protected patterns, repository-relative: a trailing slash is a folder. */
  readonly #protectedRepo: string[];
  readonly #declared = new Map<string, Promise<Declared>>();

  constructor(branch: Branch, store: ParseStore, topDirs: readonly string[], extraProtected: readonly string[]) {
    this.#branch = branch;
    this.#store = store;
    this.#topDirs = topDirs;
    this.#protectedRepo = protectedPatterns({ prefix: branch.prefix, extra: extraProtected });
  }

  /** The full inventory at a commit (§5's read plan). */
  async full(commit: string, at: string): Promise<Inventory> {
    const project = projectAt(this.#branch, commit, at, this.#store);
    // dbt_project.yml is read as every command reads it: a malformed one is refused here too.
    await project.settings();
    const protectedPaths = this.#protectedRepo.map((path) => project.source.fromRepository(path));
    const isProtected = (path: string) => protectedPaths.some((pattern) => matchesProtected(pattern, path));
    const scope = [...this.#topDirs, "tests/", "analyses/", ...PACKAGE_FILES, ...protectedPaths];
    const files = await project.list(scope);
    const inventory: Omit<Inventory, keyof Declared> = {
      project,
      sqls: new Map(),
      code: new Map(),
      files: new Map(),
      singular: new Map(),
      recons: new Map(),
      packages: new Map(),
      protected: new Map(),
    };
    for (const file of files) {
      const { path } = file;
      const id = file.id as string;
      if (isProtected(path)) {
        inventory.protected.set(path, id);
      } else if (path.endsWith(".sql") && this.#topDirs.some((top) => path.startsWith(top))) {
        // A stem met twice keeps its later path (and that path's hash).
        inventory.sqls.set(stem(path), path);
        inventory.code.set(stem(path), id);
      } else if (path.startsWith("tests/")) {
        inventory.files.set(path, id);
        if (path.endsWith(".sql") && !path.startsWith("tests/generic/")) inventory.singular.set(path, file);
      } else if (path.startsWith("analyses/reconciliation_")) {
        inventory.recons.set(path, id);
      } else if ((PACKAGE_FILES as readonly string[]).includes(path)) {
        inventory.packages.set(path, id);
      }
    }
    const ymls = ymlIn(files).filter((file) => this.#topDirs.some((top) => file.path.startsWith(top)));
    const declared = mergeDeclared(await project.propertiesOf(ymls), false);
    return { ...declared, ...inventory };
  }

  /** What the yml under the top folders declare at a commit; a commit that left them untouched costs a lookup. */
  async declared(commit: string, at: string): Promise<Declared> {
    const { repo, prefix } = this.#branch;
    const trees = await Promise.all(this.#topDirs.map((top) => repo.treeAt(commit, joinPath(prefix, top.slice(0, -1)))));
    const key = trees.join(",");
    let promise = this.#declared.get(key);
    if (!promise) {
      promise = (async () => {
        const project = projectAt(this.#branch, commit, at, this.#store);
        return mergeDeclared(await project.propertiesOf(ymlIn(await project.list(this.#topDirs))), true);
      })();
      this.#declared.set(key, promise);
    }
    return promise;
  }
}

/**
 * Merges the declarations of yml files listed in plain string order: a model
 * declared twice keeps the later declaration, data tests of both accumulate,
 * a unit test with the same (model, name) is the later. `modelsOnly` skips
 * tests and unit tests (the commits inside the walk need only models; their
 * files are still read, so a broken one is refused).
 */
function mergeDeclared(files: readonly PropertiesFile[], modelsOnly: boolean): Declared {
  const declared: Declared = { models: new Map(), groups: new Map(), units: new Map() };
  const ordered = [...files].sort((a, b) => compareCodePoints(a.file, b.file));
  for (const file of ordered) {
    for (const model of file.models) {
      declared.models.set(model.name, model);
      if (modelsOnly) continue;
      for (const test of model.tests) {
        const key = groupKey(model.name, test.column, test.name);
        let group = declared.groups.get(key);
        if (!group) {
          group = { model: model.name, column: test.column, name: test.name, sets: new Map() };
          declared.groups.set(key, group);
        }
        let set = group.sets.get(test.argsKey);
        if (!set) {
          set = { args: test.args, configs: [], entries: [] };
          group.sets.set(test.argsKey, set);
        }
        set.configs.push(test.config);
        set.entries.push({ config: test.config, file: model.file, line: test.line });
      }
    }
    if (modelsOnly) continue;
    for (const unit of file.unitTests) {
      const { description: _description, ...body } = unit.entry;
      declared.units.set(unitKey(unit.model, unit.name), { name: unit.name, model: unit.model, file: unit.file, line: unit.line, body: canonicalJson(body) });
    }
  }
  return declared;
}

/**
 * G5's "the model changed": its yml entry without `pre_registration` (under
 * `meta` and `config.meta`; the emptied holder stays) plus its sql's blob id.
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
  return `${canonicalJson(entry)}\0${inventory.code.get(name) ?? ""}`;
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
