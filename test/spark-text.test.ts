/**
 * slp's DuckDB functions over nested values (src/engine/spark-text.ts): Spark's
 * CAST(x AS STRING) and to_json() text of arrays, maps and structs, and the size
 * of either; a member whose Spark text slp has not verified is an error.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as duckdb from "@duckdb/node-api";
import { registerNestedFunctions } from "../src/engine/duckdb.ts";
import { translateSql } from "../src/sql/dialect/translate.ts";

const instance = await duckdb.DuckDBInstance.create(":memory:", {
  autoinstall_known_extensions: "false",
  autoload_known_extensions: "false",
});
const connection = await instance.connect();
registerNestedFunctions(connection, duckdb);
afterAll(() => connection.closeSync());

async function value(sql: string): Promise<unknown> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowsJS()[0]?.[0];
}

describe("Spark's text of a nested value", () => {
  const cases: [string, string][] = [
    ["__slp_nested_string([1, null, 3])", "[1, null, 3]"],
    ["__slp_nested_string(map(['a', 'b'], [1, null]))", "{a -> 1, b -> null}"],
    ["__slp_nested_string({'x': 1, 'y': 'hello', 'z': [true, false]})", "{1, hello, [true, false]}"],
    ["__slp_nested_string([date '2016-04-08'])", "[2016-04-08]"],
    ["__slp_nested_string(map([1.0, 3.0], ['2', '4']))", "{1.0 -> 2, 3.0 -> 4}"],
    ["__slp_nested_json({'a': 1, 'b': null::int, 'c': ['x\"y', null]})", '{"a":1,"c":["x\\"y",null]}'],
    ["__slp_nested_json(map(['k'], [{'b': 1}]))", '{"k":{"b":1}}'],
    ["__slp_nested_json([{'t': 'tab\there'}])", '[{"t":"tab\\there"}]'],
  ];
  for (const [call, text] of cases) test(call, async () => expect(await value(`select ${call}`)).toBe(text));

  test("a NULL value is NULL, not its text", async () => {
    expect(await value("select __slp_nested_string(cast(null as integer[]))")).toBeNull();
  });

  test("a DOUBLE as Java writes it: at least one digit after the point, an exponent below 1E-3 and from 1E7", async () => {
    expect(await value("select __slp_nested_string([1.0::double, 2.5, 1e7, 0.0001, 123456.789])")).toBe(
      "[1.0, 2.5, 1.0E7, 1.0E-4, 123456.789]",
    );
    expect(await value("select __slp_nested_json({'d': 1e20::double})")).toBe('{"d":1.0E20}');
  });

  test("a FLOAT or timestamp member is an error naming it, never DuckDB's text", async () => {
    await expect(value("select __slp_nested_string([1.5::float])")).rejects.toThrow("slp has not verified Spark's text of a FLOAT value");
    await expect(value("select __slp_nested_json({'t': timestamp '2020-01-01 00:00:00'})")).rejects.toThrow("JSON of a TIMESTAMP value");
  });

  test("to_json of a scalar is an error; of a struct it is not", async () => {
    await expect(value("select __slp_nested_json(1)")).rejects.toThrow("to_json() takes a struct, an array or a map");
    expect(await value("select __slp_nested_json({'a': 1})")).toBe('{"a":1}');
  });
});

describe("the size of an array or a map", () => {
  test("elements and entries counted, NULL for NULL", async () => {
    expect(await value("select __slp_nested_size([1, null, 3])")).toBe(3n);
    expect(await value("select __slp_nested_size(map(['a'], [1]))")).toBe(1n);
    expect(await value("select __slp_nested_size(cast(null as integer[]))")).toBeNull();
    await expect(value("select __slp_nested_size('text')")).rejects.toThrow("size() takes an array or a map");
  });
});

describe("from_json by Spark's rules", () => {
  const schema = (spark: Record<string, unknown>) => `'${JSON.stringify(spark)}'`;
  const struct = schema({
    kind: "struct",
    fields: [
      ["a", { kind: "integer", bits: 32 }],
      ["b", { kind: "string" }],
    ],
  });

  test("values of their fields' types pass, a missing field is NULL, an extra one is left out", async () => {
    expect(await value(`select __slp_nested_from_json('{"a": 7, "c": true}', ${struct})`)).toBe('{"a":7,"b":null}');
    expect(await value(`select __slp_nested_from_json(null, ${struct})`)).toBeNull();
  });

  test("what PERMISSIVE mode would read its own way is an error: a string for an INT, a number for a STRING, an INT past its range, malformed text", async () => {
    await expect(value(`select __slp_nested_from_json('{"a": "12"}', ${struct})`)).rejects.toThrow(
      'the string "12" at $.a for a integer field',
    );
    await expect(value(`select __slp_nested_from_json('{"b": 12}', ${struct})`)).rejects.toThrow("the number 12 at $.b for a string field");
    await expect(value(`select __slp_nested_from_json('{"a": 3000000000}', ${struct})`)).rejects.toThrow("the number 3000000000");
    await expect(value(`select __slp_nested_from_json('{"a": 1.5}', ${struct})`)).rejects.toThrow("the number 1.5");
    await expect(value(`select __slp_nested_from_json('{a: 1}', ${struct})`)).rejects.toThrow("not JSON slp reads");
  });
});

describe("get_json_object by Spark's rules", () => {
  test("a string unquoted, a number as Java writes it, an object compact; NULL where the path leads nowhere", async () => {
    expect(await value(`select __slp_nested_get_json_object('{"a": {"b": "x y"}}', '$.a.b')`)).toBe("x y");
    expect(await value(`select __slp_nested_get_json_object('{"a": [10, 1e2]}', '$.a[1]')`)).toBe("100.0");
    expect(await value(`select __slp_nested_get_json_object('{"a": {"b": [1, "é"]}}', '$.a')`)).toBe('{"b":[1,"é"]}');
    expect(await value(`select __slp_nested_get_json_object('{"a": null}', '$.a'), __slp_nested_get_json_object('[1]', '$.a')`)).toBeNull();
  });

  test("text that is not JSON, and a field given twice, are errors; a wildcard path is refused by name", async () => {
    await expect(value(`select __slp_nested_get_json_object('{a: 1}', '$.a')`)).rejects.toThrow("not JSON slp reads");
    await expect(value(`select __slp_nested_get_json_object('{"a": 1, "a": 2}', '$.a')`)).rejects.toThrow("given twice");
    const wildcard = await translateSql("select get_json_object(doc, '$.a[*]') from t", "databricks");
    expect(wildcard.ok ? "translated" : wildcard.untranslatable.construct).toBe("get_json_object()");
  });
});
