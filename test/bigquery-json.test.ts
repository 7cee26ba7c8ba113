/**
 * BigQuery's TO_JSON_STRING of SQL values (src/engine/bigquery-json.ts and its
 * translation): each value as BigQuery's JSON encodings table prints it, and
 * what slp cannot print exactly an error naming it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as duckdb from "@duckdb/node-api";
import { bigqueryDouble, cFormatG } from "../src/engine/bigquery-json.ts";
import { registerJsonFunctions, registerJsonText, registerNestedFunctions } from "../src/engine/duckdb.ts";
import { dialectMacros, macroStatements } from "../src/sql/dialect/macros.ts";
import { duckdbSettings } from "../src/sql/dialect/settings.ts";
import { translateSql } from "../src/sql/dialect/translate.ts";

const instance = await duckdb.DuckDBInstance.create(":memory:", {
  autoinstall_known_extensions: "false",
  autoload_known_extensions: "false",
});
const connection = await instance.connect();
for (const sql of duckdbSettings("bigquery")) await connection.run(sql);
registerNestedFunctions(connection, duckdb);
registerJsonFunctions(connection, duckdb);
registerJsonText(connection, duckdb);
for (const sql of macroStatements(Object.keys(dialectMacros()))) await connection.run(sql);
afterAll(() => connection.closeSync());

/** The first value of a BigQuery query, translated and run on DuckDB. */
async function bigquery(sql: string): Promise<unknown> {
  const result = await translateSql(sql, "bigquery");
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
  const reader = await connection.runAndReadAll(result.translation.sql);
  return reader.getRowsJS()[0]?.[0];
}

describe("TO_JSON_STRING of a SQL value", () => {
  const cases: [string, string][] = [
    ["struct(1 as a, 'x' as b, [1.5, 2.0] as c)", '{"a":1,"b":"x","c":[1.5,2]}'],
    ["struct(cast(null as int64) as a, struct(true as c) as b)", '{"a":null,"b":{"c":true}}'],
    ["'tab\\there \"q\" \\\\'", '"tab\\there \\"q\\" \\\\"'],
    ["timestamp '2017-06-25 17:32:41.24+00'", '"2017-06-25T17:32:41.240Z"'],
    ["timestamp '2017-06-25 17:32:41+00'", '"2017-06-25T17:32:41Z"'],
    ["datetime '0987-01-02 03:04:05.000006'", '"0987-01-02T03:04:05.000006"'],
    ["cast('1.50' as numeric)", '"1.5"'],
    ["-9007199254740993", '"-9007199254740993"'],
    ["cast([] as array<int64>)", "[]"],
  ];
  for (const [value, text] of cases) test(value, async () => expect(await bigquery(`select to_json_string(${value})`)).toBe(text));

  test("a whole row, as models hash one", async () => {
    expect(await bigquery("select to_json_string(t) from (select 1 as id, 'a' as name) as t")).toBe('{"id":1,"name":"a"}');
  });

  test("a NULL is the text null", async () => {
    expect(await bigquery("select to_json_string(cast(null as struct<a int64>))")).toBe("null");
  });

  test("a JSON value inside a struct, and -0.0, are errors naming them", async () => {
    await expect(bigquery(`select to_json_string(struct(json '{"a": 1}' as j))`)).rejects.toThrow("a JSON value inside it");
    await expect(bigquery("select to_json_string(-0.0)")).rejects.toThrow("-0.0");
    await expect(bigquery("select to_json_string(struct(1, 2))")).rejects.toThrow("is anonymous in BigQuery");
  });

  test("pretty_print that is not a literal is refused", async () => {
    const result = await translateSql("select to_json_string(struct(1 as a), p) from t", "bigquery");
    expect(JSON.stringify(result)).toContain("pretty_print only as the literal TRUE or FALSE");
  });
});

describe("FLOAT64 as C's %.15g, else %.17g", () => {
  test("the shortest of the two that reads back", () => {
    expect(bigqueryDouble(0.1)).toBe("0.1");
    expect(bigqueryDouble(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(bigqueryDouble(1e40)).toBe("1e+40");
    expect(bigqueryDouble(Number("9007199254740993"))).toBe("9007199254740992");
    expect(bigqueryDouble(1.5e300)).toBe("1.5e+300");
    expect(bigqueryDouble(0.0001)).toBe("0.0001");
    expect(bigqueryDouble(0.00001)).toBe("1e-05");
    expect(bigqueryDouble(123456789012345)).toBe("123456789012345");
    expect(bigqueryDouble(1234567890123456)).toBe("1234567890123456");
    expect(bigqueryDouble(Number("12345678901234567890"))).toBe("1.2345678901234567e+19");
  });

  test("an exact tie rounds half to even as glibc does, where JavaScript's toPrecision rounds up", () => {
    // 12345678901234.0625 exactly (a dyadic fraction): its 17th digit is followed by exactly 5.
    const tie = 12345678901234 + 0.0625;
    expect(cFormatG(tie, 17)).toBe("12345678901234.062");
    expect(tie.toPrecision(17)).toBe("12345678901234.063");
    expect(cFormatG(0.5, 1)).toBe("0.5");
    expect(cFormatG(2.5, 1)).toBe("2");
    expect(cFormatG(3.5, 1)).toBe("4");
  });
});
