/**
 * The PostgreSQL adapter: the only module that opens a connection with Bun's
 * built-in SQL client. Every statement runs alone in a READ ONLY transaction
 * with a statement timeout, so nothing slp sends (a reconciliation query
 * included) can write, and no query outlives its limit. Credentials are
 * handed in by the caller, from environment variables only.
 */
import type { SQL } from "bun";
import { engineMessage } from "../core/engine-message.ts";
import { SlpError } from "../core/errors.ts";

export interface PostgresSettings {
  hostname: string;
  port: number;
  database: string;
  username: string | undefined;
  password: string | undefined;
  timeoutSeconds: number;
}

/** What the server (or the connection) refused; values in data errors are never repeated. */
export class PostgresFailure extends SlpError {
  readonly sqlState: string | null;
  constructor(message: string, sqlState: string | null) {
    super("E_ENGINE", message);
    this.sqlState = sqlState;
  }
}

export type PostgresRow = Record<string, unknown>;

/** The one parameter every query is bound with ($1, an integer no query of slp's reads). */
const ONE_STATEMENT = 1;

export class PostgresDatabase {
  readonly #sql: SQL;
  readonly #timeoutMs: number;

  private constructor(sql: SQL, timeoutMs: number) {
    this.#sql = sql;
    this.#timeoutMs = timeoutMs;
  }

  static open(settings: PostgresSettings): PostgresDatabase {
    // Bun.SQL, not an import of it: the compiled binary evaluates a module's imports from "bun" at every start, and
    // reaching Bun's SQL client costs ~4 ms there.
    const sql = new Bun.SQL({
      adapter: "postgres",
      hostname: settings.hostname,
      port: settings.port,
      database: settings.database,
      username: settings.username,
      password: settings.password,
      max: 1,
      connectionTimeout: 10,
      prepare: false,
      // Every transaction on this connection is read-only, even one a statement opens after ending slp's.
      connection: { default_transaction_read_only: "on", statement_timeout: settings.timeoutSeconds * 1000 },
    });
    return new PostgresDatabase(sql, settings.timeoutSeconds * 1000);
  }

  /** Runs exactly one statement (the server refuses more) in a READ ONLY transaction and returns its rows as objects. */
  async query(text: string): Promise<PostgresRow[]> {
    try {
      return await this.#sql.begin("read only", async (tx) => {
        await tx.unsafe(`set local statement_timeout = ${Math.max(1, Math.round(this.#timeoutMs))}`);
        // One bound (unused) parameter puts the query on the extended protocol, where the server itself
        // refuses a second statement: without values Bun sends the simple protocol, which runs them all.
        const rows = (await tx.unsafe(text, [ONE_STATEMENT])) as PostgresRow[];
        return [...rows];
      });
    } catch (error) {
      throw failure(error);
    }
  }

  async close(): Promise<void> {
    await this.#sql.close({ timeout: 1 });
  }
}

function failure(error: unknown): PostgresFailure {
  const record = error as { message?: string; errno?: string; code?: string };
  const state = typeof record.errno === "string" ? record.errno : null;
  // The one sanitizer: the first line only (DETAIL quotes the row), values withheld unless the class only names things.
  if (state === "57014") return new PostgresFailure(`the query ran longer than the statement timeout (SQLSTATE ${state})`, state);
  return new PostgresFailure(engineMessage(String(record.message ?? error), "postgres", state), state);
}
