/**
 * JSON-backed columns in fixtures, for every warehouse whose semi-structured
 * type slp holds as DuckDB's JSON (Snowflake VARIANT, OBJECT and ARRAY;
 * the others' JSON, SUPER, json and jsonb where their dialects map them):
 * a YAML mapping or list is the JSON text of it, a number or a boolean its
 * JSON scalar, and text is read as the warehouse type reads text
 * (`JsonText`), or refused where slp does not know that type.
 *
 * How dbt compares such a column: the adapter casts each expected value to
 * the model's output type, the warehouse returns both halves as its own
 * text of the value (Snowflake's connector returns VARIANT, OBJECT and ARRAY
 * as JSON with the keys of an object in order), and daff compares those
 * strings (spec/dbt-unit-tests.md §3.5). Two values the warehouse holds as
 * equal therefore compare equal whatever order their keys were written in,
 * so slp compares a JSON column by its canonical text (slp's DuckDB function
 * `__slp_json_canon`, engine/json-text.ts: keys sorted, no blanks, strings
 * re-escaped, a number by its value, so 1.0 equals 1): a value's key order
 * or spacing never decides a verdict. Fixture values are written with their
 * keys sorted too (core/values.ts's canonicalJson, code point order), as
 * Snowflake keeps an object's keys.
 */
import { canonicalJson, type Value } from "../core/values.ts";
import { RenderRefusal } from "../sql/dbt-context.ts";
import type { Dialect } from "../sql/dialect/dialects.ts";
import { JSON_TYPE, type JsonText, pythonContainers } from "../sql/dialect/types.ts";

export { JSON_TYPE, type JsonText };

/** True for the DuckDB type of a JSON-backed column. */
export function isJsonType(type: string | null): boolean {
  return type !== null && type.trim().toUpperCase() === JSON_TYPE;
}

/** slp's DuckDB function (engine/json-text.ts) giving a JSON value's canonical text. */
export const JSON_CANONICAL_MACRO = "__slp_json_canon";

/** How a JSON-backed column whose warehouse type slp does not know (DuckDB typed it from SQL: it says only JSON) reads a value. */
export function unknownJsonText(dialect: Dialect): JsonText {
  return {
    kind: "refused",
    why: "it is text, and slp does not know which semi-structured type the warehouse gives the column (a Snowflake VARIANT holds text as a string; other types parse or reject it)",
    ...(pythonContainers(dialect) ? { pythonContainers: true as const } : {}),
  };
}

/** A fixture value of a JSON-backed column as the JSON text it stands for; a `{ refuse }` when slp cannot say which. */
export function jsonFixtureText(value: Value, text: JsonText): string | null | { refuse: string } {
  if (value === null) return null;
  if (typeof value === "string") {
    if (text.kind === "refused") return { refuse: text.why };
    if (text.kind === "string") return JSON.stringify(value);
    try {
      return canonicalJson(JSON.parse(value));
    } catch {
      return { refuse: `it is not JSON text: ${value.length > 60 ? `${value.slice(0, 60)}...` : value}` };
    }
  }
  if (typeof value === "number" && !Number.isFinite(value)) return { refuse: `${value} has no JSON form` };
  if (text.pythonContainers && (Array.isArray(value) || typeof value === "object")) {
    const unreadable = notPythonLiteral(value);
    if (unreadable)
      return {
        refuse: `dbt writes the ${Array.isArray(value) ? "list" : "mapping"} as Python prints it, where ${unreadable}, which the warehouse cannot read (the test errors in dbt)`,
      };
  }
  return canonicalJson(value);
}

/** A JSON-backed column's fixture value as its JSON text (which the column's cast to JSON reads), or the refusal naming it. */
export function jsonValue(value: Value, text: JsonText, column: string, label: string): string | null {
  const json = jsonFixtureText(value, text);
  if (json !== null && typeof json === "object")
    throw new RenderRefusal(
      `untranslatable: the value of column '${column}' of ${label}: ${json.refuse}`,
      "give a value the column's type reads (a YAML mapping, list, number or boolean), or write the rows with format: sql (parse_json('...'), object_construct(...))",
    );
  return json;
}

/** What in a YAML mapping or list Python prints as something no SQL literal reads, or null. */
function notPythonLiteral(value: Value): string | null {
  if (value === null) return "a null is None";
  if (typeof value === "string") return value.includes("'") && !value.includes('"') ? `'${value}' is written in double quotes` : null;
  if (Array.isArray(value)) return value.map(notPythonLiteral).find((found) => found !== null) ?? null;
  if (typeof value === "object")
    return (
      Object.entries(value)
        .flatMap(([key, item]) => [notPythonLiteral(key), notPythonLiteral(item)])
        .find((found) => found !== null) ?? null
    );
  return null;
}
