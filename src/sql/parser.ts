/**
 * The SQL parser adapter: the only module that imports `sql-parser-cst`.
 * It parses BigQuery and PostgreSQL (the dialects the package has) into a
 * syntax tree slp walks, and reports a parse failure as text, never a throw
 * the caller has to know the shape of.
 */
import { parse } from "sql-parser-cst";

export type ParserDialect = "bigquery" | "postgresql";

/** One node of the tree: a `type` and whatever the package puts beside it. */
export interface SqlNode {
  type: string;
  [key: string]: unknown;
}

export type ParseOutcome = { ok: true; tree: SqlNode } | { ok: false; error: string };

/** Parses `sql` as `dialect`; the error is the parser's message collapsed to one line. */
export function parseSql(sql: string, dialect: ParserDialect): ParseOutcome {
  try {
    return { ok: true, tree: parse(sql, { dialect }) as unknown as SqlNode };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: message.split("\n")[0] as string };
  }
}

/** Every node under `node` (itself included), depth first. */
export function* walkSql(node: unknown): Generator<SqlNode> {
  if (Array.isArray(node)) {
    for (const item of node) yield* walkSql(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const record = node as SqlNode;
  if (typeof record.type === "string") yield record;
  for (const [key, value] of Object.entries(record)) if (key !== "range") yield* walkSql(value);
}
