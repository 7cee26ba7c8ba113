/**
 * THE model of a dbt project, the one every command reads: dbt_project.yml,
 * the files of each project folder, what every yml declares (with lines),
 * every node dbt knows (models, seeds, snapshots, sources, analyses, tests,
 * unit tests) with its config put together the way dbt does it, the DAG read
 * statically from the SQL, and the installed packages. It reads from a
 * FileSource, so the work tree and any commit are read alike, and everything
 * is lazy and memoized: a command pays only for what its rules ask. This
 * file holds the shapes and the Project; nodes/ reads them, one file per
 * kind of node (models, seeds, snapshots, sources, SQL files, unit and data
 * tests) and the DAG.
 */
import { compareCodePoints } from "../core/text.ts";
import type { Mapping } from "../core/values.ts";
import type { DataTest } from "./dbt/data-tests.ts";
import { readSettings, type DispatchRule, type ProjectSettings } from "./dbt/dbt-project.ts";
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
import type { RelationCall } from "./dbt/relations.ts";
import type { RelationIndex } from "./dbt/resolve.ts";
import type { ParseCache } from "./files/cache.ts";
import type { FileSource, SourceFile } from "./files/source.ts";
import { knownJsonExact, parseYamlWithLines, type ParsedYaml } from "./files/yaml.ts";
import { projectFolders } from "./nodes/context.ts";
import { readGraph } from "./nodes/graph.ts";
import { readNodes } from "./nodes/read.ts";

export type { ColumnDeclaration, Declaration, ModelDeclaration, PropertiesFile, SourceTableDeclaration, Testable, UnitTestDeclaration };

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

/** A `config(enabled=...)` written as Jinja, judged as dbt renders it at parse time (see dbt/config-expression.ts). */
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

  /**
   * An answer derived from many files (S6's lineage), kept in the same cache file as the parses under a key of its own
   * kind, so a warm run that needs it opens no second file.
   */
  derived<T>(kind: string, key: string): T | undefined {
    return (this.#cache as ParseCache<unknown> | null)?.get(`${kind}\0${key}`) as T | undefined;
  }

  rememberDerived<T>(kind: string, key: string, value: T): void {
    (this.#cache as ParseCache<unknown> | null)?.set(`${kind}\0${key}`, value);
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
