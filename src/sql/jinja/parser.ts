/**
 * Jinja2's parser (jinja2/parser.py) over our tokens: statements, and
 * expressions with Python's precedence. Besides Jinja2's own tags it reads
 * the ones dbt adds (`do`, `break`/`continue`, `test`, `materialization`,
 * `docs`, `snapshot`); a tag that would read another file (include, import,
 * extends) is refused, as slp's templates reach no file.
 */
import { formatLimit, limit, LimitError } from "../../core/limits.ts";
import type { Arguments, CompareOp, Expr, MacroDef, Stmt, Target } from "./ast.ts";
import { TemplateSyntaxError } from "./errors.ts";
import { type Token, tokenize } from "./lexer.ts";
import { makeFloat } from "./values.ts";

export interface ParsedTemplate {
  body: Stmt[];
}

/** Parses a template's text. */
export function parseTemplate(source: string): ParsedTemplate {
  return { body: new Parser(tokenize(source)).parseAll() };
}

const COMPARE = new Set(["==", "!=", ">", ">=", "<", "<="]);
/** Tags whose bodies dbt keeps for itself and never renders where a unit test renders. */
const SKIPPED_BLOCKS = new Set(["materialization", "docs", "snapshot"]);

class Parser {
  #pos = 0;
  #depth = 0;
  /** The names each enclosing macro body reads (for caller, varargs, kwargs). */
  #macroNames: Set<string>[] = [];
  constructor(private readonly tokens: Token[]) {}

  get #current(): Token {
    return this.tokens[this.#pos] as Token;
  }
  #look(offset = 1): Token {
    return (this.tokens[this.#pos + offset] ?? this.tokens[this.tokens.length - 1]) as Token;
  }
  #next(): Token {
    const token = this.#current;
    if (token.type !== "eof") this.#pos++;
    return token;
  }
  #isOp(value: string, token = this.#current): boolean {
    return token.type === "operator" && token.value === value;
  }
  #isName(value: string, token = this.#current): boolean {
    return token.type === "name" && token.value === value;
  }
  #skipOp(value: string): boolean {
    if (!this.#isOp(value)) return false;
    this.#pos++;
    return true;
  }
  #skipName(value: string): boolean {
    if (!this.#isName(value)) return false;
    this.#pos++;
    return true;
  }
  #fail(message: string, token = this.#current): never {
    throw new TemplateSyntaxError(message, token.line);
  }
  #expectOp(value: string): Token {
    if (!this.#isOp(value)) this.#fail(`expected '${value}', got ${describe(this.#current)}`);
    return this.#next();
  }
  #expectName(value?: string): Token {
    const token = this.#current;
    if (token.type !== "name" || (value !== undefined && token.value !== value))
      this.#fail(`expected ${value ? `'${value}'` : "a name"}, got ${describe(token)}`);
    return this.#next();
  }
  #expectType(type: Token["type"]): Token {
    if (this.#current.type !== type) this.#fail(`expected ${describe({ type, value: "", line: 0 })}, got ${describe(this.#current)}`);
    return this.#next();
  }
  #enter(): void {
    if (++this.#depth > limit("nesting_depth")) {
      throw new LimitError("nesting_depth", `the template nests blocks or brackets more than ${formatLimit("nesting_depth")} deep`, {
        line: this.#current.line,
      });
    }
  }
  #leave(): void {
    this.#depth--;
  }

  parseAll(): Stmt[] {
    const body = this.#subparse(null);
    if (this.#current.type !== "eof") this.#fail(`unexpected ${describe(this.#current)}`);
    return body;
  }

  /** Statements until one of `endTags` opens a block (left current), or the end of the template. */
  #subparse(endTags: readonly string[] | null): Stmt[] {
    const body: Stmt[] = [];
    let output: (Stmt & { kind: "output" }) | null = null;
    const emit = (node: Expr | { kind: "data"; text: string; line: number }, line: number) => {
      output ??= { kind: "output", nodes: [], line };
      output.nodes.push(node);
    };
    for (;;) {
      const token = this.#current;
      if (token.type === "eof") {
        if (endTags) this.#fail(`unexpected end of template, expected ${endTags.map((tag) => `'${tag}'`).join(" or ")}`);
        break;
      }
      if (token.type === "data") {
        this.#next();
        emit({ kind: "data", text: token.value, line: token.line }, token.line);
      } else if (token.type === "variable_begin") {
        this.#next();
        emit(this.#parseTuple({}), token.line);
        this.#expectType("variable_end");
      } else if (token.type === "block_begin") {
        if (output) body.push(output);
        output = null;
        this.#next();
        if (endTags && this.#current.type === "name" && endTags.includes(this.#current.value)) return body;
        const statement = this.#parseStatement();
        if (statement) body.push(statement);
        this.#expectType("block_end");
      } else this.#fail(`unexpected ${describe(token)}`);
    }
    if (output) body.push(output);
    return body;
  }

  /** After the tag's own tokens: `%}`, then statements up to one of `endTags` (left current). */
  #statements(endTags: readonly string[]): Stmt[] {
    this.#skipOp(":");
    this.#expectType("block_end");
    return this.#subparse(endTags);
  }

  /** Like #statements, and consumes the end tag. */
  #block(endTag: string): Stmt[] {
    const body = this.#statements([endTag]);
    this.#next();
    return body;
  }

  #parseStatement(): Stmt | null {
    const token = this.#current;
    if (token.type !== "name") this.#fail("tag name expected");
    this.#enter();
    try {
      switch (token.value) {
        case "if":
          return this.#parseIf();
        case "for":
          return this.#parseFor();
        case "set":
          return this.#parseSet();
        case "macro":
        case "test": {
          this.#next();
          const name = this.#expectType("name").value;
          const macro = this.#parseMacroRest(token.value === "test" ? `test_${name}` : name, `end${token.value}`, token.line);
          return { kind: "macro", macro, line: token.line };
        }
        case "call":
          return this.#parseCallBlock();
        case "filter": {
          this.#next();
          const filter = this.#parseFilter(null, true);
          return { kind: "filterblock", filter, body: this.#block("endfilter"), line: token.line };
        }
        case "do":
          this.#next();
          return { kind: "do", expr: this.#parseTuple({}), line: token.line };
        case "with":
          return this.#parseWith();
        case "break":
        case "continue":
          this.#next();
          return { kind: token.value, line: token.line };
        case "print":
          this.#next();
          return { kind: "output", nodes: [this.#parseTuple({})], line: token.line };
        case "include":
        case "import":
        case "from":
        case "extends":
          return this.#fail(
            `template not found: {% ${token.value} %} reads another template file, which slp's templates never do (dbt models and macros reach macros by name)`,
          );
        case "block":
          return this.#fail("{% block %} belongs to template inheritance, which dbt models and macros do not use");
        default:
          if (SKIPPED_BLOCKS.has(token.value)) {
            this.#skipTo(`end${token.value}`);
            return null;
          }
          return this.#fail(`unknown tag '${token.value}'`);
      }
    } finally {
      this.#leave();
    }
  }

  /** Skips a dbt block slp never renders (a materialization, a docs block) to its end tag. */
  #skipTo(endTag: string): void {
    const opening = this.#current;
    let depth = 0;
    while (this.#current.type !== "eof") {
      const token = this.#next();
      if (token.type === "block_begin" && this.#current.type === "name") {
        if (this.#current.value === opening.value) depth++;
        else if (this.#current.value === endTag) {
          if (depth === 0) {
            this.#next();
            return;
          }
          depth--;
        }
      }
    }
    this.#fail(`unexpected end of template, expected '${endTag}'`, opening);
  }

  #parseIf(): Stmt {
    const line = this.#next().line;
    const test = this.#parseTuple({ noCondexpr: true });
    const body = this.#statements(["elif", "else", "endif"]);
    const end = this.#next();
    if (end.value === "elif") {
      // `elif` reads as an `if` nested in the else branch, ended by the same endif.
      this.#pos--;
      const nested = this.#parseIf();
      return { kind: "if", test, body, otherwise: [nested], line };
    }
    const otherwise = end.value === "else" ? this.#block("endif") : [];
    return { kind: "if", test, body, otherwise, line };
  }

  #parseFor(): Stmt {
    const line = this.#next().line;
    const target = this.#parseAssignTarget({ endNames: ["in"] });
    this.#expectName("in");
    const iter = this.#parseTuple({ noCondexpr: true, endNames: ["recursive"] });
    const filter = this.#skipName("if") ? this.#parseExpression() : null;
    const recursive = this.#skipName("recursive");
    const body = this.#statements(["endfor", "else"]);
    const otherwise = this.#next().value === "endfor" ? [] : this.#block("endfor");
    return { kind: "for", target, iter, filter, body, otherwise, recursive, line };
  }

  #parseSet(): Stmt {
    const line = this.#next().line;
    const target = this.#parseAssignTarget({ namespace: true });
    if (this.#skipOp("=")) return { kind: "set", target, value: this.#parseTuple({}), line };
    const filter = this.#isOp("|") ? this.#parseFilter(null) : null;
    return { kind: "setblock", target, filter, body: this.#block("endset"), line };
  }

  #parseWith(): Stmt {
    const line = this.#next().line;
    const targets: Target[] = [];
    const values: Expr[] = [];
    while (this.#current.type !== "block_end") {
      if (targets.length > 0) this.#expectOp(",");
      targets.push(this.#parseAssignTarget({}));
      this.#expectOp("=");
      values.push(this.#parseExpression());
    }
    return { kind: "with", targets, values, body: this.#block("endwith"), line };
  }

  #parseMacroRest(name: string, endTag: string, line: number): MacroDef {
    return this.#macroBody(name, this.#parseSignature(), endTag, line);
  }

  /** A macro's (or a call block's caller's) body up to `endTag`, noting which of caller, varargs and kwargs it reads. */
  #macroBody(name: string, params: MacroDef["params"], endTag: string, line: number): MacroDef {
    const names = new Set<string>();
    this.#macroNames.push(names);
    try {
      const body = this.#block(endTag);
      return {
        name,
        params,
        body,
        usesCaller: names.has("caller"),
        usesVarargs: names.has("varargs"),
        usesKwargs: names.has("kwargs"),
        line,
      };
    } finally {
      this.#macroNames.pop();
    }
  }

  #parseSignature(): MacroDef["params"] {
    const params: MacroDef["params"] = [];
    this.#expectOp("(");
    while (!this.#isOp(")")) {
      if (params.length > 0) this.#expectOp(",");
      if (this.#isOp(")")) break;
      const name = this.#expectType("name").value;
      const fallback = this.#skipOp("=") ? this.#parseExpression() : null;
      if (fallback === null && params.some((param) => param.default !== null)) this.#fail("non-default argument follows default argument");
      params.push({ name, default: fallback });
    }
    this.#expectOp(")");
    return params;
  }

  #parseCallBlock(): Stmt {
    const line = this.#next().line;
    const params = this.#isOp("(") ? this.#parseSignature() : [];
    const call = this.#parseExpression();
    if (call.kind !== "call") this.#fail("expected call");
    return { kind: "callblock", call, macro: this.#macroBody("caller", params, "endcall", line), line };
  }

  #parseAssignTarget(options: { endNames?: string[]; namespace?: boolean }): Target {
    const token = this.#current;
    if (options.namespace && token.type === "name" && this.#isOp(".", this.#look())) {
      this.#next();
      this.#next();
      const attr = this.#expectType("name").value;
      return { kind: "nsref", name: token.value, attr, line: token.line };
    }
    const expr = this.#parseTuple({ simplified: true, endNames: options.endNames });
    return toTarget(expr, (message) => this.#fail(message, token));
  }

  #parseExpression(noCondexpr = false): Expr {
    return noCondexpr ? this.#parseOr() : this.#parseCondexpr();
  }

  #parseCondexpr(): Expr {
    const line = this.#current.line;
    let expr = this.#parseOr();
    while (this.#skipName("if")) {
      const test = this.#parseOr();
      const otherwise = this.#skipName("else") ? this.#parseCondexpr() : null;
      expr = { kind: "cond", test, then: expr, otherwise, line };
    }
    return expr;
  }

  #parseOr(): Expr {
    return this.#parseLogical("or", () => this.#parseAnd());
  }

  #parseAnd(): Expr {
    return this.#parseLogical("and", () => this.#parseNot());
  }

  /** `a or b or c`, `a and b`: left-associative, each operand one level down. */
  #parseLogical(op: "and" | "or", operand: () => Expr): Expr {
    let left = operand();
    while (this.#isName(op)) {
      const line = this.#next().line;
      left = { kind: op, left, right: operand(), line };
    }
    return left;
  }

  #parseNot(): Expr {
    if (this.#isName("not")) {
      const line = this.#next().line;
      this.#enter();
      try {
        return { kind: "unary", op: "not", node: this.#parseNot(), line };
      } finally {
        this.#leave();
      }
    }
    return this.#parseCompare();
  }

  #parseCompare(): Expr {
    const line = this.#current.line;
    const first = this.#parseMath1();
    const ops: { op: CompareOp; value: Expr }[] = [];
    for (;;) {
      const token = this.#current;
      if (token.type === "operator" && COMPARE.has(token.value)) {
        this.#next();
        ops.push({ op: token.value as CompareOp, value: this.#parseMath1() });
      } else if (this.#skipName("in")) ops.push({ op: "in", value: this.#parseMath1() });
      else if (this.#isName("not") && this.#isName("in", this.#look())) {
        this.#pos += 2;
        ops.push({ op: "notin", value: this.#parseMath1() });
      } else break;
    }
    return ops.length === 0 ? first : { kind: "compare", first, ops, line };
  }

  #parseMath1(): Expr {
    let left = this.#parseConcat();
    while (this.#isOp("+") || this.#isOp("-")) {
      const token = this.#next();
      left = { kind: "binary", op: token.value as "+" | "-", left, right: this.#parseConcat(), line: token.line };
    }
    return left;
  }

  #parseConcat(): Expr {
    const line = this.#current.line;
    const items = [this.#parseMath2()];
    while (this.#skipOp("~")) items.push(this.#parseMath2());
    return items.length === 1 ? (items[0] as Expr) : { kind: "concat", items, line };
  }

  #parseMath2(): Expr {
    let left = this.#parsePow();
    while (this.#isOp("*") || this.#isOp("/") || this.#isOp("//") || this.#isOp("%")) {
      const token = this.#next();
      left = { kind: "binary", op: token.value as "*", left, right: this.#parsePow(), line: token.line };
    }
    return left;
  }

  #parsePow(): Expr {
    let left = this.#parseUnary(true);
    while (this.#isOp("**")) {
      const token = this.#next();
      left = { kind: "binary", op: "**", left, right: this.#parseUnary(true), line: token.line };
    }
    return left;
  }

  #parseUnary(withFilter: boolean): Expr {
    const token = this.#current;
    let node: Expr;
    if (this.#isOp("-") || this.#isOp("+")) {
      this.#next();
      this.#enter();
      try {
        node = { kind: "unary", op: token.value === "-" ? "neg" : "pos", node: this.#parseUnary(false), line: token.line };
      } finally {
        this.#leave();
      }
    } else node = this.#parsePrimary();
    node = this.#parsePostfix(node);
    return withFilter ? this.#parseFilterExpr(node) : node;
  }

  #parsePrimary(): Expr {
    const token = this.#current;
    if (token.type === "name") {
      this.#next();
      if (token.value === "true" || token.value === "True") return { kind: "const", value: true, line: token.line };
      if (token.value === "false" || token.value === "False") return { kind: "const", value: false, line: token.line };
      if (token.value === "none" || token.value === "None") return { kind: "const", value: null, line: token.line };
      for (const names of this.#macroNames) names.add(token.value);
      return { kind: "name", name: token.value, line: token.line };
    }
    if (token.type === "string") {
      // Adjacent string literals are one string, as in Python (and so `"""x"""` is "" "x" "").
      let value = "";
      while (this.#current.type === "string") value += this.#next().value;
      return { kind: "const", value, line: token.line };
    }
    if (token.type === "integer") {
      this.#next();
      return { kind: "const", value: token.number, line: token.line };
    }
    if (token.type === "float") {
      this.#next();
      return { kind: "const", value: makeFloat(token.number as number), line: token.line };
    }
    this.#enter();
    try {
      if (this.#skipOp("(")) {
        const node = this.#parseTuple({ explicitParentheses: true });
        this.#expectOp(")");
        return node;
      }
      if (this.#isOp("[")) return this.#parseList();
      if (this.#isOp("{")) return this.#parseDict();
    } finally {
      this.#leave();
    }
    return this.#fail(`unexpected ${describe(token)}`);
  }

  #parseTuple(options: { simplified?: boolean; noCondexpr?: boolean; endNames?: string[]; explicitParentheses?: boolean }): Expr {
    const line = this.#current.line;
    const parse = () =>
      options.simplified ? this.#parsePrimary() : options.noCondexpr ? this.#parseExpression(true) : this.#parseExpression();
    const items: Expr[] = [];
    let isTuple = false;
    for (;;) {
      if (items.length > 0) this.#expectOp(",");
      if (this.#isTupleEnd(options.endNames)) break;
      items.push(parse());
      if (this.#isOp(",")) isTuple = true;
      else break;
    }
    if (!isTuple) {
      if (items.length > 0) return items[0] as Expr;
      if (!options.explicitParentheses) this.#fail(`expected an expression, got ${describe(this.#current)}`);
    }
    return { kind: "tuple", items, line };
  }

  #isTupleEnd(endNames?: string[]): boolean {
    const token = this.#current;
    if (token.type === "variable_end" || token.type === "block_end" || this.#isOp(")")) return true;
    return endNames !== undefined && token.type === "name" && endNames.includes(token.value);
  }

  #parseList(): Expr {
    const line = this.#expectOp("[").line;
    const items: Expr[] = [];
    while (!this.#isOp("]")) {
      if (items.length > 0) this.#expectOp(",");
      if (this.#isOp("]")) break;
      items.push(this.#parseExpression());
    }
    this.#expectOp("]");
    return { kind: "list", items, line };
  }

  #parseDict(): Expr {
    const line = this.#expectOp("{").line;
    const pairs: { key: Expr; value: Expr }[] = [];
    while (!this.#isOp("}")) {
      if (pairs.length > 0) this.#expectOp(",");
      if (this.#isOp("}")) break;
      const key = this.#parseExpression();
      this.#expectOp(":");
      pairs.push({ key, value: this.#parseExpression() });
    }
    this.#expectOp("}");
    return { kind: "dict", pairs, line };
  }

  #parsePostfix(start: Expr): Expr {
    let node = start;
    for (;;) {
      if (this.#isOp(".") || this.#isOp("[")) node = this.#parseSubscript(node);
      else if (this.#isOp("(")) node = this.#parseCall(node);
      else return node;
    }
  }

  #parseFilterExpr(start: Expr): Expr {
    let node = start;
    for (;;) {
      if (this.#isOp("|")) node = this.#parseFilter(node);
      else if (this.#isName("is")) node = this.#parseTest(node);
      else if (this.#isOp("(")) node = this.#parseCall(node);
      else return node;
    }
  }

  #parseSubscript(node: Expr): Expr {
    const token = this.#next();
    if (token.value === ".") {
      const attr = this.#next();
      if (attr.type === "name") return { kind: "getattr", node, attr: attr.value, line: token.line };
      if (attr.type !== "integer") this.#fail("expected name or number", attr);
      return { kind: "getitem", node, arg: { kind: "const", value: attr.number, line: attr.line }, line: token.line };
    }
    this.#enter();
    try {
      const args: Expr[] = [];
      while (!this.#isOp("]")) {
        if (args.length > 0) this.#expectOp(",");
        args.push(this.#parseSubscribed());
      }
      this.#expectOp("]");
      const arg = args.length === 1 ? (args[0] as Expr) : ({ kind: "tuple", items: args, line: token.line } as Expr);
      return { kind: "getitem", node, arg, line: token.line };
    } finally {
      this.#leave();
    }
  }

  #parseSubscribed(): Expr {
    const line = this.#current.line;
    let start: Expr | null = null;
    if (!this.#isOp(":")) {
      const node = this.#parseExpression();
      if (!this.#isOp(":")) return node;
      start = node;
    }
    this.#next();
    const bounds = () => (this.#isOp("]") || this.#isOp(",") || this.#isOp(":") ? null : this.#parseExpression());
    const stop = bounds();
    let step: Expr | null = null;
    if (this.#skipOp(":")) step = this.#isOp("]") || this.#isOp(",") ? null : this.#parseExpression();
    return { kind: "slice", start, stop, step, line };
  }

  #parseArguments(): Arguments {
    const open = this.#expectOp("(");
    this.#enter();
    try {
      const result: Arguments = { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
      const ensure = (ok: boolean) => {
        if (!ok) this.#fail("invalid syntax for function call expression", open);
      };
      let requireComma = false;
      while (!this.#isOp(")")) {
        if (requireComma) {
          this.#expectOp(",");
          if (this.#isOp(")")) break;
        }
        if (this.#skipOp("*")) {
          ensure(result.dynArgs === null && result.dynKwargs === null);
          result.dynArgs = this.#parseExpression();
        } else if (this.#skipOp("**")) {
          ensure(result.dynKwargs === null);
          result.dynKwargs = this.#parseExpression();
        } else if (this.#current.type === "name" && this.#isOp("=", this.#look())) {
          ensure(result.dynKwargs === null);
          const name = this.#next().value;
          this.#next();
          result.kwargs.push({ name, value: this.#parseExpression() });
        } else {
          ensure(result.dynArgs === null && result.dynKwargs === null && result.kwargs.length === 0);
          result.args.push(this.#parseExpression());
        }
        requireComma = true;
      }
      this.#expectOp(")");
      return result;
    } finally {
      this.#leave();
    }
  }

  #parseCall(node: Expr): Expr {
    const line = this.#current.line;
    return { kind: "call", node, ...this.#parseArguments(), line };
  }

  #parseFilter(node: Expr | null, startInline = false): Expr {
    let result = node;
    let inline = startInline;
    while (this.#isOp("|") || inline) {
      if (!inline) this.#next();
      const token = this.#expectType("name");
      let name = token.value;
      while (this.#skipOp(".")) name += `.${this.#expectType("name").value}`;
      const args = this.#isOp("(") ? this.#parseArguments() : { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
      result = { kind: "filter", node: result, name, ...args, line: token.line };
      inline = false;
    }
    return result as Expr;
  }

  #parseTest(node: Expr): Expr {
    const token = this.#next();
    const negated = this.#skipName("not");
    const nameToken = this.#current;
    if (nameToken.type !== "name") this.#fail("`is` must be followed by the name of a test (is defined, is none, is string, ...)");
    this.#next();
    let name = nameToken.value;
    while (this.#skipOp(".")) name += `.${this.#expectType("name").value}`;
    let args: Arguments = { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
    const current = this.#current;
    if (this.#isOp("(")) args = this.#parseArguments();
    else if (
      (current.type === "name" ||
        current.type === "string" ||
        current.type === "integer" ||
        current.type === "float" ||
        this.#isOp("[") ||
        this.#isOp("{")) &&
      !["else", "or", "and"].includes(current.value as string)
    ) {
      if (this.#isName("is")) this.#fail("You cannot chain multiple tests with is");
      args.args = [this.#parsePostfix(this.#parsePrimary())];
    }
    const test: Expr = { kind: "test", node, name, ...args, line: token.line };
    return negated ? { kind: "unary", op: "not", node: test, line: token.line } : test;
  }
}

function toTarget(expr: Expr, fail: (message: string) => never): Target {
  if (expr.kind === "name") return { kind: "name", name: expr.name, line: expr.line };
  if (expr.kind === "tuple") return { kind: "tuple", items: expr.items.map((item) => toTarget(item, fail)), line: expr.line };
  return fail(`can't assign to ${expr.kind === "const" ? "a constant" : `a ${expr.kind}`}`);
}

function describe(token: Token): string {
  if (token.type === "eof") return "end of template";
  if (token.type === "name" || token.type === "operator") return `'${token.value}'`;
  if (token.type === "string") return "a string";
  if (token.type === "integer" || token.type === "float") return "a number";
  const words: Record<string, string> = {
    block_begin: "begin of statement block",
    block_end: "end of statement block",
    variable_begin: "begin of print statement",
    variable_end: "end of print statement",
  };
  return `'${words[token.type] ?? token.type}'`;
}
