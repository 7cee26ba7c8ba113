/**
 * The DuckDB adapter: the only module that imports `@duckdb/node-api`. It is
 * loaded on first use (a dynamic import), so a task that never opens a
 * database (`slp check`) never pays for the native library.
 */
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { availableParallelism } from "node:os";
import { SlpError } from "../core/errors.ts";

/** SQL DuckDB refused: the database's own message, first line first. */
export class DatabaseError extends SlpError {
  constructor(message: string) {
    super("E_ENGINE", message);
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

let library: Promise<typeof import("@duckdb/node-api")> | undefined;

/** One in-memory database for a whole run, with a few connections to spread queries over. */
export class Database {
  readonly #instance: DuckDBInstance;
  readonly #connections: DuckDBConnection[];
  /** A Stage E database runs SELECT statements only: an allowed file is readable, and must stay unwritable (COPY TO). */
  readonly #selectOnly: boolean;
  #next = 0;

  /** SET statements every connection runs first (a warehouse dialect's time zone and division). */
  readonly #settings: string[];

  private constructor(instance: DuckDBInstance, connections: DuckDBConnection[], settings: string[], selectOnly = false) {
    this.#instance = instance;
    this.#connections = connections;
    this.#settings = settings;
    this.#selectOnly = selectOnly;
  }

  /**
   * Opens an in-memory database with one connection. The library loads on the
   * calling thread; the database itself is created on DuckDB's, so a caller
   * that awaits `Database.load()` first can do other work while it opens.
   */
  static async open(options: { settings?: string[] } = {}): Promise<Database> {
    const { DuckDBInstance } = await Database.load();
    // No network at run time, no files: a unit test reads nothing but its fixtures. A fixture is a
    // few rows, so one thread per query runs it faster than a pool that hands it between threads;
    // queries run side by side on the connections instead (see widen).
    const instance = await DuckDBInstance.create(":memory:", { autoinstall_known_extensions: "false", autoload_known_extensions: "false", threads: "1" });
    const database = new Database(instance, [], options.settings ?? []);
    await database.widen(1);
    return database;
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
    const { DuckDBInstance } = await Database.load();
    const instance = await DuckDBInstance.create(":memory:", {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
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
      if (access.databases.length === 1) await connection.run(`USE "${(access.databases[0] as AttachedDatabase).name.replace(/"/g, '""')}"`);
      await connection.run("SET lock_configuration = true");
    } catch (error) {
      connection.closeSync();
      instance.closeSync();
      throw new DatabaseError(error instanceof Error ? error.message : String(error));
    }
    return new Database(instance, [connection], [], true);
  }

  /**
   * Opens (creating it if needed) a DuckDB database file for writing, with no
   * extension loading: how slp's tests and benchmarks build the data a diff
   * then reads read-only. Never used on a user's input.
   */
  static async openFile(path: string): Promise<Database> {
    const { DuckDBInstance } = await Database.load();
    const instance = await DuckDBInstance.create(path, { autoinstall_known_extensions: "false", autoload_known_extensions: "false" });
    return new Database(instance, [await instance.connect()], []);
  }

  /** Stops the query running on every connection (a time limit hit); the query then fails. */
  interrupt(): void {
    for (const connection of this.#connections) connection.interrupt();
  }

  /** The kind of each statement in `sql` (SELECT, INSERT, ...), without running any; DatabaseError when it does not parse. */
  async statementKinds(sql: string): Promise<string[]> {
    const connection = this.#connections[0] as DuckDBConnection;
    const { StatementType } = await Database.load();
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
      throw new DatabaseError(error instanceof Error ? error.message : String(error));
    }
  }

  /** Loads the native library and its bindings (once). */
  static load(): Promise<typeof import("@duckdb/node-api")> {
    library ??= import("@duckdb/node-api");
    return library;
  }

  /** Adds connections until `width` queries can run at once (worth it only for many queries). */
  async widen(width: number): Promise<void> {
    while (this.#connections.length < width) {
      const connection = await this.#instance.connect();
      for (const setting of this.#settings) await connection.run(setting);
      this.#connections.push(connection);
    }
  }

  /** The number of queries that can run at once. */
  get width(): number {
    return this.#connections.length;
  }

  /**
   * The columns a query would return, without running it: the statement is
   * prepared (bound) only, which costs a third of a DESCRIBE. A type's alias
   * (JSON) is its name, as DESCRIBE prints it.
   */
  async describe(sql: string, lane = 0, _timeoutMs?: number): Promise<Column[]> {
    const connection = this.#connections[lane % this.#connections.length] as DuckDBConnection;
    let prepared;
    try {
      prepared = await connection.prepare(sql);
    } catch (error) {
      throw new DatabaseError(error instanceof Error ? error.message : String(error));
    }
    try {
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

  /** Runs one statement on connection `lane` and reads every row as text; interrupted (QueryTimeout) after `timeoutMs`. */
  async query(sql: string, lane = 0, timeoutMs?: number): Promise<QueryResult> {
    const connection = this.#connections[lane % this.#connections.length] as DuckDBConnection;
    let timedOut = false;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            connection.interrupt();
          }, timeoutMs);
    try {
      const reader = this.#selectOnly ? await this.#runSelect(connection, sql) : await connection.runAndReadAll(sql);
      const names = reader.columnNames();
      const types = reader.columnTypes();
      const columns = names.map((name, i) => ({ name, type: String(types[i]) }));
      const rows = reader.getRows().map((row) => row.map((value) => (value === null ? null : String(value))));
      return { columns, rows };
    } catch (error) {
      if (timedOut) throw new QueryTimeout(timeoutMs as number);
      throw new DatabaseError(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Prepares one statement and runs it only if it is a SELECT (a prepared statement is one statement). */
  async #runSelect(connection: DuckDBConnection, sql: string) {
    const { StatementType } = await Database.load();
    const prepared = await connection.prepare(sql);
    try {
      if (prepared.statementType !== StatementType.SELECT) {
        throw new DatabaseError(`only a SELECT runs on this database, and this is ${StatementType[prepared.statementType] ?? "another statement"}`);
      }
      return await prepared.runAndReadAll();
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
