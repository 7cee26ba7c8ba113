/**
 * The transpiler adapter: the only module that imports `@polyglot-sql/sdk`
 * (a Rust SQL transpiler in the spirit of sqlglot, compiled to WebAssembly).
 * Its 23 MB module costs ~0.3 s to load, so it is imported on first use,
 * only for a model written in a warehouse dialect whose translation is not
 * in the cache yet.
 */
import type { Dialect } from "./dialects.ts";
import { warehouse } from "./warehouses/index.ts";

/** One token of the source SQL, as the transpiler's tokenizer reads it. */
export interface Token {
  /** The tokenizer's type: VAR, QUOTED_IDENTIFIER, L_PAREN, STRING, SELECT, ... */
  type: string;
  /** The token's text (a string literal's content, an identifier without quotes). */
  text: string;
  /** Offsets in the SQL (UTF-8 bytes, as the tokenizer counts them), end exclusive. */
  start: number;
  end: number;
  /** 1-based line. */
  line: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string; line: number | null };

interface Sdk {
  parse(sql: string, dialect: string): { success: boolean; ast?: unknown[]; error?: string; errorLine?: number };
  generate(ast: unknown, dialect: string): { success: boolean; sql?: string[]; error?: string };
  tokenize(
    sql: string,
    dialect: string,
  ): {
    success: boolean;
    tokens?: { token_type: string; text: string; span: { start: number; end: number; line: number } }[];
    error?: string;
    errorLine?: number;
  };
  transpile(sql: string, read: string, write: string): { success: boolean; sql?: string[]; error?: string; errorLine?: number };
  validate(sql: string, dialect: string): { valid: boolean; errors: { message: string; severity: string }[] };
}

let sdk: Promise<Sdk> | undefined;

/** Loads the transpiler (once). */
function loadTranspiler(): Promise<void> {
  if (!sdk) {
    // Compiling WebAssembly holds no event-loop handle under Bun: without one, a CLI awaiting it just exits.
    const keepAlive = setInterval(() => undefined, 60_000);
    sdk = instantiate().finally(() => clearInterval(keepAlive));
  }
  return sdk.then(() => undefined);
}

/**
 * The module's manual entry, given the WebAssembly's bytes: the file is
 * imported as a file, so `bun build --compile` embeds it in the executable
 * (the automatic entry fetches it beside the script, which a binary has not).
 */
async function instantiate(): Promise<Sdk> {
  const [manual, wasm] = await Promise.all([
    import("@polyglot-sql/sdk/manual"),
    import("@polyglot-sql/sdk/polyglot_sql.wasm", { with: { type: "file" } }),
  ]);
  const bytes = await Bun.file(wasm.default as unknown as string).arrayBuffer();
  await manual.init({ wasmUrl: bytes as unknown as URL });
  return manual as unknown as Sdk;
}

async function loaded(): Promise<Sdk> {
  await loadTranspiler();
  return sdk as Promise<Sdk>;
}

/** The tokens of `sql` read as `dialect`. */
export async function tokenize(sql: string, dialect: Exclude<Dialect, "duckdb">): Promise<Outcome<Token[]>> {
  const result = (await loaded()).tokenize(sql, warehouse(dialect).transpiler);
  if (!result.success || !result.tokens) return { ok: false, error: result.error ?? "cannot tokenize", line: result.errorLine ?? null };
  return {
    ok: true,
    value: result.tokens.map((token) => ({
      type: token.token_type,
      text: token.text,
      start: token.span.start,
      end: token.span.end,
      line: token.span.line,
    })),
  };
}

/** `sql` (one SELECT) read as `dialect`, written as DuckDB. */
export async function toDuckdb(sql: string, dialect: Exclude<Dialect, "duckdb">): Promise<Outcome<string>> {
  const result = (await loaded()).transpile(sql, warehouse(dialect).transpiler, "duckdb");
  if (!result.success || !result.sql) return { ok: false, error: result.error ?? "cannot translate", line: result.errorLine ?? null };
  if (result.sql.length !== 1)
    return { ok: false, error: `the model's SQL is ${result.sql.length} statements, not one SELECT`, line: null };
  return { ok: true, value: result.sql[0] as string };
}

type Node = { [key: string]: unknown };
const call = (name: string, args: unknown[]): Node => ({
  function: { name, args, distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
});

/** How an operator is written instead: `wrapper(first(a, b), second(a, b))`. */
export interface OperatorWrap {
  wrapper: string;
  first: string;
  second: string;
}

/**
 * `sql` (in `dialect`) with every division `a / b` (and, given `mul`, every
 * product) written as its wrap, still in `dialect`: the transpiler's syntax
 * tree finds the operands, so precedence and parentheses are its own.
 */
export async function wrapOperators(
  sql: string,
  dialect: Exclude<Dialect, "duckdb">,
  wraps: { div: OperatorWrap; mul?: OperatorWrap },
): Promise<Outcome<{ sql: string; wrapped: number }>> {
  const polyglot = await loaded();
  const parsed = polyglot.parse(sql, warehouse(dialect).transpiler);
  if (!parsed.success || !parsed.ast) return { ok: false, error: parsed.error ?? "cannot parse", line: parsed.errorLine ?? null };
  let wrapped = 0;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== "object") return node;
    const [kind] = Object.keys(node);
    const wrap = Object.keys(node).length === 1 && (kind === "div" || kind === "mul") ? wraps[kind] : undefined;
    if (wrap) {
      wrapped++;
      const operands = (node as Node)[kind as string] as { left: unknown; right: unknown };
      const [left, right] = [rewrite(operands.left), rewrite(operands.right)];
      return call(wrap.wrapper, [call(wrap.first, [left, right]), call(wrap.second, [left, right])]);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, rewrite(value)]));
  };
  const generated = polyglot.generate(rewrite(parsed.ast), warehouse(dialect).transpiler);
  if (!generated.success || !generated.sql || generated.sql.length !== 1)
    return { ok: false, error: generated.error ?? "cannot write the SQL back", line: null };
  return { ok: true, value: { sql: generated.sql[0] as string, wrapped } };
}

/** A node of the transpiler's syntax tree: one key (its kind) holding its fields. */
export type TreeNode = { [kind: string]: unknown };

/**
 * `sql` (in `dialect`) with every node `rewrite` answers for replaced by its
 * answer, written back in `dialect`; `rewrite` returns undefined to keep a
 * node, or `{ refuse: why }` to stop.
 */
export async function rewriteTree(
  sql: string,
  dialect: Exclude<Dialect, "duckdb">,
  rewrite: (node: TreeNode) => TreeNode | undefined,
): Promise<Outcome<{ sql: string; rewritten: number }> | { ok: false; refuse: string }> {
  const polyglot = await loaded();
  const parsed = polyglot.parse(sql, warehouse(dialect).transpiler);
  if (!parsed.success || !parsed.ast) return { ok: false, error: parsed.error ?? "cannot parse", line: parsed.errorLine ?? null };
  let rewritten = 0;
  let refusal: string | null = null;
  const children = (node: object): TreeNode =>
    Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)])) as TreeNode;
  // Top-down, so a rewrite sees a node before its children are rewritten (NOT sees the LIKE ALL it negates);
  // the children of a node's answer are walked in turn, never the answer itself again.
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object" || refusal !== null) return node;
    const answer = Object.keys(node).length === 1 ? rewrite(node as TreeNode) : undefined;
    if (answer === undefined) return children(node);
    if (typeof answer.refuse === "string") {
      refusal = answer.refuse;
      return node;
    }
    rewritten++;
    return children(answer);
  };
  const tree = walk(parsed.ast);
  if (refusal !== null) return { ok: false, refuse: refusal };
  if (rewritten === 0) return { ok: true, value: { sql, rewritten } };
  const generated = polyglot.generate(tree, warehouse(dialect).transpiler);
  if (!generated.success || !generated.sql || generated.sql.length !== 1)
    return { ok: false, error: generated.error ?? "cannot write the SQL back", line: null };
  return { ok: true, value: { sql: generated.sql[0] as string, rewritten } };
}

/** The transpiler's parse errors for `sql` read as `dialect`, [] when it parses (how slp's tests check emitted SQL). */
export async function parseErrorsIn(sql: string, dialect: Exclude<Dialect, "duckdb">): Promise<string[]> {
  const result = (await loaded()).validate(sql, warehouse(dialect).transpiler);
  return result.errors.filter((error) => error.severity === "error").map((error) => error.message);
}

/** `sql` (in `dialect`) parsed and written back in `dialect`, as wrapOperators and rewriteTree write what they rewrite. */
export async function regenerate(sql: string, dialect: Exclude<Dialect, "duckdb">): Promise<Outcome<string>> {
  const polyglot = await loaded();
  const parsed = polyglot.parse(sql, warehouse(dialect).transpiler);
  if (!parsed.success || !parsed.ast) return { ok: false, error: parsed.error ?? "cannot parse", line: parsed.errorLine ?? null };
  const generated = polyglot.generate(parsed.ast, warehouse(dialect).transpiler);
  if (!generated.success || !generated.sql || generated.sql.length !== 1)
    return { ok: false, error: generated.error ?? "cannot write the SQL back", line: null };
  return { ok: true, value: generated.sql[0] as string };
}
