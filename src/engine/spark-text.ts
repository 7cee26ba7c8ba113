/**
 * Spark's text of a nested value (an array, a map, a struct) on DuckDB: what
 * `cast(x as string)` and `to_json(x)` give in Databricks and Spark, which
 * DuckDB writes its own way (`{a=1}` for Spark's `{a -> 1}`, `NULL` for
 * `null`). The translation (src/sql/dialect) calls them as slp's DuckDB
 * functions; duckdb.ts registers them. They read the value with its DuckDB
 * type, so one function serves every shape; a member whose Spark text slp has
 * not verified (a float, a timestamp, bytes) is an error naming it, never a guess.
 *
 * Cast to string (Spark 3.x, spark.sql.legacy.castComplexTypesToString off,
 * the Databricks cast page): an array is `[e1, e2]`, a map `{k1 -> v1}`, a
 * struct its field values `{v1, v2}`, a NULL member `null`.
 * to_json (Spark's JacksonGenerator): a struct is an object of its fields
 * (a NULL field left out: spark.sql.jsonGenerator.ignoreNullFields is on by
 * default), an array a JSON array, a map an object keyed by its keys' text.
 */

import { jacksonString, javaDouble } from "../core/spark-json.ts";
import { INTEGRAL_TYPE_IDS, type NestedType, TYPE_ID } from "./duckdb-types.ts";

const ID = TYPE_ID;
const DOUBLE = TYPE_ID.DOUBLE;
const INTEGRAL = INTEGRAL_TYPE_IDS;
const TYPE_NAMES: Record<number, string> = {
  10: "FLOAT",
  11: "DOUBLE",
  12: "TIMESTAMP",
  14: "TIME",
  15: "INTERVAL",
  18: "BINARY",
  31: "TIMESTAMP",
  27: "UUID",
};

/** A value slp has not verified Spark's text of. */
export class SparkTextError extends Error {}

/** The name every one of these functions (and the macros that call them) starts with: SQL that holds it may call one. */
export const NESTED_PREFIX = "__slp_nested_";

function items(value: unknown): unknown[] {
  return (value as { items: unknown[] }).items;
}

function unverified(type: NestedType, what: string): never {
  throw new SparkTextError(
    `slp has not verified Spark's ${what} of a ${TYPE_NAMES[type.typeId] ?? `DuckDB type ${type.typeId}`} value inside an array, map or struct`,
  );
}

/** Spark's cast of a scalar member to STRING. */
function scalarString(value: unknown, type: NestedType): string {
  if (type.typeId === ID.VARCHAR) return value as string;
  if (type.typeId === ID.BOOLEAN) return value ? "true" : "false";
  if (INTEGRAL.has(type.typeId) || type.typeId === ID.DECIMAL || type.typeId === ID.DATE) return String(value);
  if (type.typeId === DOUBLE) return javaDouble(value as number);
  return unverified(type, "text");
}

/** `cast(value as string)` in Spark, for a value of any type DuckDB holds nested. */
export function sparkString(value: unknown, type: NestedType): string {
  if (value === null || value === undefined) return "null";
  switch (type.typeId) {
    case ID.LIST:
    case ID.ARRAY:
      return `[${items(value)
        .map((item) => sparkString(item, type.valueType as NestedType))
        .join(", ")}]`;
    case ID.MAP:
      return `{${(value as { entries: { key: unknown; value: unknown }[] }).entries
        .map(
          (entry) => `${sparkString(entry.key, type.keyType as NestedType)} -> ${sparkString(entry.value, type.valueType as NestedType)}`,
        )
        .join(", ")}}`;
    case ID.STRUCT: {
      const entries = (value as { entries: Record<string, unknown> }).entries;
      return `{${(type.entryNames ?? [])
        .map((name, i) => sparkString(entries[name] ?? null, (type.entryTypes ?? [])[i] as NestedType))
        .join(", ")}}`;
    }
    default:
      return scalarString(value, type);
  }
}

/** `to_json(value)` in Spark, for a value of any type DuckDB holds nested. */
export function sparkJson(value: unknown, type: NestedType): string {
  if (value === null || value === undefined) return "null";
  switch (type.typeId) {
    case ID.LIST:
    case ID.ARRAY:
      return `[${items(value)
        .map((item) => sparkJson(item, type.valueType as NestedType))
        .join(",")}]`;
    case ID.MAP:
      return `{${(value as { entries: { key: unknown; value: unknown }[] }).entries
        .map(
          (entry) =>
            `${jacksonString(sparkString(entry.key, type.keyType as NestedType))}:${sparkJson(entry.value, type.valueType as NestedType)}`,
        )
        .join(",")}}`;
    case ID.STRUCT: {
      const entries = (value as { entries: Record<string, unknown> }).entries;
      const fields: string[] = [];
      (type.entryNames ?? []).forEach((name, i) => {
        const field = entries[name] ?? null;
        if (field !== null) fields.push(`${jacksonString(name)}:${sparkJson(field, (type.entryTypes ?? [])[i] as NestedType)}`);
      });
      return `{${fields.join(",")}}`;
    }
    case ID.VARCHAR:
      return jacksonString(value as string);
    case ID.DATE:
      return jacksonString(String(value));
    case ID.DECIMAL: {
      // Jackson writes a BigDecimal's toString, which turns to an exponent below 1E-6.
      const text = String(value);
      if (/^-?0\.0{6}/.test(text) && /[1-9]/.test(text)) return unverified(type, "JSON");
      return text;
    }
    default:
      if (type.typeId === ID.BOOLEAN || INTEGRAL.has(type.typeId)) return scalarString(value, type);
      // Jackson writes NaN and the infinities as strings unless told otherwise: not verified.
      if (type.typeId === DOUBLE && Number.isFinite(value as number)) return javaDouble(value as number);
      return unverified(type, "JSON");
  }
}

/** The number of elements of an array or entries of a map (Spark's size; one function for both, where DuckDB has one each). */
export function nestedSize(value: unknown, type: NestedType): bigint {
  if (type.typeId === ID.MAP) return BigInt((value as { entries: unknown[] }).entries.length);
  if (type.typeId === ID.LIST || type.typeId === ID.ARRAY) return BigInt(items(value).length);
  throw new SparkTextError("size() takes an array or a map");
}

const NESTED = new Set<number>([ID.LIST, ID.ARRAY, ID.MAP, ID.STRUCT]);

/** concat_ws's arguments as text (Spark's ConcatWs): an array its elements, anything else one value, as Spark casts them to STRING. */
export function textsOf(value: unknown, type: NestedType): (string | null)[] {
  if (type.typeId === ID.LIST || type.typeId === ID.ARRAY)
    return items(value).map((item) => (item === null ? null : sparkString(item, type.valueType as NestedType)));
  if (type.typeId === ID.MAP || type.typeId === ID.STRUCT) throw new SparkTextError("concat_ws() takes strings and arrays of strings");
  return [scalarString(value, type)];
}

/**
 * slp's functions by name: each takes one value of any type (a NULL gives
 * NULL) and returns its text (VARCHAR) or a count (BIGINT).
 */
export const NESTED_FUNCTIONS: Record<
  string,
  { returns: "VARCHAR" | "BIGINT" | "VARCHAR[]"; compute: (value: unknown, type: NestedType) => string | bigint | (string | null)[] }
> = {
  __slp_nested_texts: { returns: "VARCHAR[]", compute: textsOf },
  __slp_nested_string: { returns: "VARCHAR", compute: sparkString },
  __slp_nested_json: {
    returns: "VARCHAR",
    compute: (value, type) => {
      if (!NESTED.has(type.typeId)) throw new SparkTextError("to_json() takes a struct, an array or a map");
      return sparkJson(value, type);
    },
  },
  __slp_nested_size: { returns: "BIGINT", compute: nestedSize },
};
