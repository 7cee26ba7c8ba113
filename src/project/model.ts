/**
 * THE model of a dbt project, the one every command reads: dbt_project.yml,
 * the files of each project folder, what every yml declares (with lines),
 * every node dbt knows (models, seeds, snapshots, sources, analyses, tests,
 * unit tests) with its config put together the way dbt does it, the DAG read
 * statically from the SQL, and the installed packages. It reads from a
 * FileSource, so the work tree and any commit are read alike, and everything
 * is lazy and memoized: a command pays only for what its rules ask.
 */
import { basename } from "node:path";
import { InputError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";
import { isMapping, pythonStr, type Mapping } from "../core/values.ts";
import type { ParseCache } from "./files/cache.ts";
import { folderConfig, mergeConfig, mergeConfigs, sqlConfig } from "./dbt/node-config.ts";
import { isYamlFile, sortPathsBySegments, stem } from "./files/paths.ts";
import { EQUIVALENTS_NAME } from "./history/protected.ts";
import {
  readProperties,
  type ColumnDeclaration,
  type Declaration,
  type ModelDeclaration,
  type PropertiesFile,
  type SourceTableDeclaration,
  type Testable,
  type UnitTestDeclaration,
} from "./dbt/properties.ts";
import { relationCalls, type FoundCall, type RelationCall } from "./dbt/relations.ts";
import { RelationIndex } from "./dbt/resolve.ts";
import { readSettings, type ConfigBlock, type DispatchRule, type ProjectSettings } from "./dbt/dbt-project.ts";
import type { FileSource, SourceFile } from "./files/source.ts";
import type { DataTest } from "./dbt/data-tests.ts";
import { judgeExpression, varScopes } from "./dbt/enabled-expression.ts";
import { knownJsonExact, parseYamlWithLines, type ParsedYaml } from "./files/yaml.ts";

export type { ColumnDeclaration, Declaration, ModelDeclaration, PropertiesFile, SourceTableDeclaration, Testable, UnitTestDeclaration };

/** One version a model's yml declares (dbt's model versions). */
export interface DeclaredVersion {
  /** The version as text ("1", "2"). */
  label: string;
  /** True for `latest_version`, or the highest version when the yml names none. */
  latest: boolean;
  /** The stem of the file defining it: `defined_in`, else `<model>_v<label>`. */
  definedIn: string;
  entry: Mapping;
}

/** The stem of the file an unversioned ref() to a declared model reads: its latest version's, else its own name's. */
export function refReads(declaration: { name: string; entry: Mapping }): string {
  return declaredVersions(declaration).find((version) => version.latest)?.definedIn ?? declaration.name;
}

/** The versions a model's yml declares, in their order; none for an unversioned model. */
export function declaredVersions(declaration: { name: string; entry: Mapping }): DeclaredVersion[] {
  const versions = Array.isArray(declaration.entry.versions) ? declaration.entry.versions.filter(isMapping) : [];
  const labels = versions.map((entry) => pythonStr(entry.v ?? null));
  const latest =
    declaration.entry.latest_version !== undefined && declaration.entry.latest_version !== null
      ? pythonStr(declaration.entry.latest_version)
      : [...labels].sort((a, b) => Number(a) - Number(b) || compareCodePoints(a, b)).at(-1);
  return versions.map((entry, i) => {
    const label = labels[i] as string;
    return {
      label,
      latest: label === latest,
      definedIn: typeof entry.defined_in === "string" ? entry.defined_in : `${declaration.name}_v${label}`,
      entry,
    };
  });
}
export type { DispatchRule, ProjectSettings };

/** A column as a node has it: its name and the data type its yml (or a seed's column_types) gives, else null. */
export interface Column {
  name: string;
  dataType: string | null;
}

interface NodeBase {
  /** dbt's unique id: `model.shop.fct_orders`, `seed.shop.countries`, `source.shop.raw.orders`. */
  uniqueId: string;
  package: string;
  name: string;
  /** The file that defines the node (a .sql, .py or .csv), or its yml when only yml does; project-relative. */
  file: string | null;
  /** 1-based line of the node in `file` (its `{% snapshot %}` block, its yml entry), 1 for a whole file. */
  line: number;
  /** The yml entry that describes it, if any. */
  ymlFile: string | null;
  declaration: Testable | null;
  /** dbt's fully qualified name: package, folders, name. */
  fqn: string[];
  /** Folder configs, then the yml's `config:`, then the SQL's `config()`: dbt's precedence. */
  config: Mapping;
  /** Keys the SQL's `config()` sets to something that is not a literal (known only after rendering), as written. */
  dynamicConfig: Mapping;
  /** False when dbt leaves the node out (`+enabled: false`, yml `config: {enabled: false}`, `config(enabled=...)`). */
  enabled: boolean;
  /** The SQL's `config(enabled=<expression>)` when it is Jinja: what it renders to, or null and why slp cannot judge it. */
  enabledExpression: EnabledExpression | null;
  columns: ColumnDeclaration[];
  /** The data tests its yml declares on it and its columns. */
  tests: DataTest[];
}

/** A model, a seed or a snapshot: what `ref()` resolves to. */
export interface RefNode extends NodeBase {
  kind: "model" | "seed" | "snapshot";
  /** The version as text ("1", "2"), or null for an unversioned node. */
  version: string | null;
  /** True for the latest version of a versioned model (and for every unversioned node). */
  latest: boolean;
  /** `sql` or `python` for a model; null for a seed or a yml-only snapshot. */
  language: "sql" | "python" | null;
  /** True when the columns are all the columns: an enforced contract, or a seed's CSV header. */
  columnsComplete: boolean;
  materialized: string;
  /** The relation name (alias or name, `_v<N>` for a version). */
  identifier: string;
}

export interface SourceNode extends NodeBase {
  kind: "source";
  source: string;
  table: string;
  /** The yml declaring it (sources live in yml only). */
  file: string;
}

/** An analysis, a singular test or a generic test definition: a SQL file dbt compiles. */
export interface FileNode extends NodeBase {
  kind: "analysis" | "singular_test" | "generic_test";
  file: string;
}

export interface UnitTestNode {
  uniqueId: string;
  package: string;
  name: string;
  /** The tested model's name as written ("" when missing or not a text). */
  model: string;
  file: string;
  line: number;
  index: number;
  entry: Mapping;
  declaration: UnitTestDeclaration;
  /** Folders of its yml below the project folder it sits in, for dbt_project.yml scoping. */
  folders: string[];
  fqn: string[];
  /** `unit_tests:` folder configs, then its own `config:`. */
  config: Mapping;
  enabled: boolean;
}

/**
 * A data test a yml declares on a node or one of its columns, with its config
 * put together: the `data_tests:` folder configs along its fqn (the yml's
 * folders), then its own `config:` and config keys as written.
 */
export interface DataTestNode {
  /** The unique id of the node it tests. */
  on: string;
  /** The test's name as written (`unique`, `dbt_utils.accepted_range`). */
  name: string;
  /** The column it sits on, "" for a node-level test. */
  column: string;
  /** The yml that declares it. */
  file: string;
  /** 1-based line of its item. */
  readonly line: number;
  fqn: string[];
  config: Mapping;
  /** What it asserts (everything but config and inert keys). */
  args: Mapping;
  declaration: DataTest;
}

export interface MacroFileNode {
  package: string;
  file: string;
  /** Macro names it defines, `test_<name>` for a `{% test %}` block, with their lines. */
  macros: { name: string; line: number }[];
}

export type Node = RefNode | SourceNode | FileNode;

/** A `config(enabled=...)` written as Jinja, judged as dbt renders it at parse time (see dbt/enabled-expression.ts). */
export interface EnabledExpression {
  /** As written. */
  text: string;
  /** What it renders to, or null when slp cannot judge it. */
  value: boolean | null;
  /** Why it cannot be judged (set when value is null). */
  why?: string;
}

/** Every node of a project, each list in the order dbt lists files (path segments). */
export interface Nodes {
  models: RefNode[];
  seeds: RefNode[];
  snapshots: RefNode[];
  sources: SourceNode[];
  analyses: FileNode[];
  singularTests: FileNode[];
  genericTests: FileNode[];
  unitTests: UnitTestNode[];
  /** Every data test of a model, seed, snapshot or source table, in node order. */
  dataTests: DataTestNode[];
  macroFiles: MacroFileNode[];
  /** Fixture name -> every file with that name under `<test-path>/fixtures/`. */
  fixtures: Map<string, string[]>;
  /** Every yml read, in read order. */
  properties: PropertiesFile[];
  byId: Map<string, Node>;
}

/** One edge of the DAG: a call in a node's SQL and the node it names (null when it names nothing, or is dynamic). */
export interface Edge {
  from: string;
  to: string | null;
  call: RelationCall | null;
  text: string;
  line: number;
}

export interface Graph {
  /** Each node's parents, in the order its SQL calls them. */
  parents: Map<string, Edge[]>;
  /** Each node's children, sorted by id. */
  children: Map<string, string[]>;
  /** Calls that name no node of the project or its packages, or are built dynamically. */
  unresolved: Edge[];
  /** What a ref() or source() resolves to, over the project and its packages (what the edges were found with). */
  index: RelationIndex;
  /** Every node downstream of the given ones (they excluded), sorted. */
  downstream(ids: Iterable<string>): string[];
  /** Every node upstream of the given ones (they excluded), sorted. */
  upstream(ids: Iterable<string>): string[];
}

/**
 * Parses each yml once per content: in memory for one run (a blob met at
 * thirty commits is read once), and across runs in the parse cache.
 */
export class ParseStore {
  readonly #cache: ParseCache<ParsedYaml> | null;
  readonly #properties = new Map<string, Promise<PropertiesFile>>();

  constructor(cache?: ParseCache<ParsedYaml>) {
    this.#cache = cache ?? null;
  }

  /** A yml's parse, from the cache when the same text was parsed before. */
  async yaml(source: FileSource, file: SourceFile): Promise<{ parsed: ParsedYaml; id: string }> {
    // A work-tree file unchanged since it was hashed: a cached parse needs no read. (A commit's blob is read all the
    // same: reading it is what bounds it by file_mb.)
    const known = this.#cache ? source.knownId?.(file) : undefined;
    const cached = known === undefined ? undefined : this.#cache?.get(known);
    if (cached !== undefined) return { parsed: cached, id: known as string };
    const { text, id } = await source.read(file);
    const hit = this.#cache?.get(id);
    if (hit !== undefined) return { parsed: hit, id };
    const parsed = parseYamlWithLines(text, { file: file.path, at: source.at });
    this.#cache?.set(id, parsed, knownJsonExact(parsed));
    return { parsed, id };
  }

  /** What a properties file declares, read once per (content, path) when the listing knows the content; errors name the first commit it was met at. */
  properties(source: FileSource, file: SourceFile): Promise<PropertiesFile> {
    if (file.id === undefined) return this.#readProperties(source, file);
    const key = `${file.id}\0${file.path}`;
    let properties = this.#properties.get(key);
    if (!properties) {
      properties = this.#readProperties(source, file);
      this.#properties.set(key, properties);
    }
    return properties;
  }

  async #readProperties(source: FileSource, file: SourceFile): Promise<PropertiesFile> {
    const { parsed } = await this.yaml(source, file);
    return readProperties(file.path, parsed, source.at);
  }

  /** Writes what this run parsed to the parse cache. */
  save(): void {
    this.#cache?.save();
  }
}

export interface ProjectOptions {
  /** Shared with the other projects of one run (the commits of a history); a new one by default. */
  store?: ParseStore;
  /** `dbt_packages/x/` for an installed package; "" for the project itself. */
  prefix?: string;
  /** The project a package is installed in (its folder configs have the last word). */
  root?: Project<FileSource>;
  /** `--vars`, for the `var()` of a `config(enabled=...)` (dbt renders it at parse time); a package takes its root's. */
  vars?: Mapping;
}

export class Project<S extends FileSource = FileSource> {
  readonly source: S;
  readonly store: ParseStore;
  /** "" for the project itself; `dbt_packages/x/` for an installed package, whose paths all start with it. */
  readonly prefix: string;
  /** For an installed package, the project it is installed in; null for the project itself. */
  readonly root: Project<FileSource> | null;
  /** `--vars` as given on the command line. */
  readonly vars: Mapping;
  #settings?: Promise<ProjectSettings>;
  readonly #lists = new Map<string, Promise<SourceFile[]>>();
  readonly #texts = new Map<string, Promise<string>>();
  readonly #properties = new Map<string, Promise<PropertiesFile>>();
  #nodes?: Promise<Nodes>;
  #graph?: Promise<Graph>;
  #packages?: Promise<Project<S>[]>;

  constructor(source: S, options: ProjectOptions = {}) {
    this.source = source;
    this.store = options.store ?? new ParseStore();
    this.prefix = options.prefix ?? "";
    this.root = options.root ?? null;
    this.vars = options.vars ?? options.root?.vars ?? {};
  }

  /** dbt_project.yml, read and checked once. */
  settings(): Promise<ProjectSettings> {
    this.#settings ??= readSettings(this.source, this.prefix);
    return this.#settings;
  }

  /** The files under the folders (trailing slash) and at the paths of `scope`, sorted as plain strings. */
  list(scope: readonly string[]): Promise<SourceFile[]> {
    const key = scope.join("\0");
    let listed = this.#lists.get(key);
    if (!listed) {
      listed = this.source.list(scope);
      this.#lists.set(key, listed);
    }
    return listed;
  }

  /** A file's text, read once. */
  text(path: string): Promise<string> {
    let text = this.#texts.get(path);
    if (!text) {
      text = this.source.text(path);
      this.#texts.set(path, text);
    }
    return text;
  }

  /** What one yml declares, read once. */
  properties(file: SourceFile): Promise<PropertiesFile> {
    let properties = this.#properties.get(file.path);
    if (!properties) {
      properties = this.store.properties(this.source, file);
      this.#properties.set(file.path, properties);
    }
    return properties;
  }

  /**
   * The properties of yml files in a given order, read one after the other,
   * so the first file that cannot be read (in that order) is the one named.
   */
  async propertiesOf(files: readonly SourceFile[]): Promise<PropertiesFile[]> {
    const settled = await Promise.allSettled(files.map((file) => this.properties(file)));
    const failed = settled.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return settled.map((result) => (result as PromiseFulfilledResult<PropertiesFile>).value);
  }

  /** Every file under the project's folders (dbt_project.yml's model, seed, snapshot, analysis, macro, test and function paths). */
  async files(): Promise<SourceFile[]> {
    return this.list(projectFolders(await this.settings()).map((path) => `${path}/`));
  }

  /** Every node dbt knows, read from the project's folders. */
  nodes(): Promise<Nodes> {
    this.#nodes ??= readNodes(this);
    return this.#nodes;
  }

  /** The DAG, read statically from each node's SQL. */
  graph(): Promise<Graph> {
    this.#graph ??= readGraph(this);
    return this.#graph;
  }

  /** The installed packages (each a project of its own under packages-install-path), by folder name order. */
  packages(): Promise<Project<S>[]> {
    this.#packages ??= readPackages(this);
    return this.#packages;
  }
}

/** A file's folders below the project folder (of `roots`) it sits in: the middle of its fqn. */
function folderOf(file: string, roots: readonly string[]): string[] {
  const root = roots.find((path) => file.startsWith(`${path}/`)) ?? "";
  return file
    .slice(root.length + 1)
    .split("/")
    .slice(0, -1);
}

/**
 * A unit test's config as dbt puts it together for the project itself: the
 * `unit_tests:` folder configs along its fqn (project, its yml's folders,
 * the model, its name), then its own `config:`. What nodes() gives a unit
 * test, for a reader that needs no other node.
 */
export function unitTestConfig(settings: ProjectSettings, unit: UnitTestDeclaration): Mapping {
  // No unit_tests: folder config (most projects): its own config is the whole of it, and check asks this of every unit test.
  if (Object.keys(settings.configs.unit_tests).length === 0) return mergeConfigs({}, unit.entry.config);
  const model = typeof unit.model === "string" ? unit.model : "";
  const fqn = [settings.name, ...folderOf(unit.file, projectFolders(settings)), model, unit.name];
  return mergeConfigs(folderConfig(settings.configs.unit_tests, fqn), unit.entry.config);
}

/** The folders dbt reads a project's files from, without trailing slashes. */
export function projectFolders(settings: ProjectSettings): string[] {
  const { paths } = settings;
  return [...paths.model, ...paths.seed, ...paths.snapshot, ...paths.analysis, ...paths.macro, ...paths.test, ...paths.function];
}

/** Yml under the folders, as a list of files. */
export function ymlIn(files: readonly SourceFile[]): SourceFile[] {
  return files.filter((file) => isYamlFile(file.path));
}

// --- nodes ---

async function readNodes(project: Project): Promise<Nodes> {
  const settings = await project.settings();
  const rootSettings = project.root ? await project.root.settings() : null;
  const name = settings.name;
  const { paths } = settings;
  const roots = projectFolders(settings);
  const all = await project.files();
  const under = (list: readonly string[]) => (file: SourceFile) => list.some((path) => file.path.startsWith(`${path}/`));
  const inModels = under(paths.model);

  // Yml of every folder, in dbt's file order; a yml under two folders is read once.
  // tests/mutation_equivalents.yml is slp mutate's list of equivalent mutants, not a properties file.
  const ymls = sortBySegments(ymlIn(all).filter((file) => !paths.test.some((path) => file.path === `${path}/${EQUIVALENTS_NAME}`)));
  const properties = await project.propertiesOf(ymls);

  const declared = {
    models: new Map<string, ModelDeclaration>(),
    seeds: new Map<string, Testable>(),
    snapshots: new Map<string, Testable>(),
  };
  for (const file of properties) {
    for (const model of file.models) declared.models.set(model.name, model);
    for (const seed of file.seeds) declared.seeds.set(seed.name, seed);
    for (const snapshot of file.snapshots) declared.snapshots.set(snapshot.name, snapshot);
  }

  // dbt adds a node whose folder configs and SQL leave it enabled to the manifest, and any other to its disabled
  // list (parser/base.py add_result_node): only two enabled nodes of one id are dbt's DuplicateResourceNameError.
  const byId = new Map<string, Node>();
  const parsedEnabled = new Map<Node, boolean | null>();
  const add = <T extends Node>(node: T, enabledAtParse: boolean | null = node.enabled): T => {
    parsedEnabled.set(node, enabledAtParse);
    const earlier = byId.get(node.uniqueId);
    if (earlier && enabledAtParse !== false) {
      const earlierEnabled = parsedEnabled.get(earlier);
      if (earlierEnabled === null || enabledAtParse === null) {
        const [undecided, other] = enabledAtParse === null ? [node, earlier] : [earlier, node];
        throw undecidedEnabled(node.kind, node.name, undecided.file, undecided.enabledExpression as EnabledExpression, other.file);
      }
      if (earlierEnabled !== false) throw definedTwice(node.kind, node.name, earlier.file, node.file, node.line);
    }
    // A disabled node never displaces the one kept (dbt keeps it aside, on its disabled list).
    if (!earlier || parsedEnabled.get(earlier) === false) {
      if (!earlier || enabledAtParse !== false) byId.set(node.uniqueId, node);
    }
    return node;
  };

  // A `config(enabled=<Jinja>)` is rendered at parse time with --vars and the project's vars.
  const scopes = varScopes(
    project.vars,
    rootSettings?.vars ?? settings.vars,
    name,
    rootSettings?.name ?? name,
    rootSettings ? settings.vars : null,
  );
  const enabledIn = (fromSql: { config: Mapping; dynamic: Mapping }): EnabledExpression | null => {
    const raw = fromSql.dynamic.enabled;
    if (raw === undefined) return null;
    const text = String(raw);
    const judged = judgeExpression(text, { vars: scopes });
    if ("why" in judged) return { text, value: null, why: judged.why };
    if (typeof judged.value === "boolean") return { text, value: judged.value };
    return { text, value: null, why: `it renders to ${pythonStr(judged.value)}, which is not true or false` };
  };
  /** Enabled by its folder configs and SQL, before any yml (what dbt's parser decides a node's place by); null when undecided. */
  const enabledAtParse = (folder: Mapping, fromSql: { config: Mapping } | null, expression: EnabledExpression | null): boolean | null => {
    if (expression) return expression.value;
    const fromFile = fromSql?.config.enabled;
    return (fromFile !== undefined ? fromFile : folder.enabled) !== false;
  };

  // A package's own folder configs, then the root project's for it: the root project has the last word.
  const configFor = (block: ConfigBlock, fqn: string[]): Mapping => {
    const config = folderConfig(settings.configs[block], fqn);
    if (rootSettings)
      for (const [key, value] of Object.entries(folderConfig(rootSettings.configs[block], fqn))) mergeConfig(config, key, value);
    return config;
  };

  // Models: every .sql and .py under a model path; a yml entry with versions stands for one node per version.
  const codeFiles = sortBySegments(all.filter((file) => inModels(file) && /\.(sql|py)$/.test(file.path)));
  const { kept: codeByStem, allDisabled } = await oneFilePerModel(codeFiles, async (file) => {
    const fromSql = file.endsWith(".sql") ? sqlConfig(await project.text(file)) : null;
    const expression = fromSql ? enabledIn(fromSql) : null;
    return {
      enabled: enabledAtParse(configFor("models", [name, ...folderOf(file, paths.model), stem(file)]), fromSql, expression),
      expression,
    };
  });
  for (const [modelName, files] of allDisabled) {
    // dbt patches every disabled node of the name with the yml, and cannot choose which of them to enable (schemas.py).
    const enabling = declared.models.get(modelName)?.entry.config;
    if (isMapping(enabling) && enabling.enabled !== undefined && enabling.enabled !== false && enabling.enabled !== null) {
      throw new InputError(
        `Found ${files.length} matching disabled nodes for model '${modelName}' (${files.join(", ")}). Multiple nodes for the same unique id cannot be enabled in the schema file. They must be enabled in \`dbt_project.yml\` or in the sql files.`,
        {
          file: declared.models.get(modelName)?.file,
          line: declared.models.get(modelName)?.line,
          fix: "enable the one you mean in its SQL (config(enabled=true)) or its folder's +enabled, not in the yml",
        },
      );
    }
  }
  const models: RefNode[] = [];
  const claimed = new Set<string>();
  const makeModel = async (
    modelName: string,
    version: string | null,
    latest: boolean,
    file: string | null,
    declaration: ModelDeclaration | null,
    versionEntry: Mapping | null,
  ): Promise<RefNode> => {
    const fqn = [name, ...(file ? folderOf(file, paths.model) : []), modelName, ...(version === null ? [] : [`v${version}`])];
    const config = configFor("models", fqn);
    mergeConfigs(config, declaration?.entry.config);
    if (versionEntry) mergeConfigs(config, versionEntry.config);
    const language = file === null ? null : file.endsWith(".py") ? "python" : "sql";
    let dynamicConfig: Mapping = {};
    let enabledExpression: EnabledExpression | null = null;
    if (file !== null && language === "sql") {
      const fromSql = sqlConfig(await project.text(file));
      mergeConfigs(config, fromSql.config);
      dynamicConfig = fromSql.dynamic;
      enabledExpression = enabledIn(fromSql);
      if (enabledExpression?.value != null) config.enabled = enabledExpression.value;
    }
    let columns = declaration?.columns ?? [];
    if (versionEntry) {
      const own = versionColumns(versionEntry, declaration?.line ?? 1);
      const excluded = new Set<string>();
      for (const item of Array.isArray(versionEntry.columns) ? versionEntry.columns : []) {
        if (isMapping(item) && Array.isArray(item.exclude)) for (const excludedName of item.exclude) excluded.add(String(excludedName));
      }
      columns = [
        ...columns.filter((column) => !excluded.has(column.name)).map((column) => own.find((o) => o.name === column.name) ?? column),
        ...own.filter((o) => !columns.some((c) => c.name === o.name)),
      ];
    }
    const contract = config.contract;
    return add({
      kind: "model",
      uniqueId: `model.${name}.${modelName}${version === null ? "" : `.v${version}`}`,
      package: name,
      name: modelName,
      version,
      latest,
      language,
      file,
      line: file ? 1 : (declaration?.line ?? 1),
      ymlFile: declaration?.file ?? null,
      declaration,
      fqn,
      config,
      dynamicConfig,
      enabled: config.enabled !== false,
      enabledExpression,
      columns,
      tests: declaration?.tests ?? [],
      columnsComplete: isMapping(contract) && contract.enforced === true && columns.length > 0,
      // dbt's default is a view, but a Python model cannot be one: dbt builds it as a table unless a config says otherwise.
      materialized: typeof config.materialized === "string" ? config.materialized : language === "python" ? "table" : "view",
      identifier: typeof config.alias === "string" ? config.alias : version === null ? modelName : `${modelName}_v${version}`,
    });
  };
  for (const declaration of declared.models.values()) {
    for (const { label, latest, definedIn, entry } of declaredVersions(declaration)) {
      // The latest version may live in the unsuffixed <name>.sql (dbt >= 1.5, dbt-core #7443).
      const unsuffixed =
        latest && typeof entry.defined_in !== "string" && !codeByStem.has(definedIn) ? codeByStem.get(declaration.name) : undefined;
      const file = codeByStem.get(definedIn) ?? unsuffixed ?? null;
      if (file) claimed.add(stem(file));
      models.push(await makeModel(declaration.name, label, latest, file, declaration, entry));
    }
  }
  for (const [modelName, file] of codeByStem) {
    if (claimed.has(modelName)) continue;
    const declaration = declared.models.get(modelName);
    if (declaration && Array.isArray(declaration.entry.versions) && declaration.entry.versions.length > 0) continue;
    models.push(await makeModel(modelName, null, true, file, declaration ?? null, null));
  }

  // Seeds: every .csv under a seed path; the header is its columns.
  const seeds: RefNode[] = [];
  for (const file of sortBySegments(all.filter((f) => under(paths.seed)(f) && f.path.endsWith(".csv")))) {
    const seedName = stem(file.path);
    const declaration = declared.seeds.get(seedName) ?? null;
    const fqn = [name, ...folderOf(file.path, paths.seed), seedName];
    const config = configFor("seeds", fqn);
    const atParse = config.enabled !== false;
    mergeConfigs(config, declaration?.entry.config);
    const columnTypes = isMapping(config.column_types) ? config.column_types : {};
    const { parseCsv } = await import("./files/csv.ts");
    const header = parseCsv(await project.text(file.path), { file: file.path, fix: "save the seed as CSV with a header line" })[0] ?? [];
    const columns: ColumnDeclaration[] = header.map((column) => {
      const typed = Object.entries(columnTypes).find(([key]) => key.toLowerCase() === column.toLowerCase());
      const fromYaml = declaration?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
      return {
        name: column,
        line: fromYaml?.line ?? 1,
        entry: fromYaml?.entry ?? {},
        sensitive: fromYaml?.sensitive ?? false,
        dataType: typed ? pythonStr(typed[1]) : (fromYaml?.dataType ?? null),
      };
    });
    seeds.push(
      add(
        {
          kind: "seed",
          uniqueId: `seed.${name}.${seedName}`,
          package: name,
          name: seedName,
          version: null,
          latest: true,
          language: null,
          file: file.path,
          line: 1,
          ymlFile: declaration?.file ?? null,
          declaration,
          fqn,
          config,
          dynamicConfig: {},
          enabled: config.enabled !== false,
          enabledExpression: null,
          columns,
          tests: declaration?.tests ?? [],
          columnsComplete: true,
          materialized: "seed",
          identifier: typeof config.alias === "string" ? config.alias : seedName,
        },
        atParse,
      ),
    );
  }

  // Snapshots: `{% snapshot name %}` blocks in .sql under a snapshot path, and snapshots a yml defines whole (dbt >= 1.9).
  const snapshots: RefNode[] = [];
  const snapshotFile = (
    snapshotName: string,
    file: string | null,
    line: number,
    declaration: Testable | null,
    fromSql: { config: Mapping; dynamic: Mapping } | null,
  ) => {
    // dbt: "On snapshots, the fqn includes the filename" (its folders, then the file's stem, then the block's name).
    const fqn = [name, ...(file ? [...folderOf(file, paths.snapshot), basename(file, ".sql")] : []), snapshotName];
    const config = configFor("snapshots", fqn);
    const enabledExpression = fromSql ? enabledIn(fromSql) : null;
    const atParse = enabledAtParse(config, fromSql, enabledExpression);
    mergeConfigs(config, declaration?.entry.config);
    if (fromSql) mergeConfigs(config, fromSql.config);
    if (enabledExpression?.value != null) config.enabled = enabledExpression.value;
    snapshots.push(
      add(
        {
          kind: "snapshot",
          uniqueId: `snapshot.${name}.${snapshotName}`,
          package: name,
          name: snapshotName,
          version: null,
          latest: true,
          language: file ? "sql" : null,
          file: file ?? declaration?.file ?? null,
          line,
          ymlFile: declaration?.file ?? null,
          declaration,
          fqn,
          config,
          dynamicConfig: fromSql?.dynamic ?? {},
          enabled: config.enabled !== false,
          enabledExpression,
          columns: declaration?.columns ?? [],
          tests: declaration?.tests ?? [],
          columnsComplete: false,
          materialized: "snapshot",
          identifier: typeof config.alias === "string" ? config.alias : snapshotName,
        },
        atParse,
      ),
    );
  };
  const inSnapshots = under(paths.snapshot);
  for (const file of sortBySegments(all.filter((f) => inSnapshots(f) && f.path.endsWith(".sql")))) {
    const text = await project.text(file.path);
    for (const block of blocks(text, "snapshot")) {
      snapshotFile(block.name, file.path, block.line, declared.snapshots.get(block.name) ?? null, sqlConfig(block.body));
    }
  }
  for (const [snapshotName, declaration] of declared.snapshots) {
    // dbt >= 1.9 defines a snapshot in yml alone: a name, a relation and its config.
    if (!byId.has(`snapshot.${name}.${snapshotName}`) && declaration.entry.relation !== undefined)
      snapshotFile(snapshotName, null, declaration.line, declaration, null);
  }

  // Sources: one node per table.
  const sources: SourceNode[] = [];
  for (const file of properties) {
    for (const table of file.sources) {
      const fqn = [name, ...folderOf(file.file, roots), table.source, table.name];
      const config = configFor("sources", fqn);
      mergeConfigs(config, table.sourceEntry.config);
      mergeConfigs(config, table.entry.config);
      sources.push(
        add({
          kind: "source",
          uniqueId: `source.${name}.${table.source}.${table.name}`,
          package: name,
          name: table.name,
          source: table.source,
          table: table.name,
          file: file.file,
          line: table.line,
          ymlFile: file.file,
          declaration: table,
          fqn,
          config,
          dynamicConfig: {},
          enabled: config.enabled !== false,
          enabledExpression: null,
          columns: table.columns,
          tests: table.tests,
        }),
      );
    }
  }

  // Analyses, singular tests and generic test definitions: SQL files dbt compiles but does not build.
  const fileNode = async (
    kind: FileNode["kind"],
    file: string,
    nodeName: string,
    roots: readonly string[],
    block: ConfigBlock,
    line = 1,
  ): Promise<FileNode> => {
    const fqn = [name, ...folderOf(file, roots), nodeName];
    const config = configFor(block, fqn);
    const fromSql = sqlConfig(await project.text(file));
    const enabledExpression = enabledIn(fromSql);
    const atParse = enabledAtParse(config, fromSql, enabledExpression);
    mergeConfigs(config, fromSql.config);
    if (enabledExpression?.value != null) config.enabled = enabledExpression.value;
    const node: FileNode = {
      kind,
      uniqueId:
        kind === "analysis"
          ? `analysis.${name}.${nodeName}`
          : kind === "generic_test"
            ? `macro.${name}.test_${nodeName}`
            : `test.${name}.${nodeName}`,
      package: name,
      name: nodeName,
      file,
      line,
      ymlFile: null,
      declaration: null,
      fqn,
      config,
      dynamicConfig: fromSql.dynamic,
      enabled: config.enabled !== false,
      enabledExpression,
      columns: [],
      tests: [],
    };
    return kind === "generic_test" ? node : add(node, atParse);
  };
  const analyses: FileNode[] = [];
  for (const file of sortBySegments(all.filter((f) => under(paths.analysis)(f) && f.path.endsWith(".sql")))) {
    analyses.push(await fileNode("analysis", file.path, stem(file.path), paths.analysis, "analyses"));
  }
  const singularTests: FileNode[] = [];
  const genericTests: FileNode[] = [];
  const macroFiles: MacroFileNode[] = [];
  const inTests = under(paths.test);
  for (const file of sortBySegments(all.filter((f) => inTests(f) && f.path.endsWith(".sql")))) {
    const generic = paths.test.some((path) => file.path.startsWith(`${path}/generic/`));
    if (!generic) {
      singularTests.push(await fileNode("singular_test", file.path, stem(file.path), paths.test, "data_tests"));
      continue;
    }
    const text = await project.text(file.path);
    for (const block of blocks(text, "test"))
      genericTests.push(await fileNode("generic_test", file.path, block.name, paths.test, "data_tests", block.line));
  }
  // Macros: every .sql under a macro path (and tests/generic/, which dbt reads as macros too).
  const macroSources = sortBySegments(
    all.filter(
      (f) => f.path.endsWith(".sql") && (under(paths.macro)(f) || paths.test.some((path) => f.path.startsWith(`${path}/generic/`))),
    ),
  );
  for (const file of macroSources) {
    const text = await project.text(file.path);
    const macros = [...blocks(text, "macro"), ...blocks(text, "test").map((block) => ({ ...block, name: `test_${block.name}` }))];
    macroFiles.push({ package: name, file: file.path, macros: macros.map(({ name: macroName, line }) => ({ name: macroName, line })) });
    if (under(paths.macro)(file)) {
      for (const block of blocks(text, "test"))
        genericTests.push(await fileNode("generic_test", file.path, block.name, paths.macro, "data_tests", block.line));
    }
  }

  // A disabled node of an id another node keeps takes no further part (dbt keeps it aside, on its disabled list).
  for (const list of [models, seeds, snapshots, sources, analyses, singularTests] as Node[][]) {
    const kept = list.filter((node) => byId.get(node.uniqueId) === node);
    if (kept.length < list.length) list.splice(0, list.length, ...kept);
  }

  // Fixture files of unit tests: `<test-path>/fixtures/**.{csv,sql}`.
  const fixtures = new Map<string, string[]>();
  for (const file of sortBySegments(all.filter((f) => paths.test.some((path) => f.path.startsWith(`${path}/fixtures/`))))) {
    const base = file.path.slice(file.path.lastIndexOf("/") + 1);
    if (/^[.#~]/.test(base) || !/\.(csv|sql)$/.test(base)) continue;
    const list = fixtures.get(stem(file.path)) ?? [];
    list.push(file.path);
    fixtures.set(stem(file.path), list);
  }

  // Unit tests, with the `unit_tests:` folder configs of their yml's folders.
  const unitTests: UnitTestNode[] = [];
  for (const file of properties) {
    const folders = folderOf(file.file, roots);
    for (const unit of file.unitTests) {
      const model = typeof unit.model === "string" ? unit.model : "";
      const fqn = [name, ...folders, model, unit.name];
      const config = configFor("unit_tests", fqn);
      mergeConfigs(config, unit.entry.config);
      unitTests.push({
        uniqueId: `unit_test.${name}.${model}.${unit.name}`,
        package: name,
        name: unit.name,
        model,
        file: unit.file,
        line: unit.line,
        index: unit.index,
        entry: unit.entry,
        declaration: unit,
        folders,
        fqn,
        config,
        enabled: config.enabled !== false,
      });
    }
  }

  // Data tests, with the `data_tests:` folder configs of their yml's folders.
  const dataTests: DataTestNode[] = [];
  for (const node of [...models, ...seeds, ...snapshots, ...sources]) {
    const declaration = node.declaration;
    if (!declaration) continue;
    const folders = folderOf(declaration.file, roots);
    for (const test of node.tests) {
      const fqn = [name, ...folders, test.name];
      dataTests.push({
        on: node.uniqueId,
        name: test.name,
        column: test.column,
        file: declaration.file,
        get line() {
          return test.line;
        },
        fqn,
        config: mergeConfigs(configFor("data_tests", fqn), test.config),
        args: test.args,
        declaration: test,
      });
    }
  }

  return {
    models,
    seeds,
    snapshots,
    sources,
    analyses,
    singularTests,
    genericTests,
    unitTests,
    dataTests,
    macroFiles,
    fixtures,
    properties,
    byId,
  };
}

/** How one model file stands at parse time: enabled, disabled, or undecided (null) by a Jinja expression. */
interface ParseState {
  enabled: boolean | null;
  expression: EnabledExpression | null;
}

/**
 * The file dbt keeps for each model name: the only one, or the one enabled
 * when the others are disabled (dbt puts those on its disabled list). Two
 * enabled files of one name are dbt's DuplicateResourceNameError; when
 * whether one is enabled only rendering can say, slp refuses, naming it.
 * `allDisabled` holds the names all of whose files are disabled, with them.
 */
async function oneFilePerModel(
  files: readonly SourceFile[],
  stateOf: (file: string) => Promise<ParseState>,
): Promise<{ kept: Map<string, string>; allDisabled: Map<string, string[]> }> {
  const byStem = new Map<string, string[]>();
  for (const file of files) byStem.set(stem(file.path), [...(byStem.get(stem(file.path)) ?? []), file.path]);
  const kept = new Map<string, string>();
  const allDisabled = new Map<string, string[]>();
  for (const [modelName, paths] of byStem) {
    if (paths.length === 1) {
      kept.set(modelName, paths[0] as string);
      continue;
    }
    const states = await Promise.all(paths.map(async (path) => ({ path, ...(await stateOf(path)) })));
    const candidates = states.filter((state) => state.enabled !== false);
    const undecided = candidates.find((state) => state.enabled === null);
    if (candidates.length > 1 && undecided) {
      const other = candidates.find((state) => state !== undecided) as (typeof candidates)[number];
      throw undecidedEnabled("model", modelName, undecided.path, undecided.expression as EnabledExpression, other.path);
    }
    if (candidates.length > 1) throw definedTwice("model", modelName, candidates[0]?.path ?? null, candidates[1]?.path ?? null, 1);
    if (candidates.length === 0) allDisabled.set(modelName, paths);
    kept.set(modelName, (candidates[0] ?? states[0])?.path as string);
  }
  return { kept, allDisabled };
}

/** dbt's DuplicateResourceNameError, naming both files. */
function definedTwice(kind: string, name: string, first: string | null, second: string | null, line: number): InputError {
  return new InputError(`${kind} ${name} is defined twice: ${first} and ${second}`, {
    file: second ?? undefined,
    line,
    fix: `give each ${kind} its own name, or disable one of them (dbt refuses two enabled ${kind}s with one name and ignores a disabled one)`,
  });
}

/** Two nodes of one name, one of which only rendering can enable or disable: which one dbt keeps is not slp's to guess. */
function undecidedEnabled(
  kind: string,
  name: string,
  file: string | null,
  expression: EnabledExpression,
  other: string | null,
): InputError {
  return new InputError(
    `${kind} ${name} is defined in ${other} and in ${file}, whose config(enabled=${expression.text}) slp cannot judge (${expression.why}); dbt keeps one of them only if the other is disabled`,
    {
      file: file ?? undefined,
      line: 1,
      fix: "write enabled as true/false, var('name', default) or a comparison of target.name, or give the two models different names",
    },
  );
}

/** Columns a version entry declares itself. */
function versionColumns(entry: Mapping, line: number): ColumnDeclaration[] {
  const list = Array.isArray(entry.columns) ? entry.columns.filter(isMapping) : [];
  return list
    .filter((column) => typeof column.name === "string")
    .map((column) => ({
      name: column.name as string,
      line,
      entry: column,
      sensitive: false,
      dataType: typeof column.data_type === "string" && column.data_type.trim() !== "" ? column.data_type : null,
    }));
}

/** `{% snapshot name %}`, `{% test name(...) %}`, `{% macro name(...) %}` blocks: name, line and body. */
export function blocks(text: string, tag: "snapshot" | "test" | "macro"): { name: string; line: number; body: string }[] {
  const found: { name: string; line: number; body: string }[] = [];
  const pattern = new RegExp(`\\{%-?\\s*${tag}\\s+([A-Za-z_][\\w]*)`, "g");
  for (const match of text.matchAll(pattern)) {
    const start = match.index ?? 0;
    const end = text.slice(start).search(new RegExp(`\\{%-?\\s*end${tag}\\s*-?%\\}`));
    found.push({
      name: match[1] as string,
      line: text.slice(0, start).split("\n").length,
      body: end === -1 ? text.slice(start) : text.slice(start, start + end),
    });
  }
  return found;
}

function sortBySegments(files: readonly SourceFile[]): SourceFile[] {
  const byPath = new Map(files.map((file) => [file.path, file]));
  return sortPathsBySegments([...byPath.keys()]).map((path) => byPath.get(path) as SourceFile);
}

// --- packages ---

async function readPackages<S extends FileSource>(project: Project<S>): Promise<Project<S>[]> {
  const settings = await project.settings();
  if (project.prefix !== "") return [];
  const listed = await project.list([`${settings.packagesInstallPath}/`]);
  const folders = new Set<string>();
  for (const file of listed) {
    const rest = file.path.slice(settings.packagesInstallPath.length + 1);
    if (rest.split("/").length === 2 && rest.endsWith("/dbt_project.yml")) folders.add(rest.slice(0, rest.indexOf("/")));
  }
  const packages: Project<S>[] = [];
  for (const folder of [...folders].sort(compareCodePoints)) {
    packages.push(
      new Project(project.source, { store: project.store, prefix: `${settings.packagesInstallPath}/${folder}/`, root: project }),
    );
  }
  return packages;
}

// --- the DAG ---

async function readGraph(project: Project): Promise<Graph> {
  const all: { project: Project; name: string; nodes: Nodes }[] = [];
  for (const one of [project, ...(await project.packages())])
    all.push({ project: one, name: (await one.settings()).name, nodes: await one.nodes() });
  const index = new RelationIndex(
    all[0]?.name ?? "",
    all.flatMap(({ nodes }) => [...nodes.models, ...nodes.seeds, ...nodes.snapshots]),
    all.flatMap(({ nodes }) => nodes.sources),
  );
  const parents = new Map<string, Edge[]>();
  const children = new Map<string, Set<string>>();
  const unresolved: Edge[] = [];
  for (const { project: owner, nodes } of all) {
    const withCode = [...nodes.models, ...nodes.snapshots, ...nodes.analyses, ...nodes.singularTests].filter(
      (node) => node.file !== null && /\.(sql|py)$/.test(node.file),
    );
    const sources: [RefNode | FileNode, FoundCall[]][] = [];
    for (const node of withCode) {
      const file = node.file as string;
      sources.push([node, relationCalls(await owner.text(file), file.endsWith(".py") ? "python" : "sql")]);
    }
    // A snapshot defined in yml alone (dbt >= 1.9) reads what its `relation:` names: a ref() or a source().
    for (const node of nodes.snapshots) {
      const relation = node.declaration?.entry.relation;
      if (node.language !== null || typeof relation !== "string") continue;
      sources.push([node, relationCalls(relation).map((found) => ({ ...found, line: node.line }))]);
    }
    for (const [node, calls] of sources) {
      const edges: Edge[] = calls.map((found) => {
        const resolved = found.call ? index.resolve(found.call, node.package) : null;
        const to = resolved && "node" in resolved ? resolved.node.uniqueId : null;
        return { from: node.uniqueId, to, call: found.call, text: found.text, line: found.line };
      });
      parents.set(node.uniqueId, edges);
      for (const edge of edges) {
        if (edge.to === null) unresolved.push(edge);
        else {
          const set = children.get(edge.to) ?? new Set<string>();
          set.add(node.uniqueId);
          children.set(edge.to, set);
        }
      }
    }
  }
  const sortedChildren = new Map([...children].map(([id, set]) => [id, [...set].sort(compareCodePoints)]));
  const walk = (start: Iterable<string>, next: (id: string) => Iterable<string>): string[] => {
    const seen = new Set<string>();
    const starts = new Set(start);
    const queue = [...starts];
    while (queue.length > 0) {
      const id = queue.pop() as string;
      for (const other of next(id)) {
        if (seen.has(other) || starts.has(other)) continue;
        seen.add(other);
        queue.push(other);
      }
    }
    return [...seen].sort(compareCodePoints);
  };
  return {
    parents,
    children: sortedChildren,
    unresolved,
    index,
    downstream: (ids) => walk(ids, (id) => sortedChildren.get(id) ?? []),
    upstream: (ids) => walk(ids, (id) => (parents.get(id) ?? []).flatMap((edge) => (edge.to === null ? [] : [edge.to]))),
  };
}
