/**
 * JSON text as slp holds a warehouse's semi-structured values and as a unit
 * test compares them (src/engine/json-text.ts), and a fixture's value of a
 * JSON-backed column (src/unit/json-values.ts).
 */
import { describe, expect, test } from "bun:test";
import { jsonText } from "../src/engine/json-text.ts";
import { jsonFixtureText, unknownJsonText } from "../src/unit/json-values.ts";

describe("JSON text", () => {
  test("held: keys sorted, no blanks, strings re-escaped, integers of any length kept, a whole fraction keeps .0", () => {
    expect(jsonText('{"b": 1, "a": [1, 2.50, {"z": 1, "a": "\\u0041"}], "c": 1.0, "d": 12345678901234567890}', "held")).toBe(
      '{"a":[1,2.5,{"a":"A","z":1}],"b":1,"c":1.0,"d":12345678901234567890}',
    );
    expect(jsonText('"x"', "held")).toBe('"x"');
  });

  test('compared: a number by its value, so 1.0 and 1 are one text; 1 and "1" stay two', () => {
    expect(jsonText('{"a": 1.0, "b": 2.50}', "compared")).toBe(jsonText('{"b": 2.5, "a": 1}', "compared"));
    expect(jsonText("1", "compared")).not.toBe(jsonText('"1"', "compared"));
  });

  test("text that is not JSON, or an object with a key twice, is an error", () => {
    expect(() => jsonText("{bad", "held")).toThrow("not JSON");
    expect(() => jsonText('{"a": 1, "a": 2}', "held")).toThrow('no second key "a"');
    expect(() => jsonText("[1,]", "held")).toThrow("not JSON");
  });
});

describe("a fixture's value of a JSON-backed column", () => {
  test("a mapping or list is its JSON text, keys sorted; text is read as the type reads it", () => {
    expect(jsonFixtureText({ b: 1, a: [true, "x"] }, { kind: "string" })).toBe('{"a":[true,"x"],"b":1}');
    expect(jsonFixtureText("x", { kind: "string" })).toBe('"x"');
    expect(jsonFixtureText('{"a": 1}', { kind: "parsed" })).toBe('{"a":1}');
    expect(jsonFixtureText(null, { kind: "string" })).toBeNull();
  });

  test("text is refused where the type's reading is not known, and a null inside a mapping where dbt writes Python's None", () => {
    expect(jsonFixtureText("x", unknownJsonText("snowflake"))).toEqual({
      refuse: expect.stringContaining("slp does not know which semi-structured type"),
    });
    expect(jsonFixtureText({ a: null }, { kind: "string", pythonContainers: true })).toEqual({
      refuse: expect.stringContaining("a null is None"),
    });
    expect(jsonFixtureText({ a: null }, { kind: "parsed" })).toBe('{"a":null}');
    expect(jsonFixtureText(["it's"], { kind: "string", pythonContainers: true })).toEqual({
      refuse: expect.stringContaining("double quotes"),
    });
  });
});
