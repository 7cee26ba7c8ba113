/**
 * Reads the JSON that users' diff producers write, the way the reference
 * tool's Python `json` module reads it, with one deliberate difference.
 *
 * - Python's dialect: `NaN`, `Infinity` and `-Infinity` are values (a
 *   division by zero in a diff query writes them); everything else is strict
 *   JSON: no comments, no trailing commas, no single quotes, no control
 *   characters inside strings.
 * - Better than the reference: a key written twice in one object is an
 *   error naming the key and its line. Python silently keeps the last value,
 *   which lets a diff say two things and be read as one of them.
 * - A leading UTF-8 byte-order mark is skipped (Python refuses it; it carries
 *   no meaning, and Windows editors write it).
 * - A number beyond 2^53 - 1 in magnitude is an error naming it: past that a
 *   double cannot hold every whole number, and a count silently rounded
 *   (9007199254740993 read as ...992) is worse than a refusal. Python would
 *   keep the integer exact; no diff count comes near it.
 *
 * No maintained JSON library reads Python's dialect and reports duplicate
 * keys, and the grammar is small, so this module is the parser.
 */
import { InputError } from "../../core/errors.ts";
import { formatLimit, limit, LimitError } from "../../core/limits.ts";
import { isMapping, type Mapping, type Value } from "../../core/values.ts";
import { encodeLines, type LineTree, type WithLines } from "./lines.ts";

export interface JsonSource {
  /** The file as the user named it, for messages. */
  file: string;
  /** What the user does about a parse error, in one clause. */
  fix: string;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Parses one JSON document; InputError (with the line) on anything Python's `json.loads` would refuse, or a duplicate key. */
export function parseJson(text: string, source: JsonSource): Value {
  return new Parser(text, source).document();
}

/** As parseJson, with the line of every key of every object (what a diff's findings point at: `row_delta`, a metric). */
export function parseJsonWithLines(text: string, source: JsonSource): WithLines {
  const parser = new Parser(text, source, new WeakMap());
  const value = parser.document();
  return { value, lines: encodeLines(value, [1, parser.keyLines(value)]) };
}

class Parser {
  readonly #text: string;
  readonly #source: JsonSource;
  #at = 0;
  /** When lines are asked for: each object's keys, their lines and their own objects' keys. */
  readonly #keyLines: WeakMap<Mapping, { [key: string]: LineTree }> | null;
  /** Lines counted up to this offset; keys come in text order, so counting never goes back. */
  #countedTo = 0;
  #countedLines = 1;

  constructor(text: string, source: JsonSource, keyLines: WeakMap<Mapping, { [key: string]: LineTree }> | null = null) {
    this.#text = text;
    this.#source = source;
    this.#keyLines = keyLines;
  }

  /** The lines of an object's keys, as parsed (none for a value that is not an object). */
  keyLines(value: Value): { [key: string]: LineTree } {
    return (isMapping(value) && this.#keyLines?.get(value)) || {};
  }

  document(): Value {
    if (this.#text.startsWith("\uFEFF")) this.#at = 1;
    this.#skipSpace();
    if (this.#at >= this.#text.length) this.#fail("expected a value, and the file is empty", this.#at, false);
    const value = this.#value(0);
    this.#skipSpace();
    if (this.#at < this.#text.length) this.#fail("unexpected text after the end of the JSON value");
    return value;
  }

  #value(depth: number): Value {
    if (depth > limit("nesting_depth")) {
      throw new LimitError("nesting_depth", `the JSON nests values more than ${formatLimit("nesting_depth")} deep`, {
        file: this.#source.file,
        line: this.lineOf(this.#at),
      });
    }
    const char = this.#text[this.#at];
    if (char === "{") return this.#object(depth);
    if (char === "[") return this.#array(depth);
    if (char === '"') return this.#string();
    for (const [word, value] of LITERALS) {
      if (this.#text.startsWith(word, this.#at)) {
        this.#at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.#at;
    const match = NUMBER.exec(this.#text);
    if (match) {
      const value = Number(match[0]);
      if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
        this.#refuse(
          `the number ${match[0]} is beyond 9,007,199,254,740,991 (2^53 - 1), where a number can no longer be held exactly; slp refuses it rather than round it`,
          this.#at,
          "correct what wrote the file (no real count or measure comes near that number)",
        );
      }
      this.#at += match[0].length;
      return value;
    }
    return this.#fail("expected a value");
  }

  #object(depth: number): Mapping {
    const object: Mapping = {};
    const starts = new Map<string, number>();
    const lines: { [key: string]: LineTree } = {};
    this.#keyLines?.set(object, lines);
    this.#at++;
    this.#skipSpace();
    if (this.#text[this.#at] === "}") {
      this.#at++;
      return object;
    }
    for (;;) {
      this.#skipSpace();
      if (this.#text[this.#at] !== '"') this.#fail("expected a key in double quotes");
      const keyAt = this.#at;
      const key = this.#string();
      const earlier = starts.get(key);
      if (earlier !== undefined) {
        this.#refuse(
          `the key ${JSON.stringify(key)} appears twice in one object (first on line ${this.lineOf(earlier)})`,
          keyAt,
          "write each key once: whatever wrote the file gave it two values, and slp does not pick one",
        );
      }
      starts.set(key, keyAt);
      const line = this.#keyLines === null ? 0 : this.#lineAhead(keyAt);
      this.#skipSpace();
      if (this.#text[this.#at] !== ":") this.#fail("expected ':' after the key");
      this.#at++;
      this.#skipSpace();
      // defineProperty, so a key named __proto__ is data like any other.
      const value = this.#value(depth + 1);
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      if (this.#keyLines !== null) {
        const nested = isMapping(value) ? this.#keyLines.get(value) : undefined;
        lines[key] = nested ? [line, nested] : line;
      }
      this.#skipSpace();
      const next = this.#text[this.#at];
      this.#at++;
      if (next === "}") return object;
      if (next !== ",") this.#fail("expected ',' or '}' after a value in an object", this.#at - 1);
    }
  }

  #array(depth: number): Value[] {
    const array: Value[] = [];
    this.#at++;
    this.#skipSpace();
    if (this.#text[this.#at] === "]") {
      this.#at++;
      return array;
    }
    for (;;) {
      this.#skipSpace();
      array.push(this.#value(depth + 1));
      this.#skipSpace();
      const next = this.#text[this.#at];
      this.#at++;
      if (next === "]") return array;
      if (next !== ",") this.#fail("expected ',' or ']' after a value in a list", this.#at - 1);
    }
  }

  #string(): string {
    const start = this.#at;
    this.#at++;
    let out = "";
    for (;;) {
      const char = this.#text[this.#at];
      if (char === undefined) this.#fail("a string is not closed", start);
      if (char === '"') {
        this.#at++;
        return out;
      }
      if (char === "\\") {
        const code = this.#text[this.#at + 1] ?? "";
        if (code === "u") {
          const hex = this.#text.slice(this.#at + 2, this.#at + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.#fail("a \\u escape needs four hexadecimal digits");
          out += String.fromCharCode(parseInt(hex, 16));
          this.#at += 6;
          continue;
        }
        const escaped = ESCAPES[code];
        if (escaped === undefined) this.#fail(`\\${code} is not a JSON escape`);
        out += escaped;
        this.#at += 2;
        continue;
      }
      if (char < " ") this.#fail("a control character inside a string (write it as an escape such as \\n)");
      out += char;
      this.#at++;
    }
  }

  #skipSpace(): void {
    while (this.#at < this.#text.length) {
      const char = this.#text[this.#at];
      if (char !== " " && char !== "\t" && char !== "\n" && char !== "\r") return;
      this.#at++;
    }
  }

  #lineAhead(index: number): number {
    for (; this.#countedTo < index; this.#countedTo++) if (this.#text.charCodeAt(this.#countedTo) === 10) this.#countedLines++;
    return this.#countedLines;
  }

  lineOf(index: number): number {
    let line = 1;
    for (let i = 0; i < index; i++) if (this.#text.charCodeAt(i) === 10) line++;
    return line;
  }

  /**
   * JSON that parses but that slp will not read (a key twice, a number a double
   * cannot hold): not a syntax error, so neither "not valid JSON" nor the
   * source's advice on writing JSON, but the fix for this refusal.
   */
  #refuse(problem: string, index: number, fix: string): never {
    const line = this.lineOf(index);
    throw new InputError(`${problem} (line ${line}, column ${this.#columnOf(index)})`, { file: this.#source.file, line, fix });
  }

  #columnOf(index: number): number {
    return index - (this.#text.lastIndexOf("\n", index - 1) + 1) + 1;
  }

  #fail(problem: string, index = this.#at, explainEnd = true): never {
    // Running out of text is the usual cause (a file cut short while it was written); say so.
    const reason = explainEnd && index >= this.#text.length ? "the text ends before the JSON value is complete" : problem;
    const line = this.lineOf(index);
    throw new InputError(`not valid JSON: ${reason} (line ${line}, column ${this.#columnOf(index)})`, {
      file: this.#source.file,
      line,
      fix: this.#source.fix,
    });
  }
}

const LITERALS: readonly (readonly [string, Value])[] = [
  ["true", true],
  ["false", false],
  ["null", null],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["-Infinity", Number.NEGATIVE_INFINITY],
];
