/**
 * The SQL parser adapter: the only module that imports `sql-parser-cst`. It
 * parses a model's compiled SQL in the grammar of its warehouse, with the
 * source range of every node, so mutation operators find their sites in a
 * real syntax tree instead of in text.
 */
import type * as SqlParserCst from "sql-parser-cst";
import type { DialectName } from "sql-parser-cst";

/** A node of the syntax tree: its `type`, its children as fields, and its `[start, end)` range in the SQL. */
export interface SqlNode {
  type: string;
  range?: [number, number];
  [field: string]: unknown;
}

/**
 * The grammar that reads a warehouse's SQL, or null when the parser has none.
 * DuckDB's parser is derived from PostgreSQL's, and Redshift speaks a
 * PostgreSQL dialect, so both are read with the PostgreSQL grammar; what
 * that grammar refuses (DuckDB's `group by all`, `qualify`, `exclude`) is a
 * parse error the caller reports, never a silent misreading.
 */
function grammarFor(warehouse: string): DialectName | null {
  switch (warehouse) {
    case "duckdb":
    case "postgres":
    case "postgresql":
    case "redshift":
      return "postgresql";
    case "bigquery":
      return "bigquery";
    case "mysql":
      return "mysql";
    case "mariadb":
      return "mariadb";
    case "sqlite":
      return "sqlite";
    default:
      return null;
  }
}

/** Where a parse error points: a 1-based line and column of the SQL given. */
export interface ParsePosition {
  line: number;
  column: number;
}

export type ParseOutcome = { root: SqlNode; grammar: DialectName } | { error: string; at?: ParsePosition; grammar: DialectName | null };

/** Parses `sql` (one or more statements) in the warehouse's grammar. */
export function parseSql(sql: string, warehouse: string): ParseOutcome {
  const grammar = grammarFor(warehouse);
  if (grammar === null) return { error: `the SQL parser has no grammar for ${warehouse}`, grammar };
  // Loaded on first use: the parser is most of a process's start, and check and gate never parse SQL.
  const { parse } = require("sql-parser-cst") as typeof SqlParserCst;
  try {
    return { root: parse(sql, { dialect: grammar, includeRange: true }) as unknown as SqlNode, grammar };
  } catch (error) {
    const message = (error as Error).message;
    const reason = (message.split("\n")[0] ?? "").replace(/^Syntax Error: /, "");
    // The parser's message carries its position as `--> <file>:<line>:<column>`.
    const position = /^--> .*:(\d+):(\d+)$/m.exec(message);
    return position
      ? { error: reason, at: { line: Number(position[1]), column: Number(position[2]) }, grammar }
      : { error: reason, grammar };
  }
}

/** True for a syntax-tree node (an object with a `type`). */
export function isNode(value: unknown): value is SqlNode {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as SqlNode).type === "string";
}

/** Every node under `root` in source order, each with its ancestors (nearest last). */
export function walkTree(root: SqlNode, visit: (node: SqlNode, ancestors: readonly SqlNode[]) => void): void {
  const ancestors: SqlNode[] = [];
  const step = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) step(item);
      return;
    }
    if (!isNode(value)) return;
    visit(value, ancestors);
    ancestors.push(value);
    for (const [key, child] of Object.entries(value)) if (key !== "range" && typeof child === "object") step(child);
    ancestors.pop();
  };
  step(root);
}
