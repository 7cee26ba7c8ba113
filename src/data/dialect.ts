/**
 * How Stage E's aggregate SQL is spelled in each warehouse slp writes for:
 * identifier quoting, the null-safe "values differ" test, a composite key as
 * one countable value, and whether a CTE can be kept from being materialised.
 * Only constructs every listed warehouse documents are used elsewhere.
 */

export const DIALECTS = ["duckdb", "postgres", "bigquery", "snowflake", "databricks", "redshift"] as const;
export type DialectName = (typeof DIALECTS)[number];

export interface Dialect {
  name: DialectName;
  /** An identifier, quoted only when it needs to be (so Snowflake's unquoted upper-casing keeps working). */
  identifier(name: string): string;
  /** An output column's name: always quoted where the warehouse would otherwise change its case. */
  alias(name: string): string;
  /** True when `a` and `b` differ, NULL equal to NULL. */
  differs(a: string, b: string): string;
  /** How many distinct (possibly composite) keys the rows where `when` holds have: a whole aggregate expression. */
  countDistinct(columns: readonly string[], when: string): string;
  /** `AS NOT MATERIALIZED` where the warehouse has it (a CTE read twice is then scanned, not copied into memory). */
  cteKeyword: string;
}

/** Words that must be quoted as identifiers in at least one of the warehouses. */
const RESERVED = new Set(
  `all and any array as asc at between both by case cast check collate column constraint create cross current current_date
current_time current_timestamp current_user date default desc distinct do else end except exists extract false fetch for
foreign from full grant group having in inner intersect interval into is join lateral leading left like limit localtime
localtimestamp natural not null offset on only or order outer over partition primary qualify range references right row
rows select session_user some symmetric table tablesample then time timestamp to trailing true union unique user using
values when where window with`.split(/\s+/),
);

const PLAIN = /^[a-z_][a-z0-9_]*$/;

function doubleQuoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function backQuoted(name: string): string {
  return `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``;
}

function quoter(quote: (name: string) => string): (name: string) => string {
  return (name) => (PLAIN.test(name) && !RESERVED.has(name) ? name : quote(name));
}

const isDistinct = (a: string, b: string) => `${a} is distinct from ${b}`;
/** For a warehouse without IS DISTINCT FROM: NULL = NULL is NULL, so both-null is spelled out. */
const notEqualOrBothNull = (a: string, b: string) => `not (${a} = ${b} or (${a} is null and ${b} is null))`;
const whenValue = (when: string, value: string) => `case when ${when} then ${value} end`;
/** count(distinct CASE ...): the portable form (NULL where `when` is false is not counted). */
const distinctOfCase = (key: (columns: readonly string[]) => string) => (columns: readonly string[], when: string) =>
  `count(distinct ${whenValue(when, columns.length === 1 ? (columns[0] as string) : key(columns))})`;

function makeDialect(name: DialectName): Dialect {
  switch (name) {
    case "duckdb":
    case "postgres":
      return {
        name,
        identifier: quoter(doubleQuoted),
        alias: quoter(doubleQuoted),
        differs: isDistinct,
        // FILTER drops the other rows before they reach the distinct hash table (the CASE form feeds it every row).
        countDistinct: (columns, when) =>
          `count(distinct ${columns.length === 1 ? (columns[0] as string) : `row(${columns.join(", ")})`}) filter (where ${when})`,
        cteKeyword: "as not materialized",
      };
    case "bigquery":
      return {
        name,
        identifier: quoter(backQuoted),
        alias: quoter(backQuoted),
        differs: isDistinct,
        countDistinct: distinctOfCase((columns) => `to_json_string(struct(${columns.join(", ")}))`),
        cteKeyword: "as",
      };
    case "snowflake":
      return {
        name,
        identifier: quoter(doubleQuoted),
        // Snowflake upper-cases an unquoted alias, and diff-from-row matches column names exactly.
        alias: doubleQuoted,
        differs: isDistinct,
        countDistinct: distinctOfCase((columns) => `array_construct(${columns.join(", ")})`),
        cteKeyword: "as",
      };
    case "databricks":
      return {
        name,
        identifier: quoter(backQuoted),
        alias: quoter(backQuoted),
        differs: isDistinct,
        countDistinct: distinctOfCase((columns) => `to_json(struct(${columns.join(", ")}))`),
        cteKeyword: "as",
      };
    case "redshift":
      return {
        name,
        identifier: quoter(doubleQuoted),
        alias: quoter(doubleQuoted),
        differs: notEqualOrBothNull,
        // Redshift has no row values in count(distinct): the key's parts as text, each with its length, cannot run together.
        countDistinct: distinctOfCase((columns) =>
          columns.map((column) => `len(cast(${column} as varchar)) || ':' || cast(${column} as varchar)`).join(" || '|' || "),
        ),
        cteKeyword: "as",
      };
  }
}

export function dialect(name: DialectName): Dialect {
  return makeDialect(name);
}

/** A string literal every listed warehouse reads the same way (quotes doubled; BigQuery and Databricks also escape backslashes). */
export function stringLiteral(text: string, name: DialectName): string {
  const escaped =
    name === "bigquery" || name === "databricks" ? text.replace(/\\/g, "\\\\").replace(/'/g, "\\'") : text.replace(/'/g, "''");
  return `'${escaped}'`;
}
