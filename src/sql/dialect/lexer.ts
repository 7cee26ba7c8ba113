/**
 * A model's SQL read as its warehouse reads it (its lexical rules,
 * lexical-rules.ts, in warehouses/<name>.ts), before anything
 * is translated: every string literal's value by the warehouse's rules,
 * comments dropped (a comment is whitespace), quoted identifiers kept as
 * written. Each literal is written back in the one form the transpiler reads
 * with the same value (transpilerString), so the rest of the translation sees
 * values, never a warehouse's escapes; what slp cannot carry is refused by name.
 */
import type { Warehouse } from "./dialects.ts";
import type { EscapeRules, LexicalRules } from "./lexical-rules.ts";
import { warehouse } from "./warehouses/index.ts";

/** The SQL as the transpiler should read it, with the warehouse's literal values. */
export interface LexedSql {
  sql: string;
  /** Each string literal's value, in order, and the line of `sql` it is on. */
  literals: { value: string; line: number }[];
  /** The 1-based line of the source a line of `sql` comes from. */
  sourceLine(line: number): number;
}

export type Lexed = { ok: true; value: LexedSql } | { ok: false; construct: string; why: string; line: number };

/**
 * How the transpiler reads '...' in each dialect: with backslash escapes
 * (\\ and \' among them), or standard (a backslash is itself, '' is a quote).
 * Measured on @polyglot-sql/sdk; test/lexer.test.ts proves each value reads back.
 */
const TRANSPILER_READS: Record<Warehouse, "backslash" | "standard"> = {
  bigquery: "backslash",
  snowflake: "backslash",
  databricks: "backslash",
  spark: "backslash",
  postgres: "standard",
  redshift: "standard",
};

/** `value` as a '...' literal the transpiler reads, in `dialect`, as exactly `value`. */
export function transpilerString(value: string, dialect: Warehouse): string {
  if (TRANSPILER_READS[dialect] === "standard") return `'${value.replace(/'/g, "''")}'`;
  const escaped = value.replace(/[\\'\n\r]/g, (char) => ({ "\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r" })[char] as string);
  return `'${escaped}'`;
}

/** Letters that prefix a string literal in some warehouse: raw, bytes, escape, national, hex. */
const STRING_PREFIXES = new Set(["R", "B", "RB", "BR", "E", "N", "X"]);
const WORD = /[A-Za-z0-9_$]/;
const HEX = /^[0-9A-Fa-f]$/;
const OCTAL = /^[0-7]$/;

class Refusal {
  constructor(
    readonly construct: string,
    readonly why: string,
    readonly line: number,
  ) {}
}

/** `sql` read by `dialect`'s lexical rules. */
export function lex(sql: string, dialect: Warehouse): Lexed {
  try {
    return { ok: true, value: new Reader(sql, dialect).read() };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, construct: error.construct, why: error.why, line: error.line };
    throw error;
  }
}

class Reader {
  readonly rules: LexicalRules;
  #i = 0;
  #out = "";
  /** Lines of the output, and where the source's line numbers part from them: [output line, source line - output line]. */
  #outLine = 1;
  readonly #shifts: [number, number][] = [];
  /** The last offset #lineAt counted to, and its line. */
  #counted: [number, number] = [0, 1];
  readonly #literals: { value: string; line: number }[] = [];

  constructor(
    readonly sql: string,
    readonly dialect: Warehouse,
  ) {
    this.rules = warehouse(dialect).lexical;
  }

  read(): LexedSql {
    const { sql, rules } = this;
    while (this.#i < sql.length) {
      const at = this.#i;
      const char = sql[at] as string;
      const rest = (n: number) => sql.slice(at, at + n);
      if (rest(2) === "--" || rules.lineComments.some((start) => sql.startsWith(start, at))) {
        const end = sql.indexOf("\n", at);
        this.#i = end < 0 ? sql.length : end;
        this.#emit(" ");
      } else if (rest(2) === "/*") this.#blockComment();
      else if (char === "'" || (char === '"' && rules.doubleQuoted === "string")) this.#string("", at);
      else if (char === '"') this.#quotedIdentifier('"', at);
      else if (char === "`" && rules.identifierQuote === "`") this.#quotedIdentifier("`", at);
      else if (char === "$" && rules.dollarQuoted && !WORD.test(sql[at - 1] ?? " ") && this.#dollar(at)) continue;
      else if (/[A-Za-z_]/.test(char) && !WORD.test(sql[at - 1] ?? " ")) this.#word(at);
      else {
        this.#i++;
        this.#copy(char);
      }
    }
    const shifts = this.#shifts;
    return {
      sql: this.#out,
      literals: this.#literals,
      sourceLine: (line) => {
        let shift = 0;
        for (const [from, by] of shifts) if (from <= line) shift = by;
        return line + shift;
      },
    };
  }

  #refuse(construct: string, why: string, at: number): never {
    throw new Refusal(construct, why, this.#lineAt(at));
  }

  #lineAt(at: number): number {
    let [from, line] = this.#counted[0] <= at ? this.#counted : [0, 1];
    for (; from < at && from < this.sql.length; from++) if (this.sql[from] === "\n") line++;
    this.#counted = [from, line];
    return line;
  }

  /** Source text copied as written. */
  #copy(text: string): void {
    for (const char of text) if (char === "\n") this.#outLine++;
    this.#out += text;
  }

  /** Output that stands for the source text consumed up to this.#i: newlines added where the output has fewer lines than the source. */
  #emit(text: string): void {
    const consumed = this.#lineAt(this.#i);
    for (const char of text) if (char === "\n") this.#outLine++;
    this.#out += text;
    while (this.#outLine < consumed) {
      this.#out += "\n";
      this.#outLine++;
    }
    const shift = consumed - this.#outLine;
    if (shift !== (this.#shifts[this.#shifts.length - 1]?.[1] ?? 0)) this.#shifts.push([this.#outLine, shift]);
  }

  #blockComment(): void {
    const { sql } = this;
    const start = this.#i;
    let depth = 0;
    let i = start;
    while (i < sql.length) {
      if (sql.startsWith("/*", i)) {
        if (depth > 0 && this.rules.nestedComments !== true) {
          if (this.rules.nestedComments === "unverified")
            this.#refuse(
              "/* inside a comment",
              `${this.dialect}'s documentation does not say whether block comments nest: slp cannot tell where this one ends`,
              i,
            );
          i += 2;
          continue;
        }
        depth++;
        i += 2;
      } else if (sql.startsWith("*/", i)) {
        depth--;
        i += 2;
        if (depth === 0) break;
      } else i++;
    }
    if (depth > 0) this.#refuse("/*", "a block comment that does not end", start);
    this.#i = i;
    this.#emit(" ");
  }

  #quotedIdentifier(quote: string, at: number): void {
    const { sql } = this;
    let i = at + 1;
    for (;;) {
      if (i >= sql.length) this.#refuse(`${quote}`, "a quoted identifier that does not end", at);
      if (sql[i] === quote) {
        if (sql[i + 1] === quote) {
          i += 2;
          continue;
        }
        break;
      }
      if (sql[i] === "\\" && this.rules.identifierEscapes)
        this.#refuse(
          sql.slice(at, i + 2),
          `an escape in a quoted identifier: slp has not verified how ${this.dialect}'s names read it`,
          at,
        );
      i++;
    }
    this.#i = i + 1;
    this.#copy(sql.slice(at, i + 1));
  }

  /** A word, or the prefix of a string literal written against it (r'..', b'..', E'..', U&'..'). */
  #word(at: number): void {
    const { sql, rules } = this;
    let end = at;
    while (end < sql.length && WORD.test(sql[end] as string)) end++;
    const word = sql.slice(at, end);
    const next = sql[end];
    const quote = next === "'" || (next === '"' && rules.doubleQuoted === "string");
    if (word.toUpperCase() === "U" && sql[end] === "&" && (sql[end + 1] === "'" || sql[end + 1] === '"')) {
      if (!rules.unicodeStrings || sql[end + 1] === '"')
        this.#refuse(`U&${sql[end + 1]}`, `slp has not verified ${this.dialect}'s U& literals`, at);
      this.#string("U&", end + 1);
      return;
    }
    // A keyword against a literal (`then'a'`) is no prefix; these letters are prefixes in some warehouse.
    if (!quote || !STRING_PREFIXES.has(word.toUpperCase())) {
      this.#i = end;
      this.#copy(word);
      return;
    }
    const prefix = word.toUpperCase();
    if ((prefix === "B" || prefix === "RB" || prefix === "BR") && rules.bytes) this.#bytes(word, end);
    else if (prefix === "R" && rules.raw) this.#string("R", end);
    else if (prefix === "E" && rules.escapeStrings) this.#string("E", end);
    else
      this.#refuse(`${word}${next}`, `a string literal with the prefix ${word}: slp has not verified ${this.dialect}'s reading of it`, at);
  }

  /**
   * `b'...'`: kept as written when it holds only printable ASCII without a
   * backslash or quote (its bytes are those characters', as DuckDB's BLOB
   * cast reads them); any other is refused.
   */
  #bytes(word: string, at: number): void {
    const { sql } = this;
    const quote = sql[at] as string;
    const close = sql.indexOf(quote, at + 1);
    const content = close < 0 ? null : sql.slice(at + 1, close);
    if (word.length > 1 || content === null || !/^[\x20-\x21\x23-\x26\x28-\x5b\x5d-\x7e]*$/.test(content) || sql[close + 1] === quote)
      this.#refuse(
        `${word}${quote}`,
        "a bytes literal with escapes, quotes or raw bytes: slp cannot carry its bytes into DuckDB with BigQuery's meaning",
        at - word.length,
      );
    this.#literals.push({ value: content, line: this.#outLine });
    this.#i = close + 1;
    this.#copy(sql.slice(at - word.length, close + 1));
  }

  /** `$$...$$` (or `$tag$...$tag$`): the text between, no escapes. Returns false when `$` starts no dollar quote. */
  #dollar(at: number): boolean {
    const { sql } = this;
    const open = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(at, at + 64));
    if (!open || (open[1] && this.rules.dollarQuoted !== "tagged")) return false;
    const close = sql.indexOf(open[0], at + open[0].length);
    if (close < 0) this.#refuse(open[0], "a dollar-quoted string that does not end", at);
    this.#literal(sql.slice(at + open[0].length, close), close + open[0].length, at);
    return true;
  }

  /** A quoted string starting at `at` (its opening quote), after `prefix` (R, E, U&, or none). */
  #string(prefix: "" | "R" | "E" | "U&", at: number): void {
    const { sql, rules } = this;
    const quote = sql[at] as string;
    const triple = rules.tripleQuoted && sql.startsWith(quote.repeat(3), at);
    const delimiter = triple ? quote.repeat(3) : quote;
    const escapes =
      prefix === "R" || prefix === "U&"
        ? null
        : prefix === "E"
          ? rules.escapeStrings
          : rules.singleQuoted === "standard"
            ? null
            : rules.singleQuoted;
    const pairs = prefix === "R" && rules.raw === "pairs";
    let i = at + delimiter.length;
    let value = "";
    for (;;) {
      if (i >= sql.length) this.#refuse(quote, "a string literal that does not end", at);
      if (sql.startsWith(delimiter, i)) {
        if (!triple && sql[i + 1] === quote) {
          if (rules.doubledQuote !== true) this.#refuse(`${quote}${quote}`, `${rules.doubledQuote}: write \\${quote}`, i);
          value += quote;
          i += 2;
          continue;
        }
        break;
      }
      const char = sql[i] as string;
      if (char === "\n" && !triple && rules.newlineEndsString && prefix !== "E")
        this.#refuse(
          "string literal",
          `${this.dialect} does not allow a newline in a quoted string: write \\n or a triple-quoted string`,
          at,
        );
      if (char === "\\" && (escapes || pairs || prefix === "U&")) {
        if (pairs) {
          value += sql.slice(i, i + 2);
          i += 2;
          continue;
        }
        if (prefix === "U&") {
          const decoded = this.#unicodeEscape(i);
          value += decoded.value;
          i = decoded.end;
          continue;
        }
        const decoded = this.#escape(escapes as EscapeRules, i);
        value += decoded.value;
        i = decoded.end;
        continue;
      }
      value += char;
      i++;
    }
    if (prefix === "U&" && /^\s*UESCAPE\b/i.test(sql.slice(i + 1, i + 40)))
      this.#refuse("UESCAPE", "slp reads U& literals with the backslash escape only", at);
    this.#literal(value, i + delimiter.length, at);
  }

  #literal(value: string, end: number, at: number): void {
    if (value.includes("\0"))
      this.#refuse("string literal", "a string holding the NUL character, which DuckDB cannot hold in a literal", at);
    this.#literals.push({ value, line: this.#outLine });
    this.#i = end;
    this.#emit(transpilerString(value, this.dialect));
    // Postgres joins two literals only across a newline ('foo'\n'bar'); on one line it is a syntax error the transpiler would join.
    if (this.rules.adjacentStringsNeedNewline && /^[ \t]*(?:[eE]|[uU]&)?'/.test(this.sql.slice(end, end + 64)))
      this.#refuse("string literal", `two string literals on one line, which ${this.dialect} rejects (a newline must separate them)`, end);
  }

  /** One backslash escape at `at`: its value and the index after it. */
  #escape(rules: EscapeRules, at: number): { value: string; end: number } {
    const { sql } = this;
    const next = sql[at + 1];
    if (next === undefined) this.#refuse("string literal", "a string literal that ends in a backslash", at);
    const digits = (from: number, max: number, test: RegExp) => {
      let end = from;
      while (end < from + max && test.test(sql[end] ?? "")) end++;
      return sql.slice(from, end);
    };
    const point = (text: string, radix: number, end: number) => {
      const code = Number.parseInt(text, radix);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        this.#refuse(`\\${sql.slice(at + 1, end)}`, "an escape that names no Unicode character", at);
      return { value: String.fromCodePoint(code), end };
    };
    if (rules.octal && OCTAL.test(next)) {
      const octal = digits(at + 1, 3, /^[0-7]$/);
      if (rules.octal === "three" && octal.length === 3) return point(octal, 8, at + 4);
      if (rules.octal === "one-to-three") return point(octal, 8, at + 1 + octal.length);
    }
    if (rules.hex && (next === "x" || (next === "X" && rules.upperX))) {
      const hex = digits(at + 2, 2, HEX);
      if (hex.length === 2 || (rules.hex === "one-or-two" && hex.length === 1)) return point(hex, 16, at + 2 + hex.length);
      this.#refuse(`\\${next}`, `${this.dialect} rejects \\${next} without its hex digits`, at);
    }
    if (rules.unicode && (next === "u" || (next === "U" && rules.unicode.long))) {
      const width = next === "u" ? 4 : 8;
      const hex = digits(at + 2, width, HEX);
      if (hex.length === width) return point(hex, 16, at + 2 + width);
      this.#refuse(`\\${next}`, `${this.dialect} rejects \\${next} without ${width} hex digits`, at);
    }
    if (rules.kept.includes(next)) return { value: `\\${next}`, end: at + 2 };
    const named = rules.named[next];
    if (named !== undefined) return { value: named, end: at + 2 };
    if (rules.unverified?.includes(next))
      this.#refuse(`\\${next}`, `${this.dialect}'s documentation does not say what \\${next} means in a string literal`, at);
    if (rules.other === "error") this.#refuse(`\\${next}`, `${this.dialect} rejects the escape \\${next} in a string literal`, at);
    return { value: next, end: at + 2 };
  }

  /** Postgres U&'...': \XXXX, \+XXXXXX, \\. */
  #unicodeEscape(at: number): { value: string; end: number } {
    const { sql } = this;
    if (sql[at + 1] === "\\") return { value: "\\", end: at + 2 };
    const long = sql[at + 1] === "+";
    const from = at + (long ? 2 : 1);
    const hex = sql.slice(from, from + (long ? 6 : 4));
    if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== (long ? 6 : 4)) this.#refuse("U&", "an invalid Unicode escape in a U& literal", at);
    const code = Number.parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.#refuse("U&", "an escape that names no Unicode character", at);
    return { value: String.fromCodePoint(code), end: from + hex.length };
  }
}

/**
 * The values of the string literals in DuckDB SQL (as the transpiler writes
 * it: '...' with '' for a quote, e'...' with backslash escapes), in order;
 * null where slp cannot read a literal's value.
 */
export function duckdbLiterals(sql: string): (string | null)[] {
  const values: (string | null)[] = [];
  const pattern = /(--[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"]|"")*"|\b[eE]'(?:[^'\\]|\\[\s\S]|'')*'|'(?:[^']|'')*')/g;
  for (const match of sql.matchAll(pattern)) {
    const text = match[0];
    if (text.startsWith("'")) values.push(text.slice(1, -1).replace(/''/g, "'"));
    else if (/^[eE]'/.test(text)) {
      const body = text.slice(2, -1);
      values.push(
        /\\[^\\'nrt]/.test(body)
          ? null
          : body.replace(/''/g, "'").replace(/\\([\\'nrt])/g, (_all, c: string) => ({ n: "\n", r: "\r", t: "\t" })[c] ?? c),
      );
    }
  }
  return values;
}
