/**
 * Jinja2's builtin filters (jinja2/filters.py) that dbt code uses, and dbt's
 * own (as_bool, as_number, as_native, as_text, which print their value
 * where slp renders text). Each declares its parameters as Jinja2 names
 * them, so keyword arguments bind as they do there; attribute names are
 * read through the sandbox, and sizes are paid for before they are built.
 */
import { sized, spend } from "./budget.ts";
import { TemplateRuntimeError } from "./errors.ts";
import {
  center,
  isFloat,
  isPlainMapping,
  iterate,
  makeFloat,
  mappingItems,
  mappingKeys,
  memberOf,
  numberOf,
  percentFormat,
  printable,
  pyCompare,
  pyEquals,
  PyFloat,
  replaceText,
  repr,
  truthy,
  tuple,
  typeName,
  Undefined,
} from "./values.ts";

/** What a filter may ask of the engine: another filter or test by name, a call of a template value. */
export interface FilterEnv {
  filter(name: string, value: unknown, args: unknown[], kwargs: Record<string, unknown>): unknown;
  test(name: string, value: unknown, args: unknown[], kwargs: Record<string, unknown>): boolean;
}

interface Filter {
  params: string[];
  /** `a` holds each parameter by name (undefined when not given); `rest` the positional arguments past them. */
  run(value: unknown, a: Record<string, unknown>, rest: unknown[], env: FilterEnv, kwargs: Record<string, unknown>): unknown;
  /** The filter takes keyword arguments it does not declare (map, select, format pass them on). */
  open?: boolean;
}

/** A dotted attribute path (`a.b`, `items.0`) read through the sandbox, as Jinja's make_attrgetter reads it. */
export function attributeOf(item: unknown, path: unknown): unknown {
  let value = item;
  for (const part of String(path).split(".")) value = memberOf(value, /^-?\d+$/.test(part) ? Number(part) : part, "item");
  return value;
}

function attributeGetter(attribute: unknown, caseSensitive = true, fallback?: unknown): (item: unknown) => unknown {
  return (item) => {
    let value = attribute === undefined || attribute === null ? item : attributeOf(item, attribute);
    if (value === undefined && fallback !== undefined) value = fallback;
    return !caseSensitive && typeof value === "string" ? value.toLowerCase() : value;
  };
}

function list(value: unknown): unknown[] {
  const items = iterate(value);
  spend(items.length);
  return items;
}

function text(value: unknown): string {
  return printable(value);
}

function sortBy(items: unknown[], key: (item: unknown) => unknown, reverse: boolean): unknown[] {
  const keyed = items.map((item) => ({ item, key: key(item) }));
  keyed.sort((a, b) => pyCompare(a.key, b.key));
  if (reverse) keyed.reverse();
  return keyed.map((entry) => entry.item);
}

/** select/reject/selectattr/rejectattr: a test by name with its arguments, or truth. */
function selectOrReject(
  items: unknown,
  rest: unknown[],
  kwargs: Record<string, unknown>,
  env: FilterEnv,
  keep: boolean,
  lookupAttribute: boolean,
): unknown[] {
  const args = [...rest];
  const attribute = lookupAttribute ? args.shift() : undefined;
  const getter = lookupAttribute ? attributeGetter(attribute) : (item: unknown) => item;
  const testName = args.shift();
  const check =
    testName === undefined ? (value: unknown) => truthy(value) : (value: unknown) => env.test(text(testName), value, args, kwargs);
  return list(items).filter((item) => check(getter(item)) === keep);
}

function toInt(value: unknown, fallback: unknown = 0, base: unknown = 10): unknown {
  if (typeof value === "string") {
    const trimmed = value.trim().replace(/_/g, "");
    const radix = numberOf(base) ?? 10;
    if (radix === 10 && /^[-+]?\d+$/.test(trimmed)) return Number(trimmed);
    if (radix !== 10) {
      const parsed = Number.parseInt(trimmed.replace(/^0[xob]/i, ""), radix);
      if (!Number.isNaN(parsed)) return parsed;
    }
    if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return Math.trunc(Number(trimmed));
    return fallback;
  }
  const n = numberOf(value);
  return n === null || !Number.isFinite(n) ? fallback : Math.trunc(n);
}

function toFloat(value: unknown, fallback: unknown = new PyFloat(0)): unknown {
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return makeFloat(Number(trimmed));
    if (/^[-+]?(inf|infinity|nan)$/i.test(trimmed)) return Number(trimmed.replace(/inf(inity)?/i, "Infinity").replace(/nan/i, "NaN"));
    return fallback;
  }
  const n = numberOf(value);
  return n === null ? fallback : makeFloat(n);
}

function pyRound(value: number, precision: number, method: string): number {
  const factor = 10 ** precision;
  const scaled = value * factor;
  if (method === "ceil") return Math.ceil(scaled) / factor;
  if (method === "floor") return Math.floor(scaled) / factor;
  // Python's round(): half to even, on the decimal the float stands for.
  const rounded = Math.round(scaled);
  const halfway = Math.abs(scaled - Math.trunc(scaled)) === 0.5;
  return (halfway && rounded % 2 !== 0 ? rounded - 1 : rounded) / factor;
}

/** Python's json.dumps (ensure_ascii, its separators, `indent`), keys sorted unless `sortKeys` is false. */
export function toJson(value: unknown, indent?: unknown, sortKeys = true): string {
  const width = numberOf(indent);
  const newline = (depth: number) => (width === null ? "" : `\n${" ".repeat(width * depth)}`);
  const comma = width === null ? ", " : ",";
  const dump = (v: unknown, depth: number): string => {
    if (depth > 256) throw new TemplateRuntimeError("tojson: the value nests too deeply");
    if (v === null || v === undefined || v instanceof Undefined) return "null";
    if (v === true || v === false) return String(v);
    if (v instanceof PyFloat || typeof v === "number") {
      const n = numberOf(v) as number;
      if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
      return printable(v);
    }
    if (typeof v === "string") return JSON.stringify(v);
    if (typeof v === "function") throw new TemplateRuntimeError("Object of type function is not JSON serializable");
    const inner = (items: string[], open: string, close: string) =>
      items.length === 0
        ? `${open}${close}`
        : `${open}${newline(depth + 1)}${items.join(`${comma}${newline(depth + 1)}`)}${newline(depth)}${close}`;
    if (Array.isArray(v))
      return inner(
        v.map((item) => dump(item, depth + 1)),
        "[",
        "]",
      );
    if (isPlainMapping(v)) {
      const keys = sortKeys ? Object.keys(v).sort() : mappingKeys(v);
      return inner(
        keys.map((key) => `${JSON.stringify(key)}: ${dump(v[key], depth + 1)}`),
        "{",
        "}",
      );
    }
    return JSON.stringify(printable(v));
  };
  return dump(value, 0).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function escapeHtml(value: unknown): string {
  return text(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;").replace(/'/g, "&#39;");
}

const identity: Filter = { params: [], run: (value) => value };

/** `max` (sign 1) and `min` (sign -1): the first item whose key is largest, or smallest. */
function extreme(sign: 1 | -1): Filter {
  return {
    params: ["case_sensitive", "attribute"],
    run: (value, a) => {
      const items = list(value);
      if (items.length === 0) return new Undefined("No aggregated item, sequence was empty.");
      const key = attributeGetter(a.attribute, truthy(a.case_sensitive));
      return items.reduce((best, item) => (pyCompare(key(item), key(best)) * sign > 0 ? item : best));
    },
  };
}

const FILTERS: Record<string, Filter> = {
  abs: {
    params: [],
    run: (value) => {
      const n = numberOf(value);
      if (n === null) throw new TemplateRuntimeError(`bad operand type for abs(): '${typeName(value)}'`);
      return isFloat(value) ? makeFloat(Math.abs(n)) : Math.abs(n);
    },
  },
  attr: {
    params: ["name"],
    run: (value, a) => memberOf(value, text(a.name)) ?? new Undefined(`${typeName(value)} object has no attribute '${text(a.name)}'`),
  },
  batch: {
    params: ["linecount", "fill_with"],
    run: (value, a) => {
      const items = list(value);
      const count = Math.max(1, sized(a.linecount));
      const out: unknown[][] = [];
      for (let i = 0; i < items.length; i += count) out.push(items.slice(i, i + count));
      const last = out[out.length - 1];
      if (a.fill_with !== undefined && last) while (last.length < count) last.push(a.fill_with);
      return out;
    },
  },
  capitalize: { params: [], run: (value) => ((t) => (t ? (t[0] as string).toUpperCase() + t.slice(1).toLowerCase() : t))(text(value)) },
  center: { params: ["width"], run: (value, a) => center(text(value), a.width ?? 80) },
  default: {
    params: ["default_value", "boolean"],
    run: (value, a) =>
      value === undefined || value instanceof Undefined || (truthy(a.boolean) && !truthy(value)) ? (a.default_value ?? "") : value,
  },
  dictsort: {
    params: ["case_sensitive", "by", "reverse"],
    run: (value, a) => {
      if (!isPlainMapping(value)) throw new TemplateRuntimeError("You can only sort by either 'key' or 'value'");
      const position = a.by === "value" ? 1 : 0;
      const caseSensitive = truthy(a.case_sensitive);
      const key = (pair: unknown) => {
        const v = (pair as unknown[])[position];
        return !caseSensitive && typeof v === "string" ? v.toLowerCase() : v;
      };
      return sortBy(Object.entries(value).map(tuple), key, truthy(a.reverse));
    },
  },
  escape: { params: [], run: (value) => escapeHtml(value) },
  first: {
    params: [],
    run: (value) => {
      const items = iterate(value);
      return items.length > 0 ? items[0] : new Undefined("No first item, sequence was empty.");
    },
  },
  float: { params: ["default"], run: (value, a) => toFloat(value, a.default === undefined ? new PyFloat(0) : a.default) },
  forceescape: { params: [], run: (value) => escapeHtml(value) },
  format: {
    params: [],
    open: true,
    run: (value, _a, rest, _env, kwargs) => {
      if (Object.keys(kwargs).length > 0 && rest.length > 0)
        throw new TemplateRuntimeError("can't handle positional and keyword arguments at the same time");
      const values = Object.keys(kwargs).length > 0 ? Object.assign(Object.create(null), kwargs) : rest;
      return percentFormat(text(value), values);
    },
  },
  groupby: {
    params: ["attribute", "default", "case_sensitive"],
    run: (value, a) => {
      const getter = attributeGetter(a.attribute, truthy(a.case_sensitive), a.default);
      const sorted = sortBy(list(value), getter, false);
      const groups: unknown[][] = [];
      for (const item of sorted) {
        const key = getter(item);
        const last = groups[groups.length - 1];
        if (last && pyEquals(last[0], key)) (last[1] as unknown[]).push(item);
        else groups.push(tuple([key, [item]]));
      }
      return groups;
    },
  },
  indent: {
    params: ["width", "first", "blank"],
    run: (value, a) => {
      const pad = typeof a.width === "string" ? a.width : " ".repeat(sized(a.width ?? 4));
      const lines = text(value).split("\n");
      sized(pad.length * lines.length);
      return lines.map((line, i) => ((i === 0 && !truthy(a.first)) || (line === "" && !truthy(a.blank)) ? line : pad + line)).join("\n");
    },
  },
  int: { params: ["default", "base"], run: (value, a) => toInt(value, a.default ?? 0, a.base ?? 10) },
  items: {
    params: [],
    run: (value) => {
      if (value === undefined || value instanceof Undefined) return [];
      if (!isPlainMapping(value)) throw new TemplateRuntimeError(`Can only get item pairs from a mapping, not ${typeName(value)}`);
      return mappingItems(value);
    },
  },
  join: {
    params: ["d", "attribute"],
    run: (value, a) => {
      const items = list(value);
      const getter = attributeGetter(a.attribute);
      return items.map((item) => text(getter(item))).join(a.d === undefined ? "" : text(a.d));
    },
  },
  last: {
    params: [],
    run: (value) => {
      const items = iterate(value);
      return items.length > 0 ? items[items.length - 1] : new Undefined("No last item, sequence was empty.");
    },
  },
  length: {
    params: [],
    run: (value) => {
      if (typeof value === "string") return [...value].length;
      if (Array.isArray(value)) return value.length;
      if (isPlainMapping(value)) return Object.keys(value).length;
      if (value === undefined || value instanceof Undefined) return 0;
      throw new TemplateRuntimeError(`object of type '${typeName(value)}' has no len()`);
    },
  },
  list: { params: [], run: (value) => [...list(value)] },
  lower: { params: [], run: (value) => text(value).toLowerCase() },
  map: {
    params: [],
    open: true,
    run: (value, _a, rest, env, kwargs) => {
      const items = list(value);
      if (kwargs.attribute !== undefined) {
        const getter = attributeGetter(kwargs.attribute, true, kwargs.default);
        return items.map(getter);
      }
      const [name, ...args] = rest;
      if (name === undefined) return items;
      return items.map((item) => env.filter(text(name), item, args, kwargs));
    },
  },
  max: extreme(1),
  min: extreme(-1),
  pprint: { params: [], run: (value) => repr(value) },
  reject: { params: [], open: true, run: (value, _a, rest, env, kwargs) => selectOrReject(value, rest, kwargs, env, false, false) },
  rejectattr: { params: [], open: true, run: (value, _a, rest, env, kwargs) => selectOrReject(value, rest, kwargs, env, false, true) },
  replace: {
    params: ["old", "new", "count"],
    run: (value, a) => replaceText(text(value), text(a.old), text(a.new), numberOf(a.count) ?? -1),
  },
  reverse: {
    params: [],
    run: (value) => (typeof value === "string" ? [...value].reverse().join("") : [...list(value)].reverse()),
  },
  round: {
    params: ["precision", "method"],
    run: (value, a) => {
      const n = numberOf(value);
      if (n === null) throw new TemplateRuntimeError(`round: a number is required, not ${typeName(value)}`);
      const method = a.method === undefined ? "common" : text(a.method);
      if (!["common", "ceil", "floor"].includes(method)) throw new TemplateRuntimeError("method must be common, ceil or floor");
      return makeFloat(pyRound(n, numberOf(a.precision) ?? 0, method));
    },
  },
  safe: identity,
  select: { params: [], open: true, run: (value, _a, rest, env, kwargs) => selectOrReject(value, rest, kwargs, env, true, false) },
  selectattr: { params: [], open: true, run: (value, _a, rest, env, kwargs) => selectOrReject(value, rest, kwargs, env, true, true) },
  slice: {
    params: ["slices", "fill_with"],
    run: (value, a) => {
      const items = list(value);
      const count = Math.max(1, sized(a.slices));
      spend(count);
      const size = Math.floor(items.length / count);
      const extra = items.length % count;
      const out: unknown[][] = [];
      let offset = 0;
      for (let i = 0; i < count; i++) {
        const end = offset + size + (i < extra ? 1 : 0);
        const part = items.slice(offset, end);
        if (a.fill_with !== undefined && i >= extra && extra > 0) part.push(a.fill_with);
        out.push(part);
        offset = end;
      }
      return out;
    },
  },
  sort: {
    params: ["reverse", "case_sensitive", "attribute"],
    run: (value, a) => sortBy([...list(value)], attributeGetter(a.attribute, truthy(a.case_sensitive)), truthy(a.reverse)),
  },
  string: { params: [], run: (value) => text(value) },
  striptags: {
    params: [],
    run: (value) =>
      text(value)
        .replace(/<!--[\s\S]*?-->|<[^>]*>/g, "")
        .replace(/\s+/g, " ")
        .trim(),
  },
  sum: {
    params: ["attribute", "start"],
    run: (value, a) => {
      const getter = attributeGetter(a.attribute);
      let total: unknown = a.start ?? 0;
      for (const item of list(value)) {
        const add = getter(item);
        const x = numberOf(total);
        const y = numberOf(add);
        if (x === null || y === null)
          throw new TemplateRuntimeError(`unsupported operand type(s) for +: '${typeName(total)}' and '${typeName(add)}'`);
        total = isFloat(total) || isFloat(add) ? makeFloat(x + y) : x + y;
      }
      return total;
    },
  },
  title: {
    params: [],
    run: (value) => text(value).replace(/[A-Za-z]+('[A-Za-z]+)?/g, (w) => (w[0] as string).toUpperCase() + w.slice(1).toLowerCase()),
  },
  // Jinja's htmlsafe_json_dumps: sorted keys, and <, >, & and ' escaped so the text is safe in HTML.
  tojson: {
    params: ["indent"],
    run: (value, a) =>
      toJson(value, a.indent).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026").replace(/'/g, "\\u0027"),
  },
  trim: {
    params: ["chars"],
    run: (value, a) => {
      const t = text(value);
      if (a.chars === undefined || a.chars === null) return t.trim();
      const chars = text(a.chars);
      let from = 0;
      let to = t.length;
      while (from < to && chars.includes(t[from] as string)) from++;
      while (to > from && chars.includes(t[to - 1] as string)) to--;
      return t.slice(from, to);
    },
  },
  truncate: {
    params: ["length", "killwords", "end", "leeway"],
    run: (value, a) => {
      const t = text(value);
      const length = numberOf(a.length) ?? 255;
      const end = a.end === undefined ? "..." : text(a.end);
      const leeway = numberOf(a.leeway) ?? 5;
      if (t.length <= length + leeway) return t;
      if (truthy(a.killwords)) return t.slice(0, length - end.length) + end;
      const cut = t.slice(0, length - end.length);
      const space = cut.lastIndexOf(" ");
      return (space > 0 ? cut.slice(0, space) : cut) + end;
    },
  },
  unique: {
    params: ["case_sensitive", "attribute"],
    run: (value, a) => {
      const getter = attributeGetter(a.attribute, truthy(a.case_sensitive));
      const seen: unknown[] = [];
      const out: unknown[] = [];
      for (const item of list(value)) {
        const key = getter(item);
        if (!seen.some((candidate) => pyEquals(candidate, key))) {
          seen.push(key);
          out.push(item);
        }
      }
      return out;
    },
  },
  upper: { params: [], run: (value) => text(value).toUpperCase() },
  urlencode: {
    params: [],
    run: (value) =>
      isPlainMapping(value)
        ? mappingItems(value)
            .map(([k, v]) => `${encodeURIComponent(text(k))}=${encodeURIComponent(text(v))}`)
            .join("&")
        : encodeURIComponent(text(value)).replace(/%2F/g, "/"),
  },
  wordcount: { params: [], run: (value) => (text(value).match(/\w+/g) ?? []).length },
  wordwrap: {
    params: ["width", "break_long_words", "wrapstring"],
    run: (value, a) => {
      const width = numberOf(a.width) ?? 79;
      const words = text(value).split(/\s+/).filter(Boolean);
      const lines: string[] = [];
      let line = "";
      for (const word of words) {
        if (line && line.length + 1 + word.length > width) {
          lines.push(line);
          line = word;
        } else line = line ? `${line} ${word}` : word;
      }
      if (line) lines.push(line);
      return lines.join(a.wrapstring === undefined ? "\n" : text(a.wrapstring));
    },
  },
  // dbt's filters: where slp renders text (not dbt's native rendering of yml values), each prints its value.
  as_bool: identity,
  as_native: identity,
  as_number: identity,
  as_text: identity,
};
FILTERS.d = FILTERS.default as Filter;
FILTERS.e = FILTERS.escape as Filter;
FILTERS.count = FILTERS.length as Filter;

/** Runs the filter `name`; an unknown name is an error, as in Jinja2. */
export function applyFilter(name: string, value: unknown, args: unknown[], kwargs: Record<string, unknown>, env: FilterEnv): unknown {
  if (!Object.hasOwn(FILTERS, name)) throw new TemplateRuntimeError(`filter not found: ${name}`);
  const filter = FILTERS[name] as Filter;
  const bound: Record<string, unknown> = Object.create(null);
  filter.params.forEach((param, i) => {
    if (i < args.length) bound[param] = args[i];
  });
  const extra: Record<string, unknown> = Object.create(null);
  for (const [key, given] of Object.entries(kwargs)) {
    if (filter.params.includes(key)) bound[key] = given;
    else if (filter.open) extra[key] = given;
    else throw new TemplateRuntimeError(`filter '${name}' got an unexpected keyword argument '${key}'`);
  }
  const rest = args.slice(filter.params.length);
  if (rest.length > 0 && !filter.open) throw new TemplateRuntimeError(`filter '${name}' takes at most ${filter.params.length} argument(s)`);
  spend();
  return filter.run(value, bound, rest, env, extra);
}
