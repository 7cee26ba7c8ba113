/**
 * The Jinja adapter: what the rest of slp calls to render dbt's Jinja. The
 * engine is our own (src/sql/jinja/: a Jinja2 lexer, parser and
 * tree-walking interpreter with Python's value semantics), so every
 * construct dbt's Jinja2 accepts parses as it does there, and no code is
 * ever generated from template text.
 *
 * It is also the sandbox. A template is agent-written code, so it reaches
 * nothing but the values put in its context: a member lookup sees a
 * mapping's own keys, a list's items, Python's methods and what a context
 * object lists under TEMPLATE_LOOKUP, never a constructor, a prototype or a
 * global; there are no loaders (no include, import, extends). dbt renders
 * with Jinja's SandboxedEnvironment, which blocks `_` attributes and caps
 * range() at 100,000 items; this does as much, and bounds nesting depth,
 * steps (loop iterations and calls) and output (src/core/limits.ts).
 */
import { SlpError } from "../core/errors.ts";
import { LimitError } from "../core/limits.ts";
import type { Stmt } from "./jinja/ast.ts";
import { tooDeepIfOverflow, withBudget } from "./jinja/budget.ts";
import { TemplateFailure, TemplateSyntaxError } from "./jinja/errors.ts";

export { TemplateFailure } from "./jinja/errors.ts";
export { toJson } from "./jinja/filters.ts";
import type { Run, Scope } from "./jinja/interpreter.ts";
import { MacroReturn } from "./jinja/return.ts";
import { type JinjaCallable, memberOf } from "./jinja/values.ts";

export type { Scope } from "./jinja/interpreter.ts";
export { macroReturn } from "./jinja/return.ts";
export {
  exposeMembers,
  iterate,
  type JinjaCallable,
  makeFloat,
  PY_OPERATORS,
  type PyOperators,
  PyFloat,
  printable,
  pythonRange,
  SandboxError,
  splitArgs,
  TEMPLATE_LOOKUP,
  tuple,
  Undefined,
  Unknowable,
} from "./jinja/values.ts";

/** The member `key` of `obj` as a template's `obj.key` sees it (undefined when there is none). */
export function templateMember(obj: unknown, key: unknown): unknown {
  return memberOf(obj, key, "attr");
}

/** The parser and interpreter, loaded on first use: a template whose only Jinja is literal ref()/source() calls never needs them. */
type Engine = typeof import("./jinja/parser.ts") & typeof import("./jinja/interpreter.ts");
let engine: Engine | undefined;
function loadEngine(): Engine {
  engine ??= { ...require("./jinja/parser.ts"), ...require("./jinja/interpreter.ts") } as Engine;
  return engine;
}

/** A parsed template: a model's SQL, a macro file, a fixture. */
export class JinjaTemplate {
  readonly file: string;
  readonly #body: Stmt[];

  /** Parses `source`; a syntax error is a TemplateFailure naming `file` and the line. */
  constructor(source: string, file: string) {
    this.file = file;
    try {
      this.#body = loadEngine().parseTemplate(source).body;
    } catch (error) {
      throw failure(tooDeepIfOverflow(error), file);
    }
  }

  /** Renders with `scope` for every name the template does not set itself. */
  render(scope: Scope): string {
    return this.#run(new (loadEngine().Run)(this.file, scope));
  }

  /** Runs the file's top level and returns the macros it defines, each callable with dbt's `return()`. */
  macros(scope: Scope): Map<string, JinjaCallable> {
    const run = new (loadEngine().Run)(this.file, scope);
    this.#run(run);
    return run.exported;
  }

  #run(run: Run): string {
    try {
      return withBudget(() => run.render(this.#body));
    } catch (error) {
      // `{{ return(x) }}` at a template's top level ends it, as dbt's does.
      if (error instanceof MacroReturn) return "";
      throw failure(tooDeepIfOverflow(error), this.file);
    }
  }
}

/** The name a wrapped expression hands its value to; an expression that names it is refused (it could forge its value). */
const CAPTURE = "__slp_expression_value__";

/**
 * The value of one Jinja expression (a `config()` argument as dbt evaluates
 * it at parse time), with `scope` for its names. `filter` is the name of the
 * filter applied last at its top level (`as_bool` in `x | as_bool`), for
 * dbt's native rendering. A text that is not exactly one expression is a
 * TemplateFailure, as is anything the expression does that Jinja refuses.
 */
export function evaluateExpression(text: string, file: string, scope: Scope): { value: unknown; filter: string | null } {
  if (text.includes(CAPTURE)) throw new TemplateFailure(`the expression names ${CAPTURE}`, file, 1);
  const { parseTemplate, Run } = loadEngine();
  let body: Stmt[];
  try {
    body = parseTemplate(`{% do ${CAPTURE}(${text}\n) %}`).body;
  } catch (error) {
    throw failure(tooDeepIfOverflow(error), file);
  }
  const [only] = body;
  const call = only?.kind === "do" && only.expr.kind === "call" ? only.expr : null;
  const argument = call && call.node.kind === "name" && call.node.name === CAPTURE && call.args.length === 1 ? call.args[0] : undefined;
  if (body.length !== 1 || !call || argument === undefined || call.kwargs.length > 0 || call.dynArgs || call.dynKwargs)
    throw new TemplateFailure(`'${text}' is not one Jinja expression`, file, 1);
  let value: unknown;
  const capturing: Scope = {
    lookup: (name) =>
      name === CAPTURE
        ? (captured: unknown) => {
            value = captured;
            return null;
          }
        : scope.lookup(name),
  };
  try {
    withBudget(() => new Run(file, capturing).render(body));
  } catch (error) {
    throw failure(tooDeepIfOverflow(error), file);
  }
  return { value, filter: argument.kind === "filter" ? argument.name : null };
}

/** Turns whatever the engine or a context function threw into a TemplateFailure with the innermost place. */
function failure(error: unknown, file: string): TemplateFailure {
  if (error instanceof TemplateFailure) return error;
  const place = error as { slpFile?: string; slpLine?: number };
  const line = place.slpLine ?? (error instanceof TemplateSyntaxError ? error.line : error instanceof SlpError ? error.line : undefined);
  const message = error instanceof Error ? error.message : String(error);
  const origin = error instanceof SlpError || error instanceof LimitError ? error : undefined;
  return new TemplateFailure(message, place.slpFile ?? file, line, origin);
}

/**
 * dbt's Var.get_rendered_var: a var whose value is text holding Jinja is
 * rendered with `scope` when it is read (dbt leaves dbt_project.yml's vars
 * unrendered until then); any other value is returned as it is. `rendering`
 * holds the vars being rendered, so one that reaches itself is `refuse`d
 * rather than recursed into.
 */
export function renderedVar(
  name: string,
  value: unknown,
  scope: Scope,
  rendering: Set<string>,
  refuse: (message: string) => never,
): unknown {
  if (typeof value !== "string" || !/\{[{%#]/.test(value)) return value;
  if (rendering.has(name)) refuse(`var '${name}' renders to a text that reads var('${name}') again`);
  rendering.add(name);
  try {
    return new JinjaTemplate(value, "dbt_project.yml").render(scope);
  } finally {
    rendering.delete(name);
  }
}
