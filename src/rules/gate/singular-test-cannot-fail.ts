/** G10: a new singular test whose config() keeps it from failing the build. */
import type { Mapping } from "../../core/values.ts";
import { sortByText } from "../../core/text.ts";
import { cannotFailReason, DEAD_KEYS } from "../../project/dbt/data-tests.ts";
import { defineGateRule } from "../context/gate.ts";
import { isNode, parseSql, type SqlNode } from "../../sql/parser.ts";

/**
 * Why a singular test's query returns no row whatever the data, or null: a
 * singular test fails on the rows it returns, so `limit 0`, or a where or
 * having that a constant makes false (`where false`, `and 1 = 0`, `where
 * null`), leaves it nothing to fail on. Read from the query with its Jinja
 * set aside (`{{ ... }}` as a name, tags and comments dropped); a query the
 * parser cannot read that way is not judged here.
 */
export function noRowReason(sql: string): string | null {
  const text = sql
    .replace(/\{#[\s\S]*?#\}/g, " ")
    .replace(/\{\{\s*config\s*\([\s\S]*?\)\s*\}\}/g, " ")
    .replace(/\{\{[\s\S]*?\}\}/g, " jinja_expression ")
    .replace(/\{%[\s\S]*?%\}/g, " ");
  const parsed = parseSql(text, "duckdb");
  if (!("root" in parsed)) return null;
  const statements = (parsed.root.statements as unknown[]).filter(isNode);
  const query = statements.at(-1);
  if (statements.length !== 1 || query?.type !== "select_stmt") return null;
  const source = (node: SqlNode) => (node.range ? text.slice(node.range[0], node.range[1]) : node.type).replace(/\s+/g, " ");
  for (const clause of (query.clauses as unknown[]).filter(isNode)) {
    if (clause.type === "limit_clause" && isNode(clause.count) && clause.count.type === "number_literal" && clause.count.value === 0)
      return `its query ends in ${source(clause)}, so it returns no row whatever the data`;
    if ((clause.type === "where_clause" || clause.type === "having_clause") && isNode(clause.expr)) {
      const never = neverTrue(clause.expr);
      if (never)
        return `its ${clause.type === "where_clause" ? "where" : "having"} holds ${source(never)}, which no row satisfies, so it returns no row whatever the data`;
    }
  }
  return null;
}

/** The part of a condition that makes it false (or null) for every row, or null when rows may pass it. */
function neverTrue(expr: SqlNode): SqlNode | null {
  if (expr.type === "paren_expr" && isNode(expr.expr)) return neverTrue(expr.expr) ? expr : null;
  if (expr.type === "boolean_literal") return expr.value === false ? expr : null;
  if (expr.type === "null_literal") return expr;
  if (expr.type !== "binary_expr" || !isNode(expr.left) || !isNode(expr.right)) return null;
  const operator = isNode(expr.operator) ? String(expr.operator.name) : String(expr.operator);
  if (operator === "AND") return neverTrue(expr.left) ?? neverTrue(expr.right);
  if (operator === "OR") return neverTrue(expr.left) && neverTrue(expr.right) ? expr : null;
  const literal = (node: SqlNode) => (node.type === "number_literal" || node.type === "string_literal" ? node.value : undefined);
  const [a, b] = [literal(expr.left), literal(expr.right)];
  if (a === undefined || b === undefined || typeof a !== typeof b) return null;
  const holds: Record<string, (x: any, y: any) => boolean> = {
    "=": (x, y) => x === y,
    "==": (x, y) => x === y,
    "<>": (x, y) => x !== y,
    "!=": (x, y) => x !== y,
    "<": (x, y) => x < y,
    ">": (x, y) => x > y,
    "<=": (x, y) => x <= y,
    ">=": (x, y) => x >= y,
  };
  const compare = holds[operator];
  return compare && !compare(a, b) ? expr : null;
}

/**
 * The settings of a singular test's `{{ config(...) }}` blocks, read as the
 * reference reads them: `key = value` pairs, quotes stripped, later ones win.
 * Values stay text, except `enabled`, which is a boolean: the reference reads
 * any explicit `enabled=` (`enabled=true` too) as disabled; `true` in any case
 * is enabled here.
 */
export function singularConfig(sql: string): Mapping {
  const config: Mapping = {};
  for (const block of sql.matchAll(/config\s*\(([\s\S]*?)\)\s*\}\}/g)) {
    for (const pair of (block[1] ?? "").matchAll(/(\w+)\s*=\s*([^,\s)]+)/g)) {
      config[pair[1] as string] = (pair[2] as string).replace(/^['"]+|['"]+$/g, "");
    }
  }
  if (Object.hasOwn(config, "enabled")) config.enabled = String(config.enabled).toLowerCase() === "true";
  return config;
}

export default defineGateRule({
  code: "G10",
  name: "singular-test-cannot-fail",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary:
      "A new singular test (tests/**.sql outside tests/generic/) whose config() disables it, sets a severity other than error, or sets error_if/warn_if/fail_calc/limit; or whose query returns no row whatever the data (limit 0, a where or having a constant makes false: where false, and 1 = 0, where null).",
    rationale:
      "A singular test born with severity warn looks like coverage and can never block; so does one whose query can return no row, since a singular test fails on the rows it returns. A where in its config is not flagged; a config carried by a macro is G9's. Unlike the reference, an explicit enabled=true counts as enabled.",
    enforces: "Control 5B: the gate blocks a test added that cannot fail.",
  },
  messages: { born: "{path} is a new singular test and cannot fail the build: {reason}" },
  async run(ctx, report) {
    for (const path of sortByText(ctx.after.singular.keys())) {
      if (ctx.before.files.has(path)) continue;
      if (!ctx.after.singular.has(path)) continue;
      const sql = await ctx.after.project.text(path);
      const reason = cannotFailReason(singularConfig(sql), DEAD_KEYS) || (noRowReason(sql) ?? "");
      const configAt = sql.search(/config\s*\(/);
      const line = configAt === -1 ? 1 : sql.slice(0, configAt).split("\n").length;
      if (reason !== "") report("born", { file: path, model: "", line }, { path, reason });
    }
  },
});
