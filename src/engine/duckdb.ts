/**
 * The DuckDB adapter: the only module that imports `@duckdb/node-api`. It is
 * loaded on first use (a dynamic import), so a task that never opens a
 * database (`slp check`) never pays for the native library.
 *
 * The database is locked down, because the SQL it runs is agent-written:
 * no file or network access (enable_external_access = false, unless a caller
 * names folders it may read), no extension installed or loaded, the
 * configuration locked (no SET, no PRAGMA), nothing spilled to disk, memory
 * and threads bounded. Each query is exactly one SELECT, interrupted past
 * unit_query_seconds, and read back to at most unit_result_rows rows.
 */
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { SlpError } from "../core/errors.ts";
import { formatLimit, limit, limitEnvVar, type LimitName } from "../core/limits.ts";

/** SQL DuckDB refused, or a limit it reached: the message first line first, and what to do. */
export class DatabaseError extends SlpError {
  /** The limit this query reached, when that is why it failed. */
  readonly limit?: LimitName;
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
  /** SET statements for a warehouse dialect (time zone, division), made global before the configuration is locked. */
  settings?: readonly string[];
}

let library: Promise<typeof import("@duckdb/node-api")> | undefined;

/** One in-memory database for a whole run, with a few connections to spread queries over. */
export class Database {
  readonly #instance: DuckDBInstance;
  readonly #connections: DuckDBConnection[];
  readonly #library: typeof import("@duckdb/node-api");
  #next = 0;

  private constructor(instance: DuckDBInstance, connections: DuckDBConnection[], loaded: typeof import("@duckdb/node-api")) {
    this.#instance = instance;
    this.#connections = connections;
    this.#library = loaded;
  }

  /**
   * Opens a locked in-memory database with one connection. The library loads
   * on the calling thread; the database itself is created on DuckDB's, so a
   * caller that awaits `Database.load()` first can do other work while it opens.
   */
  static async open(options: OpenOptions = {}): Promise<Database> {
    const loaded = await Database.load();
    const readable = options.readableDirectories ?? [];
    // Order matters: temp_directory cannot be set once external access is off.
    const config: Record<string, string> = {
      temp_directory: "",
      memory_limit: `${limit("duckdb_memory_mb")}MiB`,
      threads: String(limit("duckdb_threads")),
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      allow_community_extensions: "false",
    };
    if (readable.length === 0) config.enable_external_access = "false";
    const instance = await loaded.DuckDBInstance.create(":memory:", config);
    const connection = await instance.connect();
    // Settings are made global (every connection has them), then the configuration is locked.
    const list = readable.map((dir) => `'${(dir.endsWith("/") ? dir : `${dir}/`).replace(/'/g, "''")}'`).join(", ");
    const statements = [
      ...(readable.length > 0 ? [`SET GLOBAL allowed_directories = [${list}]`, "SET GLOBAL enable_external_access = false"] : []),
      ...(options.settings ?? []).map((setting) => setting.replace(/^\s*set\s+(?!global\b)/i, "SET GLOBAL ")),
      "SET GLOBAL lock_configuration = true",
    ];
    for (const statement of statements) await connection.run(statement);
    return new Database(instance, [connection], loaded);
  }

  /** Loads the native library and its bindings (once). */
  static load(): Promise<typeof import("@duckdb/node-api")> {
    library ??= import("@duckdb/node-api");
    return library;
  }

  /** Adds connections until `width` queries can run at once (worth it only for many queries). */
  async widen(width: number): Promise<void> {
    while (this.#connections.length < width) this.#connections.push(await this.#instance.connect());
  }

  /** The number of queries that can run at once. */
  get width(): number {
    return this.#connections.length;
  }

  /** The columns a query would return, without running it. */
  async describe(sql: string, lane = 0, timeoutMs?: number): Promise<Column[]> {
    const result = await this.query(`DESCRIBE ${sql}`, lane, timeoutMs);
    return result.rows.map((row) => ({ name: row[0] as string, type: row[1] as string }));
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

  async #run(sql: string, lane: number, timeoutMs: number | undefined, kind: "SELECT" | "CREATE"): Promise<QueryResult> {
    const connection = this.#connections[lane % this.#connections.length] as DuckDBConnection;
    const limitMs = limit("unit_query_seconds") * 1000;
    const callerFirst = timeoutMs !== undefined && timeoutMs <= limitMs;
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        connection.interrupt();
      },
      callerFirst ? timeoutMs : limitMs,
    );
    try {
      const statements = await connection.extractStatements(sql);
      if (statements.count !== 1) {
        throw new DatabaseError(
          `the SQL holds ${statements.count} statements, and slp runs exactly one SELECT per query (a model, a fixture or an expected output that ends one statement and starts another is refused)`,
          "remove the ; and whatever follows it: a model is one SELECT",
        );
      }
      const prepared = await statements.prepare(0);
      const { StatementType } = this.#library;
      if (prepared.statementType !== StatementType[kind]) {
        throw new DatabaseError(
          `the SQL is a ${StatementType[prepared.statementType] ?? "different"} statement, and unit tests run ${kind} only`,
          "a model, a format: sql fixture and an expected output are each one SELECT",
        );
      }
      const maxRows = limit("unit_result_rows");
      const reader = await prepared.runAndReadUntil(maxRows + 1);
      if (reader.currentRowCount > maxRows) {
        throw limitReached("unit_result_rows", `the query returns more than ${formatLimit("unit_result_rows")}`);
      }
      const names = reader.columnNames();
      const types = reader.columnTypes();
      const columns = names.map((name, i) => ({ name, type: String(types[i]) }));
      const rows = reader.getRows().map((row) => row.map((value) => (value === null ? null : String(value))));
      return { columns, rows };
    } catch (error) {
      if (error instanceof DatabaseError) throw error;
      if (timedOut && callerFirst) throw new QueryTimeout(timeoutMs);
      throw refusal(error instanceof Error ? error.message : String(error), sql, timedOut);
    } finally {
      clearTimeout(timer);
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

function limitReached(name: LimitName, what: string): DatabaseError {
  return new DatabaseError(`${what} (limit ${name} = ${formatLimit(name)})`, `if the test is legitimate, raise the limit: ${limitEnvVar(name)}=<${name === "duckdb_memory_mb" ? "MiB" : name === "unit_query_seconds" ? "seconds" : "rows"}> in the environment, or limits: {${name}: ...} in slp.yml`, name);
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
    const what = called ? `${called.toLowerCase()}()` : /\bfrom\s+'/i.test(sql) ? "a file path after FROM" : "something outside the database";
    return new DatabaseError(
      `the SQL reads ${what}, and a unit test reads nothing but its given rows (files, extensions and settings are closed to it)`,
      "mock that input with a given instead; the model that reads the file is tested on the rows it yields",
    );
  }
  if (/the configuration has been locked/.test(message)) {
    return new DatabaseError("the SQL changes DuckDB's settings, which are locked for unit tests", "remove the SET or PRAGMA from the model");
  }
  return new DatabaseError(message);
}
