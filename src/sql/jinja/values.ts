/**
 * Python's values as templates see them: str, int and float, list, dict,
 * None, and their printing, truth, equality, ordering and arithmetic; and
 * the sandbox's member lookup (Jinja's getattr/getitem), which shows a
 * template a value's data and Python methods and never JavaScript's
 * machinery (constructors, prototypes, `_` names).
 *
 * Representation: a str is a JavaScript string, an int a whole number, a
 * float a fractional number or a PyFloat (a float whose value is whole, so
 * `4 / 2` prints `2.0`), a list (and a tuple) an array, a dict a plain
 * object, None null, and an undefined name an Undefined carrying its name.
 */
import { SlpError } from "../../core/errors.ts";
import { pythonNumber, pythonStringRepr } from "../../core/values.ts";
import { sized, spend } from "./budget.ts";
import { TemplateRuntimeError } from "./errors.ts";

/** A float whose value is whole (`2.0`): JavaScript's numbers cannot tell it from the int 2. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** The lists that are Python tuples (a tuple literal, a dict's items): they print as `(a, b)`. */
const TUPLES = new WeakSet<unknown[]>();

/** Marks `items` as a tuple and returns it. */
export function tuple<T extends unknown[]>(items: T): T {
  TUPLES.add(items);
  return items;
}

/** A name or member a template reads and its context does not have (Jinja2's Undefined). */
export class Undefined {
  /**
   * `message`: what Jinja2 would say on use (`'x' is undefined`, `'dict object' has no attribute 'y'`);
   * `refuse`: the context's own error for it, when the context knows the fix.
   */
  constructor(
    readonly message: string,
    private readonly refuse?: () => never,
  ) {}
  fail(): never {
    this.refuse?.();
    throw new TemplateRuntimeError(this.message);
  }
}

/**
 * A value only the warehouse knows (what `adapter.get_relation` answers):
 * a template may hold it and pass it along, and any reading of it (truth,
 * comparison, a test other than `defined`, printing, a member, iteration) is
 * the refusal it carries, so the SQL never depends on a guess; left unread
 * (under an `is_incremental()` that is false) it changes nothing.
 */
export class Unknowable {
  constructor(readonly refuse: () => never) {}
}

/** Refuses when `value` is Unknowable: it is about to be read. */
export function readable(value: unknown): void {
  if (value instanceof Unknowable) value.refuse();
}

/** `namespace(...)`: the one object whose attributes `{% set ns.x = ... %}` may set. */
export class Namespace {
  readonly attrs: Record<string, unknown> = Object.create(null);
}

/**
 * What an object of slp's context lists for templates: `obj[TEMPLATE_LOOKUP](name)`
 * answers a member lookup (undefined when there is none). A symbol, so no
 * template can name it. Objects without it show templates their own keys
 * only when they are plain mappings, and nothing at all otherwise.
 */
export const TEMPLATE_LOOKUP: unique symbol = Symbol("slp.templateLookup");

/** A lookup for TEMPLATE_LOOKUP that exposes exactly `names` of `target` (methods bound to it). */
export function exposeMembers(target: object, names: readonly string[]): (name: string) => unknown {
  const allowed = new Set(names);
  return (name) => {
    if (!allowed.has(name)) return undefined;
    const value = (target as Record<string, unknown>)[name];
    return typeof value === "function" ? value.bind(target) : value;
  };
}

/**
 * What an object of slp's context does with Python's operators (a datetime
 * and a timedelta of `modules.datetime`): `binary` answers `self op other`
 * (or `other op self` when reflected), `compare` orders against another
 * value; each answers undefined where Python would say "not supported".
 */
export const PY_OPERATORS: unique symbol = Symbol("slp.pyOperators");
export interface PyOperators {
  binary?(op: string, other: unknown, reflected: boolean): unknown;
  compare?(other: unknown): number | undefined;
}

function operatorsOf(value: unknown): PyOperators | undefined {
  return value !== null && typeof value === "object" ? (value as { [PY_OPERATORS]?: PyOperators })[PY_OPERATORS] : undefined;
}

/** A template reached for something the sandbox never gives: a constructor, a prototype, an internal. */
export class SandboxError extends SlpError {
  constructor(what: string) {
    super(
      "E_SANDBOX",
      `${what}: templates reach data and the dbt context only, never JavaScript's internals (slp renders in a sandbox, as dbt does)`,
      { fix: "remove the construct; a dbt model never needs it" },
    );
  }
}

/** A macro or context function as templates call it: positional arguments, then maybe a keyword object. */
export type JinjaCallable = (...args: unknown[]) => unknown;

/** Marks the keyword object a template's call passes last, after the positional arguments (splitArgs reads it). */
export const KEYWORDS = "__keywords";

/** Splits what a template passed to a function into positional and keyword arguments. */
export function splitArgs(args: readonly unknown[]): { positional: unknown[]; keywords: Record<string, unknown> } {
  const last = args[args.length - 1] as Record<string, unknown> | undefined;
  if (last && typeof last === "object" && (last as { [KEYWORDS]?: boolean })[KEYWORDS] === true) {
    const { [KEYWORDS]: _ignored, ...keywords } = last;
    return { positional: args.slice(0, -1), keywords };
  }
  return { positional: [...args], keywords: {} };
}

/** The arguments of a call, in the form every function a template reaches takes them. */
export function callArgs(positional: unknown[], keywords: Record<string, unknown> | null): unknown[] {
  if (!keywords || Object.keys(keywords).length === 0) return positional;
  return [...positional, Object.assign(Object.create(null), keywords, { [KEYWORDS]: true })];
}

// --- numbers ---

export function isFloat(value: unknown): boolean {
  return value instanceof PyFloat || (typeof value === "number" && !Number.isInteger(value));
}

/** A float result: a whole value is kept as a PyFloat so it prints as Python prints it. */
export function makeFloat(value: number): unknown {
  return Number.isInteger(value) ? new PyFloat(value) : value;
}

/** The number of an int, float or bool; null for anything else. */
export function numberOf(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return null;
}

/** A value handed to JavaScript code (a context function): floats as numbers, Undefined as undefined. */
export function plain(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (value instanceof Undefined) return undefined;
  return value;
}

// --- printing ---

/** How a value prints in `{{ }}`, as Python's str() prints it. */
export function printable(value: unknown): string {
  if (typeof value === "string") return value;
  readable(value);
  if (value === undefined) return "";
  if (value instanceof Undefined) return "";
  return str(value, new Set());
}

function str(value: unknown, seen: Set<object>): string {
  if (typeof value === "string") return value;
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pythonNumber(value);
  if (value instanceof PyFloat)
    return Number.isFinite(value.value) && Math.abs(value.value) < 1e16 ? `${value.value}.0` : pythonNumber(value.value);
  if (typeof value === "function") return "<function>";
  if (value === undefined || value instanceof Undefined) return "";
  if (Array.isArray(value)) return repr(value, seen);
  if (value instanceof Namespace) return `<Namespace ${repr(value.attrs, seen)}>`;
  if (typeof value === "object") {
    // A context object that prints as Python prints it (a relation as its name, a column, run_started_at).
    const own = (value as { toString?: unknown }).toString;
    if (typeof own === "function" && own !== Object.prototype.toString) return String(own.call(value));
    if (isPlainMapping(value)) return repr(value, seen);
  }
  return `<${typeof value}>`;
}

/** Python's repr(): how a value prints inside a list or a dict. */
export function repr(value: unknown, seen: Set<object> = new Set()): string {
  if (typeof value === "string") return pythonStringRepr(value);
  if (Array.isArray(value) || (isPlainMapping(value) && !Object.hasOwn(value, "toString"))) {
    if (seen.has(value)) return Array.isArray(value) ? "[...]" : "{...}";
    seen.add(value);
    try {
      if (Array.isArray(value)) {
        const items = value.map((item) => repr(item, seen));
        if (!TUPLES.has(value)) return `[${items.join(", ")}]`;
        return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
      }
      return `{${mappingItems(value)
        .map(([k, v]) => `${repr(k, seen)}: ${repr(v, seen)}`)
        .join(", ")}}`;
    } finally {
      seen.delete(value);
    }
  }
  if (value === undefined || value instanceof Undefined) return "Undefined";
  return str(value, seen);
}

/** A mapping made of data (a dict literal, a YAML mapping): not an object of slp's context. */
export function isPlainMapping(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !(TEMPLATE_LOOKUP in value);
}

// --- truth, equality, order ---

/** Python's truth: empty strings, lists and mappings are false, as are 0, None, False and undefined. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  readable(value);
  if (value instanceof Undefined) return false;
  if (value instanceof PyFloat) return value.value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainMapping(value)) return Object.keys(value).length > 0;
  if (typeof value === "number") return !Number.isNaN(value);
  return true;
}

/** Python's `==`: numbers by value (1 == 1.0 == True), lists and dicts item by item. */
export function pyEquals(a: unknown, b: unknown, depth = 0): boolean {
  readable(a);
  readable(b);
  if (a === b) return true;
  const x = numberOf(a);
  const y = numberOf(b);
  if (x !== null && y !== null) return x === y;
  if (depth > 100) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => pyEquals(item, b[i], depth + 1));
  if (isPlainMapping(a) && isPlainMapping(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && pyEquals(a[key], b[key], depth + 1));
  }
  if (a instanceof Undefined && b instanceof Undefined) return true;
  const ordered = operatorsOf(a)?.compare?.(b);
  if (ordered !== undefined) return ordered === 0;
  // A relation compares as its rendered name (dbt's relations compare by their parts).
  if (typeof a === "object" && a !== null && TEMPLATE_LOOKUP in a && typeof b === "object" && b !== null && TEMPLATE_LOOKUP in b)
    return printable(a) === printable(b);
  return false;
}

/** Python's ordering (`<`): numbers with numbers, strings with strings, lists item by item; anything else a TypeError. */
export function pyCompare(a: unknown, b: unknown): number {
  readable(a);
  readable(b);
  const ordered = operatorsOf(a)?.compare?.(b);
  if (ordered !== undefined) return ordered;
  const x = numberOf(a);
  const y = numberOf(b);
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEquals(a[i], b[i])) return pyCompare(a[i], b[i]);
    }
    return a.length - b.length;
  }
  throw new TemplateRuntimeError(`'<' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python's type name of a value, for error messages. */
export function typeName(value: unknown): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "str";
  if (isFloat(value)) return "float";
  if (typeof value === "number") return "int";
  if (Array.isArray(value)) return "list";
  if (isPlainMapping(value)) return "dict";
  if (value === undefined || value instanceof Undefined) return "Undefined";
  if (typeof value === "function") return "function";
  return "object";
}

// --- arithmetic ---

function numbers(op: string, a: unknown, b: unknown): [number, number, boolean] {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === null || y === null) {
    if (a instanceof Undefined) a.fail();
    if (b instanceof Undefined) b.fail();
    throw new TemplateRuntimeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
  }
  return [x, y, isFloat(a) || isFloat(b)];
}

/** Python's binary operators. */
export function arithmetic(op: string, a: unknown, b: unknown): unknown {
  const own = operatorsOf(a)?.binary?.(op, b, false) ?? operatorsOf(b)?.binary?.(op, a, true);
  if (own !== undefined) return own;
  switch (op) {
    case "+":
      if (typeof a === "string" && typeof b === "string") return a + b;
      if (Array.isArray(a) && Array.isArray(b)) {
        spend(a.length + b.length);
        return [...a, ...b];
      }
      break;
    case "*": {
      const repeated = typeof a === "string" || Array.isArray(a) ? a : typeof b === "string" || Array.isArray(b) ? b : null;
      const times = repeated === a ? b : a;
      if (repeated !== null && typeof times === "number" && Number.isInteger(times)) return repeat(repeated as string | unknown[], times);
      break;
    }
    case "%":
      if (typeof a === "string") return percentFormat(a, b);
      break;
  }
  const [x, y, float] = numbers(op, a, b);
  const result = (value: number) => (float ? makeFloat(value) : value);
  switch (op) {
    case "+":
      return result(x + y);
    case "-":
      return result(x - y);
    case "*":
      return result(x * y);
    case "/":
      if (y === 0) throw new TemplateRuntimeError("division by zero");
      return makeFloat(x / y);
    case "//":
      if (y === 0) throw new TemplateRuntimeError("integer division or modulo by zero");
      return result(Math.floor(x / y));
    case "%":
      if (y === 0) throw new TemplateRuntimeError("integer division or modulo by zero");
      return result(((x % y) + y) % y);
    case "**":
      return !float && y >= 0 ? x ** y : makeFloat(x ** y);
  }
  throw new TemplateRuntimeError(`unknown operator ${op}`);
}

function repeat(sequence: string | unknown[], times: number): unknown {
  const count = Math.max(0, times);
  if (typeof sequence === "string") {
    sized(sequence.length * count);
    return sequence.repeat(count);
  }
  sized(sequence.length * count);
  spend(sequence.length * count);
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) out.push(...sequence);
  return out;
}

/** Python's `-x` and `+x`. */
export function negate(value: unknown, sign: -1 | 1): unknown {
  const x = numberOf(value);
  if (x === null) throw new TemplateRuntimeError(`bad operand type for unary ${sign < 0 ? "-" : "+"}: '${typeName(value)}'`);
  const result = sign * x + 0;
  return isFloat(value) ? makeFloat(result) : result;
}

/** Python's `%` on a str: `'%s-%d' % (a, b)` and `'%(name)s' % {'name': x}`. */
export function percentFormat(template: string, values: unknown): string {
  const list = Array.isArray(values) ? [...values] : [values];
  let index = 0;
  const next = () => {
    if (index >= list.length) throw new TemplateRuntimeError("not enough arguments for format string");
    return list[index++];
  };
  return template.replace(
    /%(\(([^)]*)\))?([-+ 0#]*)(\d+|\*)?(?:\.(\d+))?([diouxXeEfFgGcrsa%])/g,
    (_m, _named, name: string | undefined, flags: string, width: string | undefined, precision: string | undefined, kind: string) => {
      if (kind === "%") return "%";
      const value = name !== undefined ? memberOf(values, name, "item") : next();
      let text: string;
      const n = () => {
        const number = numberOf(value);
        if (number === null) throw new TemplateRuntimeError(`%${kind} format: a number is required, not ${typeName(value)}`);
        return number;
      };
      switch (kind) {
        case "d":
        case "i":
        case "u":
          text = String(Math.trunc(n()));
          break;
        case "f":
        case "F":
          text = n().toFixed(precision === undefined ? 6 : Number(precision));
          break;
        case "e":
        case "E":
          text = n()
            .toExponential(precision === undefined ? 6 : Number(precision))
            .replace(/e([+-])(\d)$/, "e$10$2");
          if (kind === "E") text = text.toUpperCase();
          break;
        case "g":
        case "G":
          text = pythonNumber(n());
          break;
        case "x":
          text = Math.trunc(n()).toString(16);
          break;
        case "X":
          text = Math.trunc(n()).toString(16).toUpperCase();
          break;
        case "o":
          text = Math.trunc(n()).toString(8);
          break;
        case "c":
          text = typeof value === "string" ? value : String.fromCodePoint(n());
          break;
        case "r":
        case "a":
          text = repr(value);
          break;
        default:
          text = printable(value);
          if (precision !== undefined) text = text.slice(0, Number(precision));
      }
      if (flags.includes("+") && /^[dfieEgG]$/.test(kind) && !text.startsWith("-")) text = `+${text}`;
      const w = width === undefined || width === "*" ? 0 : sized(width);
      if (text.length < w) {
        if (flags.includes("-")) text = text.padEnd(w);
        else if (flags.includes("0") && kind !== "s") {
          const sign = /^[-+]/.test(text) ? (text[0] as string) : "";
          text = sign + text.slice(sign.length).padStart(w - sign.length, "0");
        } else text = text.padStart(w);
      }
      return text;
    },
  );
}

// --- member lookup: the sandbox ---

/** Member names that lead to JavaScript's machinery: refused on everything but a mapping's own keys. */
const JS_INTERNAL =
  /^(?:__.*|constructor|prototype|caller|callee|arguments|apply|bind|call|valueOf|toString|toLocaleString|hasOwnProperty|isPrototypeOf|propertyIsEnumerable)$/;
/**
 * Jinja's sandbox refuses an attribute whose name starts with `_` when the
 * Python object has it (a macro's `_func`, a relation's `_render_iterator`);
 * when it has not, SandboxedEnvironment.getattr looks the name up as an item,
 * which is how `dbt_utils._is_relation` finds a macro in a package's
 * namespace (a dict). So `_` names are refused on objects whose Python
 * attributes slp does not model, and are plain keys of a mapping.
 */
const PRIVATE = /^_/;
/** Own properties every function has, which say nothing a template needs. */
const FUNCTION_OWN = new Set(["name", "length", "prototype", "caller", "arguments"]);

function refuseUnsafe(name: string): undefined {
  if (JS_INTERNAL.test(name) || PRIVATE.test(name)) throw new SandboxError(`access to '${name}' is refused`);
  return undefined;
}

/**
 * A name that a str, a list or a dict does not have: Jinja's sandbox then
 * tries it as an item, which fails, and the result is undefined, whatever
 * the name (Python's str, list and dict have no `_x` attribute of their own).
 * JavaScript's machinery stays refused: a dunder is one of Python's attributes
 * on every object, and so unsafe there too.
 */
function missingOfData(name: string): undefined {
  if (JS_INTERNAL.test(name)) throw new SandboxError(`access to '${name}' is refused`);
  return undefined;
}

/**
 * The member `key` of `obj` as a template sees it (`obj.key` is "attr",
 * `obj[key]` is "item", as Jinja tries an attribute or an item first): a
 * string's Python methods and characters, a list's items and Python methods,
 * a mapping's own keys and Python methods, what a context object lists under
 * TEMPLATE_LOOKUP, a function's own properties (config.get); nothing
 * inherited, ever. Undefined (JavaScript's) when there is no such member.
 */
export function memberOf(obj: unknown, key: unknown, first: "attr" | "item" = "attr"): unknown {
  if (obj === null || obj === undefined || obj instanceof Undefined) return undefined;
  readable(obj);
  const index = typeof key === "number" ? key : key instanceof PyFloat ? null : typeof key === "boolean" ? Number(key) : null;
  if (index !== null && Number.isInteger(index)) {
    if (typeof obj === "string") {
      const chars = [...obj];
      return chars[index < 0 ? chars.length + index : index];
    }
    if (Array.isArray(obj)) return obj[index < 0 ? obj.length + index : index];
  }
  if (typeof key !== "string" && typeof key !== "number" && typeof key !== "boolean") return undefined;
  const name = String(key);
  if (typeof obj === "string") return Object.hasOwn(STRING_METHODS, name) ? bindMethod(STRING_METHODS, name, obj) : missingOfData(name);
  if (Array.isArray(obj)) return Object.hasOwn(LIST_METHODS, name) ? bindMethod(LIST_METHODS, name, obj) : missingOfData(name);
  if (typeof obj === "function") {
    if (Object.hasOwn(obj, name) && !FUNCTION_OWN.has(name) && !JS_INTERNAL.test(name) && !PRIVATE.test(name))
      return (obj as unknown as Record<string, unknown>)[name];
    return refuseUnsafe(name);
  }
  if (typeof obj !== "object") return refuseUnsafe(name);
  // namespace()'s attributes are Python attributes: one named `_x` is one the sandbox refuses.
  if (obj instanceof Namespace) return Object.hasOwn(obj.attrs, name) && !PRIVATE.test(name) ? obj.attrs[name] : refuseUnsafe(name);
  const lookup = (obj as { [TEMPLATE_LOOKUP]?: (name: string) => unknown })[TEMPLATE_LOOKUP];
  if (typeof lookup === "function") {
    if (JS_INTERNAL.test(name)) return refuseUnsafe(name);
    // null is a member that is None (a naive datetime's tzinfo); undefined is no member.
    const found = lookup.call(obj, name);
    return found === undefined ? refuseUnsafe(name) : found;
  }
  if (!isPlainMapping(obj)) return refuseUnsafe(name);
  // A mapping's own key is data, whatever it is called (a column may be named constructor).
  const own = Object.hasOwn(obj, name);
  if (first === "item" && own) return obj[name];
  if (Object.hasOwn(DICT_METHODS, name)) return bindMethod(DICT_METHODS, name, obj);
  if (own) return obj[name];
  return missingOfData(name);
}

function bindMethod<T>(methods: Record<string, (target: T, ...args: any[]) => unknown>, name: string, target: T): JinjaCallable {
  const method = methods[name] as (target: T, ...args: unknown[]) => unknown;
  return (...args: unknown[]) => method(target, ...args);
}

/** Python's `in`: a list's items, a string's substrings, a mapping's own keys. */
export function contains(container: unknown, item: unknown): boolean {
  readable(container);
  if (typeof container === "string") {
    if (typeof item !== "string") throw new TemplateRuntimeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((candidate) => pyEquals(candidate, item));
  if (container instanceof Undefined) container.fail();
  if (container !== null && typeof container === "object") {
    if (container instanceof Namespace) return Object.hasOwn(container.attrs, printable(item));
    const lookup = (container as { [TEMPLATE_LOOKUP]?: (name: string) => unknown })[TEMPLATE_LOOKUP];
    if (typeof lookup === "function") return lookup.call(container, printable(item)) !== undefined;
    return Object.hasOwn(container, printable(item));
  }
  throw new TemplateRuntimeError(`argument of type '${typeName(container)}' is not iterable`);
}

/** What a loop or filter iterates: a list's items, a string's characters, a mapping's keys. */
export function iterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  readable(value);
  if (typeof value === "string") return [...value];
  if (value === undefined || value instanceof Undefined) return [];
  if (isPlainMapping(value)) return mappingKeys(value);
  if (value instanceof Namespace) return mappingKeys(value.attrs);
  throw new TemplateRuntimeError(`'${typeName(value)}' object is not iterable`);
}

/** `x[a:b:c]` on a string or a list, as Python slices. */
export function slice(value: unknown, start: unknown, stop: unknown, step: unknown): unknown {
  const bound = (v: unknown) => (v === null || v === undefined ? null : Math.trunc(numberOf(v) ?? Number.NaN));
  if (typeof value === "string") return sliceList([...value], bound(start), bound(stop), bound(step)).join("");
  if (Array.isArray(value)) return sliceList(value, bound(start), bound(stop), bound(step));
  throw new SandboxError(`only a string or a list can be sliced, not ${value === null ? "None" : typeName(value)}`);
}

function sliceList(list: unknown[], start: number | null, stop: number | null, step: number | null): unknown[] {
  const by = step ?? 1;
  if (by === 0 || Number.isNaN(by)) throw new SandboxError("slice step cannot be zero");
  const n = list.length;
  // Python clamps a bound to the list: to -1..n-1 walking back, 0..n walking forward.
  const norm = (i: number | null, fallback: number) =>
    i === null || Number.isNaN(i) ? fallback : i < 0 ? Math.max(n + i, by < 0 ? -1 : 0) : Math.min(i, by < 0 ? n - 1 : n);
  const out: unknown[] = [];
  if (by > 0) for (let i = norm(start, 0); i < norm(stop, n); i += by) out.push(list[i]);
  else for (let i = norm(start, n - 1); i > norm(stop, -1); i += by) out.push(list[i]);
  return out;
}

/** The most items range() may produce, as in Jinja's sandbox (MAX_RANGE). */
const MAX_RANGE = 100_000;

/** Python's range(), capped as dbt's sandboxed Jinja caps it. */
export function pythonRange(...args: unknown[]): number[] {
  const numbersGiven = splitArgs(args).positional.map((arg) => {
    const n = numberOf(arg);
    if (n === null || !Number.isInteger(n)) throw new SandboxError("range() takes whole numbers");
    return n;
  });
  const [start, stop, step] =
    numbersGiven.length === 1
      ? [0, numbersGiven[0] as number, 1]
      : [numbersGiven[0] as number, numbersGiven[1] as number, numbersGiven[2] ?? 1];
  if (step === 0) throw new SandboxError("range() arg 3 must not be zero");
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > MAX_RANGE) {
    throw new SlpError(
      "E_SANDBOX",
      `range() of ${length.toLocaleString("en-US")} items is larger than the ${MAX_RANGE.toLocaleString("en-US")} dbt's sandboxed Jinja allows`,
      { fix: "loop over fewer items (dbt refuses this range too)" },
    );
  }
  spend(length);
  return Array.from({ length }, (_, i) => start + i * step);
}

// --- Python's methods ---

const PY_WHITESPACE = " \t\n\r\x0b\x0c";
function stripChars(text: string, chars: unknown, left: boolean, right: boolean): string {
  const set = typeof chars === "string" ? chars : PY_WHITESPACE;
  let from = 0;
  let to = text.length;
  if (left) while (from < to && set.includes(text[from] as string)) from++;
  if (right) while (to > from && set.includes(text[to - 1] as string)) to--;
  return text.slice(from, to);
}

function argString(value: unknown, method: string): string {
  if (typeof value !== "string") throw new TemplateRuntimeError(`${method}() argument must be str, not ${typeName(value)}`);
  return value;
}

function affix(text: string, value: unknown, method: "startsWith" | "endsWith", start?: unknown, end?: unknown): boolean {
  const from = numberOf(start) ?? 0;
  const to = end === undefined || end === null ? undefined : (numberOf(end) ?? undefined);
  const target = text.slice(from < 0 ? Math.max(0, text.length + from) : from, to);
  const options = Array.isArray(value) ? value : [value];
  return options.some((option) => target[method](argString(option, method.toLowerCase())));
}

/** str.replace, paying for the text it builds first. */
export function replaceText(text: string, old: string, replacement: string, count: number): string {
  const occurrences = old === "" ? text.length + 1 : text.split(old).length - 1;
  const done = count >= 0 ? Math.min(count, occurrences) : occurrences;
  sized(text.length + done * (replacement.length - old.length));
  if (count < 0) return text.split(old).join(replacement);
  let out = "";
  let rest = text;
  for (let i = 0; i < done; i++) {
    const at = old === "" ? (i === 0 ? 0 : 1) : rest.indexOf(old);
    if (at < 0) break;
    out += rest.slice(0, at) + replacement;
    rest = rest.slice(at + old.length);
  }
  return out + rest;
}

function pySplit(text: string, sep: unknown, maxsplit: number): string[] {
  if (sep === null || sep === undefined) {
    const out: string[] = [];
    let rest = text.replace(/^\s+/, "");
    while (rest !== "") {
      if (maxsplit >= 0 && out.length >= maxsplit) {
        out.push(rest);
        break;
      }
      const match = /\s+/.exec(rest);
      if (!match) {
        out.push(rest);
        break;
      }
      out.push(rest.slice(0, match.index));
      rest = rest.slice(match.index + match[0].length);
    }
    return out;
  }
  const separator = argString(sep, "split");
  if (separator === "") throw new TemplateRuntimeError("empty separator");
  const parts = text.split(separator);
  if (maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
  return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(separator)];
}

function pyRsplit(text: string, sep: unknown, maxsplit: number): string[] {
  if (maxsplit < 0) return pySplit(text, sep, -1);
  if (sep === null || sep === undefined) {
    const parts = pySplit(text, null, -1);
    if (parts.length <= maxsplit + 1) return parts;
    const tail = parts.slice(parts.length - maxsplit);
    let head = text.replace(/\s+$/, "");
    for (let i = 0; i < maxsplit; i++) head = head.slice(0, head.lastIndexOf(tail[tail.length - 1 - i] as string)).replace(/\s+$/, "");
    return [head, ...tail];
  }
  const separator = argString(sep, "rsplit");
  const parts = text.split(separator);
  if (parts.length <= maxsplit + 1) return parts;
  return [parts.slice(0, parts.length - maxsplit).join(separator), ...parts.slice(parts.length - maxsplit)];
}

function wordTitle(text: string): string {
  return text.replace(/[A-Za-z]+('[A-Za-z]+)?/g, (w) => (w[0] as string).toUpperCase() + w.slice(1).toLowerCase());
}

function keywordsOf(args: unknown[]): { positional: unknown[]; keywords: Record<string, unknown> } {
  return splitArgs(args);
}

/** Python's str methods that dbt code calls on strings. */
const STRING_METHODS: Record<string, (text: string, ...args: any[]) => unknown> = {
  upper: (t) => t.toUpperCase(),
  lower: (t) => t.toLowerCase(),
  casefold: (t) => t.toLowerCase(),
  strip: (t, chars) => stripChars(t, chars, true, true),
  lstrip: (t, chars) => stripChars(t, chars, true, false),
  rstrip: (t, chars) => stripChars(t, chars, false, true),
  split: (t, ...args) => {
    const { positional, keywords } = keywordsOf(args);
    return pySplit(t, positional[0] ?? keywords.sep ?? null, numberOf(positional[1] ?? keywords.maxsplit) ?? -1);
  },
  rsplit: (t, ...args) => {
    const { positional, keywords } = keywordsOf(args);
    return pyRsplit(t, positional[0] ?? keywords.sep ?? null, numberOf(positional[1] ?? keywords.maxsplit) ?? -1);
  },
  splitlines: (t) => t.split(/\r\n|\r|\n/).filter((line, i, all) => i < all.length - 1 || line !== ""),
  startswith: (t, prefix, start, end) => affix(t, prefix, "startsWith", start, end),
  endswith: (t, suffix, start, end) => affix(t, suffix, "endsWith", start, end),
  replace: (t, old, replacement, count) =>
    replaceText(t, argString(old, "replace"), argString(replacement, "replace"), numberOf(count) ?? -1),
  find: (t, sub, start) => t.indexOf(argString(sub, "find"), numberOf(start) ?? 0),
  rfind: (t, sub) => t.lastIndexOf(argString(sub, "rfind")),
  index: (t, sub) => {
    const at = t.indexOf(argString(sub, "index"));
    if (at < 0) throw new TemplateRuntimeError("substring not found");
    return at;
  },
  count: (t, sub) => {
    const text = argString(sub, "count");
    return text === "" ? [...t].length + 1 : t.split(text).length - 1;
  },
  join: (t, items) => {
    const list = iterate(items);
    return list
      .map((item) => {
        if (typeof item !== "string") throw new TemplateRuntimeError(`sequence item: expected str instance, ${typeName(item)} found`);
        return item;
      })
      .join(t);
  },
  title: (t) => wordTitle(t),
  capitalize: (t) => (t ? (t[0] as string).toUpperCase() + t.slice(1).toLowerCase() : t),
  swapcase: (t) => [...t].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(""),
  isdigit: (t) => /^\d+$/.test(t),
  isdecimal: (t) => /^\d+$/.test(t),
  isnumeric: (t) => /^\d+$/.test(t),
  isalpha: (t) => /^\p{L}+$/u.test(t),
  isalnum: (t) => /^[\p{L}\d]+$/u.test(t),
  isspace: (t) => /^\s+$/.test(t),
  isidentifier: (t) => /^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(t),
  isupper: (t) => t !== t.toLowerCase() && t === t.toUpperCase(),
  islower: (t) => t !== t.toUpperCase() && t === t.toLowerCase(),
  format: (t, ...args) => pyFormat(t, args),
  zfill: (t, width) => {
    const w = sized(width);
    const sign = /^[-+]/.test(t) ? (t[0] as string) : "";
    return sign + t.slice(sign.length).padStart(w - sign.length, "0");
  },
  ljust: (t, width, fill) => t.padEnd(sized(width), typeof fill === "string" ? fill : " "),
  rjust: (t, width, fill) => t.padStart(sized(width), typeof fill === "string" ? fill : " "),
  center: (t, width, fill) => center(t, width, fill),
  partition: (t, sep) => {
    const at = t.indexOf(argString(sep, "partition"));
    return tuple(at < 0 ? [t, "", ""] : [t.slice(0, at), sep, t.slice(at + (sep as string).length)]);
  },
  rpartition: (t, sep) => {
    const at = t.lastIndexOf(argString(sep, "rpartition"));
    return tuple(at < 0 ? ["", "", t] : [t.slice(0, at), sep, t.slice(at + (sep as string).length)]);
  },
  removeprefix: (t, prefix) => (t.startsWith(argString(prefix, "removeprefix")) ? t.slice((prefix as string).length) : t),
  removesuffix: (t, suffix) =>
    argString(suffix, "removesuffix") !== "" && t.endsWith(suffix as string) ? t.slice(0, t.length - (suffix as string).length) : t,
  encode: (t) => t,
  expandtabs: (t) => t.replace(/\t/g, "        "),
};

/** CPython's str.center: the odd space goes left when the width is odd. */
export function center(t: string, width: unknown, fill?: unknown): string {
  const total = sized(width);
  if (total <= t.length) return t;
  const margin = total - t.length;
  const left = Math.floor(margin / 2) + (margin & total & 1);
  const pad = typeof fill === "string" ? fill : " ";
  return pad.repeat(left) + t + pad.repeat(total - t.length - left);
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
  const resolve = (field: string): unknown => {
    const parsed = /^([^.[]*)((?:\.[^.[]+|\[[^\]]+\])*)$/s.exec(field);
    if (!parsed) throw new TemplateRuntimeError(`'{${field}}' is not a format field slp can read`);
    const [, key = "", path = ""] = parsed;
    const base = key === "" ? positional[auto++] : /^\d+$/.test(key) ? positional[Number(key)] : named[key];
    if (base === undefined) throw new TemplateRuntimeError(`'{${field}}' names no argument given to format()`);
    let value: unknown = base;
    for (const [, attribute, index] of path.matchAll(/\.([^.[]+)|\[([^\]]+)\]/g)) {
      value = memberOf(value, attribute ?? (/^\d+$/.test(index as string) ? Number(index) : index), attribute ? "attr" : "item");
    }
    return value;
  };
  // A field may hold one level of nested fields in its spec: '{:{width}}'.
  return template.replace(/\{\{|\}\}|\{((?:[^{}]|\{[^{}]*\})*)\}/g, (match, field: string) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    const parsed = /^([^!:]*)(?:!([rsa]))?(?::(.*))?$/s.exec(field);
    if (!parsed) throw new TemplateRuntimeError(`'{${field}}' is not a format field slp can read`);
    const [, name = "", conversion, spec = ""] = parsed;
    const value = resolve(name);
    const shown = conversion === "r" || conversion === "a" ? repr(value) : conversion === "s" ? printable(value) : value;
    return formatSpec(
      shown,
      spec.replace(/\{([^{}]*)\}/g, (_m, inner: string) => printable(resolve(inner))),
      field,
    );
  });
}

/** Python's format-spec mini-language ([[fill]align][sign][#][0][width][,][.precision][type]) for str and numbers. */
function formatSpec(value: unknown, spec: string, field: string): string {
  if (spec === "") return printable(value);
  const parsed = /^(?:([\s\S])?([<>=^]))?([-+ ])?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/.exec(spec);
  if (!parsed) throw new TemplateRuntimeError(`'{${field}}': the format spec '${spec}' is not one slp reads`);
  const [, fillGiven, alignGiven, sign = "-", , zero, widthText, grouping, precisionText, type] = parsed;
  const n = numberOf(value);
  const isNumber = n !== null && typeof value !== "string";
  const precision = precisionText === undefined ? undefined : Number(precisionText);
  let body: string;
  if (!isNumber) {
    if (type !== undefined && type !== "s")
      throw new TemplateRuntimeError(`Unknown format code '${type}' for object of type '${typeName(value)}'`);
    body = printable(value);
    if (precision !== undefined) body = [...body].slice(0, precision).join("");
  } else {
    const abs = Math.abs(n);
    switch (type) {
      case "f":
      case "F":
        body = abs.toFixed(precision ?? 6);
        break;
      case "%":
        body = `${(abs * 100).toFixed(precision ?? 6)}%`;
        break;
      case "e":
      case "E":
        body = abs.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, "e$10$2");
        if (type === "E") body = body.toUpperCase();
        break;
      case "d":
      case "n":
        if (!Number.isInteger(n) || isFloat(value)) throw new TemplateRuntimeError("Unknown format code 'd' for object of type 'float'");
        body = String(abs);
        break;
      case "x":
      case "X":
      case "o":
      case "b":
        body = Math.trunc(abs).toString(type === "o" ? 8 : type === "b" ? 2 : 16);
        if (type === "X") body = body.toUpperCase();
        break;
      default:
        body = precision === undefined ? printable(isFloat(value) ? makeFloat(abs) : abs) : Number(abs.toPrecision(precision)).toString();
    }
    if (grouping) {
      const [whole = "", fraction] = body.split(".");
      body = whole.replace(/\B(?=(\d{3})+(?!\d))/g, grouping) + (fraction === undefined ? "" : `.${fraction}`);
    }
    const negative = n < 0 || Object.is(n, -0);
    body = (negative ? "-" : sign === "+" ? "+" : sign === " " ? " " : "") + body;
  }
  const width = widthText === undefined ? 0 : sized(widthText);
  const fill = fillGiven ?? (zero && !alignGiven ? "0" : " ");
  const align = alignGiven ?? (zero && isNumber ? "=" : isNumber ? ">" : "<");
  const missing = width - [...body].length;
  if (missing <= 0) return body;
  if (align === "<") return body + fill.repeat(missing);
  if (align === ">") return fill.repeat(missing) + body;
  if (align === "^") return fill.repeat(Math.floor(missing / 2)) + body + fill.repeat(Math.ceil(missing / 2));
  const signed = /^[-+ ]/.test(body) ? (body[0] as string) : "";
  return signed + fill.repeat(missing) + body.slice(signed.length);
}

/**
 * A JavaScript object lists keys that look like array indexes ('0', '2020')
 * first, in ascending order, and Python's dict lists keys as inserted. Where
 * a template inserts such a key after a larger one or after any other key,
 * the two orders differ: the mapping is marked, and iterating or printing
 * it is an error rather than a silently reordered text.
 */
const MISORDERED = new WeakSet<object>();
const KEY_ORDER = new WeakMap<object, { maxIndex: number; hasName: boolean }>();
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

function isIndexKey(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) <= 4_294_967_294;
}

/** Sets a mapping's key as data: `__proto__` is a key like any other. */
export function setKey(mapping: object, key: string, value: unknown): void {
  if (!Object.hasOwn(mapping, key)) {
    let order = KEY_ORDER.get(mapping);
    if (!order) {
      order = { maxIndex: -1, hasName: false };
      for (const existing of Object.keys(mapping)) {
        if (isIndexKey(existing)) order.maxIndex = Math.max(order.maxIndex, Number(existing));
        else order.hasName = true;
      }
      KEY_ORDER.set(mapping, order);
    }
    if (isIndexKey(key)) {
      if (order.hasName || order.maxIndex > Number(key)) MISORDERED.add(mapping);
      order.maxIndex = Math.max(order.maxIndex, Number(key));
    } else order.hasName = true;
  }
  Object.defineProperty(mapping, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A mapping's keys in Python's order; an error where JavaScript's order would differ (see MISORDERED). */
export function mappingKeys(mapping: object): string[] {
  if (MISORDERED.has(mapping)) {
    throw new TemplateRuntimeError(
      "this mapping has a key that is a whole number written as text (such as '2020') added after other keys; slp's mappings would list it in another order than Python's dict, so slp does not iterate or print it (use a list of pairs instead)",
    );
  }
  return Object.keys(mapping);
}

/** A mapping's (key, value) pairs in Python's order. */
export function mappingItems(mapping: Record<string, unknown>): unknown[][] {
  return mappingKeys(mapping).map((key) => tuple([key, mapping[key]]));
}

/** A dict's key: Python keys may be any hashable value; a JavaScript object keeps strings, so print them. */
export function keyOf(value: unknown): string {
  return typeof value === "string" ? value : printable(value);
}

/** Python's list methods, for `l.append(x)`; mutators return None. */
const LIST_METHODS: Record<string, (list: unknown[], ...args: any[]) => unknown> = {
  append(list, item) {
    spend();
    list.push(item);
    return null;
  },
  extend(list, items) {
    // A copy first: `l.extend(l)` must not see what it appends.
    const more = [...iterate(items)];
    spend(more.length);
    for (const item of more) list.push(item);
    return null;
  },
  insert(list, index, item) {
    spend();
    const at = numberOf(index) ?? 0;
    list.splice(at < 0 ? Math.max(0, list.length + at) : at, 0, item);
    return null;
  },
  pop(list, index) {
    if (list.length === 0) throw new TemplateRuntimeError("pop from empty list");
    const i = index === undefined ? list.length - 1 : (numberOf(index) ?? 0);
    const at = i < 0 ? list.length + i : i;
    if (at < 0 || at >= list.length) throw new TemplateRuntimeError("pop index out of range");
    return list.splice(at, 1)[0];
  },
  remove(list, item) {
    const at = list.findIndex((candidate) => pyEquals(candidate, item));
    if (at < 0) throw new TemplateRuntimeError(`list.remove(x): ${repr(item)} not in list`);
    list.splice(at, 1);
    return null;
  },
  index(list, item) {
    const at = list.findIndex((candidate) => pyEquals(candidate, item));
    if (at < 0) throw new TemplateRuntimeError(`${repr(item)} is not in list`);
    return at;
  },
  count: (list, item) => list.filter((candidate) => pyEquals(candidate, item)).length,
  reverse(list) {
    list.reverse();
    return null;
  },
  sort(list, ...args) {
    const { keywords } = splitArgs(args);
    spend(list.length);
    list.sort(pyCompare);
    if (truthy(keywords.reverse)) list.reverse();
    return null;
  },
  copy: (list) => [...list],
  clear(list) {
    list.length = 0;
    return null;
  },
};

/** Python's dict methods, for `d.items()`, `d.get('k')`; own keys only. */
const DICT_METHODS: Record<string, (mapping: Record<string, unknown>, ...args: any[]) => unknown> = {
  items: (mapping) => mappingItems(mapping),
  iteritems: (mapping) => mappingItems(mapping),
  keys: (mapping) => mappingKeys(mapping),
  iterkeys: (mapping) => mappingKeys(mapping),
  values: (mapping) => mappingKeys(mapping).map((key) => mapping[key]),
  itervalues: (mapping) => mappingKeys(mapping).map((key) => mapping[key]),
  get: (mapping, key, fallback = null) => (Object.hasOwn(mapping, keyOf(key)) ? mapping[keyOf(key)] : fallback),
  has_key: (mapping, key) => Object.hasOwn(mapping, keyOf(key)),
  pop(mapping, key, ...fallback) {
    const name = keyOf(key);
    if (!Object.hasOwn(mapping, name)) {
      if (fallback.length > 0) return fallback[0];
      throw new TemplateRuntimeError(`KeyError: ${repr(key)}`);
    }
    const value = mapping[name];
    delete mapping[name];
    return value;
  },
  popitem(mapping) {
    const keys = mappingKeys(mapping);
    const last = keys[keys.length - 1];
    if (last === undefined) throw new TemplateRuntimeError("popitem(): dictionary is empty");
    const value = mapping[last];
    delete mapping[last];
    return tuple([last, value]);
  },
  setdefault(mapping, key, fallback = null) {
    const name = keyOf(key);
    if (!Object.hasOwn(mapping, name)) setKey(mapping, name, fallback);
    return mapping[name];
  },
  update(mapping, ...args) {
    const { positional, keywords } = splitArgs(args);
    for (const source of [...positional, keywords]) {
      if (source === null || typeof source !== "object") continue;
      const entries = Array.isArray(source)
        ? (source as unknown[][]).map((pair) => [keyOf(pair[0]), pair[1]] as const)
        : Object.entries(source);
      spend(entries.length);
      for (const [key, value] of entries) setKey(mapping, key, value);
    }
    return null;
  },
  copy: (mapping) => {
    const copied = Object.assign(Object.create(null), mapping);
    if (MISORDERED.has(mapping)) MISORDERED.add(copied);
    return copied;
  },
  clear(mapping) {
    for (const key of Object.keys(mapping)) delete mapping[key];
    return null;
  },
};
