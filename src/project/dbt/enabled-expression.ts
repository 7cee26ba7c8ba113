/**
 * Judges the Jinja expression of a `config(enabled=...)` the way dbt renders
 * it at parse time, for the expressions projects write there: literals,
 * `var('name'[, default])` (the `--vars`, then the root project's vars for
 * the package, then its global vars, then the package's own), `target.name`
 * (slp's target is `dev`, as when it renders models), `not`, `and`, `or`,
 * `==`, `!=`, `in`, `not in`, parentheses and dbt's `as_bool`-style filters
 * (which hand a value through when a model renders). Anything else (a macro, a
 * filter, env_var) is not guessed: the answer says why it cannot be judged,
 * so the caller can refuse naming the expression where the answer matters.
 */
import { isMapping, type Mapping, type Value } from "../../core/values.ts";

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

type Token = { kind: "string" | "number" | "name" | "punct"; text: string; value?: Value };

const TOKEN = /\s*(?:('(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")|(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|[()[\],.|]))/y;

function tokenize(text: string): Token[] | null {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match || TOKEN.lastIndex === at) return null;
    if (match[1] !== undefined) tokens.push({ kind: "string", text: match[1], value: match[1].slice(1, -1).replace(/\\(.)/g, "$1") });
    else if (match[2] !== undefined) tokens.push({ kind: "number", text: match[2], value: Number(match[2]) });
    else if (match[3] !== undefined) tokens.push({ kind: "name", text: match[3] });
    else tokens.push({ kind: "punct", text: match[4] as string });
  }
  return tokens;
}

class CannotJudge extends Error {}

/** The value the expression renders to, or why slp cannot say. */
export function judgeExpression(text: string, scope: ExpressionScope): Judged {
  const tokens = tokenize(text);
  if (tokens === null || tokens.length === 0) return { why: "it is not an expression slp can read" };
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const isWord = (word: string) => peek()?.kind === "name" && peek()?.text === word;
  const isPunct = (punct: string) => peek()?.kind === "punct" && peek()?.text === punct;
  const expect = (punct: string) => {
    if (!isPunct(punct)) throw new CannotJudge(`it is not an expression slp can read (expected '${punct}')`);
    at++;
  };
  const or = (): Value => {
    let left = and();
    while (isWord("or")) {
      at++;
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const and = (): Value => {
    let left = not();
    while (isWord("and")) {
      at++;
      const right = not();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const not = (): Value => {
    if (isWord("not")) {
      at++;
      return !truthy(not());
    }
    return comparison();
  };
  // Jinja's filter binds tighter than a comparison; dbt's as_bool, as_native, as_number and as_text hand a value
  // through unchanged outside its native rendering (dbt_common's jinja filters), which is how a model renders.
  const filtered = (): Value => {
    const value = primary();
    while (isPunct("|")) {
      at++;
      const filter = peek();
      at++;
      if (filter?.kind !== "name" || !/^as_(bool|native|number|text)$/.test(filter.text))
        throw new CannotJudge(`it applies the filter ${filter?.text ?? ""}, which only rendering can answer`);
    }
    return value;
  };
  const comparison = (): Value => {
    const left = filtered();
    if (isPunct("==") || isPunct("!=")) {
      const negate = peek()?.text === "!=";
      at++;
      return pythonEquals(left, filtered()) !== negate;
    }
    const negate = isWord("not") && tokens[at + 1]?.kind === "name" && tokens[at + 1]?.text === "in";
    if (negate || isWord("in")) {
      at += negate ? 2 : 1;
      const right = filtered();
      if (!Array.isArray(right)) throw new CannotJudge("it tests membership in something that is not a list");
      return right.some((item) => pythonEquals(left, item)) !== negate;
    }
    return left;
  };
  const primary = (): Value => {
    const token = peek();
    if (!token) throw new CannotJudge("it ends too early");
    at++;
    if (token.kind === "string" || token.kind === "number") return token.value as Value;
    if (token.kind === "punct") {
      if (token.text === "(") {
        const value = or();
        expect(")");
        return value;
      }
      if (token.text === "[") {
        const items: Value[] = [];
        while (!isPunct("]")) {
          items.push(or());
          if (!isPunct("]")) expect(",");
        }
        at++;
        return items;
      }
      throw new CannotJudge(`it is not an expression slp can read ('${token.text}')`);
    }
    const word = token.text;
    if (/^(true|True)$/.test(word)) return true;
    if (/^(false|False)$/.test(word)) return false;
    if (/^(none|None)$/.test(word)) return null;
    if (word === "target") {
      expect(".");
      const attribute = peek();
      at++;
      if (attribute?.kind === "name" && attribute.text === "name") return "dev";
      throw new CannotJudge(`it reads target.${attribute?.text ?? ""}, which depends on the profile`);
    }
    if (word === "var") {
      expect("(");
      const args: Value[] = [];
      while (!isPunct(")")) {
        args.push(or());
        if (!isPunct(")")) expect(",");
      }
      at++;
      const name = args[0];
      if (typeof name !== "string" || args.length > 2) throw new CannotJudge("it calls var() with arguments slp cannot read");
      for (const vars of scope.vars) {
        if (Object.hasOwn(vars, name)) {
          const value = vars[name] as Value;
          if (typeof value === "string" && /\{[{%]/.test(value)) throw new CannotJudge(`var '${name}' is itself Jinja`);
          return value;
        }
      }
      if (args.length === 2) return args[1] as Value;
      throw new CannotJudge(`var '${name}' is set nowhere and has no default (dbt stops: Required var '${name}' not found)`);
    }
    throw new CannotJudge(`it calls or reads '${word}', which only rendering can answer`);
  };
  try {
    const value = or();
    if (at < tokens.length) return { why: `it is not an expression slp can read (at '${tokens[at]?.text}')` };
    return { value };
  } catch (error) {
    if (error instanceof CannotJudge) return { why: error.message };
    throw error;
  }
}

/** Python's truthiness. */
export function truthy(value: Value): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isMapping(value)) return Object.keys(value).length > 0;
  return value !== null && value !== false && value !== 0 && value !== "";
}

/** Python's ==, where True == 1 and 1 == 1.0. */
function pythonEquals(a: Value, b: Value): boolean {
  const numeric = (v: Value) => typeof v === "number" || typeof v === "boolean";
  if (numeric(a) && numeric(b)) return Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => pythonEquals(item, b[i] as Value));
  return a === b;
}
