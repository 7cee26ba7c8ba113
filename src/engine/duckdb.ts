/**
 * The DuckDB adapter: the only module that imports `@duckdb/node-api`. It is
 * loaded on first use (a dynamic import), so a task that never opens a
 * database (`slp check`) never pays for the native library.
 */
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
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

let library: Promise<typeof import("@duckdb/node-api")> | undefined;

/** One in-memory database for a whole run, with a few connections to spread queries over. */
export class Database {
  readonly #instance: DuckDBInstance;
  readonly #connections: DuckDBConnection[];
  #next = 0;

  /** SET statements every connection runs first (a warehouse dialect's time zone and division). */
  readonly #settings: string[];

  private constructor(instance: DuckDBInstance, connections: DuckDBConnection[], settings: string[]) {
    this.#instance = instance;
    this.#connections = connections;
    this.#settings = settings;
  }

  /**
   * Opens an in-memory database with one connection. The library loads on the
   * calling thread; the database itself is created on DuckDB's, so a caller
   * that awaits `Database.load()` first can do other work while it opens.
   */
  static async open(options: { settings?: string[] } = {}): Promise<Database> {
    const { DuckDBInstance } = await Database.load();
    // No network at run time, no files: a unit test reads nothing but its fixtures.
    const instance = await DuckDBInstance.create(":memory:", { autoinstall_known_extensions: "false", autoload_known_extensions: "false" });
    const database = new Database(instance, [], options.settings ?? []);
    await database.widen(1);
    return database;
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

  /** The columns a query would return, without running it. */
  async describe(sql: string, lane = 0, timeoutMs?: number): Promise<Column[]> {
    const result = await this.query(`DESCRIBE ${sql}`, lane, timeoutMs);
    return result.rows.map((row) => ({ name: row[0] as string, type: row[1] as string }));
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
      const reader = await connection.runAndReadAll(sql);
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
