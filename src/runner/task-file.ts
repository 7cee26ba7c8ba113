/**
 * A repository's TypeScript task file read without running it: listing tasks
 * (`slp tasks`, help, the names offered for a mistyped one) must not execute
 * repository code, so the task's name and description are read from the
 * file's text. A small tokenizer (strings, templates, comments, regular
 * expressions, brackets) finds the object of the default export,
 * `export default defineTask({ name: "...", description: "..." })` (or a
 * plain object, or a `const` exported as default), and reads its top-level
 * `name` and `description` when each is a string literal.
 */
import { ConfigError } from "../core/errors.ts";

/** What a listing shows of a task file: its name, and its description when the file writes it as a literal. */
export interface TaskFileHeading {
  name: string;
  /** Null when the description is not a string literal (slp will not run the file to learn it). */
  description: string | null;
  /** The line of the name. */
  line: number;
}

const FIX = 'export default defineTask({ name: "my-task", description: "what it does", run }), name and description as string literals';

/** The name and description of the task `text` defines; ConfigError (file, line) when they cannot be read without running it. */
export function readTaskHeading(text: string, file: string): TaskFileHeading {
  let tokens: Token[];
  try {
    tokens = tokenize(text);
  } catch (error) {
    const { message, line } = error as TokenError;
    throw new ConfigError(`${message}, so slp cannot read the task's name without running the file`, { file, line, fix: FIX });
  }
  const object = defaultExportObject(tokens);
  if (object === undefined) {
    throw new ConfigError("no `export default defineTask({ ... })` slp can read without running the file", { file, line: 1, fix: FIX });
  }
  const properties = topLevelProperties(tokens, object);
  const name = properties.get("name");
  const nameText = name === undefined ? undefined : literalOf(tokens, name);
  if (name === undefined || nameText === undefined) {
    throw new ConfigError("the task's name is not a string literal, and slp lists tasks without running their files", {
      file,
      line: tokens[name !== undefined && name >= 0 ? name : object]?.line ?? 1,
      fix: FIX,
    });
  }
  const description = properties.get("description");
  return {
    name: nameText,
    description: description === undefined ? null : (literalOf(tokens, description) ?? null),
    line: tokens[name]?.line ?? 1,
  };
}

// --- internal ---

type Kind = "punct" | "string" | "template" | "ident" | "number" | "regex";

interface Token {
  kind: Kind;
  /** The punctuator or identifier; a string's or substitution-free template's value; "" otherwise. */
  value: string;
  line: number;
  /** For a template: true when it has `${...}` substitutions (so it is not a literal). */
  substituted?: boolean;
}

interface TokenError {
  message: string;
  line: number;
}

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
/** After these a `/` starts a regular expression, not a division. */
const BEFORE_REGEX_WORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);
const IDENT_START = /[\p{ID_Start}$_]/u;
const IDENT_PART = /[\p{ID_Continue}$\u200c\u200d]/u;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = text.startsWith("#!") ? text.indexOf("\n") : 0;
  if (i === -1) return tokens;
  let line = 1;
  const fail = (message: string, at: number): never => {
    throw { message, line: at } satisfies TokenError;
  };
  const regexAllowed = (): boolean => {
    const last = tokens[tokens.length - 1];
    if (last === undefined) return true;
    if (last.kind === "punct") return last.value !== ")" && last.value !== "]";
    return last.kind === "ident" && BEFORE_REGEX_WORDS.has(last.value);
  };
  /** A quoted string from `i` (at its quote); its value with escapes read. */
  const readString = (quote: string): string => {
    const startLine = line;
    let value = "";
    i++;
    for (;;) {
      const char = text[i];
      if (char === undefined || char === "\n") return fail("a string that does not end", startLine);
      i++;
      if (char === quote) return value;
      if (char === "\\") {
        const [escaped, next] = readEscape(text, i);
        if (text[i] === "\n") line++;
        value += escaped;
        i = next;
      } else value += char;
    }
  };
  /** A template from `i` (at its backtick); substitutions are tokenized (and dropped) so their brackets do not count. */
  const readTemplate = (): Token => {
    const startLine = line;
    let value = "";
    let substituted = false;
    i++;
    for (;;) {
      const char = text[i];
      if (char === undefined) return fail("a template string that does not end", startLine);
      if (char === "`") {
        i++;
        return { kind: "template", value, line: startLine, substituted };
      }
      if (char === "\\") {
        const [escaped, next] = readEscape(text, i + 1);
        if (text[i + 1] === "\n") line++;
        value += escaped;
        i = next;
      } else if (char === "$" && text[i + 1] === "{") {
        substituted = true;
        i += 2;
        const depth = tokens.length;
        let open = 1;
        while (open > 0) {
          const token = readToken();
          if (token === undefined) return fail("a template substitution that does not end", startLine);
          if (token.kind === "punct" && token.value === "{") open++;
          if (token.kind === "punct" && token.value === "}") open--;
          tokens.push(token);
        }
        tokens.length = depth;
      } else {
        if (char === "\n") line++;
        value += char;
        i++;
      }
    }
  };
  const readToken = (): Token | undefined => {
    for (;;) {
      const char = text[i];
      if (char === undefined) return undefined;
      if (char === "\n") {
        line++;
        i++;
      } else if (/\s/.test(char)) i++;
      else if (char === "/" && text[i + 1] === "/") {
        const end = text.indexOf("\n", i);
        i = end === -1 ? text.length : end;
      } else if (char === "/" && text[i + 1] === "*") {
        const end = text.indexOf("*/", i + 2);
        if (end === -1) return fail("a comment that does not end", line);
        for (let k = i; k < end; k++) if (text[k] === "\n") line++;
        i = end + 2;
      } else break;
    }
    const char = text[i] as string;
    const at = line;
    if (char === '"' || char === "'") return { kind: "string", value: readString(char), line: at };
    if (char === "`") return readTemplate();
    if (IDENT_START.test(char) || char === "\\") {
      let end = i + 1;
      while (end < text.length && IDENT_PART.test(text[end] as string)) end++;
      const value = text.slice(i, end);
      i = end;
      return { kind: "ident", value, line: at };
    }
    if (/[0-9]/.test(char) || (char === "." && /[0-9]/.test(text[i + 1] ?? ""))) {
      let end = i + 1;
      while (end < text.length && /[0-9A-Za-z_.]/.test(text[end] as string)) end++;
      i = end;
      return { kind: "number", value: "", line: at };
    }
    if (char === "/" && regexAllowed()) {
      let inClass = false;
      let end = i + 1;
      for (; ; end++) {
        const c = text[end];
        if (c === undefined || c === "\n") return fail("a regular expression that does not end", at);
        if (c === "\\") end++;
        else if (c === "[") inClass = true;
        else if (c === "]") inClass = false;
        else if (c === "/" && !inClass) break;
      }
      end++;
      while (end < text.length && IDENT_PART.test(text[end] as string)) end++;
      i = end;
      return { kind: "regex", value: "", line: at };
    }
    i++;
    return { kind: "punct", value: char, line: at };
  };
  for (;;) {
    const token = readToken();
    if (token === undefined) return tokens;
    tokens.push(token);
  }
}

/** One escape after a backslash at `from`: its text and where reading goes on. */
function readEscape(text: string, from: number): [string, number] {
  const char = text[from];
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" };
  if (char === undefined) return ["", from];
  if (char === "\n") return ["", from + 1];
  if (char === "\r") return ["", text[from + 1] === "\n" ? from + 2 : from + 1];
  if (char in simple && !(char === "0" && /[0-9]/.test(text[from + 1] ?? ""))) return [simple[char] as string, from + 1];
  if (char === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(from + 1, from + 3))) {
    return [String.fromCharCode(Number.parseInt(text.slice(from + 1, from + 3), 16)), from + 3];
  }
  if (char === "u" && text[from + 1] === "{") {
    const end = text.indexOf("}", from);
    const code = Number.parseInt(text.slice(from + 2, end), 16);
    if (end !== -1 && Number.isInteger(code) && code <= 0x10ffff) return [String.fromCodePoint(code), end + 1];
  }
  if (char === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(from + 1, from + 5))) {
    return [String.fromCharCode(Number.parseInt(text.slice(from + 1, from + 5), 16)), from + 5];
  }
  return [char, from + 1];
}

/** The index of the `{` token of the default export's object, if the file has one slp can find without running it. */
function defaultExportObject(tokens: Token[]): number | undefined {
  const depthAt = bracketDepths(tokens);
  const is = (index: number, value: string) => tokens[index]?.kind === "punct" && tokens[index]?.value === value;
  const word = (index: number, value?: string) =>
    tokens[index]?.kind === "ident" && (value === undefined || tokens[index]?.value === value);
  let exported: string | undefined;
  for (let index = 0; index < tokens.length; index++) {
    if (depthAt[index] !== 0 || !word(index, "export")) continue;
    if (word(index + 1, "default")) {
      const object = objectOfExpression(tokens, index + 2);
      if (object !== undefined) return object;
      if (word(index + 2)) exported = tokens[index + 2]?.value;
    } else if (is(index + 1, "{")) {
      // export { task as default }
      for (let k = index + 2; k < tokens.length && !is(k, "}"); k++) {
        if (word(k) && word(k + 1, "as") && word(k + 2, "default")) exported = tokens[k]?.value;
      }
    }
  }
  if (exported === undefined) return undefined;
  for (let index = 0; index < tokens.length; index++) {
    if (depthAt[index] !== 0 || !(word(index, "const") || word(index, "let") || word(index, "var"))) continue;
    if (!word(index + 1, exported)) continue;
    let k = index + 2;
    // const task: Task<...> = ...
    if (is(k, ":")) while (k < tokens.length && !is(k, "=")) k++;
    if (is(k, "=")) return objectOfExpression(tokens, k + 1);
  }
  return undefined;
}

/** `{` at `start`, or a call `callee<...>({` (callee a dotted name): the index of the object's `{`. */
function objectOfExpression(tokens: Token[], start: number): number | undefined {
  const is = (index: number, value: string) => tokens[index]?.kind === "punct" && tokens[index]?.value === value;
  if (is(start, "{")) return start;
  let k = start;
  if (tokens[k]?.kind !== "ident") return undefined;
  k++;
  while (is(k, ".") && tokens[k + 1]?.kind === "ident") k += 2;
  if (is(k, "<")) {
    let open = 0;
    for (; k < tokens.length; k++) {
      if (is(k, "<")) open++;
      if (is(k, ">") && --open === 0) break;
    }
    k++;
  }
  return is(k, "(") && is(k + 1, "{") ? k + 1 : undefined;
}

/** Each token's bracket depth (the depth before it: an opener is at its outer depth). */
function bracketDepths(tokens: Token[]): number[] {
  const depths: number[] = [];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === "punct" && ")]}".includes(token.value)) depth = Math.max(0, depth - 1);
    depths.push(depth);
    if (token.kind === "punct" && token.value in OPENERS) depth++;
  }
  return depths;
}

/** Key -> index of the first token of its value, for the object whose `{` is at `open` (the last of a key written twice, as JavaScript keeps). */
function topLevelProperties(tokens: Token[], open: number): Map<string, number> {
  const properties = new Map<string, number>();
  let depth = 0;
  let expectKey = true;
  for (let index = open + 1; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (token.kind === "punct" && token.value in OPENERS) depth++;
    else if (token.kind === "punct" && ")]}".includes(token.value)) {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && token.kind === "punct" && token.value === ",") {
      expectKey = true;
      continue;
    }
    if (depth === 0 && expectKey) {
      expectKey = false;
      const next = tokens[index + 1];
      if ((token.kind === "ident" || token.kind === "string") && next?.kind === "punct" && next.value === ":") {
        properties.set(token.value, index + 2);
      } else if (token.kind === "ident" && (next?.kind !== "punct" || next.value === "," || next.value === "}")) {
        // Shorthand `name,` or a spread: the key is there, its value is not a literal.
        properties.set(token.value, -1);
      }
    }
  }
  return properties;
}

/** The text of a value that is one string literal (optionally `as const`); undefined otherwise. */
function literalOf(tokens: Token[], index: number): string | undefined {
  const token = tokens[index];
  if (index < 0 || token === undefined) return undefined;
  if (token.kind !== "string" && !(token.kind === "template" && !token.substituted)) return undefined;
  let end = index + 1;
  if (tokens[end]?.kind === "ident" && tokens[end]?.value === "as" && tokens[end + 1]?.value === "const") end += 2;
  const after = tokens[end];
  return after === undefined || (after.kind === "punct" && (after.value === "," || after.value === "}")) ? token.value : undefined;
}
