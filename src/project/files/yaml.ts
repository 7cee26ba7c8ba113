/**
 * The YAML adapter: the only module that imports a YAML library. dbt reads
 * YAML the way PyYAML's `safe_load` does (YAML 1.1 scalars), so this module
 * builds a js-yaml schema with PyYAML's own resolver patterns; it refuses
 * duplicate keys (dbt silently keeps the last one, which hides a mistake).
 * Lines come from the same pass: js-yaml's event stream carries every node's
 * offset, so a parse yields the value and the line of each key and list item
 * (what a finding points at) for little more than the value alone. Most ymls
 * never reach the event stream: a one-pass reader (yaml-fast.ts) reads the
 * block style dbt projects are written in with this module's resolvers and
 * js-yaml's own scalar decoder, and leaves every other text to js-yaml.
 */
import type * as JsYaml from "js-yaml";
import { InputError } from "../../core/errors.ts";
import { limit, LimitError } from "../../core/limits.ts";
import { indentFlowLines } from "./flow-indent.ts";
import type { Value } from "../../core/values.ts";
import { encodeLines, lineAt, type LineTree, type WithLines } from "./lines.ts";
import { readFast, type FastReading } from "./yaml-fast.ts";

export { lineAt };

let loaded: typeof JsYaml | undefined;
/** js-yaml, loaded when a text first needs it: the fast path reads most projects whole, and a start without it is shorter. */
function jsYaml(): typeof JsYaml {
  loaded ??= require("js-yaml") as typeof JsYaml;
  return loaded;
}

/** What a resolver answers for text it does not read (js-yaml's NOT_RESOLVED where js-yaml calls it). */
const UNRESOLVED = Symbol("not resolved");

// --- PyYAML's implicit resolvers (lib/yaml/resolver.py), copied as patterns ---

const BOOL_TRUE = new Set(["yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]);
const BOOL_FALSE = new Set(["no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]);
const INT_PATTERN = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT_PATTERN =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const NULL_VALUES = new Set(["", "~", "null", "Null", "NULL"]);
const TIMESTAMP_PATTERN =
  /^(\d{4})-(\d\d?)-(\d\d?)(?:(?:[Tt]|[ \t]+)(\d\d?):(\d\d):(\d\d)(?:\.(\d*))?(?:[ \t]*(Z|[-+]\d\d?(?::\d\d)?))?)?$/;
const DATE_ONLY = /^\d{4}-\d\d-\d\d$/;

function sexagesimal(text: string): number {
  return text.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

function resolveNull(source: string): unknown {
  return NULL_VALUES.has(source) ? null : UNRESOLVED;
}

function resolveBool(source: string): unknown {
  return BOOL_TRUE.has(source) ? true : BOOL_FALSE.has(source) ? false : UNRESOLVED;
}

function resolveInt(source: string): unknown {
  if (!INT_PATTERN.test(source)) return UNRESOLVED;
  let text = source.replace(/_/g, "");
  let sign = 1;
  if (text[0] === "-" || text[0] === "+") {
    sign = text[0] === "-" ? -1 : 1;
    text = text.slice(1);
  }
  if (text === "0") return 0;
  if (text.startsWith("0b")) return sign * parseInt(text.slice(2), 2);
  if (text.startsWith("0x")) return sign * parseInt(text.slice(2), 16);
  if (text.startsWith("0")) return sign * parseInt(text, 8);
  if (text.includes(":")) return sign * sexagesimal(text);
  return sign * parseInt(text, 10);
}

function resolveFloat(source: string): unknown {
  if (!FLOAT_PATTERN.test(source)) return UNRESOLVED;
  let text = source.replace(/_/g, "").toLowerCase();
  let sign = 1;
  if (text[0] === "-" || text[0] === "+") {
    sign = text[0] === "-" ? -1 : 1;
    text = text.slice(1);
  }
  if (text === ".inf") return sign * Infinity;
  if (text === ".nan") return NaN;
  if (text.includes(":")) return sign * sexagesimal(text);
  return sign * Number(text.endsWith(".") ? text.slice(0, -1) : text);
}

// The first characters each resolver can match: js-yaml tries a resolver only on text starting with one ("" for empty text).
const NULL_FIRST = ["", "~", "n", "N"];
const BOOL_FIRST = ["y", "Y", "n", "N", "t", "T", "f", "F", "o", "O"];
const INT_FIRST = ["-", "+", ..."0123456789"];
const FLOAT_FIRST = ["-", "+", ".", ..."0123456789"];
const TIMESTAMP_FIRST = [..."0123456789"];

/**
 * PyYAML turns timestamps into date/datetime objects, and dbt's parse-time
 * rendering of a unit test turns those into ISO text (dbt-unit-tests.md §1.6):
 * `2024-05-01`, `2024-05-01T08:00:00`, `2024-05-01T08:00:00+00:00`. slp keeps
 * that text, so a date is a string everywhere downstream and a fixture value
 * reaches SQL exactly as dbt writes it. (The reference gate printed Python's
 * `str()`, with a space; only how a printed value is spelled differs, never a
 * verdict, since every comparison sees one spelling throughout.)
 */
function resolveTimestamp(source: string): unknown {
  if (DATE_ONLY.test(source)) return source;
  const match = TIMESTAMP_PATTERN.exec(source);
  if (!match || match[4] === undefined) return UNRESOLVED;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const pad = (text: string | undefined) => (text ?? "").padStart(2, "0");
  let text = `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${mi}:${s}`;
  const micros = (fraction ?? "").slice(0, 6).padEnd(6, "0");
  if (fraction && Number(micros) !== 0) text += `.${micros}`;
  if (zone === "Z") text += "+00:00";
  else if (zone) {
    const [hours = "0", minutes = "00"] = zone.slice(1).split(":");
    text += `${zone[0]}${hours.padStart(2, "0")}:${minutes}`;
  }
  return text;
}

/**
 * The resolvers js-yaml tries on a plain scalar, by its first character, in
 * the schema's order (first match wins): what js-yaml's implicitFirstChars
 * filtering does, for the fast path.
 */
const RESOLVERS_BY_FIRST = new Map<string, ((source: string) => unknown)[]>();
for (const [chars, resolve] of [
  [NULL_FIRST, resolveNull],
  [BOOL_FIRST, resolveBool],
  [INT_FIRST, resolveInt],
  [FLOAT_FIRST, resolveFloat],
  [TIMESTAMP_FIRST, resolveTimestamp],
] as const) {
  for (const char of chars) RESOLVERS_BY_FIRST.set(char, [...(RESOLVERS_BY_FIRST.get(char) ?? []), resolve]);
}

/** A decimal integer of up to 15 digits or a decimal fraction, no sign but `-`, no leading zero: what most numbers in a yml are. */
const PLAIN_DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]+)?$/;

/** What js-yaml, with PyYAML's resolvers, reads a plain scalar's text as. */
function resolvePlain(text: string): unknown {
  const first = text.charCodeAt(0);
  if (first > 64) {
    // Past `@` only the null and bool resolvers read, and only their few words (what the dispatch below would find).
    if (text.length > 5) return text;
    return NULL_VALUES.has(text) ? null : BOOL_TRUE.has(text) ? true : BOOL_FALSE.has(text) ? false : text;
  }
  // resolveInt and resolveFloat give these what Number gives (`-0` aside: resolveInt makes it 0).
  if (PLAIN_DECIMAL.test(text) && text !== "-0") return Number(text);
  const resolvers = RESOLVERS_BY_FIRST.get(text === "" ? "" : (text[0] as string));
  if (resolvers === undefined) return text;
  for (const resolve of resolvers) {
    const value = resolve(text);
    if (value !== UNRESOLVED) return value;
  }
  return text;
}

let schema: JsYaml.Schema | undefined;

/** The js-yaml schema of PyYAML's safe loader: its resolvers (the ones above) and tags, built on first use. */
function pyyamlSafeSchema(): JsYaml.Schema {
  if (schema) return schema;
  const { FAILSAFE_SCHEMA, NOT_RESOLVED, Schema, binaryTag, defineScalarTag, mergeTag, omapTag, pairsTag, setTag } = jsYaml();
  const implicit = (resolve: (source: string) => unknown) => (source: string) => {
    const value = resolve(source);
    return value === UNRESOLVED ? NOT_RESOLVED : value;
  };
  const tag = (name: string, firstChars: string[], resolve: (source: string) => unknown, identify: (value: unknown) => boolean) =>
    defineScalarTag(`tag:yaml.org,2002:${name}`, { implicit: true, implicitFirstChars: firstChars, resolve: implicit(resolve), identify });
  schema = new Schema([
    ...FAILSAFE_SCHEMA.tags,
    tag("null", NULL_FIRST, resolveNull, (value) => value === null),
    tag("bool", BOOL_FIRST, resolveBool, (value) => typeof value === "boolean"),
    tag("int", INT_FIRST, resolveInt, (value) => typeof value === "number" && Number.isInteger(value)),
    tag("float", FLOAT_FIRST, resolveFloat, (value) => typeof value === "number"),
    // Never chosen for a value (identify false): a date is a string everywhere downstream.
    tag("timestamp", TIMESTAMP_FIRST, resolveTimestamp, () => false),
    mergeTag,
    binaryTag,
    omapTag,
    pairsTag,
    setTag,
  ]);
  return schema;
}

/** Where a YAML text came from, for messages: a project-relative path, maybe "at <commit>". */
export interface YamlSource {
  /** Path printed in messages. */
  file: string;
  /** Appended to the file in messages, e.g. "at 1a2b3c4d". */
  at?: string;
}

/**
 * Parses one YAML document the way dbt reads it. An empty or comments-only
 * text is `null`. Two documents, a duplicate key, or a syntax error is an
 * InputError naming the file and line.
 */
export function parseYaml(text: string, source: YamlSource): Value {
  return parseYamlWithLines(text, source).value;
}

/** A parsed document and the line of each of its nodes (read with lineAt). */
export type ParsedYaml = WithLines;

/** As parseYaml, with the line of every key and list item. */
export function parseYamlWithLines(text: string, source: YamlSource): ParsedYaml {
  const fast = parseFast(text);
  if (fast === null) return parseWithJsYaml(text, source);
  boundExpansion([fast.value], text, source);
  return fast;
}

/**
 * What the fast path (yaml-fast.ts) reads with: PyYAML's resolvers and
 * js-yaml's own scalar decoder, so a text it reads is read as js-yaml
 * would. Deeper than `maxDepth` it leaves a text to js-yaml and its limit.
 * js-yaml counts every node it starts on the way down against
 * `nesting_depth`: each collection, the scalar at the end, and once more a
 * scalar or flow that could have been a block mapping's key (a list item, a
 * value on its own row). That is at most two more than the collections
 * open, so the fast path opens no more than `nesting_depth - 2` (nor 64).
 */
const FAST_READING: FastReading = {
  resolve: resolvePlain,
  decode: (text, style, start, end, indent, chomping) =>
    jsYaml().getScalarValue(text, { valueStart: start, valueEnd: end, style, indent, chomping, fast: false } as Parameters<
      typeof JsYaml.getScalarValue
    >[1]),
  get maxDepth() {
    return Math.min(64, limit("nesting_depth") - 2);
  },
};

/**
 * The fast path: a one-pass reader for the block style dbt ymls are written
 * in, several times faster than js-yaml's event stream in a fresh process
 * (where JIT warm-up is most of the cost). Null when the text holds anything
 * it does not read for certain; js-yaml reads it then, and says what is
 * wrong with it.
 */
export function parseFast(text: string): ParsedYaml | null {
  const read = readFast(text, FAST_READING);
  if (read === null) return null;
  const parsed: ParsedYaml = { value: read.value, lines: read.lines };
  if (read.jsonExact) JSON_EXACT.add(parsed);
  return parsed;
}

/** Parses the fast path read and found to hold only what JSON carries exactly: the parse cache need not walk them to know. */
const JSON_EXACT = new WeakSet<ParsedYaml>();

/** True when the fast path vouches that JSON gives this parse back exactly; false when nobody has looked. */
export function knownJsonExact(parsed: ParsedYaml): boolean {
  return JSON_EXACT.has(parsed);
}

/** js-yaml with PyYAML's resolvers: every text the fast path does not take, and every error's message. */
export function parseWithJsYaml(text: string, source: YamlSource): ParsedYaml {
  let documents: unknown[] = [];
  let events: ReturnType<typeof JsYaml.parseEvents> = [];
  const values = limit("yaml_values");
  const { parseEvents, constructFromEvents } = jsYaml();
  const read = (input: string) => {
    events = parseEvents(input, { maxDepth: limit("nesting_depth") });
    documents = constructFromEvents(events, { schema: pyyamlSafeSchema(), source: input, maxTotalMergeKeys: values }) as unknown[];
  };
  // The text the events' offsets point into: the yml's, or the one with its flow collections indented (same lines).
  let input = text;
  try {
    read(text);
  } catch (error) {
    // A flow collection left of its key's indentation: PyYAML reads it, js-yaml does not (flow-indent.ts).
    const relaxed = /deficient indentation/.test(String((error as Error).message)) ? indentFlowLines(text) : text;
    if (relaxed === text) throw yamlError(error, text, source);
    try {
      read(relaxed);
      input = relaxed;
    } catch {
      throw yamlError(error, text, source);
    }
  }
  boundExpansion(documents, text, source);
  if (documents.length > 1) {
    throw new InputError(`${atPrefix(source)}holds ${documents.length} YAML documents, and dbt reads exactly one`, {
      file: source.file,
      line: secondDocumentLine(text),
      fix: "remove the extra `---` document or move it to its own file",
    });
  }
  let lines: string;
  try {
    lines = documents.length === 1 ? encodeLines(documents[0] as Value, linesOf(events, input)) : "";
  } catch (error) {
    throw yamlError(error, text, source);
  }
  return { value: (documents[0] ?? null) as Value, lines };
}

interface JsYamlEvent {
  type: number;
  style?: number;
  start?: number;
  valueStart?: number;
  valueEnd?: number;
  anchorStart?: number;
  tagStart?: number;
  fast?: boolean;
}

/**
 * Builds the line tree of a single-document event stream. Offsets only grow
 * along the stream, so one forward scan of the newlines turns each into a
 * line. A key that is not plain text (a quoted key with escapes, a mapping
 * used as a key) is looked up by its raw text; a miss only costs precision.
 */
function linesOf(raw: unknown[], text: string): LineTree {
  const { EVENT_ID } = jsYaml();
  const events = raw as JsYamlEvent[];
  let line = 1;
  let scanned = 0;
  const lineOfOffset = (offset: number): number => {
    if (offset < scanned) return line;
    for (let i = text.indexOf("\n", scanned); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
    scanned = offset;
    return line;
  };
  const offsetOf = (event: JsYamlEvent): number => {
    for (const at of [event.anchorStart, event.tagStart, event.valueStart, event.start]) if (at !== undefined && at >= 0) return at;
    return -1;
  };
  type Frame =
    | { kind: "map"; line: number; children: { [key: string]: LineTree }; key: string | null; keyLine: number }
    | { kind: "seq"; line: number; children: LineTree[] }
    | { kind: "doc"; value: LineTree };
  const stack: Frame[] = [];
  let lastLine = 1;
  const place = (node: LineTree, nodeLine: number, keyText: string | null) => {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.kind === "doc") frame.value = node;
    else if (frame.kind === "seq") frame.children.push(node);
    else if (frame.key === null) {
      frame.key = keyText ?? "";
      frame.keyLine = nodeLine;
    } else {
      // A child sits at its key's line, so `spec:` points at the key, not at the block below it.
      frame.children[frame.key] = typeof node === "number" ? frame.keyLine : ([frame.keyLine, node[1]] as LineTree);
      frame.key = null;
    }
  };
  for (const event of events) {
    const offset = offsetOf(event);
    const here = offset >= 0 ? lineOfOffset(offset) : lastLine;
    lastLine = here;
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        stack.push({ kind: "doc", value: 1 });
        break;
      case EVENT_ID.SCALAR:
        place(here, here, keyText(event, text));
        break;
      case EVENT_ID.ALIAS:
        place(here, here, "");
        break;
      case EVENT_ID.MAPPING:
        // No prototype: a `__proto__` key is a child like any other.
        stack.push({ kind: "map", line: here, children: Object.create(null) as { [key: string]: LineTree }, key: null, keyLine: here });
        break;
      case EVENT_ID.SEQUENCE:
        stack.push({ kind: "seq", line: here, children: [] });
        break;
      case EVENT_ID.POP: {
        const frame = stack.pop() as Frame;
        if (frame.kind === "doc") return frame.value;
        const node: LineTree = frame.kind === "map" ? [frame.line, frame.children] : [frame.line, frame.children];
        place(node, frame.line, null);
        break;
      }
    }
  }
  return 1;
}

/** A scalar as the key js-yaml makes of it: a plain one resolved and turned into text (`~:` is "null", `010:` is "8"), a quoted one its content. */
function keyText(event: JsYamlEvent, text: string): string {
  if (event.valueStart === undefined || event.valueStart < 0) return "";
  const content = jsYaml().getScalarValue(text, event as Parameters<typeof JsYaml.getScalarValue>[1]);
  return event.style === jsYaml().SCALAR_STYLE.PLAIN ? String(resolvePlain(content)) : content;
}

/**
 * An alias shares its anchor's value, so a few hundred bytes can stand for
 * billions of values (the "billion laughs"); whatever walks the document
 * later (the line tree first) would expand them. Only a text with an alias
 * (`*`) needs counting; both readers count alike, so a text is refused or
 * not whichever reads it.
 */
function boundExpansion(documents: readonly unknown[], text: string, source: YamlSource): void {
  if (!text.includes("*")) return;
  const values = limit("yaml_values");
  for (const document of documents) {
    if (expandedSize(document, values) > values) {
      throw new LimitError(
        "yaml_values",
        `${atPrefix(source)}the YAML expands through its aliases to more than ${values.toLocaleString("en-US")} values`,
        {
          file: source.file,
        },
      );
    }
  }
}

/**
 * How many values a document holds once every alias is expanded, counting
 * each shared value once per place it appears; stops counting past `cap`.
 */
function expandedSize(value: unknown, cap: number): number {
  const sizes = new Map<object, number>();
  const size = (node: unknown): number => {
    if (node === null || typeof node !== "object") return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    let total = 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      total += size(child);
      if (total > cap) break;
    }
    sizes.set(node, total);
    return total;
  };
  return size(value);
}

/** "at <commit>, " when the text was read from history; nothing for the working tree. */
function atPrefix(source: YamlSource): string {
  return source.at ? `at ${source.at}, ` : "";
}

function yamlError(error: unknown, text: string, source: YamlSource): InputError | LimitError {
  const reason = (error as { reason?: string }).reason ?? (error as Error).message ?? String(error);
  const mark = (error as { mark?: { line: number; column: number; position: number } }).mark;
  const place = { file: source.file, line: mark ? mark.line + 1 : undefined };
  if (reason.includes("exceeded maxDepth")) {
    return new LimitError("nesting_depth", `${atPrefix(source)}the YAML nests more than ${limit("nesting_depth")} levels deep`, place);
  }
  if (reason.includes("maxTotalMergeKeys")) {
    return new LimitError(
      "yaml_values",
      `${atPrefix(source)}the YAML's merge keys (<<) copy more than ${limit("yaml_values").toLocaleString("en-US")} keys`,
      place,
    );
  }
  const jinja = text.includes("{%") || text.includes("{{");
  let line = mark ? mark.line + 1 : undefined;
  let column = mark ? mark.column + 1 : undefined;
  // js-yaml reports a mapping used as a key (what `{{ x }}` parses to) at the
  // start of the document, not where the key is; the Jinja is the place to look.
  let said = reason;
  if (reason.includes("complex keys")) {
    said = "a mapping or a list is used as a key, which dbt cannot read";
    if (mark?.position === 0) {
      line = jinja ? firstJinjaLine(text) : undefined;
      column = undefined;
    }
  }
  let message: string;
  let fix = line ? "fix the YAML syntax at that line" : "fix the YAML syntax";
  if (reason === "duplicated mapping key" && mark) {
    const key = keyAt(text, mark.line, mark.column);
    message = `${atPrefix(source)}the key ${key ? `'${key}' ` : ""}appears twice in one mapping`;
    fix = "keep one of the two (dbt would silently use the last one and ignore the first)";
  } else {
    message = `${atPrefix(source)}not valid YAML: ${said.replace(/\s+/g, " ")}${column ? ` (column ${column})` : ""}`;
  }
  if (jinja) {
    message += "; this file contains Jinja, which slp does not render in a yml";
    fix = "quote the Jinja expression as a string, or move the templated block out of the yml";
  }
  return new InputError(message, { file: source.file, line, fix }, { cause: error });
}

function firstJinjaLine(text: string): number | undefined {
  const index = text.split("\n").findIndex((row) => row.includes("{{") || row.includes("{%"));
  return index >= 0 ? index + 1 : undefined;
}

/** The key js-yaml points at: it marks a plain key's first character, a quoted key's first character inside the quotes. */
function keyAt(text: string, line: number, column: number): string | undefined {
  const row = text.split("\n")[line] ?? "";
  const quote = row[column - 1] === '"' || row[column - 1] === "'" ? row[column - 1] : undefined;
  if (quote) {
    const end = row.indexOf(quote, column);
    return end >= 0 ? row.slice(column, end) : undefined;
  }
  const match = /^(["']?)(.*?)\1\s*:(?:\s|$)/.exec(row.slice(column)) ?? /^([^,{}[\]]*?)\s*:/.exec(row.slice(column));
  const key = match ? (match.length > 2 ? match[2] : match[1]) : undefined;
  return key?.trim() || undefined;
}

function secondDocumentLine(text: string): number | undefined {
  const lines = text.split("\n");
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    if (/^---(\s|$)/.test(lines[i] ?? "")) {
      seen++;
      // A `---` after directives (`%YAML 1.1`) or only comments opens the first document.
      if (seen === 2 || (seen === 1 && lines.slice(0, i).some((l) => l.trim() && !l.trim().startsWith("#") && !l.startsWith("%"))))
        return i + 1;
    }
  }
  return undefined;
}

// --- positions, for messages about a small file ---

/** A parsed mapping that remembers the line of each key, for config files. */
export interface PositionedYaml {
  value: Value;
  /** 1-based line of the key at `path` (e.g. ["tcr", "steps"]), if present. */
  lineOf(path: readonly (string | number)[]): number | undefined;
}

/** Parses with positions (slp.yml and error messages). */
export function parseYamlWithPositions(text: string, source: YamlSource): PositionedYaml {
  const parsed = parseYamlWithLines(text, source);
  return { value: parsed.value, lineOf: (path) => lineAt(parsed, path) };
}
