/** The diff JSON reader: Python's dialect (NaN, Infinity), strict otherwise, and a duplicated key refused by name. */
import { describe, expect, test } from "bun:test";
import { LimitError } from "../src/core/limits.ts";
import { InputError } from "../src/core/errors.ts";
import { parseJson } from "../src/project/files/json.ts";

const source = { file: "diff/a.json", fix: "write JSON" };
const parse = (text: string) => parseJson(text, source);

function refusal(text: string): InputError {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error(`parsed: ${text}`);
}

describe("parseJson", () => {
  test("reads plain JSON values", () => {
    expect(parse(' {"a": [1, -2.5, 1e3, 0, true, false, null, "x\\n\\u00e9\\"/"]}\n')).toEqual({
      a: [1, -2.5, 1000, 0, true, false, null, 'x\né"/'],
    });
    expect(parse("[]")).toEqual([]);
    expect(parse("{}")).toEqual({});
    expect(parse('"just a string"')).toBe("just a string");
  });

  test("reads NaN, Infinity and -Infinity as Python's json does", () => {
    const value = parse('{"a": NaN, "b": Infinity, "c": -Infinity}') as Record<string, number>;
    expect(Number.isNaN(value.a)).toBe(true);
    expect(value.b).toBe(Number.POSITIVE_INFINITY);
    expect(value.c).toBe(Number.NEGATIVE_INFINITY);
  });

  test("skips a UTF-8 byte-order mark", () => {
    expect(parse('\uFEFF{"a": 1}')).toEqual({ a: 1 });
  });

  test("keeps a key named __proto__ as data", () => {
    const value = parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  test("refuses a key written twice in one object, naming it and both lines", () => {
    const error = refusal('{\n  "model": "a",\n  "row_delta": 1,\n  "model": "b"\n}');
    // Valid JSON that slp refuses: not "not valid JSON", and the fix is this refusal's, not the source's advice on writing JSON.
    expect(error.message).toBe('the key "model" appears twice in one object (first on line 2) (line 4, column 3)');
    expect(error.file).toBe("diff/a.json");
    expect(error.line).toBe(4);
    expect(error.fix).toBe("write each key once: whatever wrote the file gave it two values, and slp does not pick one");
  });

  test("allows the same key in two different objects", () => {
    expect(parse('{"a": {"x": 1}, "b": {"x": 2}}')).toEqual({ a: { x: 1 }, b: { x: 2 } });
  });

  test.each([
    ["", "expected a value, and the file is empty (line 1, column 1)"],
    ["   \n", "expected a value, and the file is empty (line 2, column 1)"],
    ['{"a": 1,}', "expected a key in double quotes (line 1, column 9)"],
    ["[1, 2,]", "expected a value (line 1, column 7)"],
    ["{'a': 1}", "expected a key in double quotes (line 1, column 2)"],
    ['{"a" 1}', "expected ':' after the key (line 1, column 6)"],
    ['{"a": 1 "b": 2}', "expected ',' or '}' after a value in an object (line 1, column 9)"],
    ["[1 2]", "expected ',' or ']' after a value in a list (line 1, column 4)"],
    ['{"a": 1} {"b": 2}', "unexpected text after the end of the JSON value (line 1, column 10)"],
    ["01", "unexpected text after the end of the JSON value (line 1, column 2)"],
    ["1.", "unexpected text after the end of the JSON value (line 1, column 2)"],
    [".5", "expected a value (line 1, column 1)"],
    ["+1", "expected a value (line 1, column 1)"],
    ["nan", "expected a value (line 1, column 1)"],
    ["// comment\n{}", "expected a value (line 1, column 1)"],
    ['"abc', "a string is not closed (line 1, column 1)"],
    ['{"model": "a",\n', "the text ends before the JSON value is complete (line 2, column 1)"],
    ["[1, 2", "the text ends before the JSON value is complete (line 1, column 6)"],
    ['{"a": ', "the text ends before the JSON value is complete (line 1, column 7)"],
    ['"a\tb"', "a control character inside a string (write it as an escape such as \\n) (line 1, column 3)"],
    ['"\\x41"', "\\x is not a JSON escape (line 1, column 2)"],
    ['"\\u12"', "a \\u escape needs four hexadecimal digits (line 1, column 2)"],
  ])("refuses %j", (text, message) => {
    expect(refusal(text).message).toBe(`not valid JSON: ${message}`);
  });

  test("refuses nesting deeper than nesting_depth, naming the limit", () => {
    let error: unknown;
    try {
      parse(`${"[".repeat(600)}${"]".repeat(600)}`);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(LimitError);
    expect((error as LimitError).message).toBe("the JSON nests values more than 256 levels deep (limit nesting_depth = 256 levels)");
  });

  test("refuses a number a double cannot hold exactly, instead of rounding it", () => {
    expect(refusal('{"row_delta": 9007199254740993}').message).toContain(
      "the number 9007199254740993 is beyond 9,007,199,254,740,991 (2^53 - 1)",
    );
    expect(refusal('{"row_delta": 9007199254740993}').message).not.toContain("not valid JSON");
    expect(refusal('{"row_delta": 9007199254740993}').fix).toBe(
      "correct what wrote the file (no real count or measure comes near that number)",
    );
    expect(refusal("[-1e300]").message).toContain("the number -1e300 is beyond");
    expect(parse("[9007199254740991, -9007199254740991, 1.5]")).toEqual([9007199254740991, -9007199254740991, 1.5]);
  });
});
