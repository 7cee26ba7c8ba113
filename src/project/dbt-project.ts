/**
 * The dbt project as `slp unit` needs it: dbt_project.yml (paths, vars,
 * dispatch, scoped configs), every model, seed, snapshot and source with the
 * columns and types its yml declares, the macro files, the unit-test entries
 * under every source path, the fixture files, and installed packages under
 * dbt_packages/. `slp check` reads far less (project.ts); this loader is for
 * running models.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";
import { isMapping, pythonStr, type Mapping, type Value } from "../core/values.ts";
import { parseCsv } from "./csv.ts";
import { dbtPathsOf } from "./dbt-paths.ts";
import { isYamlFile, listFiles, sortPathsBySegments, stem } from "./paths.ts";
import { readText } from "./project.ts";
import { parseYaml } from "./yaml.ts";

export interface DeclaredColumn {
  name: string;
  /** `data_type` as written in yml (or a seed's column_types), else null. */
  dataType: string | null;
}

/** A model, seed or snapshot: something `ref()` resolves to. */
export interface RefNode {
  kind: "model" | "seed" | "snapshot";
  package: string;
  name: string;
  /** The version as text ("1", "2"), or null for an unversioned node. */
  version: string | null;
  /** True for the latest version of a versioned model (and for every unversioned node). */
  latest: boolean;
  /** Project-relative .sql (model), .csv (seed) or null. */
  file: string | null;
  /** The yml that declares it, or null. */
  ymlFile: string | null;
  columns: DeclaredColumn[];
  /** True when the yml lists every column: an enforced contract, or a seed's CSV header. */
  columnsComplete: boolean;
  materialized: string;
  enabled: boolean;
  /** The relation name (alias or name, `_v<N>` for a version). */
  identifier: string;
}

export interface SourceNode {
  package: string;
  source: string;
  table: string;
  file: string;
  columns: DeclaredColumn[];
}

/** One `unit_tests:` entry as written, with where it is. */
export interface UnitTestEntry {
  entry: Mapping;
  file: string;
  /** Its index in the file's `unit_tests:` list. */
  index: number;
  /** Folders of the yml below its top source path, for dbt_project.yml scoping. */
  folders: string[];
}

export interface DispatchRule {
  namespace: string;
  searchOrder: string[];
}

export interface DbtProject {
  /** Absolute directory. */
  dir: string;
  /** Path prefix of this project's files relative to the root project ("" for the root). */
  prefix: string;
  name: string;
  modelPaths: string[];
  macroPaths: string[];
  seedPaths: string[];
  testPaths: string[];
  /** dbt_project.yml `vars:` as written (global keys and per-package mappings). */
  vars: Mapping;
  dispatch: DispatchRule[];
  /** dbt_project.yml `models:`, `seeds:`, `unit_tests:` blocks. */
  configBlocks: { models: Mapping; seeds: Mapping; unit_tests: Mapping };
  refNodes: RefNode[];
  sources: SourceNode[];
  unitTests: UnitTestEntry[];
  /** Project-relative macro files, sorted. */
  macroFiles: string[];
  /** Fixture name -> every file with that name under `<test-path>/fixtures/`. */
  fixtures: Map<string, string[]>;
  /** Installed packages by name (only for the root project). */
  packages: Map<string, DbtProject>;
  /** Newest modification time (ms) of the files compiled code depends on. */
  newestSource: number;
}

/** Reads the project at `dir` (and, for the root, its installed packages). */
export function loadDbtProject(dir: string, dirAsGiven: string, prefix = ""): DbtProject {
  const projectFile = `${prefix}dbt_project.yml`;
  if (!existsSync(join(dir, projectFile))) {
    throw new InputError(`${dirAsGiven} has no dbt_project.yml, so it is not a dbt project`, {
      fix: "pass the folder that holds dbt_project.yml with --project-dir",
    });
  }
  const parsed = parseYaml(readText(dir, projectFile), { file: projectFile });
  const config = isMapping(parsed) ? parsed : {};
  const name = typeof config.name === "string" ? config.name : "";
  if (name === "") {
    throw new InputError("dbt_project.yml has no name", { file: projectFile, line: 1, fix: "add name: <project name> to dbt_project.yml" });
  }
  const declared = dbtPathsOf(config, prefix);
  const project: DbtProject = {
    dir,
    prefix,
    name,
    modelPaths: declared["model-paths"],
    macroPaths: declared["macro-paths"],
    seedPaths: declared["seed-paths"],
    testPaths: declared["test-paths"],
    vars: isMapping(config.vars) ? config.vars : {},
    dispatch: readDispatch(config.dispatch),
    configBlocks: {
      models: isMapping(config.models) ? config.models : {},
      seeds: isMapping(config.seeds) ? config.seeds : {},
      unit_tests: isMapping(config.unit_tests) ? config.unit_tests : {},
    },
    refNodes: [],
    sources: [],
    unitTests: [],
    macroFiles: [],
    fixtures: new Map(),
    packages: new Map(),
    newestSource: mtime(join(dir, projectFile)),
  };

  const sourcePaths = [
    ...project.modelPaths,
    ...project.seedPaths,
    ...declared["snapshot-paths"],
    ...declared["analysis-paths"],
    ...project.macroPaths,
    ...project.testPaths,
    ...declared["function-paths"],
  ];
  const seen = new Set<string>();
  const yml: { file: string; top: string }[] = [];
  for (const top of sourcePaths) {
    for (const file of sortPathsBySegments(listFiles(dir, top))) {
      // tests/mutation_equivalents.yml is slp mutate's list of equivalent mutants, not a properties file.
      if (!isYamlFile(file) || seen.has(file) || file === `${prefix}tests/mutation_equivalents.yml`) continue;
      seen.add(file);
      yml.push({ file, top });
    }
  }
  const declarations = new Declarations();
  for (const { file, top } of yml) {
    const text = readText(dir, file);
    const document = parseYaml(text, { file });
    if (document === null) continue;
    if (!isMapping(document)) {
      throw new InputError(`${file} is not a yml mapping`, { file, line: 1, fix: "a dbt properties file is a mapping with keys such as models and unit_tests" });
    }
    declarations.read(document, file);
    const units = document.unit_tests;
    if (Array.isArray(units)) {
      const folders = file.slice(top.length + 1).split("/").slice(0, -1);
      units.forEach((entry, index) => {
        if (!isMapping(entry)) {
          throw new InputError(`unit_tests in ${file} must be a list of entries`, { file, fix: "write each unit test as a list item (- name: ...)" });
        }
        project.unitTests.push({ entry, file, index, folders });
      });
    }
  }

  readModels(project, declarations);
  readSeeds(project, declarations);
  for (const snapshot of declarations.snapshots) {
    project.refNodes.push({
      kind: "snapshot", package: name, name: snapshot.name, version: null, latest: true, file: null, ymlFile: snapshot.file,
      columns: columnsOf(snapshot.entry.columns), columnsComplete: false, materialized: "snapshot", enabled: true, identifier: snapshot.name,
    });
  }
  project.sources = declarations.sources.map((source) => ({ ...source, package: name }));

  for (const macroPath of project.macroPaths) {
    for (const file of listFiles(dir, macroPath)) if (file.endsWith(".sql")) project.macroFiles.push(file);
  }
  project.macroFiles = sortPathsBySegments(project.macroFiles);
  for (const file of project.macroFiles) project.newestSource = Math.max(project.newestSource, mtime(join(dir, file)));
  for (const testPath of project.testPaths) {
    for (const file of sortPathsBySegments(listFiles(dir, `${testPath}/fixtures`))) {
      const base = file.slice(file.lastIndexOf("/") + 1);
      if (/^[.#~]/.test(base) || !/\.(csv|sql)$/.test(base)) continue;
      const list = project.fixtures.get(stem(file)) ?? [];
      list.push(file);
      project.fixtures.set(stem(file), list);
    }
  }
  if (prefix === "") readPackages(project, config, dirAsGiven);
  return project;
}

/** dbt_project.yml configs scoped by fqn (`models: {proj: {marts: {+tags: [x]}}}`), merged from the top down. */
export function scopedConfig(block: Mapping, fqn: readonly string[]): Mapping {
  const merged: Mapping = {};
  let level: Mapping | undefined = block;
  const apply = (mapping: Mapping) => {
    for (const [key, value] of Object.entries(mapping)) {
      if (key.startsWith("+")) mergeConfig(merged, key.slice(1), value);
      else if (!isMapping(value) || MAPPING_CONFIGS.has(key)) mergeConfig(merged, key, value);
    }
  };
  for (const step of [undefined, ...fqn]) {
    if (step !== undefined) {
      const next: Value | undefined = level?.[step];
      if (!isMapping(next)) break;
      level = next;
    }
    if (level) apply(level);
  }
  return merged;
}

/** Config keys whose values are mappings, so they are not mistaken for folders. */
const MAPPING_CONFIGS = new Set(["meta", "docs", "persist_docs", "contract", "grants", "column_types", "quote_columns", "labels"]);

/** tags append, meta merges key by key, the rest replaces (dbt's MergeBehavior). */
export function mergeConfig(target: Mapping, key: string, value: Value): void {
  if (key === "tags") {
    const existing = Array.isArray(target.tags) ? target.tags : [];
    const added = Array.isArray(value) ? value : value === null ? [] : [value];
    target.tags = [...existing, ...added.filter((tag) => !existing.includes(tag))];
  } else if (key === "meta" && isMapping(value)) {
    target.meta = { ...(isMapping(target.meta) ? target.meta : {}), ...value };
  } else target[key] = value;
}

/** Settings a model's SQL makes in `{{ config(...) }}`, read statically (only plain literals). */
export function sqlConfig(sql: string): Mapping {
  const out: Mapping = {};
  for (const call of sql.matchAll(/\{\{-?\s*config\s*\(([\s\S]*?)\)\s*-?\}\}/g)) {
    for (const pair of (call[1] ?? "").matchAll(/(\w+)\s*=\s*('[^']*'|"[^"]*"|true|false|True|False|\d+)/g)) {
      const raw = pair[2] as string;
      out[pair[1] as string] = /^['"]/.test(raw) ? raw.slice(1, -1) : /^(true|True)$/.test(raw) ? true : /^(false|False)$/.test(raw) ? false : Number(raw);
    }
  }
  return out;
}

// --- internal ---

interface Declared {
  name: string;
  file: string;
  entry: Mapping;
}

/** Everything the yml files declare, before it is joined with the .sql and .csv files. */
class Declarations {
  models = new Map<string, Declared>();
  seeds = new Map<string, Declared>();
  snapshots: Declared[] = [];
  sources: Omit<SourceNode, "package">[] = [];

  read(document: Mapping, file: string): void {
    for (const entry of entries(document.models)) {
      if (typeof entry.name === "string") this.models.set(entry.name, { name: entry.name, file, entry });
    }
    for (const entry of entries(document.seeds)) {
      if (typeof entry.name === "string") this.seeds.set(entry.name, { name: entry.name, file, entry });
    }
    for (const entry of entries(document.snapshots)) {
      if (typeof entry.name === "string") this.snapshots.push({ name: entry.name, file, entry });
    }
    for (const source of entries(document.sources)) {
      if (typeof source.name !== "string") continue;
      for (const table of entries(source.tables)) {
        if (typeof table.name !== "string") continue;
        this.sources.push({ source: source.name, table: table.name, file, columns: columnsOf(table.columns) });
      }
    }
  }
}

function entries(value: Value | undefined): Mapping[] {
  return Array.isArray(value) ? value.filter(isMapping) : [];
}

function columnsOf(value: Value | undefined): DeclaredColumn[] {
  return entries(value)
    .filter((column) => typeof column.name === "string")
    .map((column) => ({ name: column.name as string, dataType: typeof column.data_type === "string" && column.data_type.trim() !== "" ? column.data_type : null }));
}

function readModels(project: DbtProject, declarations: Declarations): void {
  const sqlByStem = new Map<string, string>();
  for (const modelPath of project.modelPaths) {
    for (const file of sortPathsBySegments(listFiles(project.dir, modelPath))) {
      if (!file.endsWith(".sql")) continue;
      if (!sqlByStem.has(stem(file))) sqlByStem.set(stem(file), file);
    }
  }
  const claimed = new Set<string>();
  const folderOf = (file: string) => {
    const top = project.modelPaths.find((path) => file.startsWith(`${path}/`)) ?? "";
    return file.slice(top.length + 1).split("/").slice(0, -1);
  };
  const makeNode = (name: string, version: string | null, latest: boolean, file: string | null, declared: Declared | undefined, versionEntry: Mapping | null): RefNode => {
    const fqn = [project.name, ...(file ? folderOf(file) : []), name];
    const config: Mapping = { ...scopedConfig(project.configBlocks.models, fqn) };
    const yamlConfig = declared && isMapping(declared.entry.config) ? declared.entry.config : {};
    for (const [key, value] of Object.entries(yamlConfig)) mergeConfig(config, key, value);
    if (versionEntry && isMapping(versionEntry.config)) for (const [key, value] of Object.entries(versionEntry.config)) mergeConfig(config, key, value);
    if (file) {
      project.newestSource = Math.max(project.newestSource, mtime(join(project.dir, file)));
      for (const [key, value] of Object.entries(sqlConfig(readText(project.dir, file)))) mergeConfig(config, key, value);
    }
    let columns = columnsOf(declared?.entry.columns);
    if (versionEntry) {
      const own = columnsOf(versionEntry.columns);
      const excluded = new Set<string>();
      for (const item of entries(versionEntry.columns)) {
        if (Array.isArray(item.exclude)) for (const name of item.exclude) excluded.add(String(name));
      }
      columns = [...columns.filter((column) => !excluded.has(column.name)).map((column) => own.find((o) => o.name === column.name) ?? column), ...own.filter((o) => !columns.some((c) => c.name === o.name))];
    }
    const contract = config.contract;
    const alias = typeof config.alias === "string" ? config.alias : version === null ? name : `${name}_v${version}`;
    return {
      kind: "model",
      package: project.name,
      name,
      version,
      latest,
      file,
      ymlFile: declared?.file ?? null,
      columns,
      columnsComplete: isMapping(contract) && contract.enforced === true && columns.length > 0,
      materialized: typeof config.materialized === "string" ? config.materialized : "view",
      enabled: config.enabled !== false,
      identifier: alias,
    };
  };

  for (const declared of declarations.models.values()) {
    const versions = entries(declared.entry.versions);
    if (versions.length === 0) continue;
    const labels = versions.map((entry) => pythonStr(entry.v ?? null));
    const latest = declared.entry.latest_version !== undefined && declared.entry.latest_version !== null
      ? pythonStr(declared.entry.latest_version)
      : [...labels].sort((a, b) => (Number(a) - Number(b)) || compareCodePoints(a, b)).at(-1);
    versions.forEach((entry, i) => {
      const label = labels[i] as string;
      const definedIn = typeof entry.defined_in === "string" ? entry.defined_in : `${declared.name}_v${label}`;
      const file = sqlByStem.get(definedIn) ?? null;
      if (file) claimed.add(stem(file));
      project.refNodes.push(makeNode(declared.name, label, label === latest, file, declared, entry));
    });
  }
  for (const [name, file] of sqlByStem) {
    if (claimed.has(name)) continue;
    const declared = declarations.models.get(name);
    if (declared && entries(declared.entry.versions).length > 0) continue;
    project.refNodes.push(makeNode(name, null, true, file, declared, null));
  }
}

function readSeeds(project: DbtProject, declarations: Declarations): void {
  for (const seedPath of project.seedPaths) {
    for (const file of sortPathsBySegments(listFiles(project.dir, seedPath))) {
      if (!file.endsWith(".csv")) continue;
      const name = stem(file);
      const declared = declarations.seeds.get(name);
      const top = file.slice(seedPath.length + 1).split("/").slice(0, -1);
      const config: Mapping = { ...scopedConfig(project.configBlocks.seeds, [project.name, ...top, name]) };
      if (declared && isMapping(declared.entry.config)) for (const [key, value] of Object.entries(declared.entry.config)) mergeConfig(config, key, value);
      const columnTypes = isMapping(config.column_types) ? config.column_types : {};
      const declaredColumns = columnsOf(declared?.entry.columns);
      const names = parseCsv(readText(project.dir, file), { file, fix: "save the seed as CSV with a header line" })[0] ?? [];
      const columns = names.map((column) => {
        const typed = Object.entries(columnTypes).find(([key]) => key.toLowerCase() === column.toLowerCase());
        const fromYaml = declaredColumns.find((c) => c.name.toLowerCase() === column.toLowerCase());
        return { name: column, dataType: typed ? pythonStr(typed[1]) : fromYaml?.dataType ?? null };
      });
      project.refNodes.push({
        kind: "seed", package: project.name, name, version: null, latest: true, file, ymlFile: declared?.file ?? null,
        columns, columnsComplete: true, materialized: "seed", enabled: config.enabled !== false, identifier: typeof config.alias === "string" ? config.alias : name,
      });
    }
  }
}

function readDispatch(value: Value | undefined): DispatchRule[] {
  return entries(value)
    .filter((rule) => typeof rule.macro_namespace === "string" && Array.isArray(rule.search_order))
    .map((rule) => ({ namespace: rule.macro_namespace as string, searchOrder: (rule.search_order as Value[]).map(String) }));
}

function readPackages(project: DbtProject, config: Mapping, dirAsGiven: string): void {
  const installPath = typeof config["packages-install-path"] === "string" ? config["packages-install-path"] : "dbt_packages";
  let names: string[] = [];
  try {
    names = statSync(join(project.dir, installPath)).isDirectory() ? listDirs(join(project.dir, installPath)) : [];
  } catch {
    names = [];
  }
  for (const folder of names.sort(compareCodePoints)) {
    const prefix = `${installPath}/${folder}/`;
    if (!existsSync(join(project.dir, `${prefix}dbt_project.yml`))) continue;
    const pkg = loadDbtProject(project.dir, `${dirAsGiven}/${prefix}`, prefix);
    pkg.unitTests = [];
    project.packages.set(pkg.name, pkg);
  }
}

function listDirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
