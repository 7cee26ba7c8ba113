/**
 * Jinja2's lexer, as dbt configures it (jinja2 defaults: `{{ }}`, `{% %}`,
 * `{# #}`, no line statements, trim_blocks and lstrip_blocks off, one
 * trailing newline dropped): template text becomes data and expression
 * tokens with their line numbers. Strings are Python's (escapes decoded,
 * unknown escapes kept), so `'\d'` stays a backslash and a d.
 */
import { formatLimit, limit, LimitError } from "../../core/limits.ts";
import { TemplateSyntaxError } from "./errors.ts";

export type TokenType =
  | "data"
  | "variable_begin"
  | "variable_end"
  | "block_begin"
  | "block_end"
  | "name"
  | "string"
  | "integer"
  | "float"
  | "operator"
  | "eof";

export interface Token {
  type: TokenType;
  /** The text of a name, operator or data; the decoded value of a string; the number of a number. */
  value: string;
  /** For integer and float tokens. */
  number?: number;
  line: number;
}

const OPERATORS = [
  "//",
  "**",
  "==",
  "!=",
  ">=",
  "<=",
  "+",
  "-",
  "/",
  "*",
  "%",
  "~",
  "[",
  "]",
  "(",
  ")",
  "{",
  "}",
  ">",
  "<",
  "=",
  ".",
  ":",
  "|",
  ",",
  ";",
];

const NAME = /[\p{ID_Start}_][\p{ID_Continue}]*/uy;
const FLOAT = /(?<!\.)(?:\d+_)*\d+(?:(?:\.(?:\d+_)*\d+)(?:[eE][+-]?(?:\d+_)*\d+)?|[eE][+-]?(?:\d+_)*\d+)/y;
const INTEGER = /(?:0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+|[1-9](?:_?\d)*|0(?:_?0)*)/y;
const STRING = /'([^'\\]*(?:\\.[^'\\]*)*)'|"([^"\\]*(?:\\.[^"\\]*)*)"/sy;
const WHITESPACE = /\s+/y;

/** Splits a template into tokens; a syntax error names the line. */
export function tokenize(source: string): Token[] {
  // Jinja2's keep_trailing_newline=False: one newline at the very end is not part of the template.
  const text = source.endsWith("\r\n") ? source.slice(0, -2) : source.endsWith("\n") ? source.slice(0, -1) : source;
  const tokens: Token[] = [];
  let pos = 0;
  let line = 1;
  const maxTokens = limit("template_steps");
  const advanceLines = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) line++;
  };
  /** `-` on the opening tag strips the whitespace before it from the data. */
  let stripNext = false;
  while (pos < text.length) {
    const open = nextOpening(text, pos);
    let data = text.slice(pos, open === -1 ? text.length : open);
    if (stripNext) data = data.replace(/^\s+/, "");
    stripNext = false;
    const dataLine = line;
    if (open === -1) {
      if (data) tokens.push({ type: "data", value: data, line: dataLine });
      advanceLines(pos, text.length);
      pos = text.length;
      break;
    }
    const kind = text[open + 1] as "{" | "%" | "#";
    const minus = text[open + 2] === "-";
    if (minus) data = data.replace(/\s+$/, "");
    if (data) tokens.push({ type: "data", value: data, line: dataLine });
    advanceLines(pos, open);
    pos = open + 2 + (minus || text[open + 2] === "+" ? 1 : 0);
    if (kind === "#") {
      const close = text.indexOf("#}", pos);
      if (close === -1) throw new TemplateSyntaxError("a comment {# is never closed with #}", line);
      stripNext = text[close - 1] === "-" && close - 1 >= pos;
      advanceLines(pos, close + 2);
      pos = close + 2;
      continue;
    }
    if (kind === "%" && /^\s*raw\s*-?%\}/.test(text.slice(pos, pos + 40))) {
      const tagEnd = text.indexOf("%}", pos) + 2;
      const afterMinus = text[tagEnd - 3] === "-";
      const endRaw = /\{%(-?)\s*endraw\s*(-?)%\}/g;
      endRaw.lastIndex = tagEnd;
      const found = endRaw.exec(text);
      if (!found) throw new TemplateSyntaxError("a {% raw %} block is never closed with {% endraw %}", line);
      let body = text.slice(tagEnd, found.index);
      if (afterMinus) body = body.replace(/^\s+/, "");
      if (found[1] === "-") body = body.replace(/\s+$/, "");
      advanceLines(pos, tagEnd);
      if (body) tokens.push({ type: "data", value: body, line });
      advanceLines(tagEnd, found.index + found[0].length);
      pos = found.index + found[0].length;
      stripNext = found[2] === "-";
      continue;
    }
    const [beginType, endType, closer] =
      kind === "{" ? (["variable_begin", "variable_end", "}}"] as const) : (["block_begin", "block_end", "%}"] as const);
    tokens.push({ type: beginType, value: "", line });
    const balance: string[] = [];
    for (;;) {
      if (tokens.length > maxTokens) {
        throw new LimitError("template_steps", `the template has more than ${formatLimit("template_steps")} tokens`);
      }
      WHITESPACE.lastIndex = pos;
      const space = WHITESPACE.exec(text);
      if (space) {
        advanceLines(pos, pos + space[0].length);
        pos += space[0].length;
      }
      if (pos >= text.length) {
        throw new TemplateSyntaxError(`unexpected end of template, expected '${closer}'`, line);
      }
      if (balance.length === 0) {
        if (text.startsWith(closer, pos) || (text[pos] === "-" && text.startsWith(closer, pos + 1))) {
          stripNext = text[pos] === "-";
          pos += closer.length + (stripNext ? 1 : 0);
          tokens.push({ type: endType, value: "", line });
          break;
        }
      }
      const char = text[pos] as string;
      if (char === "'" || char === '"') {
        STRING.lastIndex = pos;
        const found = STRING.exec(text);
        if (!found) throw new TemplateSyntaxError("a string is never closed", line);
        tokens.push({ type: "string", value: decodeString(found[1] ?? found[2] ?? ""), line });
        advanceLines(pos, pos + found[0].length);
        pos += found[0].length;
        continue;
      }
      NAME.lastIndex = pos;
      const name = NAME.exec(text);
      if (name) {
        tokens.push({ type: "name", value: name[0], line });
        pos += name[0].length;
        continue;
      }
      if (/\d/.test(char)) {
        FLOAT.lastIndex = pos;
        const float = FLOAT.exec(text);
        if (float) {
          tokens.push({ type: "float", value: float[0], number: Number(float[0].replace(/_/g, "")), line });
          pos += float[0].length;
          continue;
        }
        INTEGER.lastIndex = pos;
        const integer = INTEGER.exec(text);
        if (integer) {
          const digits = integer[0].replace(/_/g, "");
          const value = /^0[oO]/.test(digits) ? Number.parseInt(digits.slice(2), 8) : Number(digits);
          tokens.push({ type: "integer", value: integer[0], number: value, line });
          pos += integer[0].length;
          continue;
        }
      }
      const operator = OPERATORS.find((op) => text.startsWith(op, pos));
      if (!operator) throw new TemplateSyntaxError(`the character '${char}' has no meaning in a Jinja expression`, line);
      if (operator === "(" || operator === "[" || operator === "{") balance.push(operator === "(" ? ")" : operator === "[" ? "]" : "}");
      else if (operator === ")" || operator === "]" || operator === "}") {
        if (balance.length === 0) throw new TemplateSyntaxError(`unexpected '${operator}'`, line);
        const expected = balance.pop();
        if (expected !== operator) throw new TemplateSyntaxError(`unexpected '${operator}', expected '${expected}'`, line);
      }
      tokens.push({ type: "operator", value: operator, line });
      pos += operator.length;
    }
  }
  tokens.push({ type: "eof", value: "", line });
  return tokens;
}

/** The earliest `{{`, `{%` or `{#` at or after `from`, or -1. */
function nextOpening(text: string, from: number): number {
  let at = text.indexOf("{", from);
  while (at !== -1) {
    const next = text[at + 1];
    if (next === "{" || next === "%" || next === "#") return at;
    at = text.indexOf("{", at + 1);
  }
  return -1;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\n": "",
};

/** Python's unicode-escape decoding of a string literal's body; an unknown escape keeps its backslash. */
function decodeString(body: string): string {
  if (!body.includes("\\")) return body;
  return body.replace(/\\(x[\da-fA-F]{2}|u[\da-fA-F]{4}|U[\da-fA-F]{8}|[0-7]{1,3}|[\s\S])/g, (whole, sequence: string) => {
    if (Object.hasOwn(SIMPLE_ESCAPES, sequence)) return SIMPLE_ESCAPES[sequence] as string;
    if (/^[xuU]/.test(sequence) && sequence.length > 1) return String.fromCodePoint(Number.parseInt(sequence.slice(1), 16));
    if (/^[0-7]+$/.test(sequence)) return String.fromCodePoint(Number.parseInt(sequence, 8));
    return whole;
  });
}
