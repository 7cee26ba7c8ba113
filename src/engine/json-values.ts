/**
 * JSON text as the warehouses hold and print it, for the JSON functions a
 * translated model calls on DuckDB (registered by duckdb.ts). DuckDB's own
 * JSON functions re-serialize what they read (1.50 becomes 1.5, spacing is
 * dropped, keys keep their order); Postgres's jsonb prints its keys sorted
 * with `": "` and `", "`, its json keeps the text as written, Redshift and
 * BigQuery print compact text. Each function here reads the text itself, so
 * a value's text is the warehouse's or the function raises an error naming
 * what slp does not reproduce: never a different text.
 */

/** A JSON value with the text it was read from. */
export type JsonValue =
  | { kind: "object"; members: [string, JsonValue][]; raw: string }
  | { kind: "array"; items: JsonValue[]; raw: string }
  | { kind: "string"; value: string; raw: string }
  | { kind: "number"; raw: string }
  | { kind: "true" | "false" | "null"; raw: string };

export class JsonTextError extends Error {}

/** `text` read as one JSON value (RFC 8259; whitespace around it allowed). */
export function readJson(text: string): JsonValue {
  let at = 0;
  const fail = (what: string): never => {
    throw new JsonTextError(`invalid JSON (${what} at character ${at + 1})`);
  };
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at] as string)) at++;
  };
  const value = (): JsonValue => {
    space();
    const start = at;
    const char = text[at];
    if (char === "{") {
      at++;
      const members: [string, JsonValue][] = [];
      space();
      if (text[at] === "}") at++;
      else
        for (;;) {
          space();
          if (text[at] !== '"') fail("a key expected");
          const key = string();
          space();
          if (text[at] !== ":") fail("':' expected");
          at++;
          members.push([key, value()]);
          space();
          if (text[at] === ",") at++;
          else if (text[at] === "}") {
            at++;
            break;
          } else fail("',' or '}' expected");
        }
      return { kind: "object", members, raw: text.slice(start, at) };
    }
    if (char === "[") {
      at++;
      const items: JsonValue[] = [];
      space();
      if (text[at] === "]") at++;
      else
        for (;;) {
          items.push(value());
          space();
          if (text[at] === ",") at++;
          else if (text[at] === "]") {
            at++;
            break;
          } else fail("',' or ']' expected");
        }
      return { kind: "array", items, raw: text.slice(start, at) };
    }
    if (char === '"') {
      const decoded = string();
      return { kind: "string", value: decoded, raw: text.slice(start, at) };
    }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (number) {
      at += number[0].length;
      return { kind: "number", raw: number[0] };
    }
    for (const word of ["true", "false", "null"] as const)
      if (text.startsWith(word, at)) {
        at += word.length;
        return { kind: word, raw: word };
      }
    return fail("a value expected");
  };
  const string = (): string => {
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text[at] === "\\") at++;
      else if ((text.charCodeAt(at) as number) < 0x20) fail("a control character in a string");
      at++;
    }
    if (at >= text.length) fail("an unterminated string");
    at++;
    try {
      return JSON.parse(text.slice(start, at)) as string;
    } catch {
      return fail("a bad escape in a string");
    }
  };
  const result = value();
  space();
  if (at < text.length) fail("text after the value");
  return result;
}

/** Whether `text` is one JSON value. */
export function isJson(text: string): boolean {
  try {
    readJson(text);
    return true;
  } catch (error) {
    if (error instanceof JsonTextError) return false;
    throw error;
  }
}

const UTF8 = new TextEncoder();

/** Postgres's order of jsonb keys: shorter (in bytes) first, then by bytes. */
function jsonbKeyOrder(a: string, b: string): number {
  const [x, y] = [UTF8.encode(a), UTF8.encode(b)];
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return 0;
}

/**
 * A JSON number's text as Postgres's numeric prints it: as written, without
 * an exponent (1.5e1 is 15, 1.50e1 is 15.0, 1e-2 is 0.01) and without the
 * sign of a zero.
 */
export function numericText(raw: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(raw);
  if (!match) throw new JsonTextError(`not a number: ${raw}`);
  const [, sign, whole, fraction = "", exponentText] = match as unknown as [string, string, string, string | undefined, string | undefined];
  const exponent = Number(exponentText ?? 0);
  if (Math.abs(exponent) > 1000)
    throw new JsonTextError(`slp does not print the number ${raw} as Postgres does (its exponent is too large)`);
  const scale = Math.max(0, fraction.length - exponent);
  const digits = (whole + fraction).replace(/^0+(?=\d)/, "");
  // The value is digits * 10^(exponent - fraction.length); printed with `scale` digits after the point.
  const shift = exponent - fraction.length + scale;
  let text = digits + "0".repeat(Math.max(0, shift));
  if (shift < 0) text = text.slice(0, text.length + shift) || "0";
  text = text.padStart(scale + 1, "0");
  const printed = scale > 0 ? `${text.slice(0, text.length - scale)}.${text.slice(text.length - scale)}` : text;
  const normalized = printed.replace(/^0+(?=\d)/, "");
  return /^[0.]+$/.test(normalized) ? normalized : `${sign}${normalized}`;
}

/** How a JSON value is printed: Postgres jsonb; compact with its keys in order (Redshift SUPER, BigQuery text); compact with its keys sorted (BigQuery JSON). */
export type JsonStyle = "jsonb" | "compact" | "sorted";

/** `value` printed in `style`; a number compact printing cannot keep (a fraction, an exponent) is an error. */
export function printJson(value: JsonValue, style: JsonStyle, what: string): string {
  switch (value.kind) {
    case "object": {
      let members = value.members;
      if (style === "jsonb") {
        // Of duplicate keys jsonb keeps the last.
        const last = new Map(members);
        members = [...last.entries()].sort(([a], [b]) => jsonbKeyOrder(a, b));
      } else if (new Set(members.map(([key]) => key)).size !== members.length)
        throw new JsonTextError(`${what}: an object with a duplicate key, which slp does not hold as the warehouse does`);
      else if (style === "sorted") members = [...members].sort(([a], [b]) => (a < b ? -1 : 1));
      const [colon, comma] = style === "jsonb" ? [": ", ", "] : [":", ","];
      return `{${members.map(([key, item]) => `${JSON.stringify(key)}${colon}${printJson(item, style, what)}`).join(comma)}}`;
    }
    case "array":
      return `[${value.items.map((item) => printJson(item, style, what)).join(style === "jsonb" ? ", " : ",")}]`;
    case "string":
      return JSON.stringify(value.value);
    case "number":
      if (style === "jsonb") return numericText(value.raw);
      // BigQuery holds a JSON number with a fraction or an exponent as a FLOAT64 and prints its shortest text (9.8, 1.5, 100).
      if (style === "sorted" && !/^-?\d+$/.test(value.raw)) {
        const printed = String(Number(value.raw));
        if (/e/i.test(printed) || !Number.isFinite(Number(value.raw)))
          throw new JsonTextError(`${what}: the number ${value.raw}, whose text as BigQuery prints it slp does not reproduce`);
        return printed;
      }
      if (!/^-?\d+$/.test(value.raw) || value.raw === "-0" || value.raw.replace("-", "").length > 18)
        throw new JsonTextError(
          `${what}: the number ${value.raw} (a fraction, an exponent or more than 18 digits), whose text slp does not reproduce`,
        );
      return value.raw;
    default:
      return value.raw;
  }
}

/**
 * Where a path leads, one step each: `k<key>` a key of an object, `i<n>` an
 * index of an array (negative from its end where `fromEnd`), `p<text>` a
 * step of a Postgres text path (a key of an object, an integer index of an
 * array). null where a step leads nowhere. Of duplicate keys the last counts
 * (Postgres); `uniqueKeys` makes one on the path an error.
 */
export function follow(
  value: JsonValue,
  path: readonly string[],
  options: { fromEnd: boolean; uniqueKeys: boolean; what: string },
): JsonValue | null {
  let here: JsonValue = value;
  for (const step of path) {
    const [kind, text] = [step[0], step.slice(1)];
    if (here.kind === "object" && (kind === "k" || kind === "p")) {
      const found = here.members.filter(([key]) => key === text);
      if (found.length > 1 && options.uniqueKeys)
        throw new JsonTextError(`${options.what}: the key ${JSON.stringify(text)} is in the object twice`);
      const last = found[found.length - 1];
      if (!last) return null;
      here = last[1];
    } else if (here.kind === "array" && (kind === "i" || (kind === "p" && /^-?\d+$/.test(text.trim())))) {
      let index = Number(text.trim());
      if (index < 0) {
        if (!options.fromEnd) return null;
        index += here.items.length;
      }
      const item = here.items[index];
      if (!item) return null;
      here = item;
    } else return null;
  }
  return here;
}

/** Postgres's and Redshift's and BigQuery's name of a JSON value's type. */
export function typeName(value: JsonValue): string {
  return value.kind === "true" || value.kind === "false" ? "boolean" : value.kind;
}

/** Postgres jsonb `?`, `?|`, `?&`: a key of the object, a string element of the array, or the string itself. */
export function hasKeys(value: JsonValue, keys: readonly string[], how: "any" | "all"): boolean {
  const has = (key: string) =>
    value.kind === "object"
      ? value.members.some(([name]) => name === key)
      : value.kind === "array"
        ? value.items.some((item) => item.kind === "string" && item.value === key)
        : value.kind === "string" && value.value === key;
  return how === "any" ? keys.some(has) : keys.every(has);
}

function numericEqual(a: string, b: string): boolean {
  return (
    numericText(a)
      .replace(/(\.\d*?)0+$/, "$1")
      .replace(/\.$/, "") ===
    numericText(b)
      .replace(/(\.\d*?)0+$/, "$1")
      .replace(/\.$/, "")
  );
}

/**
 * Postgres jsonb containment `a @> b`: an object contains an object whose
 * every key it has with a contained value; an array contains an array whose
 * every element some element of it contains; a top-level array contains a
 * scalar among its elements; scalars are equal (numbers by value).
 */
export function jsonbContains(a: JsonValue, b: JsonValue, top = true): boolean {
  if (a.kind === "object") {
    if (b.kind !== "object") return false;
    const members = new Map(a.members);
    return [...new Map(b.members)].every(([key, value]) => {
      const mine = members.get(key);
      return mine !== undefined && jsonbContains(mine, value, false);
    });
  }
  if (a.kind === "array") {
    if (b.kind === "array")
      return b.items.every((wanted) =>
        a.items.some((item) =>
          wanted.kind === "object" || wanted.kind === "array"
            ? item.kind === wanted.kind && jsonbContains(item, wanted, false)
            : scalarEqual(item, wanted),
        ),
      );
    return top && b.kind !== "object" && a.items.some((item) => scalarEqual(item, b));
  }
  return scalarEqual(a, b);
}

function scalarEqual(a: JsonValue, b: JsonValue): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "string" && b.kind === "string") return a.value === b.value;
  if (a.kind === "number") return numericEqual(a.raw, b.raw);
  return a.kind === "true" || a.kind === "false" || a.kind === "null";
}

/** Postgres jsonb `a || b`: two objects merged (b's keys win), else the two as arrays (a scalar or object as one element) concatenated. */
export function jsonbConcat(a: JsonValue, b: JsonValue): string {
  if (a.kind === "object" && b.kind === "object") {
    const merged = new Map(a.members);
    for (const [key, value] of b.members) merged.set(key, value);
    return printJson({ kind: "object", members: [...merged], raw: "" }, "jsonb", "||");
  }
  const items = (value: JsonValue) => (value.kind === "array" ? value.items : [value]);
  return printJson({ kind: "array", items: [...items(a), ...items(b)], raw: "" }, "jsonb", "||");
}

/** What every one of slp's JSON function names starts with: SQL that holds it may call one. */
export const JSON_FUNCTION_PREFIX = "__slp_jsonf_";

type SqlType = "VARCHAR" | "VARCHAR[]" | "BOOLEAN" | "BIGINT";

/** One of slp's JSON functions: its DuckDB signature and what it computes of non-NULL arguments (NULL in, NULL out). */
export interface JsonFunction {
  parameters: SqlType[];
  returns: SqlType;
  compute(...args: unknown[]): string | boolean | bigint | null;
}

const listOf = (value: unknown): string[] => [...((value as { items: readonly unknown[] }).items ?? [])].map((item) => String(item));

/** How a value a path leads to is returned, by the construct that reads it. */
const READS: Record<string, (value: JsonValue) => string | null> = {
  // Postgres -> and #>: the value's text as held (json: as written; jsonb: slp holds jsonb's own text).
  pg: (value) => value.raw,
  // Postgres ->> and #>>, json_extract_path_text: a string's characters, JSON null as NULL, else the text as held.
  pg_text: (value) => (value.kind === "string" ? value.value : value.kind === "null" ? null : value.raw),
  // Redshift's JSON functions on text: a string's characters, else the text as written; a JSON null is refused (undocumented).
  redshift_text: (value) => {
    if (value.kind === "null") throw new JsonTextError("a JSON null: slp has not verified what Redshift returns for it");
    return value.kind === "string" ? value.value : value.raw;
  },
  // BigQuery JSON_VALUE / JSON_EXTRACT_SCALAR: a scalar's text, NULL for an object, an array or a JSON null.
  bigquery_value: (value) =>
    value.kind === "string"
      ? value.value
      : value.kind === "object" || value.kind === "array" || value.kind === "null"
        ? null
        : printJson(value, "compact", "JSON_VALUE"),
  // BigQuery JSON_QUERY / JSON_EXTRACT: the value as compact JSON text.
  bigquery_query: (value) => printJson(value, "compact", "JSON_QUERY"),
};

const read = (text: unknown, what: string): JsonValue => {
  try {
    return readJson(String(text));
  } catch (error) {
    if (error instanceof JsonTextError) throw new JsonTextError(`${what}: ${error.message}`);
    throw error;
  }
};

/** A path as json.ts writes it: a JSON array of URI-encoded steps. */
function decodedPath(path: unknown): string[] {
  return (JSON.parse(String(path)) as string[]).map((step) => decodeURIComponent(step));
}

/** slp's JSON functions by name, registered on DuckDB by duckdb.ts. */
export const JSON_FUNCTIONS: Record<string, JsonFunction> = {
  /** The text `style` prints the JSON text as: jsonb (Postgres), super (Redshift: compact, keys in ascending order), bigquery (compact, keys sorted). */
  __slp_jsonf_print: {
    parameters: ["VARCHAR", "VARCHAR"],
    returns: "VARCHAR",
    compute: (text, style) => {
      const value = read(text, String(style));
      if (style === "super") checkSuperKeys(value);
      return printJson(value, style === "jsonb" ? "jsonb" : style === "bigquery" ? "sorted" : "compact", String(style));
    },
  },
  /** The value `path` leads to in the JSON text, read as `reader` reads it (READS); NULL where it leads nowhere. */
  __slp_jsonf_get: {
    parameters: ["VARCHAR", "VARCHAR", "VARCHAR"],
    returns: "VARCHAR",
    compute: (text, path, reader) => {
      const how = String(reader);
      const lenient = how.endsWith("?");
      const name = how.replace(/\?$/, "");
      let value: JsonValue;
      try {
        value = read(text, name);
      } catch (error) {
        if (lenient && error instanceof JsonTextError) return null;
        throw error;
      }
      const postgres = name.startsWith("pg");
      const found = follow(value, decodedPath(path), { fromEnd: postgres, uniqueKeys: !postgres, what: name });
      return found === null ? null : (READS[name] as (value: JsonValue) => string | null)(found);
    },
  },
  /** The elements of the JSON array `path` leads to, each read as `reader` reads a value, as the JSON text of a list of strings (NULL where it leads to no array). */
  __slp_jsonf_items: {
    parameters: ["VARCHAR", "VARCHAR", "VARCHAR"],
    returns: "VARCHAR",
    compute: (text, path, reader) => {
      const name = String(reader);
      const found = follow(read(text, name), decodedPath(path), { fromEnd: false, uniqueKeys: true, what: name });
      if (found === null || found.kind !== "array") return null;
      return JSON.stringify(
        found.items.map((item) => {
          if (name === "bigquery_value" && (item.kind === "object" || item.kind === "array" || item.kind === "null"))
            throw new JsonTextError(
              `JSON_VALUE_ARRAY of an array holding a JSON ${typeName(item)}: slp has not verified what BigQuery returns`,
            );
          return (READS[name] as (value: JsonValue) => string | null)(item);
        }),
      );
    },
  },
  /** BigQuery's converters BOOL, INT64, FLOAT64 and STRING of a JSON value: its text for the cast, an error for another JSON type. */
  __slp_jsonf_scalar: {
    parameters: ["VARCHAR", "VARCHAR"],
    returns: "VARCHAR",
    compute: (text, want) => {
      const value = read(text, String(want).toUpperCase());
      const wanted = { bool: ["true", "false"], int64: ["number"], float64: ["number"], string: ["string"] }[String(want)] ?? [];
      if (!wanted.includes(value.kind))
        throw new JsonTextError(`${String(want).toUpperCase()} of a JSON ${typeName(value)} is an error in BigQuery`);
      if (want === "int64" && !/^-?\d+$/.test(value.raw))
        throw new JsonTextError(
          `INT64 of the JSON number ${value.raw}: slp has not verified BigQuery's reading of a fraction or an exponent`,
        );
      return value.kind === "string" ? value.value : value.raw;
    },
  },
  /** Postgres jsonb ?, ?| (any) and ?& (all). */
  __slp_jsonf_has: {
    parameters: ["VARCHAR", "VARCHAR[]", "VARCHAR"],
    returns: "BOOLEAN",
    compute: (text, keys, how) => hasKeys(read(text, "?"), listOf(keys), how === "all" ? "all" : "any"),
  },
  /** Postgres jsonb a @> b. */
  __slp_jsonf_contains: {
    parameters: ["VARCHAR", "VARCHAR"],
    returns: "BOOLEAN",
    compute: (a, b) => jsonbContains(read(a, "@>"), read(b, "@>")),
  },
  /** Postgres jsonb a || b. */
  __slp_jsonf_concat: {
    parameters: ["VARCHAR", "VARCHAR"],
    returns: "VARCHAR",
    compute: (a, b) => jsonbConcat(read(a, "||"), read(b, "||")),
  },
  /** The type of the JSON value: object, array, string, number, boolean, null. */
  __slp_jsonf_type: { parameters: ["VARCHAR"], returns: "VARCHAR", compute: (text) => typeName(read(text, "json type")) },
  /** The number of elements of a JSON array; anything else is an error, as in the warehouses. */
  __slp_jsonf_array_length: {
    parameters: ["VARCHAR", "VARCHAR"],
    returns: "BIGINT",
    compute: (text, how) => {
      // `?` after the name: NULL for malformed text (Redshift's null_if_invalid).
      const what = String(how).replace(/\?$/, "");
      let value: JsonValue;
      try {
        value = read(text, what);
      } catch (error) {
        if (String(how).endsWith("?") && error instanceof JsonTextError) return null;
        throw error;
      }
      if (value.kind !== "array") throw new JsonTextError(`${what}: cannot get the array length of a JSON ${typeName(value)}`);
      return BigInt(value.items.length);
    },
  },
  /** Redshift IS_VALID_JSON (want object) and IS_VALID_JSON_ARRAY (want array): false for malformed text or the other kind. */
  __slp_jsonf_valid: {
    parameters: ["VARCHAR", "VARCHAR"],
    returns: "BOOLEAN",
    compute: (text, want) => {
      let value: JsonValue;
      try {
        value = readJson(String(text));
      } catch (error) {
        if (error instanceof JsonTextError) return false;
        throw error;
      }
      if (value.kind === want) return true;
      if (value.kind === "object" || value.kind === "array") return false;
      throw new JsonTextError(`IS_VALID_JSON of a JSON ${typeName(value)}: slp has not verified what Redshift returns for a scalar`);
    },
  },
};

/**
 * Redshift SUPER values are compared as their text in slp; Redshift's
 * comparison of two objects whose keys come in another order is not
 * documented, so an object whose keys are not in ascending order is refused.
 */
function checkSuperKeys(value: JsonValue): void {
  if (value.kind === "array") for (const item of value.items) checkSuperKeys(item);
  if (value.kind !== "object") return;
  value.members.forEach(([key, item], i) => {
    const previous = value.members[i - 1];
    if (previous && !(previous[0] < key))
      throw new JsonTextError(
        `JSON_PARSE of an object whose keys are not in ascending order (${JSON.stringify(previous[0])} before ${JSON.stringify(key)}): slp compares SUPER values as their text, and how Redshift compares objects whose keys come in another order is not documented`,
      );
    checkSuperKeys(item);
  });
}
