/**
 * How each warehouse reads the characters of its SQL, from its own
 * documentation: string literals and their escapes, quoted identifiers,
 * comments, and the default escape character of LIKE patterns. Data only;
 * lexer.ts reads a model's SQL by these rules.
 */
import { ex, type Example } from "./construct.ts";
import type { Dialect } from "./dialects.ts";

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
   * A backslash before any other character: `itself` that character,
   * `error` the warehouse rejects the literal, `unverified` undocumented
   * (both refused by name).
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
export type LikeOtherEscape = "itself" | "error" | "unverified";

export interface LexicalRules {
  /** `'...'`: with backslash escapes (and which), or standard (a backslash is itself). */
  singleQuoted: EscapeRules | "standard";
  /** `''` inside a quoted string is one quote (true), or why it is refused. */
  doubledQuote: true | string;
  /** `"..."`: a string (read as `'...'` is) or a quoted identifier. */
  doubleQuoted: "string" | "identifier";
  /** `` `...` `` quotes an identifier; `backslash` where escapes apply inside it (refused when one is written). */
  backticks: "identifier" | "identifier-with-escapes" | null;
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
  /** Line comments, besides `--`. */
  lineComments: string[];
  /** Block comments nest (`/* a /* b *\/ c *\/`); `unverified` where undocumented: a `/*` inside one is refused. */
  nestedComments: boolean | "unverified";
  /** Unquoted identifiers fold to this case; quoted ones keep theirs. */
  unquotedCase: "upper" | "lower" | "insensitive";
  /** LIKE / ILIKE without ESCAPE: the backslash escapes (and what it means before another character), or null: no default escape. */
  likeEscape: LikeOtherEscape | null;
  /** The documentation pages these facts come from. */
  sources: string[];
  /** The documentation's examples of these rules, run on DuckDB after translation (test/lexer.test.ts). */
  examples: Example[];
}

const BIGQUERY_LEXICAL = "https://cloud.google.com/bigquery/docs/reference/standard-sql/lexical";
const BIGQUERY_LIKE = "https://cloud.google.com/bigquery/docs/reference/standard-sql/operators#like_operator";
const SNOWFLAKE_STRING_CONSTANTS = "https://docs.snowflake.com/en/sql-reference/data-types-text#single-quoted-string-constants";
const SNOWFLAKE_DOLLAR = "https://docs.snowflake.com/en/sql-reference/data-types-text#dollar-quoted-string-constants";
const SNOWFLAKE_COMMENTS = "https://docs.snowflake.com/en/sql-reference/constructs#comments";
const DATABRICKS_LIKE = "https://docs.databricks.com/en/sql/language-manual/functions/like.html";
const POSTGRES_LIKE = "https://www.postgresql.org/docs/current/functions-matching.html#FUNCTIONS-LIKE";
const SNOWFLAKE_TEXT = "https://docs.snowflake.com/en/sql-reference/data-types-text#escape-sequences-in-single-quoted-string-constants";
const DATABRICKS_STRING = "https://docs.databricks.com/en/sql/language-manual/data-types/string-type.html";
const POSTGRES_LEXICAL = "https://www.postgresql.org/docs/current/sql-syntax-lexical.html";
const REDSHIFT_LIKE = "https://docs.aws.amazon.com/redshift/latest/dg/r_patternmatching_condition_like.html";
const REDSHIFT_QUOTE_LITERAL = "https://docs.aws.amazon.com/redshift/latest/dg/r_QUOTE_LITERAL.html";

const CONTROLS = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const QUOTES = { "\\": "\\", "'": "'", '"': '"' };

/** BigQuery: \a \b \f \n \r \t \v \\ \? \" \' \`, \ooo, \xhh / \Xhh, \uhhhh, \Uhhhhhhhh; any other escape is an error. */
const BIGQUERY_ESCAPES: EscapeRules = {
  named: { ...CONTROLS, ...QUOTES, a: "\x07", v: "\v", "?": "?", "`": "`" },
  kept: [],
  octal: "three",
  hex: "two",
  upperX: true,
  unicode: { long: true },
  other: "error",
};

/** Snowflake: \' \" \\ \b \f \n \r \t \0, \ooo, \xhh, \uhhhh; a backslash before any other character is that character. */
const SNOWFLAKE_ESCAPES: EscapeRules = {
  named: { ...CONTROLS, ...QUOTES, "0": "\0" },
  kept: [],
  octal: "three",
  hex: "two",
  unicode: { long: false },
  other: "itself",
};

/**
 * Databricks: \0 \b \n \r \t \Z \' \" \\, \% and \_ keep their backslash,
 * any other character is itself. Spark also reads octal and \u escapes the
 * Databricks page does not list: slp refuses a digit or u / U after a backslash.
 */
const SPARK_ESCAPES: EscapeRules = {
  named: { b: "\b", n: "\n", r: "\r", t: "\t", Z: "\x1a", ...QUOTES, "0": "\0" },
  kept: ["%", "_"],
  octal: null,
  hex: null,
  unicode: null,
  other: "itself",
  unverified: "0123456789uU",
};

/**
 * Redshift reads backslash escapes in '...' (its LIKE escape is written '\\\\',
 * QUOTE_LITERAL doubles backslashes): \b \f \n \r \t, a backslash before any
 * other character is that character; octal and hex escapes are not documented.
 */
const REDSHIFT_ESCAPES: EscapeRules = {
  named: { ...CONTROLS, ...QUOTES },
  kept: [],
  octal: null,
  hex: null,
  unicode: null,
  other: "itself",
  unverified: "0123456789xuU",
};

/** Postgres E'...': \b \f \n \r \t, \o..\ooo, \xh..\xhh, \uXXXX, \UXXXXXXXX; any other character is itself. */
const POSTGRES_ESCAPES: EscapeRules = {
  named: { ...CONTROLS, ...QUOTES },
  kept: [],
  octal: "one-to-three",
  hex: "one-or-two",
  unicode: { long: true },
  other: "itself",
};

const BIGQUERY_EXAMPLES: Example[] = [
  ex(
    String.raw`select "abc", "it's", 'it\'s', 'Title: "Boy"'`,
    ["abc", "it's", "it's", 'Title: "Boy"'],
    `${BIGQUERY_LEXICAL}#string_and_bytes_literals`,
  ),
  ex(
    "select \"\"\"abc\"\"\", '''it's''', '''Title:\"Boy\"''', '''two\nlines''', '''why\\?'''",
    ["abc", "it's", 'Title:"Boy"', "two\nlines", "why?"],
    `${BIGQUERY_LEXICAL}#string_and_bytes_literals`,
  ),
  ex(
    String.raw`select r"abc+", r'''abc+''', r"""abc+""", r'f\(abc,(.*),def\)'`,
    ["abc+", "abc+", "abc+", String.raw`f\(abc,(.*),def\)`],
    `${BIGQUERY_LEXICAL}#string_and_bytes_literals`,
  ),
  ex(
    String.raw`select '\a\b\f\n\r\t\v', '\\ \? \" \'', '\101\x41\X41\u0041\U00000041'`,
    ["\x07\b\f\n\r\t\v", String.raw`\ ? " '`, "AAAAA"],
    `${BIGQUERY_LEXICAL}#escape_sequences`,
  ),
  ex("select b'abc' = cast('abc' as bytes)", ["true"], `${BIGQUERY_LEXICAL}#string_and_bytes_literals`),
  ex("select 1 # a comment\n, 2 -- another\n, /* a block */ 3", ["1", "2", "3"], `${BIGQUERY_LEXICAL}#comments`),
  ex(String.raw`select 'a_c' like 'a\\_c', 'abc' like 'a\\_c', 'a%c' like r'a\%c'`, ["true", "false", "true"], BIGQUERY_LIKE),
];

const SNOWFLAKE_EXAMPLES: Example[] = [
  ex("select 'Today''s sales projections', '-''''-'", ["Today's sales projections", "-''-"], SNOWFLAKE_STRING_CONSTANTS),
  ex("select $$Today's sales projections$$, $$-'''-$$", ["Today's sales projections", "-'''-"], SNOWFLAKE_DOLLAR),
  ex(
    String.raw`select 'Hello\tWorld', 'C:\\user', '-\041-', '-\x21-', '-\u26c4-', '\z'`,
    ["Hello\tWorld", String.raw`C:\user`, "-!-", "-!-", "-\u26c4-", "z"],
    SNOWFLAKE_TEXT,
  ),
  ex(String.raw`select 'a\nb\101', 'it\'s', 'say \"hi\"'`, ["a\nbA", "it's", 'say "hi"'], SNOWFLAKE_TEXT),
  ex("select 1 -- a comment\n, 2 // another\n, /* a block */ 3", ["1", "2", "3"], SNOWFLAKE_COMMENTS),
];

const DATABRICKS_EXAMPLES: Example[] = [
  ex(
    // Not String.raw: Bun writes a non-ASCII character of a raw template as its \u escape.
    "select 'Spark', 'O\\'Connell', 'Some\\nText', r'Some\\nText', '서울시', '', '\\\\', r'\\\\'",
    ["Spark", "O'Connell", "Some\nText", String.raw`Some\nText`, "서울시", "", "\\", "\\\\"],
    DATABRICKS_STRING,
  ),
  ex(String.raw`select "Spark", '\b\r\t\Z', '\%\_', '\q'`, ["Spark", "\b\r\t\x1a", String.raw`\%\_`, "q"], DATABRICKS_STRING),
  ex(String.raw`select 'a_c' like 'a\\_c', 'abc' like 'a\\_c', 'a%' like 'a\%'`, ["true", "false", "true"], DATABRICKS_LIKE),
];

const POSTGRES_EXAMPLES: Example[] = [
  ex(
    "select 'Dianne''s horse', $$Dianne's horse$$, $SomeTag$Dianne's horse$SomeTag$",
    ["Dianne's horse", "Dianne's horse", "Dianne's horse"],
    `${POSTGRES_LEXICAL}#SQL-SYNTAX-DOLLAR-QUOTING`,
  ),
  ex("select 'foo'\n'bar'", ["foobar"], `${POSTGRES_LEXICAL}#SQL-SYNTAX-STRINGS`),
  ex(
    String.raw`select 'a\b', E'a\\b', E'it\'s', E'\x41\101\u0041\U00000041', E'\n'`,
    [String.raw`a\b`, String.raw`a\b`, "it's", "AAAA", "\n"],
    `${POSTGRES_LEXICAL}#SQL-SYNTAX-STRINGS-ESCAPE`,
  ),
  ex(String.raw`select U&'d\0061t\+000061', U&'\0441\043B\043E\043D'`, ["data", "слон"], `${POSTGRES_LEXICAL}#SQL-SYNTAX-STRINGS-UESCAPE`),
  ex("select /* multiline comment\n * with nesting: /* nested block comment */\n */ 1", ["1"], `${POSTGRES_LEXICAL}#SQL-SYNTAX-COMMENTS`),
  ex(String.raw`select 'a_c' like 'a\_c', 'abc' like 'a\_c'`, ["true", "false"], POSTGRES_LIKE),
];

const REDSHIFT_EXAMPLES: Example[] = [
  ex("select '''CAT'''", ["'CAT'"], REDSHIFT_QUOTE_LITERAL),
  ex(String.raw`select 'start_x' like 'start\\_%', 'startx' like 'start\\_%', 'a\\b'`, ["true", "false", String.raw`a\b`], REDSHIFT_LIKE),
];

const DATABRICKS: LexicalRules = {
  singleQuoted: SPARK_ESCAPES,
  // Spark's lexer took '' as one quote only lately (before, 'a''b' was two adjacent literals, read as 'ab').
  doubledQuote: "Spark versions read it as one quote or as two adjacent literals, and Databricks documents neither",
  doubleQuoted: "string",
  backticks: "identifier",
  raw: "plain",
  tripleQuoted: false,
  newlineEndsString: false,
  bytes: false,
  escapeStrings: null,
  unicodeStrings: false,
  dollarQuoted: null,
  lineComments: [],
  nestedComments: "unverified",
  unquotedCase: "insensitive",
  likeEscape: "error",
  sources: [DATABRICKS_STRING, DATABRICKS_LIKE],
  examples: DATABRICKS_EXAMPLES,
};

const POSTGRES: LexicalRules = {
  singleQuoted: "standard",
  doubledQuote: true,
  doubleQuoted: "identifier",
  backticks: null,
  raw: null,
  tripleQuoted: false,
  newlineEndsString: false,
  bytes: false,
  escapeStrings: POSTGRES_ESCAPES,
  unicodeStrings: true,
  dollarQuoted: "tagged",
  lineComments: [],
  nestedComments: true,
  unquotedCase: "lower",
  likeEscape: "itself",
  sources: [POSTGRES_LEXICAL, POSTGRES_LIKE],
  examples: POSTGRES_EXAMPLES,
};

/** Each warehouse's lexical rules. */
export const LEXICAL: Record<Exclude<Dialect, "duckdb">, LexicalRules> = {
  bigquery: {
    singleQuoted: BIGQUERY_ESCAPES,
    doubledQuote: "BigQuery documents no such escape (two literals must be separated by whitespace)",
    doubleQuoted: "string",
    backticks: "identifier-with-escapes",
    raw: "pairs",
    tripleQuoted: true,
    newlineEndsString: true,
    bytes: true,
    escapeStrings: null,
    unicodeStrings: false,
    dollarQuoted: null,
    lineComments: ["#"],
    nestedComments: "unverified",
    unquotedCase: "insensitive",
    likeEscape: "unverified",
    sources: [BIGQUERY_LEXICAL, BIGQUERY_LIKE],
    examples: BIGQUERY_EXAMPLES,
  },
  snowflake: {
    singleQuoted: SNOWFLAKE_ESCAPES,
    doubledQuote: true,
    doubleQuoted: "identifier",
    backticks: null,
    raw: null,
    tripleQuoted: false,
    newlineEndsString: false,
    bytes: false,
    escapeStrings: null,
    unicodeStrings: false,
    dollarQuoted: "plain",
    lineComments: ["//"],
    nestedComments: "unverified",
    unquotedCase: "upper",
    likeEscape: null,
    sources: [SNOWFLAKE_TEXT, "https://docs.snowflake.com/en/sql-reference/functions/like"],
    examples: SNOWFLAKE_EXAMPLES,
  },
  databricks: DATABRICKS,
  spark: DATABRICKS,
  postgres: POSTGRES,
  redshift: {
    ...POSTGRES,
    singleQuoted: REDSHIFT_ESCAPES,
    escapeStrings: null,
    unicodeStrings: false,
    dollarQuoted: null,
    nestedComments: "unverified",
    sources: [REDSHIFT_LIKE, REDSHIFT_QUOTE_LITERAL],
    examples: REDSHIFT_EXAMPLES,
  },
};
