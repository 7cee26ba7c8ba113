/**
 * The engine Stage E measures with: the embedded DuckDB (relations in
 * database files, or CSV and Parquet files) or a PostgreSQL server, behind
 * one small interface. Every statement goes through `run`, which appends it
 * to `.slp/queries.jsonl` (SQL text, engine, duration, rows returned; never a
 * value) and turns an engine's refusal into an exit 2 that repeats no value.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { engineMessage } from "../core/engine-message.ts";
import { maskEnvValues } from "../core/env-values.ts";
import { EngineError, SlpError } from "../core/errors.ts";
import { makeOutputDir } from "../core/output-dir.ts";
import type { Database } from "../engine/duckdb.ts";
import type { PostgresDatabase } from "../engine/postgres.ts";
import { dialect, type Dialect, stringLiteral } from "./dialect.ts";
import { leakFailure, sensitiveValuesIn, type Watched } from "./output-guard.ts";
import { relationSql, type Relation } from "./relation.ts";

export interface EngineColumn {
  name: string;
  /** The engine's type name, upper-case (INTEGER, TIMESTAMP, DOUBLE PRECISION, ...). */
  type: string;
}

/** One result row: column -> the value as text, or null. */
export type ResultRow = Map<string, string | null>;

export interface DataEngine {
  readonly name: "duckdb" | "postgres";
  readonly dialect: Dialect;
  /** The relation's columns, or null when it does not exist. */
  columns(relation: Relation, purpose: string): Promise<EngineColumn[] | null>;
  /** Runs one read-only statement; `purpose` names it in the ledger (`diff fct_orders`). */
  run(sql: string, purpose: string): Promise<ResultRow[]>;
  /** The kind of each statement in `sql` (SELECT, CREATE, ...) as the engine's own parser reads it, where it has one. */
  statementKinds?(sql: string): Promise<string[]>;
  /** Runs one of the output guard's own counting queries (output-guard.ts), recorded in the ledger as any other. */
  probe(sql: string, purpose: string): Promise<ResultRow[]>;
  /** The sensitive columns of the relations this run reads: a refusal whose text holds one of their values is a hard failure. */
  watch(watched: readonly Watched[], command: string): void;
  /** A refusal's text, as slp may repeat it: the sanitized message, checked against the watched columns' values. */
  refusal(error: unknown): Promise<string>;
  close(): Promise<void>;
}

/** Appends one line per statement to `<dir>/.slp/queries.jsonl`. */
export class QueryLedger {
  readonly #file: string;
  constructor(projectDir: string) {
    makeOutputDir(join(projectDir, ".slp"));
    this.#file = join(projectDir, ".slp", "queries.jsonl");
  }

  record(entry: { engine: string; purpose: string; sql: string; durationMs: number; rows: number | null; error: string | null }): void {
    const line = {
      at: new Date().toISOString(),
      engine: entry.engine,
      purpose: entry.purpose,
      sql: maskEnvValues(entry.sql),
      duration_ms: Math.round(entry.durationMs * 10) / 10,
      rows: entry.rows,
      error: entry.error === null ? null : maskEnvValues(entry.error),
    };
    appendFileSync(this.#file, `${JSON.stringify(line)}\n`);
  }
}

abstract class LoggedEngine implements DataEngine {
  abstract readonly name: "duckdb" | "postgres";
  abstract readonly dialect: Dialect;
  readonly #ledger: QueryLedger;

  constructor(ledger: QueryLedger) {
    this.#ledger = ledger;
  }

  protected abstract execute(sql: string): Promise<ResultRow[]>;
  abstract columns(relation: Relation, purpose: string): Promise<EngineColumn[] | null>;
  abstract close(): Promise<void>;

  #watched: readonly Watched[] = [];
  #command = "";
  /** Set while the guard looks at a refusal: a refusal of its own looking is not looked at again (it would never end). */
  #lookingAtRefusal = false;

  watch(watched: readonly Watched[], command: string): void {
    this.#watched = watched;
    this.#command = command;
  }

  async refusal(error: unknown): Promise<string> {
    const message = refusalText(error);
    if (this.#watched.length === 0 || this.#lookingAtRefusal) return message;
    this.#lookingAtRefusal = true;
    let found: string[];
    try {
      found = await sensitiveValuesIn(message, this.#watched, this);
    } finally {
      this.#lookingAtRefusal = false;
    }
    if (found.length > 0) throw leakFailure(this.#command, `a value of the sensitive column ${found.join(", ")}, in the engine's refusal`);
    return message;
  }

  async probe(sql: string, purpose: string): Promise<ResultRow[]> {
    const start = performance.now();
    try {
      const rows = await this.execute(sql);
      this.#ledger.record({
        engine: this.name,
        purpose,
        sql: "(the output guard's count of sensitive values in the output)",
        durationMs: performance.now() - start,
        rows: rows.length,
        error: null,
      });
      return rows;
    } catch (error) {
      // The guard could not look: the output is not let out unlooked at.
      throw new EngineError(`${purpose}: ${this.name} could not run the output guard's count: ${refusalText(error)}`, {
        fix: "check that the relations named are readable; the output is withheld until they are",
      });
    }
  }

  async run(sql: string, purpose: string): Promise<ResultRow[]> {
    const start = performance.now();
    try {
      const rows = await this.execute(sql);
      this.#ledger.record({ engine: this.name, purpose, sql, durationMs: performance.now() - start, rows: rows.length, error: null });
      return rows;
    } catch (error) {
      const message = await this.refusal(error);
      this.#ledger.record({ engine: this.name, purpose, sql, durationMs: performance.now() - start, rows: null, error: message });
      throw new EngineError(`${purpose}: ${this.name} refused the query: ${message}`, {
        fix: "check the relations, columns and metric expressions it names (the query is in .slp/queries.jsonl)",
      });
    }
  }
}

/**
 * An engine's refusal as slp repeats it. The adapters put every message of
 * the database's own through the one sanitizer (core/engine-message.ts); what
 * reaches here is that, or slp's own wording (a limit, a timeout), one line.
 */
export function refusalText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof SlpError) return (message.split("\n")[0] as string).trim();
  // Not an adapter's error: sanitized here, as an unknown message may carry a value.
  return engineMessage(message, "duckdb");
}

export class DuckDbEngine extends LoggedEngine {
  readonly name = "duckdb" as const;
  readonly dialect = dialect("duckdb");
  readonly #db: Database;
  readonly #timeoutMs: number;

  readonly #memoryLimit: string;

  constructor(db: Database, ledger: QueryLedger, timeoutSeconds: number, memoryLimit: string) {
    super(ledger);
    this.#db = db;
    this.#timeoutMs = timeoutSeconds * 1000;
    this.#memoryLimit = memoryLimit;
  }

  protected async execute(sql: string): Promise<ResultRow[]> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.#db.interrupt();
    }, this.#timeoutMs);
    try {
      const result = await this.#db.query(sql);
      return result.rows.map((row) => new Map(result.columns.map((column, i) => [column.name, row[i] ?? null])));
    } catch (error) {
      if (timedOut) throw new EngineError(`the query ran longer than ${this.#timeoutMs / 1000} s (diff.timeout_seconds in slp.yml)`);
      if (/Out of Memory Error/.test((error as Error).message)) {
        throw new EngineError(
          `the query needed more memory than ${this.#memoryLimit} (diff.memory_limit in slp.yml); nothing spills to disk`,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async columns(relation: Relation, purpose: string): Promise<EngineColumn[] | null> {
    try {
      // A SELECT of no row: the one kind of statement this database runs, and it reads no data.
      const rows = await this.run(
        `select column_name, column_type from (describe select * from ${relationSql(relation, this.dialect)})`,
        purpose,
      );
      return rows.map((row) => ({ name: row.get("column_name") as string, type: String(row.get("column_type")).toUpperCase() }));
    } catch (error) {
      if (relation.kind === "table" && /Catalog Error|does not exist/.test((error as Error).message)) return null;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  /** The kinds of the statements in `sql`, for refusing anything but one SELECT. */
  statementKinds(sql: string): Promise<string[]> {
    return this.#db.statementKinds(sql);
  }
}

export class PostgresEngine extends LoggedEngine {
  readonly name = "postgres" as const;
  readonly dialect = dialect("postgres");
  readonly #db: PostgresDatabase;

  constructor(db: PostgresDatabase, ledger: QueryLedger) {
    super(ledger);
    this.#db = db;
  }

  protected async execute(sql: string): Promise<ResultRow[]> {
    const rows = await this.#db.query(sql);
    return rows.map(
      (row) => new Map(Object.entries(row).map(([key, value]) => [key, value === null || value === undefined ? null : text(value)])),
    );
  }

  async columns(relation: Relation, purpose: string): Promise<EngineColumn[] | null> {
    if (relation.kind !== "table") relationSql(relation, this.dialect);
    const parts = (relation as Extract<Relation, { kind: "table" }>).parts;
    const table = parts[parts.length - 1] as string;
    const schema = parts.length >= 2 ? stringLiteral(parts[parts.length - 2] as string, this.dialect.name) : "current_schema()";
    const rows = await this.run(
      `select column_name, upper(data_type) as data_type from information_schema.columns where table_schema = ${schema} and table_name = ${stringLiteral(table, this.dialect.name)} order by ordinal_position`,
      purpose,
    );
    if (rows.length === 0) return null;
    return rows.map((row) => ({ name: row.get("column_name") as string, type: row.get("data_type") as string }));
  }

  async close(): Promise<void> {
    await this.#db.close();
  }
}

function text(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}
