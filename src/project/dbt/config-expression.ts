/**
 * Judges the Jinja in a node's configuration the way dbt renders it at parse
 * time, with slp's own Jinja interpreter: a `config(enabled=..., tags=...)`
 * argument (evaluated as a Python value, dbt's as_bool/as_number/as_native/
 * as_text handing their value through, as in dbt's text rendering) and a
 * folder config of dbt_project.yml written as Jinja (rendered natively, as
 * dbt's DbtProjectYamlRenderer does, where var() sees --vars only).
 *
 * The parse-time context is var() (the given scopes, a string value itself
 * rendered as dbt's Var.get_rendered_var does), target.name (slp's target is
 * `dev`, as when it renders models), and Jinja's own filters and tests.
 * Anything else (a macro, env_var, another target field) decides nothing
 * here by guess: the answer says why it cannot be judged, so the caller can
 * refuse naming the expression where the answer matters.
 */
import { SlpError } from "../../core/errors.ts";
import { isMapping, type Mapping, type Value } from "../../core/values.ts";
import type { Scope } from "../../sql/jinja.ts";

/**
 * The Jinja adapter, loaded on first use: most projects' config() arguments are
 * literals, and a command that judges none (check on most projects) loads no engine.
 */
let loadedJinja: typeof import("../../sql/jinja.ts") | undefined;
function jinja(): typeof import("../../sql/jinja.ts") {
  loadedJinja ??= require("../../sql/jinja.ts") as typeof import("../../sql/jinja.ts");
  return loadedJinja;
}

/** Where var() looks, in dbt's order: each mapping's `name` key, the first that has it wins. */
export interface ExpressionScope {
  /** The var sources in precedence order (each a flat mapping of names). */
  vars: readonly Mapping[];
}

/** The var scopes a node of package `pkg` sees: --vars, the root project's block for the package, its globals, then the package's own. */
export function varScopes(cliVars: Mapping, rootVars: Mapping, pkg: string, root: string, ownVars: Mapping | null): Mapping[] {
  const scopedIn = (vars: Mapping) => (isMapping(vars[pkg]) ? (vars[pkg] as Mapping) : {});
  return [cliVars, scopedIn(rootVars), rootVars, ...(ownVars && pkg !== root ? [scopedIn(ownVars), ownVars] : [])];
}

export type Judged = { value: Value } | { why: string };

/** Something the parse-time context does not answer: the expression cannot be judged, and this says why. */
class CannotJudge extends SlpError {
  constructor(why: string) {
    super("E_RENDER", why);
  }
}

const FILE = "config()";

/** The context dbt renders a config at parse time with, as far as slp can know it. */
function parseScope(scope: ExpressionScope): Scope {
  const rendering = new Set<string>();
  const target = {
    [jinja().TEMPLATE_LOOKUP]: (name: string) => {
      if (name === "name") return "dev";
      throw new CannotJudge(`it reads target.${name}, which depends on the profile`);
    },
  };
  const context: Scope = {
    lookup: (name) => {
      switch (name) {
        case "var":
          return (...args: unknown[]) => readVar(args, scope, context, rendering);
        case "target":
          return target;
        case "env_var":
          return (key: unknown) => {
            throw new CannotJudge(`it reads env_var('${jinja().printable(key)}'), which depends on the environment dbt runs in`);
          };
        default:
          return undefined;
      }
    },
  };
  return context;
}

function readVar(args: unknown[], scope: ExpressionScope, context: Scope, rendering: Set<string>): unknown {
  const { positional, keywords } = jinja().splitArgs(args);
  const name = positional[0];
  if (typeof name !== "string" || positional.length > 2) throw new CannotJudge("it calls var() with arguments slp cannot read");
  for (const vars of scope.vars) {
    if (!Object.hasOwn(vars, name)) continue;
    return jinja().renderedVar(name, vars[name], context, rendering, (message) => {
      throw new CannotJudge(message);
    });
  }
  if (positional.length === 2) return positional[1];
  if (Object.hasOwn(keywords, "default")) return keywords.default;
  throw new CannotJudge(`var '${name}' is set nowhere and has no default (dbt stops: Required var '${name}' not found)`);
}

/** A template's value as YAML data: str, numbers, bool, None, lists and dicts; anything else (a function, undefined) is null. */
function asValue(value: unknown): Value | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return value;
  if (value instanceof jinja().PyFloat) return value.value;
  if (Array.isArray(value)) {
    const items = value.map(asValue);
    return items.some((item) => item === undefined) ? undefined : (items as Value[]);
  }
  if (isMapping(value as Value)) {
    const out: Mapping = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const converted = asValue(item);
      if (converted === undefined) return undefined;
      out[key] = converted;
    }
    return out;
  }
  return undefined;
}

/** The value a `config()` argument evaluates to at parse time, or why slp cannot say. */
export function judgeExpression(text: string, scope: ExpressionScope): Judged {
  try {
    const { value } = jinja().evaluateExpression(text, FILE, parseScope(scope));
    const converted = asValue(value);
    if (converted === undefined) return { why: "it evaluates to something that is not data (an undefined name, a function)" };
    return { value: converted };
  } catch (error) {
    return { why: whyOf(error) };
  }
}

/**
 * A dbt_project.yml config value written as Jinja, rendered as dbt renders
 * that file (natively: `{{ x | as_bool }}` alone is a bool, `{{ x }}` alone
 * keeps x's type, text around it makes a string), var() seeing `cliVars` only.
 */
export function judgeProjectValue(text: string, cliVars: Mapping): Judged {
  const scope = parseScope({ vars: [cliVars] });
  try {
    const single = /^\{\{-?([\s\S]*?)-?\}\}$/.exec(text);
    if (!single || (single[1] as string).includes("}}") || (single[1] as string).includes("{{"))
      return { value: new (jinja().JinjaTemplate)(text, FILE).render(scope) };
    const { value, filter } = jinja().evaluateExpression(single[1] as string, FILE, scope);
    if (filter === "as_text") return { value: jinja().printable(value) };
    if (filter !== "as_bool" && filter !== "as_number" && filter !== "as_native") {
      const converted = asValue(value);
      return converted === undefined ? { why: "it renders to something that is not data" } : { value: converted };
    }
    // dbt's native rendering reads the printed value as a Python literal (ast.literal_eval) and checks its type.
    const literal = pythonLiteral(jinja().printable(value));
    if (filter === "as_bool" && typeof literal !== "boolean")
      return { why: `Could not convert value '${jinja().printable(value)}' into type 'bool'` };
    if (filter === "as_number" && typeof literal !== "number")
      return { why: `Could not convert value '${jinja().printable(value)}' into type 'number'` };
    return { value: literal };
  } catch (error) {
    return { why: whyOf(error) };
  }
}

/** ast.literal_eval for the scalars a config holds: True/False/None, numbers, quoted strings; otherwise the text itself. */
function pythonLiteral(text: string): Value {
  const trimmed = text.trim();
  if (trimmed === "True") return true;
  if (trimmed === "False") return false;
  if (trimmed === "None") return null;
  if (/^[-+]?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(trimmed)) return Number(trimmed);
  const quoted = /^'([^'\\]*)'$|^"([^"\\]*)"$/.exec(trimmed);
  if (quoted) return (quoted[1] ?? quoted[2]) as string;
  return text;
}

function whyOf(error: unknown): string {
  const origin = (error as { origin?: unknown }).origin;
  if (origin instanceof CannotJudge) return origin.message;
  if (error instanceof CannotJudge) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  // A name the parse-time context lacks is a project macro or a context member dbt has and slp does not evaluate here.
  const undefinedName = /^'([^']+)' is undefined/.exec(message);
  if (undefinedName) return `it calls or reads '${undefinedName[1]}', which only rendering can answer`;
  return `rendering it fails (${message})`;
}
