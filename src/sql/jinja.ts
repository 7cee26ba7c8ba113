/**
 * The Jinja adapter: the only module that imports nunjucks. dbt renders SQL
 * with Python's Jinja2; nunjucks is the maintained JavaScript engine closest
 * to it whose values are plain JavaScript (so `ref()` can return an object
 * with attributes, `adapter.dispatch` a callable macro, and `return()` can
 * leave a macro by throwing), and whose errors carry line and column. What
 * dbt projects use and nunjucks lacks is added here, once: Python's string
 * methods, `{% do %}`, `%` formatting, the filters and tests dbt code calls,
 * and Python's way of printing `True`, `None` and lists.
 */
import type * as NunjucksTypes from "nunjucks";
import { pythonStr } from "../core/values.ts";

/** The parts of nunjucks this adapter reaches, including internals its typings leave out. */
interface Nunjucks {
  parser: { Parser: { prototype: Record<string, any> } };
  lexer: Record<string, string>;
  Environment: new (loader: null, options: Record<string, unknown>) => NunjucksEnvironment;
  runtime: Record<string, any> & { SafeString: new (text: string) => object; Frame: new () => object };
  compiler: { compile(...args: unknown[]): string; Compiler: { prototype: Record<string, unknown> } };
  lib: { TemplateError: new (message: string, lineno: number, colno: number) => Error };
  installJinjaCompat(): void;
}
interface NunjucksEnvironment {
  addExtension(name: string, extension: object): void;
  addFilter(name: string, filter: (...args: any[]) => unknown): void;
  addTest(name: string, test: (...args: any[]) => boolean): void;
  getFilter(name: string): (...args: unknown[]) => unknown;
  extensionsList: unknown[];
  opts: unknown;
}
/**
 * nunjucks, loaded on first use: a template whose only Jinja is literal
 * ref()/source() calls never needs it (dbt-context.ts renders those itself).
 */
let loaded: Nunjucks | undefined;
function engine(): Nunjucks {
  loaded ??= require("nunjucks") as typeof NunjucksTypes as unknown as Nunjucks;
  return loaded;
}

/** Where a template looks up the names it does not define itself. */
export interface Scope {
  lookup(name: string): unknown;
}

/** A macro or context function as templates call it: positional arguments, then maybe a keyword object. */
export type JinjaCallable = (...args: unknown[]) => unknown;

/** A render, compile or runtime failure inside a template, with the place it happened. */
export class TemplateFailure extends Error {
  readonly file: string;
  /** 1-based. */
  readonly line?: number;
  /** The error thrown by a context function (ref, var, ...) when that is what failed. */
  readonly origin?: unknown;
  constructor(message: string, file: string, line: number | undefined, origin?: unknown) {
    super(message);
    this.file = file;
    this.line = line;
    this.origin = origin;
  }
}

/** `{{ return(x) }}`: leaves the macro being run with the value x, as dbt's MacroReturn does. */
class MacroReturn {
  constructor(readonly value: unknown) {}
}

export function macroReturn(value: unknown): never {
  throw new MacroReturn(value);
}

/** Splits what a template passed to a function into positional and keyword arguments. */
export function splitArgs(args: readonly unknown[]): { positional: unknown[]; keywords: Record<string, unknown> } {
  const last = args[args.length - 1] as Record<string, unknown> | undefined;
  if (last && typeof last === "object" && (last as { __keywords?: boolean }).__keywords === true) {
    const { __keywords: _ignored, ...keywords } = last;
    return { positional: args.slice(0, -1), keywords };
  }
  return { positional: [...args], keywords: {} };
}

// --- the engine, configured once ---

type RootRender = (env: unknown, context: unknown, frame: unknown, rt: unknown, cb: (err: unknown, out?: string) => void) => void;
const runtime = (): Nunjucks["runtime"] => engine().runtime;
let environment: NunjucksEnvironment | undefined;

function env(): NunjucksEnvironment {
  if (environment) return environment;
  const nunjucks = engine();
  nunjucks.installJinjaCompat();
  patchRuntime();
  patchCompiler();
  patchParser();
  environment = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });
  environment.addExtension("do", new DoExtension());
  for (const [name, filter] of Object.entries(FILTERS)) environment.addFilter(name, filter);
  for (const [name, test] of Object.entries(TESTS)) environment.addTest(name, test);
  return environment;
}

/** A compiled template: a model's SQL, a macro file, a fixture. */
export class JinjaTemplate {
  readonly file: string;
  #root: RootRender;

  /** Compiles `source`; a syntax error is a TemplateFailure naming `file` and the line. */
  constructor(source: string, file: string) {
    this.file = file;
    const environmentNow = env();
    let code: string;
    try {
      code = engine().compiler.compile(source, [], environmentNow.extensionsList, file, environmentNow.opts);
    } catch (error) {
      throw failure(error, file, "compile");
    }
    // A macro left by `return()` must restore its caller's frame: nunjucks
    // restores it only on the normal path, so wrap each macro body.
    const patched = code
      .replace(/var callerFrame = frame;\nframe = new runtime\.Frame\(\);\n/g, "var callerFrame = frame;\nframe = new runtime.Frame();\ntry {\n")
      .replace(
        /frame = callerFrame;\nreturn new runtime\.SafeString\((t_\d+)\);\n\}\);/g,
        "return new runtime.SafeString($1);\n} catch (e) { throw runtime.slpMacroError(e, lineno, colno); } finally { frame = callerFrame; }\n});",
      );
    const props = new Function(patched)() as { root: RootRender };
    this.#root = props.root;
  }

  /** Renders with `scope` for every name the template does not set itself. */
  render(scope: Scope): string {
    return this.#run(new ScopeContext(scope)).output;
  }

  /** Runs the file's top level and returns the macros it defines, each callable with dbt's `return()`. */
  macros(scope: Scope): Map<string, JinjaCallable> {
    const context = new ScopeContext(scope);
    this.#run(context);
    const macros = new Map<string, JinjaCallable>();
    for (const name of context.exported) {
      const raw = context.ctx[name];
      if (typeof raw !== "function") continue;
      const wrapped = wrapMacro(raw as JinjaCallable, this.file);
      macros.set(name, wrapped);
      // Macros of one file call each other through this context: give them the wrapped ones.
      context.ctx[name] = wrapped;
    }
    return macros;
  }

  #run(context: ScopeContext): { output: string } {
    let output = "";
    let failed: unknown;
    const frame = new (runtime().Frame)();
    (frame as unknown as { topLevel: boolean }).topLevel = true;
    try {
      this.#root(env(), context, frame, runtime(), (error, result) => {
        if (error) failed = error;
        else output = result ?? "";
      });
    } catch (error) {
      failed = error;
    }
    if (failed !== undefined) {
      if (failed instanceof MacroReturn) return { output: "" };
      throw failure(failed, this.file, "run");
    }
    return { output };
  }
}

/** What compiled templates see as `context`: their own top-level names, then the scope. */
class ScopeContext {
  ctx: Record<string, unknown> = Object.create(null);
  blocks: Record<string, unknown> = {};
  exported: string[] = [];
  env = env();
  constructor(private readonly scope: Scope) {}
  lookup(name: string): unknown {
    return name in this.ctx ? this.ctx[name] : this.scope.lookup(name);
  }
  setVariable(name: string, value: unknown): void {
    this.ctx[name] = value;
  }
  getVariables(): Record<string, unknown> {
    return this.ctx;
  }
  addExport(name: string): void {
    this.exported.push(name);
  }
  getExported(): Record<string, unknown> {
    return Object.fromEntries(this.exported.map((name) => [name, this.ctx[name]]));
  }
}

/** dbt's MacroGenerator: a call returns the macro's text, or the value it passed to `return()`. */
function wrapMacro(raw: JinjaCallable, file: string): JinjaCallable {
  const macro = (...args: unknown[]) => {
    try {
      return raw(...args);
    } catch (error) {
      if (error instanceof MacroReturn) return error.value;
      throw located(error, file);
    }
  };
  return macro;
}

/** An error leaving a macro keeps the innermost place it happened. */
function located(error: unknown, file: string): unknown {
  if (error && typeof error === "object" && !("slpFile" in error)) {
    const lineno = (error as { lineno?: number }).lineno;
    Object.assign(error, { slpFile: file, slpLine: typeof lineno === "number" ? lineno + 1 : undefined });
  }
  return error;
}

/**
 * Turns whatever nunjucks or a context function threw into a TemplateFailure.
 * The parser numbers lines from 1; compiled code counts from 0.
 */
function failure(error: unknown, file: string, phase: "compile" | "run"): TemplateFailure {
  if (error instanceof TemplateFailure) return error;
  const place = error as { slpFile?: string; slpLine?: number; lineno?: number };
  const origin = originOf(error);
  let line = place.slpLine;
  if (line === undefined && typeof place.lineno === "number") line = phase === "compile" ? place.lineno : place.lineno + 1;
  const message = origin instanceof Error ? origin.message : cleanMessage(error);
  return new TemplateFailure(message, place.slpFile ?? file, line, origin);
}

/** The error a context function threw, under nunjucks's wrapping. */
function originOf(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 10 && current && typeof current === "object"; depth++) {
    const cause = (current as { cause?: unknown }).cause;
    if (!cause) break;
    current = cause;
  }
  return current !== error ? current : undefined;
}

function cleanMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .replace(/^\(.*?\)( \[Line \d+, Column \d+\])?\n\s*/s, "")
    .replace(/^(Template render error: )/, "")
    .replace(/^Error: /, "")
    .trim();
}

// --- what dbt's Jinja has and nunjucks lacks ---

/** `{% do expr %}`: evaluates and prints nothing (jinja2.ext.do, which dbt enables). */
class DoExtension {
  tags = ["do"];
  parse(parser: any, nodes: any): unknown {
    const token = parser.nextToken();
    const args = new nodes.NodeList(token.lineno, token.colno);
    args.addChild(parser.parseExpression());
    parser.advanceAfterBlockEnd(token.value);
    return new nodes.CallExtension(this, "run", args);
  }
  run(): string {
    return "";
  }
}

function patchRuntime(): void {
  const runtime = engine().runtime;
  const memberLookup = runtime.memberLookup as (obj: unknown, key: unknown, ...rest: unknown[]) => unknown;
  runtime.memberLookup = function (this: unknown, obj: unknown, key: unknown, ...rest: unknown[]) {
    if (typeof obj === "string") {
      if (rest.length === 2 || (rest.length >= 2 && typeof key !== "string")) {
        return sliceString(obj, key as number | null, rest[0] as number | null, rest[1] as number | null);
      }
      if (typeof key === "string" && Object.hasOwn(STRING_METHODS, key)) return STRING_METHODS[key]!.bind(null, obj);
    }
    return memberLookup.call(this, obj, key, ...rest);
  };
  // Python prints True, False, None and ['a', 'b']; undefined prints nothing (and, with throwOnUndefined, fails).
  runtime.suppressValue = (value: unknown) => printable(value);
  runtime.ensureDefined = (value: unknown, lineno: number, colno: number) => {
    if (value === undefined) {
      throw new (engine().lib.TemplateError)("prints an undefined value (a name or attribute slp's dbt context does not have)", lineno, colno);
    }
    return value;
  };
  runtime.slpMod = pythonMod;
  runtime.slpMacroError = (error: unknown, lineno: number, colno: number) =>
    error instanceof MacroReturn ? error : (runtime.handleError as (e: unknown, l: number, c: number) => unknown)(error, lineno, colno);
}

/**
 * Python allows a comma after a call's last argument (`config(materialized='table',)`,
 * common in dbt models); nunjucks' argument parser does not, so it is taught to.
 */
function patchParser(): void {
  const proto = engine().parser.Parser.prototype;
  const { TOKEN_COMMA, TOKEN_RIGHT_PAREN } = engine().lexer as Record<string, string>;
  const parseSignature = proto.parseSignature as (this: any, tolerant?: boolean, noParens?: boolean) => unknown;
  proto.parseSignature = function (this: any, tolerant?: boolean, noParens?: boolean) {
    const parser = this;
    const { parseExpression, skip } = parser;
    let afterComma = false;
    // While this signature is read, an expression that would start at `)` right after a comma ends the list instead.
    parser.parseExpression = function () {
      if (!noParens && afterComma && parser.peekToken().type === TOKEN_RIGHT_PAREN) return SKIP;
      afterComma = false;
      return parseExpression.call(parser);
    };
    parser.skip = function (type: string) {
      const skipped = skip.call(parser, type);
      afterComma = skipped && type === TOKEN_COMMA;
      return skipped;
    };
    try {
      const args = parseSignature.call(parser, tolerant, noParens) as { children: unknown[] } | null;
      if (args) args.children = args.children.filter((child) => child !== SKIP);
      return args;
    } finally {
      parser.parseExpression = parseExpression;
      parser.skip = skip;
    }
  };
}

/** What the patched parser returns for the nothing after a trailing comma (dropped from the arguments). */
const SKIP = { lineno: 0, colno: 0, findAll: () => [], iterFields: () => undefined };

function patchCompiler(): void {
  const Compiler = engine().compiler.Compiler;
  // `(a, b)` is a Python tuple, not JavaScript's comma operator.
  const compileGroup = Compiler.prototype.compileGroup as (this: any, node: any, frame: unknown) => void;
  Compiler.prototype.compileGroup = function (this: any, node: any, frame: unknown) {
    if (node.children.length < 2) return compileGroup.call(this, node, frame);
    this._compileAggregate(node, frame, "[", "]");
  };
  // `"%s" % x` is Python formatting, not JavaScript's remainder.
  Compiler.prototype.compileMod = function (this: any, node: any, frame: unknown) {
    this._emit("runtime.slpMod(");
    this.compile(node.left, frame);
    this._emit(", ");
    this.compile(node.right, frame);
    this._emit(")");
  };
}

/** How a value prints in `{{ }}`, as Python's str() would print it. */
export function printable(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  // Only a loaded nunjucks makes SafeStrings.
  if (loaded && value instanceof loaded.runtime.SafeString) return value.toString();
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const own = (value as { toString?: () => string }).toString;
    if (own && own !== Object.prototype.toString) return own.call(value);
  }
  return pythonStr(value);
}

function sliceString(text: string, start: number | null, stop: number | null, step: number | null): string {
  const chars = [...text];
  const n = chars.length;
  const by = step ?? 1;
  const norm = (i: number | null, fallback: number) => (i === null || i === undefined ? fallback : i < 0 ? Math.max(n + i, by < 0 ? -1 : 0) : Math.min(i, n));
  const out: string[] = [];
  if (by > 0) for (let i = norm(start, 0); i < norm(stop, n); i += by) out.push(chars[i] as string);
  else for (let i = norm(start, n - 1); i > norm(stop, -1); i += by) out.push(chars[i] as string);
  return out.join("");
}

const PY_WHITESPACE = " \t\n\r\x0b\x0c";
function stripChars(text: string, chars: string | null | undefined, left: boolean, right: boolean): string {
  const set = chars ?? PY_WHITESPACE;
  let from = 0;
  let to = text.length;
  if (left) while (from < to && set.includes(text[from] as string)) from++;
  if (right) while (to > from && set.includes(text[to - 1] as string)) to--;
  return text.slice(from, to);
}

/** Python's str methods that dbt code calls on strings. */
const STRING_METHODS: Record<string, (text: string, ...args: any[]) => unknown> = {
  upper: (t) => t.toUpperCase(),
  lower: (t) => t.toLowerCase(),
  strip: (t, chars) => stripChars(t, chars, true, true),
  lstrip: (t, chars) => stripChars(t, chars, true, false),
  rstrip: (t, chars) => stripChars(t, chars, false, true),
  split: (t, sep, maxsplit) => pySplit(t, sep ?? null, typeof maxsplit === "number" ? maxsplit : -1),
  startswith: (t, prefix) => (Array.isArray(prefix) ? prefix.some((p) => t.startsWith(p)) : t.startsWith(prefix)),
  endswith: (t, suffix) => (Array.isArray(suffix) ? suffix.some((s) => t.endsWith(s)) : t.endsWith(suffix)),
  replace: (t, old, replacement, count) => {
    if (typeof count !== "number" || count < 0) return t.split(old).join(replacement);
    let out = t;
    let index = 0;
    for (let i = 0; i < count; i++) {
      const at = out.indexOf(old, index);
      if (at < 0) break;
      out = out.slice(0, at) + replacement + out.slice(at + old.length);
      index = at + replacement.length;
    }
    return out;
  },
  find: (t, sub) => t.indexOf(sub),
  count: (t, sub) => (sub === "" ? t.length + 1 : t.split(sub).length - 1),
  join: (t, items) => (items as unknown[]).map(printable).join(t),
  title: (t) => t.replace(/[A-Za-z]+/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase()),
  capitalize: (t) => (t ? t[0]!.toUpperCase() + t.slice(1).toLowerCase() : t),
  isdigit: (t) => /^\d+$/.test(t),
  isnumeric: (t) => /^\d+$/.test(t),
  isalpha: (t) => /^[A-Za-z]+$/.test(t),
  isalnum: (t) => /^[A-Za-z0-9]+$/.test(t),
  isupper: (t) => t !== t.toLowerCase() && t === t.toUpperCase(),
  islower: (t) => t !== t.toUpperCase() && t === t.toLowerCase(),
  format: (t, ...args) => pyFormat(t, args),
  zfill: (t, width) => t.padStart(width, "0"),
  ljust: (t, width, fill) => t.padEnd(width, fill ?? " "),
  rjust: (t, width, fill) => t.padStart(width, fill ?? " "),
};

function pySplit(text: string, sep: string | null, maxsplit: number): string[] {
  if (sep === null) {
    const parts = text.trim().split(/\s+/).filter((part) => part !== "");
    if (maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
    const head = parts.slice(0, maxsplit);
    let rest = text.trim();
    for (const part of head) rest = rest.slice(rest.indexOf(part) + part.length).replace(/^\s+/, "");
    return [...head, rest];
  }
  const parts = text.split(sep);
  if (maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
  return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(sep)];
}

/** `'{} and {name}'.format(a, name=b)`. */
function pyFormat(template: string, args: unknown[]): string {
  const { positional, keywords: named } = splitArgs(args);
  let auto = 0;
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, field: string | undefined) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    const key = (field ?? "").split(":")[0] as string;
    if (key === "") return printable(positional[auto++]);
    if (/^\d+$/.test(key)) return printable(positional[Number(key)]);
    return printable(named[key]);
  });
}

/** Python's `%`: string formatting for text, floor remainder for numbers. */
function pythonMod(left: unknown, right: unknown): unknown {
  if (typeof left === "string") {
    const values = Array.isArray(right) ? [...right] : [right];
    let index = 0;
    return left.replace(/%(\(\w+\))?([-+ 0#]*\d*(?:\.\d+)?)([sdifr%])/g, (_m, name: string | undefined, spec: string, kind: string) => {
      if (kind === "%") return "%";
      const value = name && right && typeof right === "object" ? (right as Record<string, unknown>)[name.slice(1, -1)] : values[index++];
      if (kind === "d" || kind === "i") return String(Math.trunc(Number(value)));
      if (kind === "f") {
        const digits = /\.(\d+)/.exec(spec);
        return Number(value).toFixed(digits ? Number(digits[1]) : 6);
      }
      if (kind === "r") return typeof value === "string" ? `'${value}'` : printable(value);
      return printable(value);
    });
  }
  const a = Number(left);
  const b = Number(right);
  return ((a % b) + b) % b;
}

const FILTERS: Record<string, (...args: any[]) => unknown> = {
  map(items: unknown[], ...args: unknown[]) {
    const { positional, keywords: named } = splitArgs(args);
    const list = Array.isArray(items) ? items : [...Object.keys(items ?? {})];
    if (typeof named.attribute === "string") {
      return list.map((item) => (item as Record<string, unknown>)?.[named.attribute as string] ?? named.default);
    }
    const filterName = positional[0];
    if (typeof filterName === "string") {
      const filter = env().getFilter(filterName);
      return list.map((item) => filter(item, ...positional.slice(1)));
    }
    return list;
  },
  unique(items: unknown[]) {
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (const item of items ?? []) {
      const key = JSON.stringify(item);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(item);
      }
    }
    return out;
  },
  tojson: (value: unknown) => JSON.stringify(value),
  as_bool: (value: unknown) => (value === "True" || value === "true" ? true : value === "False" || value === "false" ? false : value),
  as_number: (value: unknown) => (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value)) ? Number(value) : value),
  as_native: (value: unknown) => value,
  as_text: (value: unknown) => printable(value),
  string: (value: unknown) => printable(value),
  items: (value: Record<string, unknown>) => Object.entries(value ?? {}),
};

const TESTS: Record<string, (...args: any[]) => boolean> = {
  none: (value: unknown) => value === null,
  boolean: (value: unknown) => typeof value === "boolean",
  true: (value: unknown) => value === true,
  false: (value: unknown) => value === false,
  integer: (value: unknown) => typeof value === "number" && Number.isInteger(value),
  float: (value: unknown) => typeof value === "number" && !Number.isInteger(value),
  sequence: (value: unknown) => Array.isArray(value) || typeof value === "string",
  in: (value: unknown, container: unknown) =>
    Array.isArray(container) ? container.includes(value) : typeof container === "string" ? container.includes(String(value)) : Object.hasOwn((container ?? {}) as object, String(value)),
};
