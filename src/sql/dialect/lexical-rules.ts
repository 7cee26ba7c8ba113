/**
 * How a warehouse reads the text of its SQL before any function is
 * translated: string literals and their escapes, quoted identifiers,
 * comments, and the default escape character of LIKE patterns, from its own
 * documentation; one entry per warehouse (warehouses/<name>.ts), read by the
 * lexer (lexer.ts) and the rewrites that depend on them.
 */
import type { Example } from "./construct.ts";

/** What a backslash escape in a string literal means, by the character after the backslash. */
export interface EscapeRules {
  /** `\c` as one character: `n` -> newline. */
  named: Record<string, string>;
  /** Sequences that keep their backslash (Spark's `\%` and `\_`, for LIKE). */
  kept: string[];
  /** `\ooo`: exactly three octal digits, or one to three (Postgres); null where not documented (a digit is refused). */
  octal: "three" | "one-to-three" | null;
  /** `\xhh`: exactly two hex digits, or one or two (Postgres); also `\X` where `upperX`; null where not documented. */
  hex: "two" | "one-or-two" | null;
  upperX?: boolean;
  /** `\uhhhh` (and `\Uhhhhhhhh` where `long`). */
  unicode: { long: boolean } | null;
  /**
   * A backslash before any other character: `itself` that character, or
   * `error` the warehouse rejects the literal (refused by name).
   */
  other: "itself" | "error";
  /** Characters after a backslash slp refuses because the documentation does not say what they mean. */
  unverified?: string;
}

/**
 * What a backslash before a character other than _, % or itself means in a
 * LIKE pattern: `itself` that character (Postgres, Redshift: as DuckDB reads
 * it), `error` an error (Databricks: "It is invalid to escape any other
 * character"), `unverified` not documented (BigQuery documents escaping \,
 * _ and % only).
 */
export type OtherEscape = "itself" | "error" | "unverified";

export interface LexicalRules {
  /** `'...'`: with backslash escapes (and which), or standard (a backslash is itself). */
  singleQuoted: EscapeRules | "standard";
  /** `''` inside a quoted string is one quote (true), or why it is refused. */
  doubledQuote: true | string;
  /** `"..."`: a string (read as `'...'` is) or a quoted identifier. */
  doubleQuoted: "string" | "identifier";
  /** The character that quotes an identifier. */
  identifierQuote: '"' | "`";
  /** Backslash escapes apply inside a quoted identifier as in a string (BigQuery): one written there is refused. */
  identifierEscapes: boolean;
  /** `r'...'` / `R"..."`: no escapes; `pairs` where a backslash still keeps the next character in the string (BigQuery: r'a\'b' is a\'b). */
  raw: "pairs" | "plain" | null;
  /** `'''...'''` and `"""..."""` (escapes apply; newlines allowed). */
  tripleQuoted: boolean;
  /** A newline inside a (non-triple) quoted string is an error (BigQuery). */
  newlineEndsString: boolean;
  /** `b'...'`, `rb'...'`: bytes literals, refused (their DuckDB BLOB is not the same value). */
  bytes: boolean;
  /** `E'...'` escape strings (Postgres). */
  escapeStrings: EscapeRules | null;
  /** `U&'...'` with `\XXXX` and `\+XXXXXX` (Postgres). */
  unicodeStrings: boolean;
  /** Dollar quoting: `$$...$$` only, or `$tag$...$tag$` too; no escapes inside. */
  dollarQuoted: "plain" | "tagged" | null;
  /** Two string literals with only whitespace between are one only across a newline (Postgres); on one line, an error (refused). */
  adjacentStringsNeedNewline: boolean;
  /** Line comments, besides `--`. */
  lineComments: string[];
  /** Block comments nest (`/* a /* b *\/ c *\/`); `unverified` where undocumented: a `/*` inside one is refused. */
  nestedComments: boolean | "unverified";
  /** Unquoted identifiers fold to this case; quoted ones keep theirs. */
  unquotedCase: "upper" | "lower" | "insensitive";
  /** LIKE / ILIKE without ESCAPE: the backslash escapes (and what it means before another character), or null: no default escape. */
  likeEscape: OtherEscape | null;
  /** The documentation pages these facts come from. */
  sources: string[];
  /** The documentation's examples of these rules, run on DuckDB after translation (test/lexer.test.ts). */
  examples: Example[];
}

/** The escapes of C's control characters most warehouses read. */
export const CONTROL_ESCAPES = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
/** A backslash before a backslash or a quote is that character. */
export const QUOTE_ESCAPES = { "\\": "\\", "'": "'", '"': '"' };
