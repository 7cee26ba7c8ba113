/**
 * TEMPORARY: the nunjucks engine slp used before src/sql/jinja/, kept only for the differential
 * test (test/jinja/differential.test.ts) and removed with nunjucks.
 *
 * The Jinja adapter: the only module that imports engine(). dbt renders SQL
 * with Python's Jinja2; nunjucks is the maintained JavaScript engine closest
 * to it whose values are plain JavaScript (so `ref()` can return an object
 * with attributes, `adapter.dispatch` a callable macro, and `return()` can
 * leave a macro by throwing), and whose errors carry line and column. What
 * dbt projects use and nunjucks lacks is added here, once: Python's string
 * methods, `{% do %}`, `%` formatting, the filters and tests dbt code calls,
 * and Python's way of printing `True`, `None` and lists.
 *
 * It is also the sandbox. A template is agent-written code, so it reaches
 * nothing but the values put in its context: names are identifiers (nunjucks
 * pastes them into the JavaScript it compiles), a member lookup sees a
 * mapping's own keys, a list's items, the Python methods below and what a
 * context object lists under TEMPLATE_LOOKUP, never a constructor, a
 * prototype or a global; there are no loaders (no include, import, extends)
 * and no regular-expression literals. dbt renders with Jinja's
 * SandboxedEnvironment, which blocks `_` attributes and function internals
 * and caps range() at 100,000 items; this does as much, and bounds nesting
 * depth, steps (loop iterations and calls) and output (src/core/limits.ts).
 */
import type * as NunjucksTypes from "nunjucks";
import { SlpError } from "../core/errors.ts";
import { formatLimit, limit, limitBytes, LimitError } from "../core/limits.ts";
import { pythonStr } from "../core/values.ts";
import { MacroReturn } from "./jinja/interpreter.ts";
import { SandboxError, TEMPLATE_LOOKUP } from "./jinja/values.ts";
import { TemplateFailure } from "./jinja/errors.ts";

/** The parts of nunjucks this adapter reaches, including internals its typings leave out. */
interface Nunjucks {
  Environment: new (loaders: unknown[], options: Record<string, unknown>) => NunjucksEnvironment;
  runtime: Record<string, any> & { SafeString: new (text: string) => object; Frame: new () => object };
  compiler: { compile(...args: unknown[]): string; Compiler: { prototype: Record<string, any> } };
  lexer: { lex(source: string, options: unknown): { nextToken(): Token | null }; TOKEN_COMMA: string; TOKEN_RIGHT_PAREN: string };
  parser: { Parser: { prototype: Record<string, any> } };
  lib: { TemplateError: new (message: string | Error, lineno?: number, colno?: number) => Error };
  nodes: Record<string, any>;
  installJinjaCompat(): void;
}
interface Token {
  type: string;
  value: unknown;
  lineno: number;
  colno: number;
}
interface NunjucksEnvironment {
  addExtension(name: string, extension: object): void;
  addFilter(name: string, filter: (...args: any[]) => unknown): void;
  addTest(name: string, test: (...args: any[]) => boolean): void;
  getFilter(name: string): (...args: unknown[]) => unknown;
  getTest(name: string): (...args: unknown[]) => unknown;
  filters: Record<string, (...args: any[]) => unknown>;
  tests: Record<string, (...args: any[]) => unknown>;
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

/** A nunjucks SafeString (only a loaded nunjucks makes them). */
function isSafeString(value: unknown): boolean {
  return loaded !== undefined && value instanceof loaded.runtime.SafeString;
}

type Scope = { lookup(name: string): unknown };
type JinjaCallable = (...args: unknown[]) => unknown;
/** Splits what a template passed to a function into positional and keyword arguments. */
function splitArgs(args: readonly unknown[]): { positional: unknown[]; keywords: Record<string, unknown> } {
  const last = args[args.length - 1] as Record<string, unknown> | undefined;
  if (last && typeof last === "object" && (last as { __keywords?: boolean }).__keywords === true) {
    const { __keywords: _ignored, ...keywords } = last;
    return { positional: args.slice(0, -1), keywords };
  }
  return { positional: [...args], keywords: {} };
}

// --- the engine, configured once ---

type RootRender = (env: unknown, context: unknown, frame: unknown, rt: unknown, cb: (err: unknown, out?: string) => void) => void;
let environment: NunjucksEnvironment | undefined;

function env(): NunjucksEnvironment {
  if (environment) return environment;
  const nunjucks = engine();
  nunjucks.installJinjaCompat();
  patchLexerAndParser();
  patchParser();
  patchRuntime();
  patchCompiler();
  // No loaders: `new Environment(null)` would read templates from ./views; a template includes nothing.
  environment = new nunjucks.Environment([], { autoescape: false, throwOnUndefined: true });
  environment.addExtension("do", new DoExtension());
  for (const [name, filter] of Object.entries(FILTERS)) environment.addFilter(name, filter);
  for (const [name, test] of Object.entries(TESTS)) environment.addTest(name, test);
  sandboxFiltersAndTests(environment);
  return environment;
}

/** A compiled template: a model's SQL, a macro file, a fixture. */
export class NunjucksTemplate {
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
      throw failure(tooDeepIfOverflow(error), file, "compile");
    }
    // A macro left by `return()` must restore its caller's frame: nunjucks
    // restores it only on the normal path, so wrap each macro body.
    const patched = code
      .replace(
        /var callerFrame = frame;\nframe = new runtime\.Frame\(\);\n/g,
        "var callerFrame = frame;\nframe = new runtime.Frame();\ntry {\n",
      )
      .replace(
        /frame = callerFrame;\nreturn new runtime\.SafeString\((t_\d+)\);\n\}\);/g,
        "return new runtime.SafeString($1);\n} catch (e) { throw runtime.slpMacroError(e, lineno, colno); } finally { frame = callerFrame; }\n});",
      );
    let props: { root: RootRender };
    try {
      props = new Function(patched)() as { root: RootRender };
    } catch (error) {
      // The compiled code of an expression nested tens of thousands deep is beyond JavaScript's own parser.
      throw failure(tooDeepIfOverflow(error), file, "compile");
    }
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
    const runtime = engine().runtime;
    const frame = new runtime.Frame();
    (frame as unknown as { topLevel: boolean }).topLevel = true;
    withBudget(() => {
      try {
        this.#root(env(), context, frame, runtime, (error, result) => {
          if (error) failed = error;
          else output = result ?? "";
        });
      } catch (error) {
        failed = error;
      }
    });
    if (failed !== undefined) {
      if (failed instanceof MacroReturn) return { output: "" };
      throw failure(tooDeepIfOverflow(failed), this.file, "run");
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
      return withBudget(() => raw(...args));
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
  const origin = error instanceof SlpError ? error : originOf(error);
  let line = place.slpLine ?? (error instanceof SlpError ? error.line : undefined);
  if (line === undefined && typeof place.lineno === "number") line = phase === "compile" ? place.lineno : place.lineno + 1;
  const message = origin instanceof Error ? origin.message : cleanMessage(error);
  return new TemplateFailure(message, place.slpFile ?? file, line, origin);
}

/** The error a context function threw, under nunjucks's wrapping. */
function originOf(error: unknown): unknown {
  let current = error;
  const seen = new Set<unknown>();
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
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

// --- the sandbox ---

/** Names nunjucks pastes into the JavaScript it compiles: Python identifiers only. */
const IDENTIFIER = /^[\p{ID_Start}_][\p{ID_Continue}]*$/u;

/** Member names that lead to JavaScript's machinery: refused on everything but a mapping's own keys. */
const JS_INTERNAL =
  /^(?:__.*|constructor|prototype|caller|callee|arguments|apply|bind|call|valueOf|toString|toLocaleString|hasOwnProperty|isPrototypeOf|propertyIsEnumerable)$/;
/** Jinja's sandbox refuses `_` attributes too; a package's `_macro` is still reached through its namespace. */
const PRIVATE = /^_/;

/** What one render may spend; nested renders (macro files read on first use) share the outer one. */
interface Budget {
  steps: number;
  output: number;
  depth: number;
}
let budget: Budget | null = null;

function withBudget<T>(run: () => T): T {
  if (budget) return run();
  budget = { steps: 0, output: 0, depth: 0 };
  try {
    return run();
  } finally {
    budget = null;
  }
}

/** Charges `count` steps (loop iterations, calls, items copied) to the current render. */
function spend(count = 1): void {
  if (!budget) return;
  budget.steps += count;
  if (budget.steps > limit("template_steps")) {
    throw new LimitError(
      "template_steps",
      `the template takes more than ${formatLimit("template_steps")} (loop iterations and calls) to render`,
    );
  }
}

/** Refuses a text longer than one render may produce. */
function bounded<T>(value: T): T {
  const length = typeof value === "string" ? value.length : isSafeString(value) ? String(value).length : 0;
  if (length > limitBytes("template_output_mb")) throw tooMuchOutput();
  return value;
}

function tooMuchOutput(): LimitError {
  return new LimitError("template_output_mb", `the template writes more than ${formatLimit("template_output_mb")} of text`);
}

/** Every piece written to an output buffer (the model's, a macro's, a {% set %} block's) is counted. */
function written(text: string): string {
  if (budget) {
    budget.output += text.length;
    if (budget.output > limitBytes("template_output_mb")) throw tooMuchOutput();
  }
  return text;
}

/** Refuses a width or count before a string or list that large is built. */
function sized(count: unknown): number {
  const n = Math.max(0, Math.trunc(Number(count) || 0));
  if (n > limitBytes("template_output_mb")) throw tooMuchOutput();
  return n;
}

/** A stack overflow (a construct nested beyond what the engine can hold) as the limit it is. */
function tooDeepIfOverflow(error: unknown): unknown {
  const inner = originOf(error) ?? error;
  if (inner instanceof RangeError && /call stack/i.test(inner.message)) {
    return new LimitError(
      "nesting_depth",
      "the template nests expressions deeper than the engine can follow (split the long expression into {% set %} steps)",
    );
  }
  return error;
}

/**
 * The member `key` of `obj` as a template sees it (`obj.key`, `obj[key]`,
 * filters' `attribute=`): a string's Python methods and characters, a list's
 * items and Python methods, a mapping's Python methods and own keys, what a
 * context object lists under TEMPLATE_LOOKUP, a function's own properties
 * (config.get); nothing inherited, ever.
 */
function templateMember(obj: unknown, key: unknown): unknown {
  if (obj === null || obj === undefined) return undefined;
  const target = isSafeString(obj) ? String(obj) : obj;
  if (typeof key === "number") {
    if (!Number.isInteger(key)) return undefined;
    if (typeof target === "string") {
      const chars = [...target];
      return chars[key < 0 ? chars.length + key : key];
    }
    if (Array.isArray(target)) return target[key < 0 ? target.length + key : key];
  }
  if (typeof key !== "string" && typeof key !== "number" && typeof key !== "boolean") return undefined;
  const name = String(key);
  if (typeof target === "string")
    return Object.hasOwn(STRING_METHODS, name) ? (STRING_METHODS[name] as JinjaCallable).bind(null, target) : refuseUnsafe(name);
  if (Array.isArray(target))
    return Object.hasOwn(LIST_METHODS, name) ? (LIST_METHODS[name] as JinjaCallable).bind(null, target) : refuseUnsafe(name);
  if (typeof target === "function") {
    if (Object.hasOwn(target, name) && !FUNCTION_OWN.has(name)) return (target as unknown as Record<string, unknown>)[name];
    return refuseUnsafe(name);
  }
  if (typeof target !== "object") return refuseUnsafe(name);
  const lookup = (target as { [TEMPLATE_LOOKUP]?: (name: string) => unknown })[TEMPLATE_LOOKUP];
  if (typeof lookup === "function") {
    if (JS_INTERNAL.test(name)) return refuseUnsafe(name);
    return lookup.call(target, name) ?? refuseUnsafe(name);
  }
  const proto = Object.getPrototypeOf(target);
  if (proto !== Object.prototype && proto !== null) return refuseUnsafe(name);
  if (Object.hasOwn(DICT_METHODS, name)) return (DICT_METHODS[name] as JinjaCallable).bind(null, target);
  // A mapping's own key is data, whatever it is called (a column may be named constructor).
  if (Object.hasOwn(target, name)) return (target as Record<string, unknown>)[name];
  return refuseUnsafe(name);
}

/** Own properties every function has, which say nothing a template needs. */
const FUNCTION_OWN = new Set(["name", "length", "prototype", "caller", "arguments"]);

function refuseUnsafe(name: string): undefined {
  if (JS_INTERNAL.test(name) || PRIVATE.test(name)) throw new SandboxError(`access to '${name}' is refused`);
  return undefined;
}

/** Python's `in`: a list's items, a string's substrings, a mapping's own keys. */
function templateIn(key: unknown, container: unknown): boolean {
  const target = isSafeString(container) ? String(container) : container;
  if (typeof target === "string") return target.includes(printable(key));
  if (Array.isArray(target)) return target.some((item) => item === key);
  if (target !== null && typeof target === "object") {
    const lookup = (target as { [TEMPLATE_LOOKUP]?: (name: string) => unknown })[TEMPLATE_LOOKUP];
    if (typeof lookup === "function") return lookup.call(target, printable(key)) !== undefined;
    return Object.hasOwn(target, printable(key));
  }
  throw new SandboxError(`'in' needs a list, a string or a mapping on its right, not ${typeof target}`);
}

function patchLexerAndParser(): void {
  // Every name a template writes is pasted into the compiled JavaScript, so a
  // name must be an identifier; a regex literal (r/.../, not Jinja) would hand
  // templates a RegExp and catastrophic backtracking.
  const lex = engine().lexer.lex;
  engine().lexer.lex = (source: string, options: unknown) => {
    const tokenizer = lex(source, options);
    const next = tokenizer.nextToken.bind(tokenizer);
    tokenizer.nextToken = () => {
      const token = next();
      if (token?.type === "symbol" && !IDENTIFIER.test(String(token.value))) {
        throw new (engine().lib.TemplateError)(
          `${JSON.stringify(String(token.value))} is not a name: a name is letters, digits and _, and does not start with a digit`,
          token.lineno + 1,
          token.colno + 1,
        );
      }
      if (token?.type === "regex") {
        throw new (engine().lib.TemplateError)(
          "a regular expression literal (r/.../) is not Jinja, and slp's templates do not run them",
          token.lineno + 1,
          token.colno + 1,
        );
      }
      return token;
    };
    return tokenizer;
  };
  // Blocks inside blocks and brackets inside brackets recurse in the parser: bound them.
  const Parser = engine().parser.Parser.prototype;
  for (const method of ["parseStatement", "parseAggregate"]) {
    const original = Parser[method] as (...args: unknown[]) => unknown;
    Parser[method] = function (this: { slpDepth?: number; peekToken(): Token | null }, ...args: unknown[]) {
      this.slpDepth = (this.slpDepth ?? 0) + 1;
      try {
        if (this.slpDepth > limit("nesting_depth")) {
          const token = this.peekToken();
          throw new LimitError("nesting_depth", `the template nests blocks or brackets more than ${formatLimit("nesting_depth")} deep`, {
            line: token ? token.lineno + 1 : undefined,
          });
        }
        return original.apply(this, args);
      } finally {
        this.slpDepth -= 1;
      }
    };
  }
}

/**
 * Python allows a comma after a call's last argument (`config(materialized='table',)`,
 * common in dbt models); nunjucks' argument parser does not, so it is taught to.
 */
function patchParser(): void {
  const proto = engine().parser.Parser.prototype;
  const { TOKEN_COMMA, TOKEN_RIGHT_PAREN } = engine().lexer;
  const parseSignature = proto.parseSignature as (this: any, tolerant?: boolean, noParens?: boolean) => unknown;
  proto.parseSignature = function (this: any, tolerant?: boolean, noParens?: boolean) {
    const { parseExpression, skip } = this;
    let afterComma = false;
    // While this signature is read, an expression that would start at `)` right after a comma ends the list instead.
    this.parseExpression = () => {
      if (!noParens && afterComma && this.peekToken().type === TOKEN_RIGHT_PAREN) return SKIP;
      afterComma = false;
      return parseExpression.call(this);
    };
    this.skip = (type: string) => {
      const skipped = skip.call(this, type);
      afterComma = skipped && type === TOKEN_COMMA;
      return skipped;
    };
    try {
      const args = parseSignature.call(this, tolerant, noParens) as { children: unknown[] } | null;
      if (args) args.children = args.children.filter((child) => child !== SKIP);
      return args;
    } finally {
      this.parseExpression = parseExpression;
      this.skip = skip;
    }
  };
}

/** What the patched parser returns for the nothing after a trailing comma (dropped from the arguments). */
const SKIP = { lineno: 0, colno: 0, findAll: () => [], iterFields: () => undefined };

function patchRuntime(): void {
  const runtime = engine().runtime;
  runtime.memberLookup = (obj: unknown, key: unknown, ...slice: unknown[]) => {
    // `x[a:b:c]` arrives as (obj, start, stop, step).
    if (slice.length === 2) return sliceOf(obj, key as number | null, slice[0] as number | null, slice[1] as number | null);
    return templateMember(obj, key);
  };
  runtime.inOperator = templateIn;
  // Every call a template makes is a step, and what it returns is bounded.
  runtime.callWrap = (fn: unknown, name: string, context: unknown, args: unknown[]) => {
    if (typeof fn !== "function") {
      throw new Error(`Unable to call \`${name}\`, which is ${fn === undefined || fn === null ? "undefined" : "not a function"}`);
    }
    spend();
    return bounded(fn.apply(context, args));
  };
  const makeMacro = runtime.makeMacro as (argNames: string[], kwargNames: string[], func: (...args: unknown[]) => unknown) => JinjaCallable;
  runtime.makeMacro = (argNames: string[], kwargNames: string[], func: (...args: unknown[]) => unknown) =>
    makeMacro(argNames, kwargNames, function (this: unknown, ...args: unknown[]) {
      if (budget) {
        budget.depth += 1;
        if (budget.depth > limit("nesting_depth")) {
          budget.depth -= 1;
          throw new LimitError("nesting_depth", `macros call each other more than ${formatLimit("nesting_depth")} deep`);
        }
      }
      try {
        return func.apply(this, args);
      } finally {
        if (budget) budget.depth -= 1;
      }
    });
  // Each loop pays for its iterations before the first one runs.
  const fromIterator = runtime.fromIterator as (value: unknown) => unknown;
  runtime.fromIterator = (value: unknown) => {
    const items = fromIterator(value);
    if (Array.isArray(items) || typeof items === "string") spend(items.length);
    else if (items !== null && typeof items === "object") spend(Object.keys(items).length);
    return items;
  };
  // Python prints True, False, None and ['a', 'b']; undefined prints nothing (and, with throwOnUndefined, fails).
  runtime.suppressValue = (value: unknown) => printable(value);
  runtime.ensureDefined = (value: unknown, lineno: number, colno: number) => {
    if (value === undefined) {
      throw new (engine().lib.TemplateError)(
        "prints an undefined value (a name or attribute slp's dbt context does not have)",
        lineno,
        colno,
      );
    }
    return value;
  };
  runtime.slpWritten = written;
  runtime.slpMod = pythonMod;
  runtime.slpAdd = pythonAdd;
  runtime.slpMul = pythonMul;
  runtime.slpConcat = (left: unknown, right: unknown) => bounded(printable(left) + printable(right));
  runtime.slpMacroError = (error: unknown, lineno: number, colno: number) =>
    error instanceof MacroReturn ? error : (runtime.handleError as (e: unknown, l: number, c: number) => unknown)(error, lineno, colno);
}

function patchCompiler(): void {
  const Compiler = engine().compiler.Compiler;
  const nodes = engine().nodes;
  // `(a, b)` is a Python tuple, not JavaScript's comma operator.
  const compileGroup = Compiler.prototype.compileGroup as (this: any, node: any, frame: unknown) => void;
  Compiler.prototype.compileGroup = function (this: any, node: any, frame: unknown) {
    if (node.children.length < 2) return compileGroup.call(this, node, frame);
    this._compileAggregate(node, frame, "[", "]");
  };
  // Python's operators: `"%s" % x` formats, `+` joins lists, `"-" * 3` repeats, `~` joins as str() does.
  const binary = (helper: string) =>
    function (this: any, node: any, frame: unknown) {
      this._emit(`runtime.${helper}(`);
      this.compile(node.left, frame);
      this._emit(", ");
      this.compile(node.right, frame);
      this._emit(")");
    };
  Compiler.prototype.compileMod = binary("slpMod");
  Compiler.prototype.compileAdd = binary("slpAdd");
  Compiler.prototype.compileMul = binary("slpMul");
  Compiler.prototype.compileConcat = binary("slpConcat");
  // `{"__proto__": x}` in an object literal would set the prototype: emit computed keys.
  Compiler.prototype.compilePair = function (this: any, node: any, frame: unknown) {
    const key = node.key instanceof nodes.Symbol ? new nodes.Literal(node.key.lineno, node.key.colno, node.key.value) : node.key;
    if (!(key instanceof nodes.Literal && typeof key.value === "string"))
      this.fail("a mapping's keys must be strings or names", key.lineno, key.colno);
    this._emit("[");
    this.compile(key, frame);
    this._emit("]: ");
    this._compileExpression(node.value, frame);
  };
  // The name in `x is name` is pasted into the code: only a name may stand there.
  Compiler.prototype.compileIs = function (this: any, node: any, frame: unknown) {
    const test = node.right.name ?? node.right;
    // `none`, `true` and `false` lex as literals, yet name tests (`is none` is dbt's most common one).
    const named =
      test instanceof nodes.Symbol
        ? test.value
        : test instanceof nodes.Literal && (test.value === null || typeof test.value === "boolean")
          ? String(test.value ?? "none")
          : null;
    if (named === null)
      this.fail("`is` must be followed by the name of a test (is defined, is none, is string, ...)", node.lineno, node.colno);
    this._emit(`env.getTest(${JSON.stringify(named)}).call(context, `);
    this.compile(node.left, frame);
    if (node.right.args) {
      this._emit(",");
      this.compile(node.right.args, frame);
    }
    this._emit(") === true");
  };
  // The called expression's text goes into the code for error messages: quote it as JSON, not by hand.
  Compiler.prototype.compileFunCall = function (this: any, node: any, frame: unknown) {
    this._emit(`(lineno = ${node.lineno}, colno = ${node.colno}, `);
    this._emit("runtime.callWrap(");
    this._compileExpression(node.name, frame);
    this._emit(`, ${JSON.stringify(this._getNodeName(node.name))}, context, `);
    this._compileAggregate(node.args, frame, "[", "])");
    this._emit(")");
  };
  // Everything written to any output buffer is counted against template_output_mb.
  Compiler.prototype.compileOutput = function (this: any, node: any, frame: unknown) {
    for (const child of node.children) {
      if (child instanceof nodes.TemplateData) {
        if (!child.value) continue;
        this._emit(`${this.buffer} += runtime.slpWritten(`);
        this.compileLiteral(child, frame);
        this._emitLine(");");
      } else {
        this._emit(`${this.buffer} += runtime.slpWritten(runtime.suppressValue(runtime.ensureDefined(`);
        this.compile(child, frame);
        this._emit(`,${node.lineno},${node.colno}), env.opts.autoescape));\n`);
      }
    }
  };
}

/**
 * Filters and tests: looked up among their own names only (`x|valueOf`
 * must not find Object.prototype's), each call a step with a bounded result,
 * and the ones that take an attribute name or a size re-written to stay in
 * the sandbox.
 */
function sandboxFiltersAndTests(target: NunjucksEnvironment): void {
  const builtIn = target.filters;
  const guarded: Record<string, (...args: any[]) => unknown> = Object.create(null);
  for (const [name, filter] of Object.entries({ ...builtIn, ...SANDBOXED_FILTERS })) {
    guarded[name] = function (this: unknown, ...args: unknown[]) {
      spend();
      return bounded(filter.apply(this, args));
    };
  }
  target.filters = guarded;
  target.tests = Object.assign(Object.create(null), target.tests);
  target.getFilter = (name: string) => {
    if (!Object.hasOwn(target.filters, name)) throw new Error(`filter not found: ${name}`);
    return target.filters[name] as (...args: unknown[]) => unknown;
  };
  target.getTest = (name: string) => {
    if (!Object.hasOwn(target.tests, name)) throw new Error(`test not found: ${name}`);
    return target.tests[name] as (...args: unknown[]) => unknown;
  };
}

/** A dotted attribute path (`a.b`) read through the sandbox, as filters' `attribute=` reads it. */
function attributeOf(item: unknown, path: unknown): unknown {
  let value = item;
  for (const part of String(path).split(".")) value = templateMember(value, /^-?\d+$/.test(part) ? Number(part) : part);
  return value;
}

/** `x[a:b:c]` on a string or a list, as Python slices. */
function sliceOf(value: unknown, start: number | null, stop: number | null, step: number | null): unknown {
  const target = isSafeString(value) ? String(value) : value;
  // Code points, as Python slices a str; one slicing for strings and lists, step 0 refused for both.
  if (typeof target === "string") return sliceList([...target], start, stop, step).join("");
  if (Array.isArray(target)) return sliceList(target, start, stop, step);
  throw new SandboxError(`only a string or a list can be sliced, not ${target === null ? "None" : typeof target}`);
}

/** Python's `+`: numbers add, strings and lists join. */
function pythonAdd(left: unknown, right: unknown): unknown {
  if (Array.isArray(left) && Array.isArray(right)) {
    spend(left.length + right.length);
    return [...left, ...right];
  }
  const a = isSafeString(left) ? String(left) : left;
  const b = isSafeString(right) ? String(right) : right;
  if (typeof a === "string" || typeof b === "string") return bounded(String(a) + String(b));
  return (a as number) + (b as number);
}

/** Python's `*`: `"-" * 3` and `[0] * 3` repeat; numbers multiply. */
function pythonMul(left: unknown, right: unknown): unknown {
  const repeatable = (value: unknown) => typeof value === "string" || isSafeString(value) || Array.isArray(value);
  const [sequence, times] =
    repeatable(left) && typeof right === "number"
      ? [left, right]
      : repeatable(right) && typeof left === "number"
        ? [right, left]
        : [null, 0];
  if (sequence === null) return (left as number) * (right as number);
  if (Array.isArray(sequence)) {
    const count = sized(times);
    spend(sequence.length * count);
    return Array.from({ length: sequence.length * count }, (_, i) => sequence[i % sequence.length]);
  }
  const text = String(sequence);
  return text.repeat(sized(text.length * Math.max(0, Math.trunc(times))) === 0 ? 0 : Math.trunc(times));
}

/** How a value prints in `{{ }}`, as Python's str() would print it. */
function printable(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  if (isSafeString(value)) return String(value);
  if (typeof value === "function") return "<function>";
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const own = (value as { toString?: unknown }).toString;
    if (typeof own === "function" && own !== Object.prototype.toString) return String(own.call(value));
  }
  return pythonStr(value);
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
    const occurrences = old === "" ? t.length + 1 : t.split(old).length - 1;
    sized(
      t.length +
        Math.min(occurrences, typeof count === "number" && count >= 0 ? count : occurrences) *
          (printable(replacement).length - printable(old).length),
    );
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
  zfill: (t, width) => t.padStart(sized(width), "0"),
  ljust: (t, width, fill) => t.padEnd(sized(width), fill ?? " "),
  rjust: (t, width, fill) => t.padStart(sized(width), fill ?? " "),
  center: (t, width, fill) => {
    const total = sized(width);
    if (total <= t.length) return t;
    // CPython's str.center: the odd space goes left when the width is odd.
    const margin = total - t.length;
    const left = Math.floor(margin / 2) + (margin & total & 1);
    const pad = (fill ?? " ") as string;
    return pad.repeat(left) + t + pad.repeat(total - t.length - left);
  },
};

function pySplit(text: string, sep: string | null, maxsplit: number): string[] {
  if (sep === null) {
    const parts = text
      .trim()
      .split(/\s+/)
      .filter((part) => part !== "");
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

/**
 * `'{} and {name}'.format(a, name=b)`, and `{0.attr}` / `{row[key]}` fields
 * read through the sandbox (as Jinja's SandboxedFormatter reads them). A
 * field with no argument, or with a conversion or format spec slp does not
 * implement, is an error rather than a silently different text.
 */
function pyFormat(template: string, args: unknown[]): string {
  const { positional, keywords: named } = splitArgs(args);
  let auto = 0;
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, field: string) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    const parsed = /^([^.[!:]*)((?:\.[^.[!:]+|\[[^\]]+\])*)(?:!([rsa]))?(?::(.*))?$/s.exec(field);
    if (!parsed) throw new Error(`'{${field}}' is not a format field slp can read`);
    const [, key = "", path = "", conversion, spec] = parsed;
    if ((conversion && conversion !== "s") || (spec !== undefined && spec !== "")) {
      throw new Error(
        `'{${field}}': slp's str.format() reads plain fields only (no conversion or format spec); format the value with a filter instead`,
      );
    }
    const base = key === "" ? positional[auto++] : /^\d+$/.test(key) ? positional[Number(key)] : named[key];
    if (base === undefined) throw new Error(`'{${field}}' names no argument given to format()`);
    let value: unknown = base;
    for (const [, attribute, index] of path.matchAll(/\.([^.[]+)|\[([^\]]+)\]/g)) {
      value = templateMember(value, attribute ?? (/^\d+$/.test(index as string) ? Number(index) : index));
    }
    return printable(value);
  });
}

/** Python's `%`: string formatting for text, floor remainder for numbers. */
function pythonMod(left: unknown, right: unknown): unknown {
  if (typeof left === "string") {
    const values = Array.isArray(right) ? [...right] : [right];
    let index = 0;
    return left.replace(/%(\(\w+\))?([-+ 0#]*\d*(?:\.\d+)?)([sdifr%])/g, (_m, name: string | undefined, spec: string, kind: string) => {
      if (kind === "%") return "%";
      const value = name ? templateMember(right, name.slice(1, -1)) : values[index++];
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
      return list.map((item) => attributeOf(item, named.attribute) ?? named.default);
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
  /** Jinja's `format`: `"%s-%s"|format(a, b)` is `"%s-%s" % (a, b)`; keywords fill `%(name)s`. */
  format(value: unknown, ...args: unknown[]) {
    const { positional, keywords } = splitArgs(args);
    return pythonMod(printable(value), Object.keys(keywords).length > 0 ? keywords : positional);
  },
  as_bool: (value: unknown) => (value === "True" || value === "true" ? true : value === "False" || value === "false" ? false : value),
  as_number: (value: unknown) => (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value)) ? Number(value) : value),
  as_native: (value: unknown) => value,
  as_text: (value: unknown) => printable(value),
  string: (value: unknown) => printable(value),
  items: (value: Record<string, unknown>) => Object.entries(value ?? {}),
  /** Jinja's `attr`: a member by name, through the sandbox like every other lookup. */
  attr: (value: unknown, name: unknown) => templateMember(value, printable(name)),
};

/**
 * nunjucks's filters that read attributes by name or build by size, redone
 * so attributes go through the sandbox and sizes are paid for first.
 */
const SANDBOXED_FILTERS: Record<string, (...args: any[]) => unknown> = {
  join(items: unknown, separator: unknown = "", attribute?: unknown) {
    const list = Array.isArray(items) ? items : typeof items === "string" ? [...items] : [];
    return (attribute === undefined ? list : list.map((item) => attributeOf(item, attribute))).map(printable).join(printable(separator));
  },
  sum(items: unknown, attribute?: unknown, start: unknown = 0) {
    const list = Array.isArray(items) ? items : [];
    return (attribute === undefined || attribute === null ? list : list.map((item) => attributeOf(item, attribute))).reduce(
      (total: any, item: any) => total + item,
      start,
    );
  },
  selectattr(items: unknown, attribute: unknown) {
    return (Array.isArray(items) ? items : []).filter((item) => truthy(attributeOf(item, attribute)));
  },
  rejectattr(items: unknown, attribute: unknown) {
    return (Array.isArray(items) ? items : []).filter((item) => !truthy(attributeOf(item, attribute)));
  },
  groupby(items: unknown, attribute: unknown) {
    const groups: Record<string, unknown[]> = Object.create(null);
    for (const item of Array.isArray(items) ? items : []) (groups[printable(attributeOf(item, attribute))] ??= []).push(item);
    return groups;
  },
  sort(items: unknown, reverse = false, caseSensitive = false, attribute?: unknown) {
    const list = Array.isArray(items) ? [...items] : [];
    const key = (item: unknown) => {
      const value = attribute === undefined || attribute === null ? item : attributeOf(item, attribute);
      return !caseSensitive && typeof value === "string" ? value.toLowerCase() : value;
    };
    list.sort((a, b) => {
      const [x, y] = [key(a), key(b)] as [any, any];
      return x < y ? -1 : x > y ? 1 : 0;
    });
    return reverse ? list.reverse() : list;
  },
  center(text: unknown, width: unknown = 80) {
    return (STRING_METHODS.center as JinjaCallable)(printable(text), width);
  },
  indent(text: unknown, width: unknown = 4, first = false) {
    const pad = " ".repeat(sized(width));
    const lines = printable(text).split("\n");
    sized(pad.length * lines.length);
    return lines.map((line, i) => ((i === 0 && !first) || line === "" ? line : pad + line)).join("\n");
  },
  replace(text: unknown, old: unknown, replacement: unknown, count?: unknown) {
    const from = printable(old);
    return (STRING_METHODS.replace as JinjaCallable)(printable(text), from, printable(replacement), typeof count === "number" ? count : -1);
  },
  slice(items: unknown, slices: unknown, fill?: unknown) {
    const list = sequenceOf(items);
    const count = sized(slices);
    spend(count);
    const size = Math.floor(list.length / Math.max(count, 1));
    const extra = list.length % Math.max(count, 1);
    const out: unknown[][] = [];
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const end = offset + size + (i < extra ? 1 : 0);
      const part = list.slice(offset, end);
      if (fill !== undefined && i >= extra && extra > 0) part.push(fill);
      out.push(part);
      offset = end;
    }
    return out;
  },
  batch(items: unknown, size: unknown, fill?: unknown) {
    const list = sequenceOf(items);
    const count = Math.max(1, sized(size));
    spend(list.length + count);
    const out: unknown[][] = [];
    for (let i = 0; i < list.length; i += count) out.push(list.slice(i, i + count));
    const last = out[out.length - 1];
    if (fill !== undefined && last) while (last.length < count) last.push(fill);
    return out;
  },
};

/** What a filter iterates: a list's items, a string's characters (a mapping's keys, as Python iterates it). */
function sequenceOf(items: unknown): unknown[] {
  const target = isSafeString(items) ? String(items) : items;
  if (Array.isArray(target)) return target;
  if (typeof target === "string") return [...target];
  if (target !== null && typeof target === "object" && Object.getPrototypeOf(target) === Object.prototype) return Object.keys(target);
  return [];
}

/** Python's truth: empty strings, lists and mappings are false, as are 0, None and False. */
function truthy(value: unknown): boolean {
  if (Array.isArray(value) || typeof value === "string") return value.length > 0;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.keys(value).length > 0;
  return Boolean(value);
}

/** Python's list methods, for `l.append(x)`; mutators return None. */
const LIST_METHODS: Record<string, (list: unknown[], ...args: any[]) => unknown> = {
  append(list, item) {
    spend();
    list.push(item);
    return null;
  },
  extend(list, items) {
    const count = Array.isArray(items) || typeof items === "string" ? items.length : 0;
    spend(count);
    // A copy first: `l.extend(l)` must not see what it appends.
    const more = Array.isArray(items) ? items.slice() : typeof items === "string" ? [...items] : [];
    for (const item of more) list.push(item);
    return null;
  },
  insert(list, index, item) {
    spend();
    list.splice(Number(index), 0, item);
    return null;
  },
  pop(list, index) {
    if (list.length === 0) throw new SandboxError("pop from an empty list");
    const at = index === undefined ? list.length - 1 : Number(index) < 0 ? list.length + Number(index) : Number(index);
    if (at < 0 || at >= list.length) throw new SandboxError("pop index out of range");
    return list.splice(at, 1)[0];
  },
  remove(list, item) {
    const at = list.indexOf(item);
    if (at < 0) throw new SandboxError(`list.remove(x): ${printable(item)} not in list`);
    list.splice(at, 1);
    return null;
  },
  index(list, item) {
    const at = list.indexOf(item);
    if (at < 0) throw new SandboxError(`${printable(item)} is not in list`);
    return at;
  },
  count: (list, item) => list.filter((candidate) => candidate === item).length,
  reverse(list) {
    list.reverse();
    return null;
  },
  sort(list) {
    list.sort((a: any, b: any) => (a < b ? -1 : a > b ? 1 : 0));
    return null;
  },
  copy: (list) => [...list],
  clear(list) {
    list.length = 0;
    return null;
  },
};

/** Sets a mapping's key as data: `__proto__` is a key like any other. */
function setKey(mapping: object, key: string, value: unknown): void {
  Object.defineProperty(mapping, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Python's dict methods, for `d.items()`, `d.get('k')`; own keys only. */
const DICT_METHODS: Record<string, (mapping: Record<string, unknown>, ...args: any[]) => unknown> = {
  items: (mapping) => Object.entries(mapping),
  iteritems: (mapping) => Object.entries(mapping),
  keys: (mapping) => Object.keys(mapping),
  iterkeys: (mapping) => Object.keys(mapping),
  values: (mapping) => Object.values(mapping),
  itervalues: (mapping) => Object.values(mapping),
  get: (mapping, key, fallback = null) => (Object.hasOwn(mapping, printable(key)) ? mapping[printable(key)] : fallback),
  has_key: (mapping, key) => Object.hasOwn(mapping, printable(key)),
  pop(mapping, key, ...fallback) {
    const name = printable(key);
    if (!Object.hasOwn(mapping, name)) {
      if (fallback.length > 0) return fallback[0];
      throw new SandboxError(`KeyError: ${name}`);
    }
    const value = mapping[name];
    delete mapping[name];
    return value;
  },
  setdefault(mapping, key, fallback = null) {
    const name = printable(key);
    if (!Object.hasOwn(mapping, name)) setKey(mapping, name, fallback);
    return mapping[name];
  },
  update(mapping, ...args) {
    const { positional, keywords } = splitArgs(args);
    for (const source of [...positional, keywords]) {
      if (source === null || typeof source !== "object") continue;
      const entries = Array.isArray(source)
        ? (source as unknown[][]).map((pair) => [printable(pair[0]), pair[1]] as const)
        : Object.entries(source);
      spend(entries.length);
      for (const [key, value] of entries) setKey(mapping, key, value);
    }
    return null;
  },
  copy: (mapping) => ({ ...mapping }),
};

/** `x[a:b:c]` on a list, as Python slices. */
function sliceList(list: unknown[], start: number | null, stop: number | null, step: number | null): unknown[] {
  const by = step ?? 1;
  if (by === 0) throw new SandboxError("slice step cannot be zero");
  const n = list.length;
  // Python clamps a bound to the list: to -1..n-1 walking back, 0..n walking forward.
  const norm = (i: number | null, fallback: number) =>
    i === null || i === undefined ? fallback : i < 0 ? Math.max(n + i, by < 0 ? -1 : 0) : Math.min(i, by < 0 ? n - 1 : n);
  const out: unknown[] = [];
  if (by > 0) for (let i = norm(start, 0); i < norm(stop, n); i += by) out.push(list[i]);
  else for (let i = norm(start, n - 1); i > norm(stop, -1); i += by) out.push(list[i]);
  return out;
}

const TESTS: Record<string, (...args: any[]) => boolean> = {
  none: (value: unknown) => value === null,
  boolean: (value: unknown) => typeof value === "boolean",
  true: (value: unknown) => value === true,
  false: (value: unknown) => value === false,
  integer: (value: unknown) => typeof value === "number" && Number.isInteger(value),
  float: (value: unknown) => typeof value === "number" && !Number.isInteger(value),
  sequence: (value: unknown) => Array.isArray(value) || typeof value === "string",
  in: (value: unknown, container: unknown) =>
    Array.isArray(container)
      ? container.includes(value)
      : typeof container === "string"
        ? container.includes(String(value))
        : Object.hasOwn((container ?? {}) as object, String(value)),
};
