/**
 * The aggregate each spec metric is measured with: `metrics:` in slp.yml
 * (`fct_orders.gross_revenue: "sum(order_total)"`), else, for a metric named
 * like one of the model's columns, `sum(column)`. Anything else is a refusal
 * naming the metric: slp never guesses what a number means. An expression is
 * parsed before it reaches any engine, and must be exactly one aggregate
 * expression: no subquery, no second clause, no comment, no statement.
 */
import { InputError } from "../core/errors.ts";
import { parseSql, walkTree, type SqlNode } from "../sql/parser.ts";
import type { Dialect } from "./dialect.ts";

export interface MetricPlan {
  /** The spec's metric name. */
  name: string;
  /** The SQL aggregate, as it goes into the query. */
  expression: string;
  /** Where it came from, for messages. */
  source: "slp.yml" | "column";
}

const AGGREGATES = new Set(
  `sum count avg mean min max count_if countif median mode any_value arbitrary bool_and bool_or every string_agg listagg
group_concat array_agg stddev stddev_pop stddev_samp variance var_pop var_samp approx_count_distinct approx_distinct
percentile_cont percentile_disc quantile quantile_cont quantile_disc approx_quantile corr covar_pop covar_samp product
bit_and bit_or bit_xor sumif avgif min_by max_by arg_min arg_max first last sum_distinct count_big kurtosis skewness
approx_percentile approx_median hll_count`.split(/\s+/),
);

const FIX = "write it as one aggregate over the model's columns, e.g. sum(order_total), in slp.yml's metrics";

/**
 * The metric plans of one model, sorted by name. `columns` are the names the
 * model's relations (or its yml) have; `configured` is slp.yml's `metrics:`.
 */
export function metricPlans(
  model: string,
  metrics: readonly string[],
  configured: Readonly<Record<string, string>>,
  columns: readonly string[],
  dialect: Dialect,
): MetricPlan[] {
  return [...metrics].sort().map((name): MetricPlan => {
    const expression = configured[`${model}.${name}`];
    if (expression !== undefined) {
      checkMetricExpression(model, name, expression, dialect);
      return { name, expression, source: "slp.yml" };
    }
    if (columns.includes(name)) return { name, expression: `coalesce(sum(${dialect.identifier(name)}), 0)`, source: "column" };
    throw new InputError(
      `${model}: the spec's metric ${name} has no expression in slp.yml and no column is named ${name}, so slp cannot tell what to measure`,
      { file: "slp.yml", fix: `add metrics: {${model}.${name}: "sum(the_column)"} to slp.yml` },
    );
  });
}

/** slp.yml `metrics:` keys naming a model it measures but a metric that model's spec lacks (a typo would silently measure nothing). */
export function unusedMetricKeys(configured: Readonly<Record<string, string>>, specs: ReadonlyMap<string, readonly string[]>): string[] {
  return Object.keys(configured)
    .filter((key) => {
      const [model, metric] = key.split(".") as [string, string];
      const names = specs.get(model);
      return names !== undefined && !names.includes(metric);
    })
    .sort();
}

/** Refuses anything but one aggregate expression, naming the model and the metric. */
export function checkMetricExpression(model: string, name: string, expression: string, dialect: Dialect): void {
  function fail(why: string): never {
    throw new InputError(`${model}: metric ${name} = ${JSON.stringify(expression)} ${why}`, { file: "slp.yml", fix: FIX });
  }
  if (/--|\/\*|;/.test(expression)) fail("holds a comment or a semicolon; a metric is one expression");
  // Databricks quotes like BigQuery (backticks), so its expressions are read with BigQuery's grammar.
  const grammar = dialect.name === "databricks" || dialect.name === "bigquery" ? "bigquery" : "postgres";
  const unbalanced = unbalancedPart(expression, grammar === "bigquery");
  if (unbalanced !== null) fail(`does not parse as SQL: it has ${unbalanced}`);
  // The expression sits on its own lines (from line 2) inside slp's wrapping query.
  const outcome = parseSql(`select (\n${expression}\n) from slp__metric_input`, grammar);
  if ("error" in outcome) {
    const lines = expression.split("\n");
    if (outcome.at === undefined) fail(`does not parse as SQL (${outcome.error})`);
    // A token past the expression's own lines is slp's wrapping, not the user's text.
    if (outcome.at.line > lines.length + 1)
      fail("does not parse as SQL: the expression ends before it is complete (an operator or argument missing at the end?)");
    const where = lines.length === 1 ? `column ${outcome.at.column}` : `line ${outcome.at.line - 1}, column ${outcome.at.column}`;
    fail(`does not parse as SQL (${outcome.error} at ${where})`);
  }
  const statements = outcome.root.statements as SqlNode[];
  const select = statements[0] as SqlNode & { clauses: SqlNode[] };
  const shapeHolds =
    statements.length === 1 &&
    select.type === "select_stmt" &&
    select.clauses.length === 2 &&
    select.clauses[0]?.type === "select_clause" &&
    (select.clauses[0] as SqlNode & { columns: { items: unknown[] } }).columns.items.length === 1 &&
    select.clauses[1]?.type === "from_clause";
  if (!shapeHolds) fail("is not one expression");
  const column = (select.clauses[0] as SqlNode & { columns: { items: SqlNode[] } }).columns.items[0] as SqlNode;
  // `(a, b)` parses as one row value: two expressions all the same.
  if (column.type === "paren_expr" && (column.expr as SqlNode | undefined)?.type === "list_expr") fail("is not one expression");
  const nodes: SqlNode[] = [];
  walkTree(column, (node) => nodes.push(node));
  if (nodes.slice(1).some((node) => node.type === "select_stmt" || node.type === "compound_select_stmt")) fail("holds a subquery");
  const calls = nodes.filter((node) => node.type === "func_call").map((node) => functionName(node));
  if (!calls.some((call) => AGGREGATES.has(call))) fail("is not an aggregate (sum, count, avg, min, max, ...)");
}

/**
 * What is unclosed or unopened in the expression (a quote, a parenthesis), or
 * null: said of the user's own text before the parser reads it inside slp's
 * wrapping query, whose tokens would otherwise be named.
 */
function unbalancedPart(expression: string, backslashEscapes: boolean): string | null {
  let depth = 0;
  let quote: string | null = null;
  for (let index = 0; index < expression.length; index++) {
    const char = expression[index] as string;
    if (quote !== null) {
      if (backslashEscapes && char === "\\") index++;
      // A doubled quote inside a quoted run reopens it at once: the scan stays in step.
      else if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"' || char === "`") quote = char;
    else if (char === "(") depth++;
    else if (char === ")" && --depth < 0) return "a ) that closes no (";
  }
  if (quote !== null) return `an unclosed quote (${quote})`;
  if (depth > 0) return depth === 1 ? "an unclosed parenthesis" : `${depth} unclosed parentheses`;
  return null;
}

function functionName(node: SqlNode): string {
  const name = node.name as SqlNode | undefined;
  const text = typeof name?.name === "string" ? name.name : typeof name?.text === "string" ? name.text : "";
  return text.toLowerCase();
}
