/**
 * The tree-walking interpreter: runs a parsed template against a scope (the
 * names its context provides), with Jinja2's scoping (a loop or a macro
 * opens a frame; `set` inside one does not leak out, namespace() does),
 * macros as callable values, and every call, iteration and character
 * written charged to the render's budget. No code is generated from
 * template text: the tree is walked.
 */
import type { Arguments, Expr, MacroDef, Stmt, Target } from "./ast.ts";
import { bounded, deeper, spend, withBudget, written } from "./budget.ts";
import { TemplateRuntimeError } from "./errors.ts";
import { applyFilter, type FilterEnv } from "./filters.ts";
import { MacroReturn } from "./return.ts";
import { applyTest } from "./tests.ts";
import {
  arithmetic,
  callArgs,
  contains,
  isPlainMapping,
  iterate,
  type JinjaCallable,
  keyOf,
  memberOf,
  Namespace,
  negate,
  plain,
  printable,
  pyCompare,
  pyEquals,
  pythonRange,
  setKey,
  slice,
  splitArgs,
  TEMPLATE_LOOKUP,
  truthy,
  tuple,
  typeName,
  Undefined,
} from "./values.ts";

/** Where a template looks up the names it does not define itself. */
export interface Scope {
  lookup(name: string): unknown;
}

/** Marks the functions that are a template's own macros (they take Python values as they are). */
const MACRO: unique symbol = Symbol("slp.macro");

/** Jinja2's global functions besides what the context gives. */
const GLOBALS: Record<string, unknown> = {
  range: pythonRange,
  namespace: (...args: unknown[]) => {
    const { positional, keywords } = splitArgs(args);
    const namespace = new Namespace();
    for (const source of [...positional, keywords]) {
      if (isPlainMapping(source)) for (const [key, value] of Object.entries(source)) setKey(namespace.attrs, key, value);
    }
    return namespace;
  },
  dict: (...args: unknown[]) => Object.assign(Object.create(null), splitArgs(args).keywords),
  /** `joiner(', ')`: a callable that returns "" the first time and the separator after. */
  joiner: (...args: unknown[]) => {
    const { positional, keywords } = splitArgs(args);
    const separator = positional[0] ?? keywords.sep ?? ", ";
    let used = false;
    return () => {
      const text = used ? separator : "";
      used = true;
      return text;
    };
  },
  /** `cycler('odd', 'even')`: next() walks the items round, `current` is the one next() returns next. */
  cycler: (...args: unknown[]) => {
    const items = splitArgs(args).positional;
    if (items.length === 0) throw new TemplateRuntimeError("at least one item has to be provided");
    let at = 0;
    return {
      [TEMPLATE_LOOKUP]: (name: string) => {
        if (name === "current") return items[at];
        if (name === "next")
          return () => {
            const item = items[at];
            at = (at + 1) % items.length;
            return item;
          };
        if (name === "reset")
          return () => {
            at = 0;
            return null;
          };
        return undefined;
      },
    };
  },
};

const NOT_FOUND: unique symbol = Symbol("not found");

class Frame {
  readonly vars = new Map<string, unknown>();
  constructor(readonly parent: Frame | null) {}
  find(name: string): unknown {
    for (let frame: Frame | null = this; frame; frame = frame.parent) {
      const value = frame.vars.get(name);
      if (value !== undefined || frame.vars.has(name)) return value;
    }
    return NOT_FOUND;
  }
}

enum Signal {
  Normal = 0,
  Break = 1,
  Continue = 2,
}

/** Remembers where an error happened: the innermost template line wins. */
function annotate(error: unknown, file: string, line: number): void {
  if (error instanceof Error && !("slpFile" in error)) Object.assign(error, { slpFile: file, slpLine: line });
}

/** One render (or one reading of a macro file) of one template. */
export class Run implements FilterEnv {
  readonly root = new Frame(null);
  /** The macros the template defines at its top level, in order. */
  readonly exported = new Map<string, JinjaCallable>();

  constructor(
    readonly file: string,
    readonly scope: Scope,
  ) {}

  /** Runs the template's top level and returns what it writes. */
  render(body: Stmt[]): string {
    const out: string[] = [];
    this.#exec(body, this.root, out);
    return out.join("");
  }

  filter(name: string, value: unknown, args: unknown[], kwargs: Record<string, unknown>): unknown {
    return bounded(applyFilter(name, value, args, kwargs, this));
  }

  test(name: string, value: unknown, args: unknown[]): boolean {
    spend();
    return applyTest(name, value, args);
  }

  #lookup(name: string, frame: Frame): unknown {
    const local = frame.find(name);
    if (local !== NOT_FOUND) return local;
    const fromScope = this.scope.lookup(name);
    if (fromScope !== undefined) return fromScope;
    if (Object.hasOwn(GLOBALS, name)) return GLOBALS[name];
    return new Undefined(`'${name}' is undefined`);
  }

  #exec(body: Stmt[], frame: Frame, out: string[]): Signal {
    for (const stmt of body) {
      try {
        const signal = this.#execOne(stmt, frame, out);
        if (signal !== Signal.Normal) return signal;
      } catch (error) {
        annotate(error, this.file, stmt.line);
        throw error;
      }
    }
    return Signal.Normal;
  }

  #execOne(stmt: Stmt, frame: Frame, out: string[]): Signal {
    switch (stmt.kind) {
      case "output":
        for (const node of stmt.nodes) {
          if (node.kind === "data") {
            out.push(written(node.text));
            continue;
          }
          try {
            const value = this.#eval(node, frame);
            if (value === undefined || value instanceof Undefined) {
              const what = value instanceof Undefined ? `${value.message}: ` : "";
              throw new TemplateRuntimeError(
                `${what}the template prints an undefined value (a name or attribute slp's dbt context does not have)`,
              );
            }
            out.push(written(printable(value)));
          } catch (error) {
            annotate(error, this.file, node.line);
            throw error;
          }
        }
        return Signal.Normal;
      case "if":
        return this.#exec(truthy(this.#eval(stmt.test, frame)) ? stmt.body : stmt.otherwise, frame, out);
      case "for":
        return this.#execFor(stmt, frame, out);
      case "set":
        this.#assign(stmt.target, this.#eval(stmt.value, frame), frame);
        return Signal.Normal;
      case "setblock": {
        const captured: string[] = [];
        this.#exec(stmt.body, frame, captured);
        const text = captured.join("");
        this.#assign(stmt.target, stmt.filter ? this.#evalFilter(stmt.filter, frame, text) : text, frame);
        return Signal.Normal;
      }
      case "macro": {
        const macro = this.#makeMacro(stmt.macro, frame);
        frame.vars.set(stmt.macro.name, macro);
        if (frame === this.root) this.exported.set(stmt.macro.name, macro);
        return Signal.Normal;
      }
      case "callblock": {
        const caller = this.#makeMacro(stmt.macro, frame);
        out.push(written(printable(this.#call(stmt.call, frame, caller))));
        return Signal.Normal;
      }
      case "filterblock": {
        const captured: string[] = [];
        this.#exec(stmt.body, frame, captured);
        out.push(written(printable(this.#evalFilter(stmt.filter, frame, captured.join("")))));
        return Signal.Normal;
      }
      case "do":
        this.#eval(stmt.expr, frame);
        return Signal.Normal;
      case "with": {
        const inner = new Frame(frame);
        stmt.targets.forEach((target, i) => {
          this.#assign(target, this.#eval(stmt.values[i] as Expr, frame), inner);
        });
        return this.#exec(stmt.body, inner, out);
      }
      case "break":
        return Signal.Break;
      case "continue":
        return Signal.Continue;
    }
  }

  #execFor(stmt: Stmt & { kind: "for" }, frame: Frame, out: string[]): Signal {
    if (stmt.recursive) throw new TemplateRuntimeError("recursive for loops are not supported by slp's Jinja");
    // Jinja2 iterates an undefined value as empty.
    let items = [...iterate(this.#eval(stmt.iter, frame))];
    spend(items.length);
    if (stmt.filter) {
      const test = stmt.filter;
      items = items.filter((item) => {
        const probe = new Frame(frame);
        this.#assign(stmt.target, item, probe);
        return truthy(this.#eval(test, probe));
      });
    }
    if (items.length === 0) return this.#exec(stmt.otherwise, frame, out);
    const length = items.length;
    let lastChanged: unknown[] | null = null;
    for (let i = 0; i < length; i++) {
      const inner = new Frame(frame);
      this.#assign(stmt.target, items[i], inner);
      const loop: Record<string, unknown> = Object.create(null);
      loop.index = i + 1;
      loop.index0 = i;
      loop.revindex = length - i;
      loop.revindex0 = length - i - 1;
      loop.first = i === 0;
      loop.last = i === length - 1;
      loop.length = length;
      loop.depth = 1;
      loop.depth0 = 0;
      loop.previtem = i > 0 ? items[i - 1] : new Undefined("there is no previous item");
      loop.nextitem = i < length - 1 ? items[i + 1] : new Undefined("there is no next item");
      loop.cycle = (...values: unknown[]) => {
        const { positional } = splitArgs(values);
        if (positional.length === 0) throw new TemplateRuntimeError("no items for cycling given");
        return positional[i % positional.length];
      };
      loop.changed = (...values: unknown[]) => {
        const { positional } = splitArgs(values);
        if (lastChanged !== null && pyEquals(lastChanged, positional)) return false;
        lastChanged = positional;
        return true;
      };
      inner.vars.set("loop", loop);
      const signal = this.#exec(stmt.body, inner, out);
      if (signal === Signal.Break) break;
    }
    return Signal.Normal;
  }

  #assign(target: Target, value: unknown, frame: Frame): void {
    if (target.kind === "name") {
      frame.vars.set(target.name, value);
      return;
    }
    if (target.kind === "nsref") {
      const namespace = this.#lookup(target.name, frame);
      if (!(namespace instanceof Namespace)) throw new TemplateRuntimeError("cannot assign attribute on non-namespace object");
      setKey(namespace.attrs, target.attr, value);
      return;
    }
    const items = iterate(value);
    if (items.length !== target.items.length) {
      throw new TemplateRuntimeError(
        items.length > target.items.length
          ? `too many values to unpack (expected ${target.items.length})`
          : `not enough values to unpack (expected ${target.items.length}, got ${items.length})`,
      );
    }
    target.items.forEach((item, i) => {
      this.#assign(item, items[i], frame);
    });
  }

  #eval(expr: Expr, frame: Frame): unknown {
    switch (expr.kind) {
      case "const":
        return expr.value;
      case "name":
        return this.#lookup(expr.name, frame);
      case "list":
        return expr.items.map((item) => this.#eval(item, frame));
      case "tuple":
        return tuple(expr.items.map((item) => this.#eval(item, frame)));
      case "dict": {
        const mapping: Record<string, unknown> = Object.create(null);
        for (const pair of expr.pairs) setKey(mapping, keyOf(this.#eval(pair.key, frame)), this.#eval(pair.value, frame));
        return mapping;
      }
      case "getattr": {
        const obj = this.#eval(expr.node, frame);
        if (obj instanceof Undefined) obj.fail();
        const value = memberOf(obj, expr.attr, "attr");
        return value === undefined ? new Undefined(`'${typeName(obj)} object' has no attribute '${expr.attr}'`) : value;
      }
      case "getitem": {
        const obj = this.#eval(expr.node, frame);
        if (obj instanceof Undefined) obj.fail();
        if (expr.arg.kind === "slice") {
          const { start, stop, step } = expr.arg;
          const bound = (node: Expr | null) => (node === null ? null : this.#eval(node, frame));
          return slice(obj, bound(start), bound(stop), bound(step));
        }
        const key = this.#eval(expr.arg, frame);
        const value = memberOf(obj, key, "item");
        return value === undefined ? new Undefined(`'${typeName(obj)} object' has no attribute '${printable(key)}'`) : value;
      }
      case "slice":
        throw new TemplateRuntimeError("a slice can only stand inside [ ]");
      case "call":
        return this.#call(expr, frame, null);
      case "filter":
        return this.#evalFilter(expr, frame, undefined);
      case "test": {
        const value = this.#eval(expr.node, frame);
        const { positional } = this.#arguments(expr, frame);
        return this.test(expr.name, value, positional);
      }
      case "binary":
        return bounded(arithmetic(expr.op, this.#eval(expr.left, frame), this.#eval(expr.right, frame)));
      case "unary": {
        const value = this.#eval(expr.node, frame);
        if (expr.op === "not") return !truthy(value);
        if (value instanceof Undefined) value.fail();
        return negate(value, expr.op === "neg" ? -1 : 1);
      }
      case "and": {
        const left = this.#eval(expr.left, frame);
        return truthy(left) ? this.#eval(expr.right, frame) : left;
      }
      case "or": {
        const left = this.#eval(expr.left, frame);
        return truthy(left) ? left : this.#eval(expr.right, frame);
      }
      case "compare": {
        let left = this.#eval(expr.first, frame);
        for (const { op, value } of expr.ops) {
          const right = this.#eval(value, frame);
          if (!compare(op, left, right)) return false;
          left = right;
        }
        return true;
      }
      case "concat": {
        let text = "";
        for (const item of expr.items) text += printable(this.#eval(item, frame));
        return bounded(text);
      }
      case "cond":
        if (truthy(this.#eval(expr.test, frame))) return this.#eval(expr.then, frame);
        // Jinja2 gives an Undefined that prints as nothing when there is no else.
        return expr.otherwise ? this.#eval(expr.otherwise, frame) : "";
    }
  }

  /** A filter expression; `input` stands for the innermost missing value (a filter block's body, `set x | f`). */
  #evalFilter(expr: Expr, frame: Frame, input: unknown): unknown {
    if (expr.kind !== "filter") return this.#eval(expr, frame);
    const value = expr.node === null ? input : this.#evalFilter(expr.node, frame, input);
    const { positional, keywords } = this.#arguments(expr, frame);
    return this.filter(expr.name, value, positional, keywords);
  }

  #arguments(call: Arguments, frame: Frame): { positional: unknown[]; keywords: Record<string, unknown> } {
    const positional = call.args.map((arg) => this.#eval(arg, frame));
    if (call.dynArgs) positional.push(...iterate(this.#eval(call.dynArgs, frame)));
    const keywords: Record<string, unknown> = Object.create(null);
    for (const { name, value } of call.kwargs) setKey(keywords, name, this.#eval(value, frame));
    if (call.dynKwargs) {
      const more = this.#eval(call.dynKwargs, frame);
      if (!isPlainMapping(more)) throw new TemplateRuntimeError("argument after ** must be a mapping");
      for (const [key, value] of Object.entries(more)) setKey(keywords, key, value);
    }
    return { positional, keywords };
  }

  #call(expr: Expr & { kind: "call" }, frame: Frame, caller: JinjaCallable | null): unknown {
    const callee = this.#eval(expr.node, frame);
    if (callee instanceof Undefined) callee.fail();
    if (typeof callee !== "function") throw new TemplateRuntimeError(`'${typeName(callee)}' object is not callable`);
    const { positional, keywords } = this.#arguments(expr, frame);
    if (caller) setKey(keywords, "caller", caller);
    spend();
    const own = (callee as { [MACRO]?: boolean })[MACRO] === true;
    const args = own
      ? callArgs(positional, keywords)
      : callArgs(positional.map(plain), Object.fromEntries(Object.entries(keywords).map(([key, value]) => [key, plain(value)])));
    const result = (callee as JinjaCallable)(...args);
    return bounded(result === undefined ? null : result);
  }

  #makeMacro(def: MacroDef, closure: Frame): JinjaCallable {
    const macro = (...raw: unknown[]) =>
      withBudget(() => {
        const leave = deeper();
        try {
          return this.#invoke(def, closure, raw);
        } catch (error) {
          if (error instanceof MacroReturn) return error.value;
          annotate(error, this.file, def.line);
          throw error;
        } finally {
          leave();
        }
      });
    Object.defineProperty(macro, MACRO, { value: true });
    return macro;
  }

  #invoke(def: MacroDef, closure: Frame, raw: unknown[]): string {
    const { positional, keywords } = splitArgs(raw);
    const frame = new Frame(closure);
    const rest = { ...keywords };
    def.params.forEach((param, i) => {
      let value: unknown;
      if (i < positional.length) {
        if (Object.hasOwn(rest, param.name))
          throw new TemplateRuntimeError(`macro '${def.name}' got multiple values for argument '${param.name}'`);
        value = positional[i];
      } else if (Object.hasOwn(rest, param.name)) {
        value = rest[param.name];
        delete rest[param.name];
      } else if (param.default) value = this.#eval(param.default, frame);
      else value = new Undefined(`parameter '${param.name}' was not provided`);
      frame.vars.set(param.name, value);
    });
    const extra = positional.slice(def.params.length);
    if (extra.length > 0 && !def.usesVarargs)
      throw new TemplateRuntimeError(`macro '${def.name}' takes not more than ${def.params.length} argument(s)`);
    if (def.usesVarargs) frame.vars.set("varargs", extra);
    if (Object.hasOwn(rest, "caller")) {
      frame.vars.set("caller", rest.caller);
      delete rest.caller;
    }
    const unknown = Object.keys(rest);
    if (def.usesKwargs) frame.vars.set("kwargs", Object.assign(Object.create(null), rest));
    else if (unknown.length > 0) throw new TemplateRuntimeError(`macro '${def.name}' takes no keyword argument '${unknown[0]}'`);
    const out: string[] = [];
    this.#exec(def.body, frame, out);
    return out.join("");
  }
}

function compare(op: string, left: unknown, right: unknown): boolean {
  switch (op) {
    case "==":
      return pyEquals(left, right);
    case "!=":
      return !pyEquals(left, right);
    case "in":
      return contains(right, left);
    case "notin":
      return !contains(right, left);
    case "<":
      return pyCompare(left, right) < 0;
    case "<=":
      return pyCompare(left, right) <= 0;
    case ">":
      return pyCompare(left, right) > 0;
    default:
      return pyCompare(left, right) >= 0;
  }
}
