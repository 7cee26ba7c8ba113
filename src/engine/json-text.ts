/**
 * JSON text in the two forms slp's DuckDB functions give it (duckdb.ts
 * registers them): `__slp_variant`, the form slp holds a warehouse's
 * semi-structured values in (an object's keys sorted by code point, as
 * Snowflake keeps them; no blanks; strings re-escaped; numbers as written,
 * a fraction in its shortest form), and `__slp_json_canon`, the text a unit
 * test compares them by (the same, a number by its value: 1.0 is 1). Written
 * here rather than as SQL macros because a macro cannot call itself, and
 * nested macros (one per level) made every query that holds a VARIANT slow
 * to bind. Numbers are read as their text, never through a double, so an
 * integer of any length keeps its digits.
 */
import { compareCodePoints } from "../core/text.ts";

/** A JSON value with its numbers kept as written. */
type Parsed = null | boolean | string | { number: string } | Parsed[] | { object: [string, Parsed][] };

/** Which form: `held` (slp's VARIANT) or `compared` (a unit test's comparison). */
export type JsonForm = "held" | "compared";

/** slp's DuckDB functions (duckdb.ts registers them) and the form each writes. */
export const JSON_TEXT_FUNCTIONS: Record<string, JsonForm> = { __slp_variant: "held", __slp_json_canon: "compared" };

/** The JSON text `text` in `form`; an Error for text that is not JSON or an object with a key twice. */
export function jsonText(text: string, form: JsonForm): string {
  const reader = new Reader(text);
  const value = reader.value();
  reader.end();
  return write(value, form);
}

function write(value: Parsed, form: JsonForm): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => write(item, form)).join(",")}]`;
  if ("number" in value) return number(value.number, form);
  return `{${[...value.object]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([key, item]) => `${JSON.stringify(key)}:${write(item, form)}`)
    .join(",")}}`;
}

/** An integer as written (without a minus on zero); a fraction in its shortest form, `.0` kept on a whole one unless compared. */
function number(text: string, form: JsonForm): string {
  if (/^-?\d+$/.test(text)) return text === "-0" ? "0" : text;
  const value = Number(text);
  const shortest = String(value);
  if (form === "compared") return Number.isSafeInteger(value) ? String(value === 0 ? 0 : value) : shortest;
  return /[.eE]|Infinity|NaN/.test(shortest) ? shortest : `${shortest}.0`;
}

const LITERAL = /true|false|null/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Reader {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  end(): void {
    this.#blank();
    if (this.#at < this.#text.length) this.#fail("more after the value");
  }

  value(): Parsed {
    this.#blank();
    const char = this.#text[this.#at];
    if (char === "{") return this.#object();
    if (char === "[") return this.#array();
    if (char === '"') return this.#string();
    const literal = this.#match(LITERAL);
    if (literal !== null) return literal === "null" ? null : literal === "true";
    const numeric = this.#match(NUMBER);
    if (numeric !== null) return { number: numeric };
    return this.#fail("a value");
  }

  #object(): Parsed {
    this.#at++;
    const entries: [string, Parsed][] = [];
    const seen = new Set<string>();
    this.#blank();
    if (this.#text[this.#at] === "}") {
      this.#at++;
      return { object: entries };
    }
    for (;;) {
      this.#blank();
      if (this.#text[this.#at] !== '"') this.#fail("a key");
      const key = this.#string();
      if (seen.has(key)) this.#fail(`no second key ${JSON.stringify(key)}`);
      seen.add(key);
      this.#blank();
      if (this.#text[this.#at++] !== ":") this.#fail("':'");
      entries.push([key, this.value()]);
      this.#blank();
      const next = this.#text[this.#at++];
      if (next === "}") return { object: entries };
      if (next !== ",") this.#fail("',' or '}'");
    }
  }

  #array(): Parsed {
    this.#at++;
    const items: Parsed[] = [];
    this.#blank();
    if (this.#text[this.#at] === "]") {
      this.#at++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.#blank();
      const next = this.#text[this.#at++];
      if (next === "]") return items;
      if (next !== ",") this.#fail("',' or ']'");
    }
  }

  #string(): string {
    const match = this.#match(STRING);
    if (match === null) return this.#fail("a string");
    return JSON.parse(match) as string;
  }

  /** The text `pattern` (sticky) matches here, read past; null when it does not. */
  #match(pattern: RegExp): string | null {
    pattern.lastIndex = this.#at;
    const match = pattern.exec(this.#text);
    if (!match) return null;
    this.#at += match[0].length;
    return match[0];
  }

  #blank(): void {
    while (this.#at < this.#text.length && /[ \t\n\r]/.test(this.#text[this.#at] as string)) this.#at++;
  }

  #fail(expected: string): never {
    throw new Error(
      `not JSON: expected ${expected} at character ${this.#at + 1} of ${this.#text.length > 60 ? `${this.#text.slice(0, 60)}...` : this.#text}`,
    );
  }
}
