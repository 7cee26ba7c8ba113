/** How parsed values are printed the Python way and compared (spec/rules.md §1.2, §13). */
import { describe, expect, test } from "bun:test";
import { canonicalJson, looseEqual, pythonStr } from "../src/core/values.ts";

describe("pythonStr: what Python's str() prints", () => {
  test.each<[unknown, string]>([
    ["late refund", "late refund"],
    [true, "True"],
    [false, "False"],
    [null, "None"],
    [5, "5"],
    [-2.5, "-2.5"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1.5e-7, "1.5e-07"],
    [1e16, "1e+16"],
    [1.5e17, "1.5e+17"],
    [123456789012345, "123456789012345"],
    [Number.NaN, "nan"],
    [-Infinity, "-inf"],
    [["a", 1, true, null], "['a', 1, True, None]"],
    [{ k: "v", n: [1.5] }, "{'k': 'v', 'n': [1.5]}"],
  ])("%p prints %s", (value, printed) => {
    expect(pythonStr(value)).toBe(printed);
  });

  test("strings inside a list are repr'd: double quotes when the text holds a single quote", () => {
    expect(pythonStr(["ref('stg_orders')"])).toBe(`["ref('stg_orders')"]`);
    expect(pythonStr([`it's "x"`])).toBe(`['it\\'s "x"']`);
    expect(pythonStr(["a\\b", "tab\there", "line\nbreak", "\u0001"])).toBe(`['a\\\\b', 'tab\\there', 'line\\nbreak', '\\x01']`);
  });
});

describe("canonicalJson: the identity of a value", () => {
  test("sorted keys, no spaces, at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null], c: "x" } })).toBe('{"a":{"c":"x","d":[true,null]},"b":1}');
  });

  test("key order does not matter; true and 1 differ", () => {
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([true])).not.toBe(canonicalJson([1]));
  });
});

describe("looseEqual: Python's ==", () => {
  test("1, 1.0 and true are equal; mapping order does not matter", () => {
    expect(looseEqual(1, true)).toBe(true);
    expect(looseEqual(0, false)).toBe(true);
    expect(looseEqual({ a: [1], b: "x" }, { b: "x", a: [true] })).toBe(true);
  });

  test("different shapes, lengths, keys and NaN are not equal", () => {
    expect(looseEqual([1], [1, 2])).toBe(false);
    expect(looseEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(looseEqual("1", 1)).toBe(false);
    expect(looseEqual(null, false)).toBe(false);
    expect(looseEqual(Number.NaN, Number.NaN)).toBe(false);
  });
});
