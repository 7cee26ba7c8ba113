/**
 * What `gate` compares between commits (spec/rules.md §2.2): a project's
 * inventory at one commit, built from the files git lists there. Pure of git:
 * it is handed a listing and a way to read a file, and every yml is parsed
 * once per blob (a file unchanged across commits is never parsed twice).
 */
import { canonicalJson, isMapping, looseEqual, type Mapping, type Value } from "../core/values.ts";
import { compareCodePoints } from "../core/text.ts";
import { isYamlFile, stem } from "./paths.ts";
import { readDeclarations, type Declarations } from "./project.ts";

/** A file at a commit: its path relative to the project dir, its blob id (its content hash), and a reader. */
export interface ListedFile {
  path: string;
  oid: string;
  read(): Promise<string>;
}

export interface ModelAt {
  name: string;
  /** The yml that declares it (the later one, when two do). */
  file: string;
  entry: Mapping;
  spec: Value;
  preRegistration: Value;
}

/** The configs of every declaration of one test with one argument set: a bag, twins accumulate. */
export interface TestSet {
  args: Mapping;
  configs: Mapping[];
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
  /** Stem -> path of each `.sql` under the top folders (not protected); the later path wins. */
  sqls: Map<string, string>;
  /** Stem -> blob id of that `.sql`. */
  code: Map<string, string>;
  /** Every file under `tests/` -> blob id. */
  files: Map<string, string>;
  /** `tests/**.sql` outside `tests/generic/`, to read a new one's config. */
  singular: Map<string, ListedFile>;
  /** `analyses/reconciliation_*` -> blob id. */
  recons: Map<string, string>;
  /** `packages.yml`, `package-lock.yml`, `dependencies.yml` -> blob id. */
  packages: Map<string, string>;
  /** Every protected path -> blob id. */
  protected: Map<string, string>;
}

export const PACKAGE_FILES = ["packages.yml", "package-lock.yml", "dependencies.yml"] as const;

/** Which paths an inventory reads, and how (project-relative, `/`-separated). */
export interface ReadPlan {
  /** The top folders (`models/`), with their trailing slash. */
  topDirs: readonly string[];
  isProtected(path: string): boolean;
}

export function groupKey(model: string, column: string, name: string): string {
  return JSON.stringify([model, column, name]);
}

export function unitKey(model: Value, name: string): string {
  return JSON.stringify([canonicalJson(model), name]);
}

/** One yml's declarations, digested once: test identities and unit bodies are computed when it is first parsed. */
interface FileDigest {
  models: ModelAt[];
  tests: { key: string; model: string; column: string; name: string; argsKey: string; args: Mapping; config: Mapping }[];
  units: { key: string; unit: UnitAt }[];
}

/** Parses each yml once per (blob, path), whatever commit it is met at; `at` names the first one in errors. */
export class DeclarationCache {
  readonly #parsed = new Map<string, Promise<FileDigest>>();
  readonly #done = new Map<string, FileDigest>();

  get(file: ListedFile, at: string): Promise<FileDigest> {
    const key = `${file.oid}\0${file.path}`;
    let promise = this.#parsed.get(key);
    if (!promise) {
      promise = file.read().then((text) => {
        const digest = digest_(readDeclarations(file.path, text, at));
        this.#done.set(key, digest);
        return digest;
      });
      this.#parsed.set(key, promise);
    }
    return promise;
  }

  /** The digest of a file already parsed, without waiting. */
  peek(file: ListedFile): FileDigest | undefined {
    return this.#done.get(`${file.oid}\0${file.path}`);
  }
}

function digest_(declarations: Declarations): FileDigest {
  const digest: FileDigest = { models: [], tests: [], units: [] };
  for (const model of declarations.models) {
    digest.models.push({
      name: model.name,
      file: model.file,
      entry: model.entry,
      spec: model.spec,
      preRegistration: model.preRegistration,
    });
    for (const test of model.tests) {
      digest.tests.push({
        key: groupKey(model.name, test.column, test.name),
        model: model.name,
        column: test.column,
        name: test.name,
        argsKey: test.argsKey,
        args: test.args,
        config: test.config,
      });
    }
  }
  for (const unit of declarations.unitTests) {
    const { description: _description, ...body } = unit.entry;
    digest.units.push({
      key: unitKey(unit.model, unit.name),
      unit: { name: unit.name, model: unit.model, file: unit.file, body: canonicalJson(body) },
    });
  }
  return digest;
}

/** The yml files of a listing that an inventory parses: under a top folder, ending in .yml or .yaml. */
export function ymlFiles(files: readonly ListedFile[], plan: ReadPlan): ListedFile[] {
  return files.filter((file) => isYamlFile(file.path) && plan.topDirs.some((top) => file.path.startsWith(top)));
}

/**
 * Merges the declarations of the given yml files, read in plain string order
 * of their paths: a model declared twice keeps the later declaration, data
 * tests of both accumulate, a unit test with the same (model, name) is the
 * later. `modelsOnly` skips tests and unit tests (the commits inside the walk
 * need only models; their files are still parsed, so a broken one is refused).
 */
export async function readDeclared(
  ymls: readonly ListedFile[],
  cache: DeclarationCache,
  at: string,
  modelsOnly = false,
): Promise<Declared> {
  const ordered = [...ymls].sort((a, b) => compareCodePoints(a.path, b.path));
  const digests: (FileDigest | undefined)[] = ordered.map((file) => cache.peek(file));
  const missing = ordered.flatMap((file, i) => (digests[i] ? [] : [i]));
  if (missing.length > 0) {
    const settled = await Promise.allSettled(missing.map((i) => cache.get(ordered[i] as ListedFile, at)));
    settled.forEach((result, j) => {
      if (result.status === "fulfilled") digests[missing[j] as number] = result.value;
    });
    // The first file in read order that cannot be read is the one named.
    const failed = settled.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
  const declared: Declared = { models: new Map(), groups: new Map(), units: new Map() };
  for (const digest of digests as FileDigest[]) {
    for (const model of digest.models) declared.models.set(model.name, model);
    if (modelsOnly) continue;
    for (const test of digest.tests) {
      let group = declared.groups.get(test.key);
      if (!group) {
        group = { model: test.model, column: test.column, name: test.name, sets: new Map() };
        declared.groups.set(test.key, group);
      }
      let set = group.sets.get(test.argsKey);
      if (!set) {
        set = { args: test.args, configs: [] };
        group.sets.set(test.argsKey, set);
      }
      set.configs.push(test.config);
    }
    for (const { key, unit } of digest.units) declared.units.set(key, unit);
  }
  return declared;
}

/** The full inventory of a listing (§5's read plan, paths in plain string order). */
export async function readInventory(
  files: readonly ListedFile[],
  plan: ReadPlan,
  cache: DeclarationCache,
  at: string,
): Promise<Inventory> {
  const inventory: Omit<Inventory, keyof Declared> = {
    sqls: new Map(),
    code: new Map(),
    files: new Map(),
    singular: new Map(),
    recons: new Map(),
    packages: new Map(),
    protected: new Map(),
  };
  const ordered = [...files].sort((a, b) => compareCodePoints(a.path, b.path));
  for (const file of ordered) {
    const path = file.path;
    if (plan.isProtected(path)) {
      inventory.protected.set(path, file.oid);
    } else if (path.endsWith(".sql") && plan.topDirs.some((top) => path.startsWith(top))) {
      // A stem met twice keeps its later path (and that path's hash).
      inventory.sqls.set(stem(path), path);
      inventory.code.set(stem(path), file.oid);
    } else if (path.startsWith("tests/")) {
      inventory.files.set(path, file.oid);
      if (path.endsWith(".sql") && !path.startsWith("tests/generic/")) inventory.singular.set(path, file);
    } else if (path.startsWith("analyses/reconciliation_")) {
      inventory.recons.set(path, file.oid);
    } else if ((PACKAGE_FILES as readonly string[]).includes(path)) {
      inventory.packages.set(path, file.oid);
    }
  }
  const declared = await readDeclared(ymlFiles(files, plan), cache, at);
  return { ...declared, ...inventory };
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
