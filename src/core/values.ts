/** How YAML and JSON values are compared, keyed and printed across every command. */
import { compareCodePoints } from "./text.ts";

/** A value read from YAML or JSON: the only shapes the parsers produce. */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
export type Mapping = { [key: string]: Value };

export function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * Canonical JSON: sorted keys, no whitespace. Two values with the same
 * canonical text are the same value for every rule that compares versions
 * (spec, pre-registration, unit test bodies, test arguments). A number is its
 * value: `1` and `1.0` are one number, `true` is not a number.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    return JSON.stringify(Object.is(value, -0) ? 0 : value);
  }
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort(compareCodePoints)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Mapping)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(String(value));
}

/**
 * Python's `==` on parsed values: mapping order does not matter, and `1`,
 * `1.0` and `true` are equal. Used where the reference compares configs by
 * deep equality rather than by canonical text (G3's bags).
 */
export function looseEqual(a: unknown, b: unknown): boolean {
  const na = typeof a === "boolean" ? Number(a) : a;
  const nb = typeof b === "boolean" ? Number(b) : b;
  if (na === nb) return true;
  if (typeof na === "number" && typeof nb === "number") return Number.isNaN(na) && Number.isNaN(nb) ? false : na === nb;
  if (Array.isArray(na) && Array.isArray(nb)) {
    return na.length === nb.length && na.every((item, i) => looseEqual(item, nb[i]));
  }
  if (isMapping(na) && isMapping(nb)) {
    const ka = Object.keys(na);
    if (ka.length !== Object.keys(nb).length) return false;
    return ka.every((key) => Object.hasOwn(nb, key) && looseEqual(na[key], nb[key]));
  }
  return false;
}

/**
 * Python's `str()` of a parsed value, where the text of a value decides
 * matching (a unit test's `config.meta.edge: true` claims the edge "True").
 */
export function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return value;
  if (typeof value === "number") return pythonNumber(value);
  return pythonRepr(value);
}

/** `seen`: the lists and mappings being printed, so one that holds itself prints `[...]` as Python's does. */
function pythonRepr(value: unknown, seen: Set<object> = new Set()): string {
  if (typeof value === "string") return pythonStringRepr(value);
  if (Array.isArray(value) || isMapping(value)) {
    if (seen.has(value)) return Array.isArray(value) ? "[...]" : "{...}";
    seen.add(value);
    try {
      if (Array.isArray(value)) return `[${value.map((item) => pythonRepr(item, seen)).join(", ")}]`;
      return `{${Object.entries(value)
        .map(([k, v]) => `${pythonRepr(k, seen)}: ${pythonRepr(v, seen)}`)
        .join(", ")}}`;
    } finally {
      seen.delete(value);
    }
  }
  if (value === null || value === undefined || typeof value === "boolean" || typeof value === "number") return pythonStr(value);
  // Not a value YAML or JSON makes (a function, a symbol): never recurse into it.
  return `<${typeof value}>`;
}

/**
 * Python's `repr()` of a string: single quotes, or double quotes when the text
 * holds a single quote and no double one, so `["ref('x')"]` keeps `ref('x')`
 * readable to T3's pattern. Control characters are escaped.
 */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = "";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === "\\" || char === quote) body += `\\${char}`;
    else if (char === "\n") body += "\\n";
    else if (char === "\r") body += "\\r";
    else if (char === "\t") body += "\\t";
    else if (code < 0x20 || code === 0x7f) body += `\\x${code.toString(16).padStart(2, "0")}`;
    else body += char;
  }
  return `${quote}${body}${quote}`;
}

/**
 * Python's `str()` of a number. JavaScript and Python both print the shortest
 * digits that read back the same; they differ in when they switch to an
 * exponent (Python: below 1e-4 and from 1e16 up) and in its form (`1e-05`).
 * An integral value prints as an integer: the parser does not say whether
 * the YAML held `5` or `5.0` (Python would print `5.0` for the latter).
 */
export function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(value);
  const [mantissa = "", exponentText = "0"] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return String(value);
}
