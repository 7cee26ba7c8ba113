/**
 * The DuckDB adapter: the only module that imports `@duckdb/node-api`. It is
 * loaded on first use (a dynamic import), so a task that never opens a
 * database (`slp check`) never pays for the native library.
 *
 * The databases are locked down, because the SQL they run is agent-written:
 * no file or network access (enable_external_access = false; Stage E's
 * openForData allows exactly the files the user named), no extension
 * installed or loaded, the configuration locked (no SET, no PRAGMA), nothing
 * spilled to disk, memory and threads bounded. Each query is exactly one
 * SELECT; a unit-test query is also interrupted past unit_query_seconds and
 * read back to at most unit_result_rows rows. (openFile, for slp's own tests
 * and benchmarks, is the one unlocked database; never used on a user's input.)
 */
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { duckdbOffset, engineMessage, type Holding } from "../core/engine-message.ts";
import { SlpError } from "../core/errors.ts";
import { formatLimit, limit, limitEnvVar, type LimitName } from "../core/limits.ts";
import { hostPlatform } from "../build/platforms.ts";
import { isCompiled } from "../runner/self.ts";
import { JSON_TEXT_FUNCTIONS, jsonText } from "./json-text.ts";
import { loadPackageBundle, nodeModulesOf, packageFolder } from "./package-bundle.ts";
import { JSON_FUNCTION_PREFIX, JSON_FUNCTIONS } from "./json-values.ts";
import { foldValue, SPARK_HASH_FUNCTIONS, SPARK_HASH_PREFIX } from "./spark-hash.ts";
import { fromJson, getJsonObject } from "../core/spark-json.ts";
import type { NestedType } from "./duckdb-types.ts";
import { NESTED_FUNCTIONS, NESTED_PREFIX } from "./spark-text.ts";
import { BIGQUERY_JSON_FUNCTIONS } from "./bigquery-json.ts";

/** SQL DuckDB refused, or a limit it reached: the message first line first, and what to do. */
export class DatabaseError extends SlpError {
  /** The limit this query reached, when that is why it failed. */
  readonly limit?: LimitName;
  /**
   * Where DuckDB says the error is, as an index into the SQL it was given (a
   * parse or binder error's place), when it says; slp maps it back into the
   * model's file (unit/sql-place.ts), never into a message as it is.
   */
  offset: number | null = null;
  /** The length of the SQL `offset` is in (slp's query ends with the model's SQL and a fixed tail, so the end tells where the model starts). */
  queryLength: number | null = null;
  constructor(message: string, fix?: string, reached?: LimitName) {
    super("E_ENGINE", message, { fix });
    this.limit = reached;
  }
}

/** A query interrupted because it ran past its time limit (a mutant that never ends, say). */
export class QueryTimeout extends DatabaseError {
  constructor(readonly timeoutMs: number) {
    super(`the query ran for more than ${timeoutMs} ms and was interrupted`);
  }
}

export interface Column {
  name: string;
  /** As DESCRIBE prints it: INTEGER, DECIMAL(18,3), VARCHAR[], ... */
  type: string;
}

export interface QueryResult {
  columns: Column[];
  /** Every value as DuckDB prints it (its text form), or null. */
  rows: (string | null)[][];
}

export interface OpenOptions {
  /**
   * Folders the SQL may read files from (DuckDB's allowed_directories), for
   * a caller that reads data files; none for unit tests, which read nothing
   * but their fixtures.
   */
  readableDirectories?: readonly string[];
  /**
   * SET statements for a warehouse dialect (time zone, division), made global
   * before the configuration is locked; a promise lets the caller work them out
   * while DuckDB creates the database (a rejection closes it and is the open's).
   */
  settings?: readonly string[] | Promise<readonly string[]>;
}

/** A DuckDB database file Stage E reads, attached read-only under `name`. */
export interface AttachedDatabase {
  path: string;
  name: string;
}

/** What a Stage E database may read, and how much of the machine it may use. */
export interface DataAccess {
  /** Absolute paths of the files it may read. */
  files: readonly string[];
  /** Absolute folders it may read anything under (a glob's folder). */
  directories: readonly string[];
  databases: readonly AttachedDatabase[];
  /** DuckDB's memory_limit, e.g. "2GiB". */
  memoryLimit: string;
  threads?: number;
}

/**
 * What a database is for: unit tests (one SELECT, unit limits), Stage E data
 * (one SELECT, the caller's time limit), or slp's own test data (anything).
 */
type Mode = "unit" | "data" | "file";

let library: Promise<typeof import("@duckdb/node-api")> | undefined;
let loadedLibrary: typeof import("@duckdb/node-api") | undefined;

/** One in-memory database for a whole run, with a few connections to spread queries over. */
export class Database {
  readonly #instance: DuckDBInstance;
  readonly #connections: DuckDBConnection[];
  readonly #library: typeof import("@duckdb/node-api");
  readonly #mode: Mode;
  /** Whether slp's Spark hash functions are in the catalog: registered by the first query that calls one. */
  #sparkHash = false;
  #jsonFunctions = false;
  #jsonText = false;
  #nested = false;
  /** What its tables hold, for how much of an error()'s text the sanitizer keeps: Stage E's data, or fixtures. */
  get #holding(): Holding {
    return this.#mode === "data" ? "data" : "fixtures";
  }
  /** The last query queued on each connection. */
  readonly #busy = new Map<number, Promise<void>>();
  #next = 0;

  private constructor(instance: DuckDBInstance, connections: DuckDBConnection[], loaded: typeof import("@duckdb/node-api"), mode: Mode) {
    this.#instance = instance;
    this.#connections = connections;
    this.#library = loaded;
    this.#mode = mode;
  }

  /**
   * Opens a locked in-memory database with one connection. The library loads
   * on the calling thread; the database itself is created on DuckDB's, so a
   * caller that awaits `Database.load()` first can do other work while it opens.
   */
  static async open(options: OpenOptions = {}): Promise<Database> {
    // Settings still being worked out are awaited once the database exists; a rejection is handled there.
    const pending = Promise.resolve(options.settings);
    pending.catch(() => undefined);
    // Once loaded, the database is being created when open() returns: the caller's next work overlaps it.
    const loaded = loadedLibrary ?? (await Database.load());
    const readable = options.readableDirectories ?? [];
    // Order matters: temp_directory cannot be set once external access is off.
    const config: Record<string, string> = {
      temp_directory: "",
      memory_limit: `${limit("duckdb_memory_mb")}MiB`,
      // A fixture is a few rows: one thread per query runs it faster than a pool that hands it
      // between threads. Queries run side by side on the connections instead, at most
      // duckdb_threads of them (widen).
      threads: "1",
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      allow_community_extensions: "false",
    };
    if (readable.length === 0) config.enable_external_access = "false";
    const instance = await loaded.DuckDBInstance.create(":memory:", config);
    let settings: readonly string[];
    try {
      settings = (await pending) ?? [];
    } catch (error) {
      instance.closeSync();
      throw error;
    }
    const connection = await instance.connect();
    // Settings are made global (every connection has them), then the configuration is locked.
    const list = readable.map((dir) => `'${(dir.endsWith("/") ? dir : `${dir}/`).replace(/'/g, "''")}'`).join(", ");
    const statements = [
      ...(readable.length > 0 ? [`SET GLOBAL allowed_directories = [${list}]`, "SET GLOBAL enable_external_access = false"] : []),
      ...settings.map((setting) => setting.replace(/^\s*set\s+(?!global\b)/i, "SET GLOBAL ")),
      "SET GLOBAL lock_configuration = true",
    ];
    // slp's own statements (each directory quoted), in one round trip.
    await connection.run(statements.join(";\n"));
    return new Database(instance, [connection], loaded, "unit");
  }

  /**
   * Opens an in-memory database for Stage E that can read exactly what the
   * user named and nothing else: the listed files and folders, and the
   * database files attached read-only under their stem. External access is
   * off (no other file, no network, no extension install), nothing spills to
   * disk, memory and threads are capped, and the configuration is locked so
   * no query can loosen any of it.
   */
  static async openForData(access: DataAccess): Promise<Database> {
    const loaded = await Database.load();
    const instance = await loaded.DuckDBInstance.create(":memory:", {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      allow_community_extensions: "false",
      threads: String(access.threads ?? availableParallelism()),
    });
    const connection = await instance.connect();
    const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
    const list = (items: readonly string[]) => `[${items.map(literal).join(", ")}]`;
    // Attaching reads a database's write-ahead log too, so it is allowed beside the file.
    const paths = [...access.files, ...access.databases.flatMap((db) => [db.path, `${db.path}.wal`])];
    const settings = [
      `SET memory_limit = ${literal(access.memoryLimit)}`,
      "SET temp_directory = ''",
      "SET preserve_insertion_order = false",
      `SET allowed_paths = ${list(paths)}`,
      `SET allowed_directories = ${list(access.directories)}`,
      "SET enable_external_access = false",
    ];
    try {
      for (const statement of settings) await connection.run(statement);
      for (const db of access.databases) await connection.run(`ATTACH ${literal(db.path)} AS "${db.name.replace(/"/g, '""')}" (READ_ONLY)`);
      if (access.databases.length === 1)
        await connection.run(`USE "${(access.databases[0] as AttachedDatabase).name.replace(/"/g, '""')}"`);
      await connection.run("SET lock_configuration = true");
    } catch (error) {
      connection.closeSync();
      instance.closeSync();
      throw fromDuckDb(error, "data");
    }
    return new Database(instance, [connection], loaded, "data");
  }

  /**
   * Opens (creating it if needed) a DuckDB database file for writing, with no
   * extension loading: how slp's tests and benchmarks build the data a diff
   * then reads read-only. Never used on a user's input.
   */
  static async openFile(path: string): Promise<Database> {
    const loaded = await Database.load();
    const instance = await loaded.DuckDBInstance.create(path, {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
    });
    return new Database(instance, [await instance.connect()], loaded, "file");
  }

  /**
   * Spark's xxhash64() as a translated model calls it (spark-hash.ts): slp's own
   * functions, no IO, put in the catalog (every connection's) by the first SQL
   * that names one, so no other run pays for them.
   */
  #functionsFor(sql: string, connection: DuckDBConnection): void {
    // The transpiler may have written the names in capitals: DuckDB's names are case-insensitive.
    if (!this.#jsonFunctions && JSON_FUNCTION_NAME.test(sql)) {
      registerJsonFunctions(connection, this.#library);
      this.#jsonFunctions = true;
    }
    if (!this.#jsonText && JSON_TEXT_NAME.test(sql)) {
      registerJsonText(connection, this.#library);
      this.#jsonText = true;
    }
    if (!this.#nested && NESTED_NAME.test(sql)) {
      registerNestedFunctions(connection, this.#library);
      this.#nested = true;
    }
    if (this.#sparkHash || !SPARK_HASH_NAME.test(sql)) return;
    registerSparkHash(connection, this.#library);
    this.#sparkHash = true;
  }

  /** Stops the query running on every connection (a time limit hit); the query then fails. */
  interrupt(): void {
    for (const connection of this.#connections) connection.interrupt();
  }

  /** The kind of each statement in `sql` (SELECT, INSERT, ...), without running any; DatabaseError when it does not parse. */
  async statementKinds(sql: string): Promise<string[]> {
    const connection = this.#connections[0] as DuckDBConnection;
    this.#functionsFor(sql, connection);
    const { StatementType } = this.#library;
    try {
      const extracted = await connection.extractStatements(sql);
      const kinds: string[] = [];
      for (let i = 0; i < extracted.count; i++) {
        const prepared = await extracted.prepare(i);
        kinds.push(StatementType[prepared.statementType] ?? String(prepared.statementType));
        prepared.destroySync();
      }
      return kinds;
    } catch (error) {
      throw fromDuckDb(error, this.#holding);
    }
  }

  /**
   * Loads the native library and its bindings (once). From source, the
   * package comes from its bytecode bundle in node_modules/.cache/slp (package-bundle.ts:
   * ~25 ms sooner than its 181 modules one by one), with the bindings' own
   * choice of native build made once, as the binary's build makes it; the
   * compiled binary already holds the package bundled.
   */
  static load(): Promise<typeof import("@duckdb/node-api")> {
    library ??= (isCompiled() ? import("@duckdb/node-api") : loadFromSource()).then((loaded) => (loadedLibrary = loaded));
    return library;
  }

  /** Adds connections until `width` queries can run at once (worth it only for many queries). */
  async widen(width: number): Promise<void> {
    // A unit database runs each query on one thread, so its connections are its threads.
    const most = this.#mode === "unit" ? Math.min(width, limit("duckdb_threads")) : width;
    while (this.#connections.length < most) this.#connections.push(await this.#instance.connect());
  }

  /** DuckDB's version (what a kept reading of its binder depends on). */
  get version(): string {
    return this.#library.version();
  }

  /** The number of queries that can run at once. */
  get width(): number {
    return this.#connections.length;
  }

  /**
   * The columns a SELECT would return, without running it: the statement is
   * prepared (bound) only, which costs a third of a DESCRIBE. A type's alias
   * (JSON) is its name, as DESCRIBE prints it. It waits its turn on the
   * connection as a query does, and is refused as a query would be: one
   * statement, a SELECT, nothing outside the database.
   */
  describe(sql: string, lane = 0, _timeoutMs?: number): Promise<Column[]> {
    return this.#queued(lane, (connection) => this.#describeNow(sql, connection));
  }

  async #describeNow(sql: string, connection: DuckDBConnection): Promise<Column[]> {
    this.#functionsFor(sql, connection);
    let prepared: Awaited<ReturnType<DuckDBConnection["prepare"]>>;
    try {
      prepared = await connection.prepare(sql);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Only one statement can be prepared; how many there are is said as a query says it.
      if (/Cannot prepare multiple statements/.test(message))
        throw statementCount((await connection.extractStatements(sql)).count, "SELECT");
      throw this.#mode === "unit" ? refusal(message, sql, false) : fromDuckDb(message, this.#holding, sql);
    }
    try {
      const { StatementType } = this.#library;
      if (prepared.statementType !== StatementType.SELECT) {
        throw new DatabaseError(
          `the SQL is a ${StatementType[prepared.statementType] ?? "different"} statement, and only a SELECT runs here`,
          "a model, a format: sql fixture, an expected output and a diff query are each one SELECT",
        );
      }
      const columns: Column[] = [];
      for (let i = 0; i < prepared.columnCount; i++) {
        const type = prepared.columnType(i);
        columns.push({ name: prepared.columnName(i), type: type.alias ?? type.toString() });
      }
      return columns;
    } finally {
      prepared.destroySync();
    }
  }

  /**
   * DuckDB's parser error for `sql` read alone (nothing bound, nothing run),
   * or null when it parses: a query slp wraps around a model's SQL can fail
   * on the wrapper's own text (an unclosed `(` in the model meets the
   * wrapper's `) as ...`), while the model read alone fails where its own
   * text does, in its own words.
   */
  parseError(sql: string, lane = 0): Promise<DatabaseError | null> {
    return this.#queued(lane, async (connection) => {
      try {
        await connection.extractStatements(sql);
        return null;
      } catch (error) {
        const raw = (error instanceof Error ? error.message : String(error)).replace(/^Failed to extract statements: /, "");
        return fromDuckDb(raw, this.#holding, sql);
      }
    });
  }

  /**
   * Runs one SELECT on connection `lane` and reads every row as text. More
   * than one statement, any other kind of statement, a file or an extension
   * the SQL reaches for, a query past unit_query_seconds (or the caller's
   * tighter `timeoutMs`: a QueryTimeout) and a result past unit_result_rows
   * are DatabaseErrors saying which.
   */
  async query(sql: string, lane = 0, timeoutMs?: number): Promise<QueryResult> {
    return this.#run(sql, lane, timeoutMs, "SELECT");
  }

  /**
   * Runs one of slp's own CREATE statements (a fixture table, a macro a
   * dialect needs), with the same checks: exactly one statement, of that kind.
   */
  async define(sql: string, lane = 0): Promise<void> {
    await this.#run(sql, lane, undefined, "CREATE");
  }

  /**
   * Creates slp's own macros (constant SQL, never a user's) in one call to
   * DuckDB, in order: each statement must be one `create macro __slp_...`
   * with no `;` outside its '...' literals (and no other kind of quoting a
   * `;` could hide in), so the text holds exactly that many statements and
   * nothing else. One round trip instead of three per macro: DuckDB creates
   * them on its thread while this one reads and renders the project.
   */
  async defineMacros(statements: readonly string[], lane = 0): Promise<void> {
    const foreign = statements.find((sql) => !isOneMacroDefinition(sql));
    if (foreign !== undefined) throw new DatabaseError(`not one of slp's macro definitions: ${foreign.slice(0, 80)}`);
    if (statements.length === 0) return;
    await this.#queued(lane, async (connection) => {
      // A macro that calls one of slp's functions binds only once the function is in the catalog.
      this.#functionsFor(statements.join("\n"), connection);
      try {
        // A macro that calls one of slp's functions is bound when it is created: the function first.
        this.#functionsFor(statements.join("\n"), connection);
        await connection.run(statements.join(";\n"));
      } catch (error) {
        throw fromDuckDb(error, this.#holding);
      }
    });
  }

  /**
   * One query at a time per connection: a time limit measures the query's
   * own run, and its interrupt can only stop that query, never one queued
   * behind it (or ahead of it) on the same connection.
   */
  #run(sql: string, lane: number, timeoutMs: number | undefined, kind: "SELECT" | "CREATE"): Promise<QueryResult> {
    return this.#queued(lane, (_connection, index) => this.#runNow(sql, index, timeoutMs, kind));
  }

  /** Runs `work` on connection `lane` once every call queued there before it has ended. */
  #queued<T>(lane: number, work: (connection: DuckDBConnection, index: number) => Promise<T>): Promise<T> {
    const index = lane % this.#connections.length;
    const previous = this.#busy.get(index) ?? Promise.resolve();
    const run = previous.then(() => work(this.#connections[index] as DuckDBConnection, index));
    this.#busy.set(
      index,
      run.then(
        () => undefined,
        () => undefined,
      ),
    );
    return run;
  }

  async #runNow(sql: string, index: number, timeoutMs: number | undefined, kind: "SELECT" | "CREATE"): Promise<QueryResult> {
    const connection = this.#connections[index] as DuckDBConnection;
    this.#functionsFor(sql, connection);
    const unit = this.#mode === "unit";
    // A unit test's query stops at unit_query_seconds; a caller's tighter limit is a QueryTimeout.
    const limitMs = unit ? limit("unit_query_seconds") * 1000 : Number.POSITIVE_INFINITY;
    // A caller's limit may arrive as text (a flag's value): it is a number of milliseconds all the same.
    const callerMs = timeoutMs === undefined ? undefined : Number(timeoutMs);
    const callerFirst = callerMs !== undefined && Number.isFinite(callerMs) && callerMs <= limitMs;
    const waitMs = callerFirst ? (callerMs as number) : limitMs;
    let timedOut = false;
    let again: ReturnType<typeof setInterval> | undefined;
    // An interrupt that lands before DuckDB starts the query is forgotten when it starts: repeat it until the query ends.
    const timer = Number.isFinite(waitMs)
      ? setTimeout(() => {
          timedOut = true;
          connection.interrupt();
          again = setInterval(() => connection.interrupt(), 50);
        }, waitMs)
      : undefined;
    try {
      const reader =
        this.#mode === "file"
          ? await connection.runAndReadAll(sql)
          : await this.#runOne(connection, sql, kind, unit ? limit("unit_result_rows") : null);
      const names = reader.columnNames();
      const types = reader.columnTypes();
      const columns = names.map((name, i) => ({ name, type: String(types[i]) }));
      const rows = reader.getRows().map((row) => row.map((value) => (value === null ? null : String(value))));
      return { columns, rows };
    } catch (error) {
      if (error instanceof DatabaseError) throw error;
      if (timedOut && callerFirst) throw new QueryTimeout(callerMs as number);
      const message = error instanceof Error ? error.message : String(error);
      throw unit ? refusal(message, sql, timedOut) : fromDuckDb(message, this.#holding, sql);
    } finally {
      clearTimeout(timer);
      clearInterval(again);
    }
  }

  /** Exactly one statement, of the kind asked for, read back to at most `maxRows` rows (null: all). */
  async #runOne(connection: DuckDBConnection, sql: string, kind: "SELECT" | "CREATE", maxRows: number | null) {
    const statements = await connection.extractStatements(sql);
    if (statements.count !== 1) throw statementCount(statements.count, kind);
    const prepared = await statements.prepare(0);
    try {
      const { StatementType } = this.#library;
      if (prepared.statementType !== StatementType[kind]) {
        throw new DatabaseError(
          `the SQL is a ${StatementType[prepared.statementType] ?? "different"} statement, and only a ${kind} runs here`,
          "a model, a format: sql fixture, an expected output and a diff query are each one SELECT",
        );
      }
      if (maxRows === null) return await prepared.runAndReadAll();
      const reader = await prepared.runAndReadUntil(maxRows + 1);
      if (reader.currentRowCount > maxRows)
        throw limitReached("unit_result_rows", `the query returns more than ${formatLimit("unit_result_rows")}`);
      return reader;
    } finally {
      prepared.destroySync();
    }
  }

  /** A connection number for the next piece of work, round robin. */
  lane(): number {
    return this.#next++ % this.#connections.length;
  }

  /** Closes the database now; a run that ends with the process may leave it to the garbage collector. */
  close(): void {
    for (const connection of this.#connections) connection.closeSync();
    this.#instance.closeSync();
  }
}

/** @duckdb/node-api from its bundle in node_modules/.cache/slp, or as installed when there is none to be had. */
async function loadFromSource(): Promise<typeof import("@duckdb/node-api")> {
  const entry = require.resolve("@duckdb/node-api");
  const packageDir = packageFolder(entry);
  const modules = nodeModulesOf(packageDir);
  const bindings = Bun.resolveSync("@duckdb/node-bindings", dirname(entry));
  const bundled =
    modules === null
      ? null
      : await loadPackageBundle({
          entry,
          packageDir,
          label: "duckdb-node-api",
          externals: { "@duckdb/node-bindings": nativeBinding(bindings) },
          cacheDir: join(modules, ".cache", "slp"),
        });
  return (bundled as typeof import("@duckdb/node-api") | null) ?? import("@duckdb/node-api");
}

/**
 * The bindings' native build for this machine, as their duckdb.js picks it
 * (`@duckdb/node-bindings-<os>-<arch>`, glibc), or their duckdb.js itself
 * where slp ships no binary (musl Linux), which then picks at load time.
 */
function nativeBinding(bindings: string): string {
  const platform = hostPlatform();
  if (!platform) return bindings;
  try {
    return Bun.resolveSync(`@duckdb/node-bindings-${platform.name}/duckdb.node`, dirname(bindings));
  } catch {
    return bindings;
  }
}

/** One `create macro __slp_...` statement: no `;`, `$`, `"`, comment or E'' string outside its standard '...' literals. */
function isOneMacroDefinition(sql: string): boolean {
  if (!/^\s*create\s+(or\s+replace\s+)?macro\s+__slp_\w+\s*\(/i.test(sql) || /(^|[^\w])e'/i.test(sql)) return false;
  const outside = sql.replace(/'(?:[^']|'')*'/g, "''");
  return !/[;$"]|--|\/\*/.test(outside);
}

/** SQL that is not exactly one statement. */
function statementCount(count: number, kind: "SELECT" | "CREATE"): DatabaseError {
  return new DatabaseError(
    `the SQL holds ${count} statements, and slp runs exactly one ${kind} per query (a model, a fixture or an expected output that ends one statement and starts another is refused)`,
    "remove the ; and whatever follows it: a model is one SELECT",
  );
}

function limitReached(name: LimitName, what: string): DatabaseError {
  return new DatabaseError(
    `${what} (limit ${name} = ${formatLimit(name)})`,
    `if the test is legitimate, raise the limit: ${limitEnvVar(name)}=<${name === "duckdb_memory_mb" ? "MiB" : name === "unit_query_seconds" ? "seconds" : "rows"}> in the environment, or limits: {${name}: ...} in slp.yml`,
    name,
  );
}

/** What DuckDB functions read from outside the database; a unit test may call none of them. */
const OUTSIDE =
  /\b(read_csv_auto|read_csv|read_parquet|parquet_scan|parquet_metadata|parquet_schema|parquet_file_metadata|parquet_kv_metadata|read_json_auto|read_json_objects_auto|read_json_objects|read_json|read_ndjson_auto|read_ndjson_objects|read_ndjson|read_text|read_blob|read_xlsx|sniff_csv|glob|st_read|iceberg_scan|iceberg_metadata|delta_scan|duckdb_extensions|duckdb_secrets|load_aws_credentials)\s*\(/i;

/** DuckDB's own message turned into one that names the limit, or the function that reached outside. */
function refusal(message: string, sql: string, timedOut: boolean): DatabaseError {
  if (timedOut || /^INTERRUPT Error/.test(message)) {
    return limitReached("unit_query_seconds", `the query ran longer than ${formatLimit("unit_query_seconds")} and was interrupted`);
  }
  if (/^Out of Memory Error/.test(message)) {
    return limitReached("duckdb_memory_mb", `the query needs more memory than ${formatLimit("duckdb_memory_mb")}`);
  }
  if (/^Permission Error/.test(message) || /disabled (by|through) configuration/.test(message)) {
    const called = OUTSIDE.exec(sql)?.[1];
    const what = called
      ? `${called.toLowerCase()}()`
      : /\bfrom\s+'/i.test(sql)
        ? "a file path after FROM"
        : "something outside the database";
    return new DatabaseError(
      `the SQL reads ${what}, and a unit test reads nothing but its given rows (files, extensions and settings are closed to it)`,
      "mock that input with a given instead; the model that reads the file is tested on the rows it yields",
    );
  }
  if (/the configuration has been locked/.test(message)) {
    return new DatabaseError(
      "the SQL changes DuckDB's settings, which are locked for unit tests",
      "remove the SET or PRAGMA from the model",
    );
  }
  return fromDuckDb(message, "fixtures", sql);
}

/** DuckDB's own message as slp may repeat it: through the one sanitizer (core/engine-message.ts), its values withheld; with the place in `sql` it names. */
function fromDuckDb(error: unknown, holding: Holding, sql?: string): DatabaseError {
  const raw = error instanceof Error ? error.message : String(error);
  const refused = new DatabaseError(engineMessage(raw, "duckdb", null, holding));
  if (sql !== undefined) {
    refused.offset = duckdbOffset(raw, sql);
    refused.queryLength = sql.length;
  }
  return refused;
}

const SPARK_HASH_NAME = new RegExp(SPARK_HASH_PREFIX, "i");
const JSON_FUNCTION_NAME = new RegExp(JSON_FUNCTION_PREFIX, "i");
const JSON_TEXT_NAME = new RegExp(`\\b(${Object.keys(JSON_TEXT_FUNCTIONS).join("|")})\\b`, "i");
const NESTED_NAME = new RegExp(NESTED_PREFIX, "i");

type Library = typeof import("@duckdb/node-api");
type DuckDBType = import("@duckdb/node-api").DuckDBType;

/**
 * Registers one of slp's scalar functions in the catalog every connection
 * shares: `row` computes a row's value from its arguments (and their DuckDB
 * types); an error it throws fails the query with its message. They only
 * compute (no IO), each value's work bounded by its size.
 */
function registerRowFunction(
  connection: DuckDBConnection,
  library: Library,
  definition: {
    name: string;
    returnType: DuckDBType;
    parameterTypes: DuckDBType[];
    /** NULLs reach `row` instead of making the result NULL. */
    nullsIn?: boolean;
    row(args: unknown[], types: unknown[]): unknown;
  },
): void {
  const { name, returnType, parameterTypes, nullsIn } = definition;
  connection.registerScalarFunction(
    library.DuckDBScalarFunction.create({
      name,
      returnType,
      parameterTypes,
      ...(nullsIn ? { specialHandling: true } : {}),
      mainFunction: (info, input, output) => {
        const columns = parameterTypes.map((_, i) => input.getColumnVector(i));
        const types = columns.map((column) => column.type);
        try {
          for (let row = 0; row < input.rowCount; row++)
            output.setItem(row, definition.row(columns.map((column) => column.getItem(row)) as unknown[], types) as never);
          output.flush();
        } catch (error) {
          info.setError(error instanceof Error ? error.message : String(error));
        }
      },
    }),
  );
}

/**
 * slp's JSON functions (json-values.ts): the warehouses' JSON text as each
 * prints it. A NULL argument gives NULL; an error a function raises (a text
 * slp does not reproduce) fails the query.
 */
export function registerJsonFunctions(connection: DuckDBConnection, library: Library): void {
  const types = { VARCHAR: library.VARCHAR, "VARCHAR[]": library.LIST(library.VARCHAR), BOOLEAN: library.BOOLEAN, BIGINT: library.BIGINT };
  for (const [name, definition] of Object.entries(JSON_FUNCTIONS))
    registerRowFunction(connection, library, {
      name,
      returnType: types[definition.returns],
      parameterTypes: definition.parameters.map((type) => types[type]),
      // NULL in, NULL out, whatever reaches the function.
      row: (args) => (args.includes(null) ? null : definition.compute(...(args as never[]))),
    });
}

/**
 * slp's JSON text functions (json-text.ts): a warehouse's semi-structured
 * value as slp holds it (`__slp_variant`) and as a unit test compares it
 * (`__slp_json_canon`), each JSON (DuckDB's JSON type) from its text, NULL
 * for NULL, an error for text that is not JSON.
 */
export function registerJsonText(connection: DuckDBConnection, library: Library): void {
  const json = library.DuckDBVarCharType.create("JSON");
  for (const [name, form] of Object.entries(JSON_TEXT_FUNCTIONS))
    registerRowFunction(connection, library, {
      name,
      returnType: json,
      parameterTypes: [library.VARCHAR],
      row: ([value]) => (value === null ? null : jsonText(String(value), form)),
    });
}

/**
 * slp's functions over nested values (spark-text.ts: Spark's text of an
 * array, map or struct, and its size; core/spark-json.ts: Spark's
 * get_json_object and from_json). Each of spark-text's takes a value of any
 * type and reads it by the type DuckDB gives it.
 */
export function registerNestedFunctions(connection: DuckDBConnection, library: Library): void {
  // Spark's get_json_object: the value at a path, as Spark returns it.
  registerRowFunction(connection, library, {
    name: "__slp_nested_get_json_object",
    returnType: library.VARCHAR,
    parameterTypes: [library.VARCHAR, library.VARCHAR],
    row: ([text, path]) => (text === null || path === null ? null : getJsonObject(text as string, path as string)),
  });
  // Spark's from_json: the text conformed to the schema, as JSON DuckDB's cast reads exactly.
  registerRowFunction(connection, library, {
    name: "__slp_nested_from_json",
    returnType: library.VARCHAR,
    parameterTypes: [library.VARCHAR, library.VARCHAR],
    row: ([text, schema]) => (text === null ? null : fromJson(text as string, schema as string)),
  });
  // BigQuery's TO_JSON_STRING (bigquery-json.ts) reads a value by its DuckDB type the same way.
  const functions: typeof NESTED_FUNCTIONS = { ...NESTED_FUNCTIONS, ...BIGQUERY_JSON_FUNCTIONS };
  for (const [name, { returns, compute }] of Object.entries(functions))
    registerRowFunction(connection, library, {
      name,
      returnType: returns === "BIGINT" ? library.BIGINT : returns === "VARCHAR[]" ? library.LIST(library.VARCHAR) : library.VARCHAR,
      parameterTypes: [library.ANY],
      row: ([value], [type]) => {
        const computed = value === null ? null : compute(value as never, type as NestedType);
        return Array.isArray(computed) ? library.listValue(computed) : computed;
      },
    });
}

/** slp's Spark xxhash64 functions (spark-hash.ts). */
export function registerSparkHash(connection: DuckDBConnection, library: Library): void {
  const types = {
    BIGINT: library.BIGINT,
    VARCHAR: library.VARCHAR,
    "BIGINT[]": library.LIST(library.BIGINT),
    "VARCHAR[]": library.LIST(library.VARCHAR),
  };
  for (const [name, { value, fold }] of Object.entries(SPARK_HASH_FUNCTIONS))
    registerRowFunction(connection, library, {
      name,
      returnType: library.BIGINT,
      parameterTypes: [types[value], library.BIGINT],
      // A NULL value keeps the seed.
      nullsIn: true,
      row: ([item, seed]) => {
        if (typeof seed !== "bigint") throw new Error(`${name}: a NULL seed`);
        return foldValue(fold, item as never, seed);
      },
    });
}
