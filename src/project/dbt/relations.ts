/**
 * The `ref()` and `source()` calls a SQL file makes, read statically the way
 * dbt's static parser reads them: literal names, an optional package, an
 * optional `v=`/`version=`. A call whose arguments are not literals (a
 * variable, a macro, string concatenation) is kept as dynamic: the DAG knows
 * it is there and that it cannot say where it points.
 */

/** One call, as written. */
export type RelationCall =
  | { kind: "ref"; package: string | null; name: string; version: string | null }
  | { kind: "source"; source: string; table: string };

export interface FoundCall {
  /** The call, or null when its arguments are not literals. */
  call: RelationCall | null;
  /** The call's text, e.g. `ref('stg_orders')`. */
  text: string;
  /** 1-based line of the call in the file. */
  line: number;
}

const CALL = /(?<![\w.])(ref|source)\s*\(/g;
/** A Python model calls them as `dbt.ref(...)` and `dbt.source(...)`. */
const PYTHON_CALL = /(?<![\w.])dbt\.(ref|source)\s*\(/g;

/** Every ref/source call of a SQL file (or a Python model's dbt.ref/dbt.source), outside comments, in order. */
/** `otherKeywords`: a ref's keywords besides v/version are let through (dbt's own ref ignores them); false where a project's `ref` macro reads them. */
export function relationCalls(code: string, language: "sql" | "python" = "sql", otherKeywords = true): FoundCall[] {
  const sql = code;
  const text = language === "sql" ? blankComments(sql) : sql.replace(/#[^\n]*/g, (comment) => comment.replace(/[^\n]/g, " "));
  const found: FoundCall[] = [];
  for (const match of text.matchAll(language === "sql" ? CALL : PYTHON_CALL)) {
    const open = (match.index ?? 0) + match[0].length;
    const close = closingParen(text, open);
    if (close === -1) continue;
    const whole = text.slice(match.index ?? 0, close + 1);
    const line = lineOf(sql, match.index ?? 0);
    found.push({
      call: parseCall(match[1] as "ref" | "source", text.slice(open, close), otherKeywords),
      text: whole.replace(/\s+/g, " "),
      line,
    });
  }
  return found;
}

/**
 * One call's text (`ref('m')`, `ref("pkg", "m", v=2)`, `source('s', 't')`),
 * as a unit test's `input:` names it; null when it is not a call of literals.
 */
export function parseRelationCall(input: string): RelationCall | null {
  const match = /^(ref|source)\s*\(([\s\S]*)\)$/.exec(input.trim());
  return match ? parseCall(match[1] as "ref" | "source", match[2] as string) : null;
}

/**
 * `otherKeywords`: a ref's keyword arguments besides v/version, with literal values, are let through. dbt's
 * own ref() ignores them (its resolver reads only `version` and `v`), and a project's `ref` macro that takes
 * them (`ref('m', label='staging')`, dbt >= 1.12) hands the name on to builtins.ref; a model's calls are read
 * so. A unit test's `input:` is read strictly, as dbt's static parser reads it.
 */
function parseCall(kind: "ref" | "source", args: string, otherKeywords = false): RelationCall | null {
  const names: string[] = [];
  let version: string | null = null;
  for (const part of splitArguments(args)) {
    const quoted = /^(['"])(.*)\1$/s.exec(part);
    const keyword = /^(v|version)\s*=\s*(?:(['"])(.*)\2|([\w.]+))$/.exec(part);
    if (quoted) names.push(quoted[2] as string);
    else if (keyword && kind === "ref") version = (keyword[3] ?? keyword[4]) as string;
    else if (otherKeywords && kind === "ref" && LITERAL_KEYWORD.test(part)) continue;
    else return null;
  }
  if (kind === "ref" && (names.length === 1 || names.length === 2)) {
    return { kind, package: names.length === 2 ? (names[0] as string) : null, name: names[names.length - 1] as string, version };
  }
  if (kind === "source" && names.length === 2 && version === null) return { kind, source: names[0] as string, table: names[1] as string };
  return null;
}

/** `name=<literal>`: a quoted string, a number, True/False/None. */
const LITERAL_KEYWORD = /^[A-Za-z_]\w*\s*=\s*(?:'[^']*'|"[^"]*"|[-+]?\d+(?:\.\d+)?|True|False|None|true|false|none)$/;

/** How a call is printed: `ref('m')`, `ref('pkg', 'm', v=2)`, `source('s', 't')`. */
export function callText(call: RelationCall): string {
  if (call.kind === "source") return `source('${call.source}', '${call.table}')`;
  const version = call.version === null ? "" : `, v=${call.version}`;
  return call.package === null ? `ref('${call.name}'${version})` : `ref('${call.package}', '${call.name}'${version})`;
}

/** Arguments split on top-level commas, quotes respected, each trimmed. */
function splitArguments(text: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  let depth = 0;
  for (const ch of text) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      current += ch;
    } else if (ch === "(" || ch === "[" || ch === "{") {
      depth++;
      current += ch;
    } else if (ch === ")" || ch === "]" || ch === "}") {
      depth--;
      current += ch;
    } else if (ch === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim() !== "") parts.push(current.trim());
  return parts;
}

function closingParen(text: string, open: number): number {
  let depth = 1;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i;
  }
  return -1;
}

/** `{# #}`, `/* *\/` and `--` comments replaced by spaces (newlines kept), so offsets and lines stay. */
function blankComments(sql: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, " ");
  return sql.replace(/\{#[\s\S]*?#\}|\/\*[\s\S]*?\*\/|--[^\n]*/g, blank);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
