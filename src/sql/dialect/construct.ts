/**
 * The shape of the construct table (constructs.ts): a construct, how slp runs
 * it on DuckDB, the documented examples it is tested against, and the
 * addresses of the vendors' documentation pages those examples come from.
 */
/** A documented example: SQL in the dialect, the documented result (one row), the page it is from. */
export interface Example {
  sql: string;
  expect: (string | null)[];
  source: string;
}

/** A call as a rewrite sees it: the arguments' source text (already rewritten) and literal values. */
export interface Call {
  name: string;
  args: string[];
  /** The value of argument `index` when it is one string or number literal, else null. */
  literal(index: number): string | null;
  /** The word after the call's closing parenthesis, lower case (`over`, `within`), else null. */
  next: string | null;
  /** The two words before the call's name, lower case (`lateral view`, `view outer`), else null. */
  before: string | null;
  /** For a construct that takes its window: ` over (...)` as written (rewritten), else empty. */
  window: string;
  /** For cast(x as T): the DuckDB type T maps to. */
  castType: string | null;
  /** The arguments as written in the warehouse's SQL (before any rewrite or type mapping). */
  written: string[];
  /** The whole SQL being translated, as written (where a rewrite reads what an argument names). */
  sql: string;
  /** The DuckDB type holding the dialect's type written as `written` (types.ts), or why there is none. */
  mapType(written: string): { ok: true; type: string } | { ok: false; why: string };
  /** `value` as a string literal the transpiler reads, in this dialect, as exactly `value` (lexer.ts). */
  quote(value: string): string;
}

export interface Construct {
  /** As looked up: a function name in lower case (`div0`), or the syntax (`::`, `qualify`, `||`, `[]`). */
  name: string;
  how: "same" | "translated" | "corrected" | "refused";
  /** One clause for the README: what differs, or why it is refused. */
  note?: string;
  /** For `refused`: the reason a refusal gives. */
  why?: string;
  /** For `corrected`: the call rewritten (in the same dialect) before the transpiler sees it, or a refusal. */
  rewrite?: (call: Call) => string | { refuse: string };
  /** The rewrite replaces the call's `over (...)` too (it receives it as `window`). */
  window?: boolean;
  /** slp's DuckDB macros the corrected SQL calls. */
  macros?: string[];
  /**
   * The construct runs only as the first argument of one of these calls, and
   * is refused anywhere else (Snowflake's TRY_PARSE_JSON gives a VARIANT slp
   * cannot hold, but as the text JSON_EXTRACT_PATH_TEXT reads it is only text).
   */
  within?: string[];
  /** For `within`: the argument (from 0) it must be; the first unless given. */
  withinArgument?: number;
  /** For `[]`: a 0-based index the translation moves to DuckDB's 1-based one. */
  subscript?: "zero-based" | "one-based";
  examples: Example[];
}

// --- documentation pages the examples come from ---
export const SF = (page: string) => `https://docs.snowflake.com/en/sql-reference/functions/${page}`;
export const BQ = (anchor: string, page = "functions-and-operators") =>
  `https://cloud.google.com/bigquery/docs/reference/standard-sql/${page}#${anchor}`;
export const DBX = (page: string) => `https://docs.databricks.com/en/sql/language-manual/functions/${page}.html`;
export const RS = (page: string) => `https://docs.aws.amazon.com/redshift/latest/dg/${page}.html`;
export const PG = (page: string) => `https://www.postgresql.org/docs/current/${page}.html`;
export const SF_ARITHMETIC = "https://docs.snowflake.com/en/sql-reference/operators-arithmetic";
export const SNOWFLAKE_DIV0_SCALE = "https://docs.snowflake.com/en/release-notes/bcr-bundles/2023_08/bcr-1400";

export const same = (name: string, examples: Example[], note?: string): Construct => ({
  name,
  how: "same",
  examples,
  ...(note ? { note } : {}),
});
export const translated = (name: string, examples: Example[], note?: string): Construct => ({
  name,
  how: "translated",
  examples,
  ...(note ? { note } : {}),
});
export const refused = (name: string, why: string): Construct => ({ name, how: "refused", why, note: why, examples: [] });
export const ex = (sql: string, expect: (string | null)[], source: string): Example => ({ sql, expect, source });
