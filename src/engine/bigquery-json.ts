/**
 * BigQuery's TO_JSON_STRING of a SQL value on DuckDB: the value read with its
 * DuckDB type (as spark-text.ts reads Spark's), printed as BigQuery's JSON
 * encodings table says (https://cloud.google.com/bigquery/docs/reference/standard-sql/json_functions#json_encodings)
 * and GoogleSQL's reference implementation (ZetaSQL's json_format.cc) does:
 * an INT64 a number within ±2^53 else a quoted string; a NUMERIC a number when
 * whole and within ±2^53 else a quoted string; a FLOAT64 C's `%.15g`, or
 * `%.17g` when that does not read back, NaN and the infinities as strings;
 * a STRING escaped (`"`, `\`, U+0000..U+001F, U+2028, U+2029); BYTES base64;
 * a DATE, DATETIME, TIME and TIMESTAMP ISO 8601 text with 0, 3 or 6 fraction
 * digits, the fewest that hold the value, a TIMESTAMP with `Z`; an ARRAY a
 * JSON array; a STRUCT an object of its fields in order. pretty_print puts each
 * member on its own line, indented two spaces, `": "` after a key.
 * A value slp cannot print exactly (-0.0, a struct with unnamed or repeated
 * fields, which DuckDB cannot hand over, an INTERVAL, a GEOGRAPHY) is an
 * error naming it, never a guess.
 */

import { INTEGRAL_TYPE_IDS, type NestedType, TYPE_ID } from "./duckdb-types.ts";

const ID = TYPE_ID;
const INTEGRAL = INTEGRAL_TYPE_IDS;

/** The largest integer a JSON number holds losslessly (2^53): BigQuery quotes an INT64 or NUMERIC past it. */
const LOSSLESS = 9007199254740992n;

/** A value slp has not verified BigQuery's JSON text of. */
export class BigQueryJsonError extends Error {}

function refuse(what: string): never {
  throw new BigQueryJsonError(`TO_JSON_STRING of ${what}: slp has not verified how BigQuery prints it`);
}

/** A string as GoogleSQL escapes it in JSON (ZetaSQL's JsonEscapeString). */
export function bigqueryJsonString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return `${out}"`;
}

/** The exact decimal digits of a finite nonzero |x| and the power of ten of its first digit. */
function exactDigits(x: number): { digits: string; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = (biased === 0 ? 1 : biased) - 1075;
  // |x| = mantissa * 2^power: an integer, or mantissa * 5^-power / 10^-power.
  const digits = power >= 0 ? (mantissa << BigInt(power)).toString() : (mantissa * 5n ** BigInt(-power)).toString();
  const pointAfter = power >= 0 ? digits.length : digits.length + power;
  const trimmed = digits.replace(/^0+/, "");
  return { digits: trimmed, exponent: pointAfter - (digits.length - trimmed.length) - 1 };
}

/** C's printf `%.<precision>g` of a finite nonzero x (glibc: the exact value rounded half to even). */
export function cFormatG(x: number, precision: number): string {
  let { digits, exponent } = exactDigits(x);
  if (digits.length > precision) {
    const kept = BigInt(digits.slice(0, precision));
    const rest = digits.slice(precision);
    const half = rest[0] === "5" && /^50*$/.test(rest);
    const up = rest[0] !== undefined && (rest[0] > "5" || (rest[0] === "5" && (!half || kept % 2n === 1n)));
    let rounded = (up ? kept + 1n : kept).toString();
    if (rounded.length > precision) {
      rounded = rounded.slice(0, precision);
      exponent += 1;
    }
    digits = rounded;
  }
  digits = digits.replace(/0+$/, "") || "0";
  const sign = x < 0 ? "-" : "";
  if (exponent < -4 || exponent >= precision) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const decimals = digits.slice(exponent + 1);
  return `${sign}${whole}${decimals ? `.${decimals}` : ""}`;
}

/** A FLOAT64 as GoogleSQL prints it in JSON (RoundTripDoubleToString: %.15g, else %.17g). */
export function bigqueryDouble(x: number): string {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Number.POSITIVE_INFINITY) return '"Infinity"';
  if (x === Number.NEGATIVE_INFINITY) return '"-Infinity"';
  if (x === 0) return Object.is(x, -0) ? refuse("-0.0 (a FLOAT64 negative zero)") : "0";
  const short = cFormatG(x, 15);
  return Number(short) === x ? short : cFormatG(x, 17);
}

function integer(value: bigint): string {
  return value < -LOSSLESS || value > LOSSLESS ? `"${value}"` : String(value);
}

/** A NUMERIC or BIGNUMERIC: its shortest text (no trailing fraction zeros), quoted when fractional or past ±2^53. */
function decimal(value: { value: bigint; scale: number }): string {
  const negative = value.value < 0n;
  const digits = (negative ? -value.value : value.value).toString().padStart(value.scale + 1, "0");
  const whole = digits.slice(0, digits.length - value.scale);
  const fraction = digits.slice(digits.length - value.scale).replace(/0+$/, "");
  const text = `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
  const wide = BigInt(whole) > LOSSLESS;
  return fraction || wide ? `"${text}"` : text;
}

const pad2 = (n: number | bigint) => String(n).padStart(2, "0");

/** Seconds and their fraction: no digits when whole, 3 when whole milliseconds, else 6 (NarrowTimestampScaleIfPossible). */
function clock(microsOfDay: bigint): string {
  const seconds = microsOfDay / 1000000n;
  const micros = microsOfDay % 1000000n;
  const hms = `${pad2(seconds / 3600n)}:${pad2((seconds / 60n) % 60n)}:${pad2(seconds % 60n)}`;
  if (micros === 0n) return hms;
  if (micros % 1000n === 0n) return `${hms}.${String(micros / 1000n).padStart(3, "0")}`;
  return `${hms}.${String(micros).padStart(6, "0")}`;
}

const MICROS_PER_DAY = 86400000000n;

/** A DATE from its days since 1970-01-01 (years 1..9999, as BigQuery holds them). */
function civilDate(days: number): string {
  const date = new Date(days * 86400000);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(days) || year < 1 || year > 9999) return refuse("a DATE outside years 1 to 9999");
  return `${String(year).padStart(4, "0")}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`;
}

function dateTime(micros: bigint, zulu: boolean): string {
  const days = micros >= 0n ? micros / MICROS_PER_DAY : -((-micros + MICROS_PER_DAY - 1n) / MICROS_PER_DAY);
  return `${civilDate(Number(days))}T${clock(micros - days * MICROS_PER_DAY)}${zulu ? "Z" : ""}`;
}

/** Where pretty_print puts a member: a new line indented two spaces a level; nothing when compact. */
function newline(pretty: boolean, depth: number): string {
  return pretty ? `\n${"  ".repeat(depth)}` : "";
}

/** BigQuery's TO_JSON_STRING of a value DuckDB holds with the given type. */
export function bigqueryJson(value: unknown, type: NestedType, pretty: boolean, depth = 0): string {
  if (value === null || value === undefined) return "null";
  const id = type.typeId;
  if (id === ID.LIST || id === ID.ARRAY) {
    const items = (value as { items: unknown[] }).items;
    if (items.length === 0) return "[]";
    const inner = items.map(
      (item) => `${newline(pretty, depth + 1)}${bigqueryJson(item, type.valueType as NestedType, pretty, depth + 1)}`,
    );
    return `[${inner.join(",")}${newline(pretty, depth)}]`;
  }
  if (id === ID.STRUCT) {
    const names = type.entryNames ?? [];
    if (names.length === 0) return "{}";
    if (names.some((name) => name === "") || new Set(names).size !== names.length)
      return refuse("a STRUCT with unnamed or repeated fields");
    const entries = (value as { entries: Record<string, unknown> }).entries;
    const fields = names.map(
      (name, i) =>
        `${newline(pretty, depth + 1)}${bigqueryJsonString(name)}:${pretty ? " " : ""}${bigqueryJson(entries[name] ?? null, (type.entryTypes ?? [])[i] as NestedType, pretty, depth + 1)}`,
    );
    return `{${fields.join(",")}${newline(pretty, depth)}}`;
  }
  if (id === ID.BOOLEAN) return value ? "true" : "false";
  if (INTEGRAL.has(id)) return integer(BigInt(value as number | bigint));
  if (id === ID.DECIMAL) return decimal(value as { value: bigint; scale: number });
  if (id === ID.DOUBLE) return bigqueryDouble(value as number);
  if (id === ID.VARCHAR) return bigqueryJsonString(value as string);
  if (id === ID.BLOB) return `"${Buffer.from((value as { bytes: Uint8Array }).bytes).toString("base64")}"`;
  if (id === ID.DATE) return `"${civilDate((value as { days: number }).days)}"`;
  if (id === ID.TIME) return `"${clock((value as { micros: bigint }).micros)}"`;
  if (id === ID.TIMESTAMP) return `"${dateTime((value as { micros: bigint }).micros, false)}"`;
  if (id === ID.TIMESTAMP_TZ) return `"${dateTime((value as { micros: bigint }).micros, true)}"`;
  return refuse(`a value of DuckDB type id ${id} (an INTERVAL, GEOGRAPHY, FLOAT32, MAP or another type)`);
}

/** slp's TO_JSON_STRING functions, named with the nested-value functions' prefix so duckdb.ts registers them with those. */
export const BIGQUERY_JSON_FUNCTIONS: Record<string, { returns: "VARCHAR"; compute: (value: unknown, type: NestedType) => string }> = {
  __slp_nested_bq_json_string: { returns: "VARCHAR", compute: (value, type) => bigqueryJson(value, type, false) },
  __slp_nested_bq_json_string_pretty: { returns: "VARCHAR", compute: (value, type) => bigqueryJson(value, type, true) },
};
