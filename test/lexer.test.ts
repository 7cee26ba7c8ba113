/**
 * The lexical layer (src/sql/dialect/lexer.ts): each warehouse rule read as
 * documented, with a case where it fires and one where it stays silent. The
 * documented examples run on DuckDB in test/dialects.test.ts.
 */
import { describe, expect, test } from "bun:test";
import type { Dialect } from "../src/sql/dialect/dialects.ts";
import { duckdbLiterals, lex, transpilerString } from "../src/sql/dialect/lexer.ts";

type Warehouse = Exclude<Dialect, "duckdb">;

/** The values of the literals `sql` holds, read as `dialect`, or `refused: construct`. */
function values(dialect: Warehouse, sql: string): string[] | string {
  const lexed = lex(sql, dialect);
  return lexed.ok ? lexed.value.literals.map((literal) => literal.value) : `refused: ${lexed.construct}`;
}

function output(dialect: Warehouse, sql: string): string {
  const lexed = lex(sql, dialect);
  if (!lexed.ok) throw new Error(lexed.why);
  return lexed.value.sql;
}

describe("string literals", () => {
  test("BigQuery, Snowflake, Databricks and Redshift read backslash escapes; Postgres' standard strings keep the backslash", () => {
    for (const dialect of ["bigquery", "snowflake", "databricks", "spark", "redshift"] as const)
      expect(values(dialect, String.raw`select 'a\\b', 'c\nd', 'it\'s', 'plain'`)).toEqual(["a\\b", "c\nd", "it's", "plain"]);
    expect(values("postgres", String.raw`select 'a\\b', 'c\nd', 'plain'`)).toEqual([String.raw`a\\b`, String.raw`c\nd`, "plain"]);
  });

  test("BigQuery's octal, hex and Unicode escapes are characters; an escape BigQuery does not list is refused", () => {
    expect(values("bigquery", String.raw`select '\101\x41\X41\u0041\U00000041\?\`'`)).toEqual(["AAAAA?`"]);
    expect(values("bigquery", String.raw`select '\q'`)).toBe("refused: \\q");
    expect(values("bigquery", String.raw`select '\%'`)).toBe("refused: \\%");
    expect(values("bigquery", String.raw`select '\x4'`)).toBe("refused: \\x");
  });

  test("Snowflake reads \\ooo, \\xhh and \\uhhhh, and any other escaped character as itself", () => {
    expect(values("snowflake", String.raw`select '-\041-\x21-\u26c4-\z'`)).toEqual(["-!-!-\u26c4-z"]);
    expect(values("snowflake", String.raw`select '\\d+'`)).toEqual([String.raw`\d+`]);
  });

  test("Databricks keeps \\% and \\_ with their backslash and refuses the octal and \\u escapes its page does not list", () => {
    expect(values("databricks", String.raw`select 'a\%b\_c\Z\q'`)).toEqual(["a\\%b\\_c\x1aq"]);
    expect(values("databricks", String.raw`select '\u00e9'`)).toBe("refused: \\u");
    expect(values("spark", String.raw`select '\101'`)).toBe("refused: \\1");
  });

  test("Redshift reads \\b \\f \\n \\r \\t, any other escaped character as itself, and refuses octal and hex escapes", () => {
    expect(values("redshift", String.raw`select '\t\q\.'`)).toEqual(["\tq."]);
    expect(values("redshift", String.raw`select '\101'`)).toBe("refused: \\1");
    expect(values("redshift", String.raw`select '\x41'`)).toBe("refused: \\x");
  });

  test("'' is a quote in Snowflake, Postgres and Redshift; refused in BigQuery and Databricks, which do not read it as one", () => {
    for (const dialect of ["snowflake", "postgres", "redshift"] as const)
      expect(values(dialect, "select 'it''s', '''CAT'''")).toEqual(["it's", "'CAT'"]);
    expect(values("bigquery", "select 'it''s'")).toBe("refused: ''");
    expect(values("databricks", "select 'it''s'")).toBe("refused: ''");
    expect(values("bigquery", "select 'it' 's'")).toEqual(["it", "s"]);
  });

  test('"..." is a string in BigQuery and Databricks, a quoted identifier elsewhere', () => {
    expect(values("bigquery", `select "it's", "a\\"b"`)).toEqual(["it's", 'a"b']);
    expect(values("databricks", `select "x"`)).toEqual(["x"]);
    expect(values("snowflake", `select "it's" from t`)).toEqual([]);
    expect(output("snowflake", `select "it's", "a""b" from t`)).toBe(`select "it's", "a""b" from t`);
  });

  test("raw strings keep their backslashes (BigQuery keeps an escaped quote in the string too); Snowflake has none", () => {
    expect(values("bigquery", String.raw`select r'a\nb', R"x\"y", r'''\d+'''`)).toEqual([
      String.raw`a\nb`,
      String.raw`x\"y`,
      String.raw`\d+`,
    ]);
    expect(values("databricks", String.raw`select r'a\nb', R"\\"`)).toEqual([String.raw`a\nb`, String.raw`\\`]);
    expect(values("snowflake", "select r'a'")).toBe("refused: r'");
  });

  test("BigQuery's triple-quoted strings hold newlines and quotes; a newline in a quoted string is refused", () => {
    expect(values("bigquery", `select '''it's\nfine''', """say "hi\\"""" `)).toEqual(["it's\nfine", 'say "hi"']);
    expect(values("bigquery", "select 'two\nlines'")).toBe("refused: string literal");
    expect(values("snowflake", "select 'two\nlines'")).toEqual(["two\nlines"]);
  });

  test("Postgres joins two literals across a newline only; on one line they are refused, as Postgres rejects them", () => {
    expect(values("postgres", "select 'foo'\n'bar', 'a'")).toEqual(["foo", "bar", "a"]);
    expect(values("postgres", "select 'foo' 'bar'")).toBe("refused: string literal");
    expect(values("bigquery", "select 'foo' 'bar'")).toEqual(["foo", "bar"]);
  });

  test("Postgres E'...' reads C escapes, U&'...' Unicode escapes; UESCAPE is refused", () => {
    expect(values("postgres", String.raw`select E'a\nb\x41\101\u0041\'', e'\q'`)).toEqual(["a\nbAAA'", "q"]);
    expect(values("postgres", String.raw`select U&'d\0061t\+000061', U&'\\'`)).toEqual(["data", "\\"]);
    expect(values("postgres", "select U&'d!0061t' UESCAPE '!'")).toBe("refused: UESCAPE");
    expect(values("snowflake", "select E'a'")).toBe("refused: E'");
  });

  test("dollar quoting: Snowflake's $$...$$ and Postgres' $tag$...$tag$ hold their text without escapes", () => {
    expect(values("snowflake", String.raw`select $$it's \n$$, $1 from t`)).toEqual([String.raw`it's \n`]);
    expect(values("postgres", String.raw`select $tag$a$$b\$tag$, $$x$$`)).toEqual(["a$$b\\", "x"]);
    expect(values("snowflake", "select $tag$x$tag$")).toEqual([]);
  });

  test("BigQuery bytes literals stay as written when plain, and are refused with escapes", () => {
    expect(output("bigquery", "select b'abc'")).toBe("select b'abc'");
    expect(values("bigquery", String.raw`select b'\x00'`)).toBe("refused: b'");
    expect(values("bigquery", "select rb'abc'")).toBe("refused: rb'");
  });

  test("a NUL character, which DuckDB cannot hold, is refused; other prefixes are refused by name; a keyword against a literal is none", () => {
    expect(values("snowflake", String.raw`select 'a\0'`)).toBe("refused: string literal");
    expect(values("snowflake", "select N'a', X'41'")).toBe("refused: N'");
    expect(values("postgres", "select case when true then'a' end")).toEqual(["a"]);
  });
});

describe("comments", () => {
  test("--, BigQuery's # and Snowflake's // comments are dropped with the quotes in them; # is an operator in Postgres", () => {
    expect(output("bigquery", "select 1 # it's\n, 2 -- it's\n")).toBe("select 1  \n, 2  \n");
    expect(output("snowflake", "select 1 // it's\n")).toBe("select 1  \n");
    expect(output("postgres", "select a # b from t")).toBe("select a # b from t");
  });

  test("block comments nest in Postgres and Databricks, end at the first */ in Snowflake; a /* inside one is refused where undocumented", () => {
    expect(output("postgres", "select /* a /* 'b */ c' */ 1")).toBe("select   1");
    expect(output("databricks", "select /* a /* 'b */ c' */ 1")).toBe("select   1");
    expect(values("snowflake", "select /* a /* b */ 'c'")).toEqual(["c"]);
    expect(values("bigquery", "select /* a /* b */ 'c' */ 1")).toBe("refused: /* inside a comment");
    expect(output("bigquery", "select /* it's */ 1")).toBe("select   1");
  });
});

describe("quoted identifiers", () => {
  test("backticks quote identifiers in BigQuery and Databricks and stay as written; a BigQuery escape in one is refused", () => {
    expect(output("databricks", "select `it's` from t")).toBe("select `it's` from t");
    expect(values("bigquery", "select `a\\`b` from t")).toBe("refused: `a\\`");
  });
});

describe("lines", () => {
  test("a refusal after a literal that the transpiler's form writes on fewer lines names the source's line", () => {
    const lexed = lex("select '''a\nb\nc''',\n'\\q'", "bigquery");
    expect(lexed.ok ? null : lexed.line).toBe(4);
    const kept = lex("select '''a\nb''' as x,\ny", "bigquery");
    if (!kept.ok) throw new Error(kept.why);
    expect(kept.value.sql.split("\n").length).toBe(3);
    expect(kept.value.sourceLine(3)).toBe(3);
    // Postgres' E'\n' becomes a raw newline: lines after it map back.
    const more = lex("select E'a\\nb',\nx", "postgres");
    if (!more.ok) throw new Error(more.why);
    expect(more.value.sql).toBe("select 'a\nb',\nx");
    expect(more.value.sourceLine(3)).toBe(2);
    expect(more.value.sourceLine(1)).toBe(1);
  });
});

describe("the transpiler's form", () => {
  test("transpilerString escapes backslashes and quotes where the transpiler reads escapes, doubles quotes where it does not", () => {
    expect(transpilerString("it's a\\b\n", "bigquery")).toBe(String.raw`'it\'s a\\b\n'`);
    expect(transpilerString("it's a\\b\n", "redshift")).toBe("'it''s a\\b\n'");
    expect(transpilerString("plain", "snowflake")).toBe("'plain'");
  });

  test("duckdbLiterals reads '...' and e'...' literals of DuckDB SQL, and none inside comments or quoted names", () => {
    expect(duckdbLiterals(`SELECT 'it''s', e'a\\nb', "x'y" /* 'c' */ FROM t`)).toEqual(["it's", "a\nb"]);
    expect(duckdbLiterals(String.raw`SELECT e'\x41'`)).toEqual([null]);
  });
});
