/**
 * The one aggregate query that measures a model between production and the
 * branch (framework Stage E step 2). Both sides are read through the same
 * closed window; one full outer join on the primary key carries a flag per
 * column (never one query per column), and each side's own aggregate gives
 * its row count and metrics. It returns exactly one row, whose columns follow
 * `slp diff-from-row`'s conventions, so the query a user runs in their
 * warehouse and the one slp runs itself are the same text and read the same.
 *
 * Duplicate keys make a diff undefined, and are found without a costly
 * distinct count over all rows: a key duplicated on one side shows as the
 * join returning more rows of the other side than it has, or, among keys the
 * other side lacks, as fewer distinct keys than rows.
 */
import type { Dialect } from "./dialect.ts";
import type { MetricPlan } from "./metrics.ts";

export interface ComparedColumn {
  name: string;
  /** A type both sides are cast to before comparing (their types differ), or null. */
  castTo: string | null;
}

export interface DiffQueryInput {
  dialect: Dialect;
  /** FROM items; prod is null for a model production does not have. */
  prod: string | null;
  pr: string;
  key: readonly string[];
  compared: readonly ComparedColumn[];
  metrics: readonly MetricPlan[];
  /** The WHERE both sides are read with, and how the window is reported; null for no window. */
  window: { predicate: string; column: string; start: string; end: string } | null;
  /** String literals in this dialect. */
  literal(text: string): string;
}

/** The output columns that are counts, in the order the query returns them. */
export const COUNT_COLUMNS = [
  "row_delta",
  "removed_pks",
  "prod_rows",
  "pr_rows",
  "prod_null_keys",
  "pr_null_keys",
  "prod_duplicate_keys",
  "pr_duplicate_keys",
  "matched_rows",
] as const;

export function diffQuery(input: DiffQueryInput): string {
  const { dialect: d } = input;
  const id = (name: string) => d.identifier(name);
  const as = (expression: string, name: string) => `  ${expression} as ${d.alias(name)}`;
  const where = input.window ? ` where ${input.window.predicate}` : "";
  const keyNull = input.key.map((column) => `${id(column)} is null`).join(" or ");
  const keyNullOf = (alias: string) => input.key.map((column) => `${alias}.${id(column)} is null`).join(" or ");
  const side = (name: string) =>
    [
      `${name}_side ${d.cteKeyword} (`,
      "  select",
      [
        `    count(*) as n`,
        `    count(case when ${keyNull} then 1 end) as null_keys`,
        ...input.metrics.map((metric, i) => `    (${metric.expression}) as m${i}`),
      ].join(",\n"),
      `  from ${name}`,
      ")",
    ].join("\n");

  const ctes: string[] = [];
  if (input.prod !== null) ctes.push(`prod ${d.cteKeyword} (select * from ${input.prod}${where})`);
  ctes.push(`pr ${d.cteKeyword} (select * from ${input.pr}${where})`);
  if (input.prod !== null) ctes.push(side("prod"));
  ctes.push(side("pr"));

  const columns: string[] = [];
  const windowColumns = input.window
    ? [
        as(input.literal(input.window.column), "window_column"),
        as(input.literal(input.window.start), "window_start"),
        as(input.literal(input.window.end), "window_end"),
      ]
    : [];

  if (input.prod === null) {
    // Production does not have the model: there is nothing to join, and the diff publishes values (Stage B).
    const keys = input.key.map(id);
    ctes.push(
      [`pr_keys ${d.cteKeyword} (`, `  select ${d.countDistinct(keys, `not (${keyNull})`)} as distinct_keys from pr`, ")"].join("\n"),
    );
    columns.push(
      as("pr_side.n", "row_delta"),
      as("0", "removed_pks"),
      as("0", "prod_rows"),
      as("pr_side.n", "pr_rows"),
      as("0", "prod_null_keys"),
      as("pr_side.null_keys", "pr_null_keys"),
      as("0", "prod_duplicate_keys"),
      as("pr_side.n - pr_side.null_keys - pr_keys.distinct_keys", "pr_duplicate_keys"),
      as("0", "matched_rows"),
      ...input.metrics.map((metric, i) => as(`pr_side.m${i}`, `${metric.name}_value`)),
      ...windowColumns,
    );
    return `with\n${ctes.join(",\n")}\nselect\n${columns.join(",\n")}\nfrom pr_side cross join pr_keys\n`;
  }

  const present = (alias: string) => `${alias}.slp__row is not null`;
  const absent = (alias: string) => `${alias}.slp__row is null`;
  const both = `${present("p")} and ${present("r")}`;
  const joinOn = input.key.map((column) => `p.${id(column)} = r.${id(column)}`).join(" and ");
  const value = (alias: string, column: ComparedColumn) =>
    column.castTo ? `cast(${alias}.${id(column.name)} as ${column.castTo})` : `${alias}.${id(column.name)}`;
  ctes.push(
    [
      `joined ${d.cteKeyword} (`,
      "  select",
      [
        // Every joined row has one side or both, so these three plain counts give the matched, removed and added rows.
        `    count(*) as joined_rows`,
        `    count(p.slp__row) as prod_joined`,
        `    count(r.slp__row) as pr_joined`,
        `    ${d.countDistinct(
          input.key.map((column) => `p.${id(column)}`),
          `${absent("r")} and not (${keyNullOf("p")})`,
        )} as removed_keys`,
        `    ${d.countDistinct(
          input.key.map((column) => `r.${id(column)}`),
          `${absent("p")} and not (${keyNullOf("r")})`,
        )} as added_keys`,
        ...input.compared.map(
          (column, i) => `    count(case when ${both} and ${d.differs(value("p", column), value("r", column))} then 1 end) as c${i}`,
        ),
      ].join(",\n"),
      `  from (select *, 1 as slp__row from prod) p`,
      `  full outer join (select *, 1 as slp__row from pr) r on ${joinOn}`,
      ")",
    ].join("\n"),
  );
  columns.push(
    as("pr_side.n - prod_side.n", "row_delta"),
    // Null keys never match, so they are refused first; removed_pks counts keys, not rows.
    as("joined.removed_keys", "removed_pks"),
    as("prod_side.n", "prod_rows"),
    as("pr_side.n", "pr_rows"),
    as("prod_side.null_keys", "prod_null_keys"),
    as("pr_side.null_keys", "pr_null_keys"),
    as(
      "(joined.pr_joined - pr_side.n) + ((joined.joined_rows - joined.pr_joined) - prod_side.null_keys - joined.removed_keys)",
      "prod_duplicate_keys",
    ),
    as(
      "(joined.prod_joined - prod_side.n) + ((joined.joined_rows - joined.prod_joined) - pr_side.null_keys - joined.added_keys)",
      "pr_duplicate_keys",
    ),
    as("joined.prod_joined + joined.pr_joined - joined.joined_rows", "matched_rows"),
    ...input.compared.map((column, i) => as(`joined.c${i}`, `${column.name}_changed`)),
    ...input.metrics.flatMap((metric, i) => [
      as(`pr_side.m${i}`, `${metric.name}_value`),
      as(`prod_side.m${i}`, `${metric.name}_production`),
      as(`100.0 * (pr_side.m${i} - prod_side.m${i}) / nullif(prod_side.m${i}, 0)`, `${metric.name}_delta_pct`),
    ]),
    ...windowColumns,
  );
  return `with\n${ctes.join(",\n")}\nselect\n${columns.join(",\n")}\nfrom prod_side cross join pr_side cross join joined\n`;
}
