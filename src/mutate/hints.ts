/**
 * What a survivor threatens and how a fixture would reach it: the spec edge
 * (known_edges, or a unit test's config.meta.edge) that shares the most
 * columns and values with the mutated expression, and a given row that
 * would tell the mutant from the model, read from the expression's shape
 * (`col > 100`: a row with col = 100; a left join: a row whose key has no
 * match). Suggestions for the human writing the next test, never verdicts.
 */
import { isNode, type SqlNode } from "../sql/parser.ts";
import { keywordNames, rangeOf, type SqlTree } from "./define-operator.ts";

export interface Hint {
  edge: string | null;
  /** The unit test that names the edge in config.meta.edge, if one does. */
  edgeTest: string | null;
  row: string | null;
}

export interface EdgeSource {
  edge: string;
  test: string | null;
}

const CTE = /^__dbt__cte__(.+)$/;
const KEYWORDS = new Set([
  "select",
  "from",
  "where",
  "and",
  "or",
  "not",
  "null",
  "is",
  "in",
  "as",
  "on",
  "join",
  "left",
  "inner",
  "row",
  "true",
  "false",
  "case",
  "when",
  "then",
  "else",
  "end",
  "by",
  "group",
  "order",
]);

/** What a hint reads of the mutated SQL: the row that would reach the site, and the words around it that edges are matched on. */
export interface Shape {
  row: string | null;
  words: string[];
}

export function survivorHint(
  tree: SqlTree | null,
  site: { start: number; end: number; operator: string },
  edges: readonly EdgeSource[],
): Hint {
  return hintFrom(readShape(tree, site), edges);
}

/** The shape of a survivor's site, read once when the mutant runs (and kept with its verdict: a kept run parses nothing). */
export function readShape(tree: SqlTree | null, site: { start: number; end: number; operator: string }): Shape {
  if (!tree) return { row: null, words: [] };
  const aliases = relationAliases(tree);
  const context = enclosing(tree, site.start, site.end);
  const row = context ? reachingRow(tree, context, site.operator, aliases) : null;
  const words = new Set<string>();
  const text = context ? tree.text(context.node) : tree.sql.slice(site.start, site.end);
  for (const match of text.matchAll(/'((?:[^']|'')*)'|[\p{L}_][\p{L}\p{N}_]*|\d+(?:\.\d+)?/gu)) {
    for (const word of (match[1] ?? match[0]).toLowerCase().split(/[^\p{L}\p{N}_.]+/u)) {
      const last = word.split(".").pop() ?? word;
      if (last.length >= 2 && !KEYWORDS.has(last) && !CTE.test(last)) words.add(last);
    }
  }
  return { row, words: [...words] };
}

/** The edge that shares the most words with the site's shape, and the shape's row. */
export function hintFrom(shape: Shape, edges: readonly EdgeSource[]): Hint {
  const { row, words } = shape;
  let best: { edge: EdgeSource; score: number } | null = null;
  for (const edge of edges) {
    const edgeWords = new Set(
      edge.edge
        .toLowerCase()
        .split(/[^\p{L}\p{N}_.]+/u)
        .filter(Boolean),
    );
    const score = words.filter((word) => edgeWords.has(word)).length;
    if (score > 0 && (!best || score > best.score)) best = { edge, score };
  }
  return { edge: best?.edge.edge ?? null, edgeTest: best?.edge.test ?? null, row };
}

/** `orders` -> `ref('stg_orders')`: which mocked input each alias in the FROM clauses stands for. */
function relationAliases(tree: SqlTree): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const { node } of tree.find("alias")) {
    const expr = node.expr;
    const name = isNode(expr) && expr.type === "identifier" ? CTE.exec(String(expr.name)) : null;
    if (name && isNode(node.alias)) aliases.set(String(node.alias.name).toLowerCase(), `ref('${name[1]}')`);
  }
  for (const { node } of tree.find("identifier")) {
    const name = CTE.exec(String(node.name));
    if (name) aliases.set(String(node.name).toLowerCase(), `ref('${name[1]}')`);
  }
  return aliases;
}

const CONTEXTS = new Set(["binary_expr", "between_expr", "join_expr", "func_call", "case_expr", "where_clause", "group_by_clause"]);

/** The smallest predicate-like node around the site, with its ancestors. */
function enclosing(tree: SqlTree, start: number, end: number): { node: SqlNode; ancestors: readonly SqlNode[] } | null {
  let best: { node: SqlNode; ancestors: readonly SqlNode[] } | null = null;
  for (const entry of tree.find(...CONTEXTS)) {
    const range = rangeOf(entry.node);
    if (!range || range[0] > start || range[1] < end) continue;
    if (entry.node.type === "binary_expr" && ["AND", "OR"].includes(keywordNames(entry.node.operator)[0] ?? "")) continue;
    if (!best || range[1] - range[0] <= (rangeOf(best.node) as [number, number])[1] - (rangeOf(best.node) as [number, number])[0])
      best = entry;
  }
  return best;
}

function column(tree: SqlTree, node: unknown, aliases: Map<string, string>): { name: string; input: string | null } | null {
  if (!isNode(node)) return null;
  if (node.type === "identifier") return { name: String(node.name), input: null };
  if (node.type === "member_expr" && isNode(node.object) && isNode(node.property) && node.property.type === "identifier") {
    return { name: String(node.property.name), input: aliases.get(tree.text(node.object).toLowerCase()) ?? null };
  }
  return null;
}

const isLiteral = (node: unknown): node is SqlNode => isNode(node) && (node.type === "number_literal" || node.type === "string_literal");

function reachingRow(tree: SqlTree, { node }: { node: SqlNode }, operator: string, aliases: Map<string, string>): string | null {
  const of = (col: { name: string; input: string | null }) => (col.input ? `a given row of ${col.input}` : "a given row");
  if (node.type === "join_expr") {
    const spec = isNode(node.specification) ? node.specification : null;
    const on = spec && isNode(spec.expr) && spec.expr.type === "binary_expr" ? spec.expr : null;
    const left = on ? column(tree, on.left, aliases) : null;
    const right = on ? column(tree, on.right, aliases) : null;
    if (left && right) return `${of(left)} whose ${left.name} matches no row of ${right.input ?? "the joined relation"}`;
    return "a row whose join key finds no match";
  }
  if (node.type === "func_call") {
    const args = isNode(node.args) && isNode(node.args.expr) && isNode(node.args.expr.args) ? (node.args.expr.args.items as SqlNode[]) : [];
    const first = column(tree, args[0], aliases);
    if (operator === "coalesce" && first) return `${of(first)} with ${first.name} = null`;
    if (operator === "agg" && first) return `two rows of one group with different ${first.name} values`;
    return null;
  }
  if (node.type === "binary_expr") {
    const names = keywordNames(node.operator);
    const left = column(tree, node.left, aliases);
    if (left && isNode(node.right) && node.right.type === "null_literal")
      return `${of(left)} with ${left.name} = null, and one with a value`;
    if (left && isLiteral(node.right)) return `${of(left)} with ${left.name} = ${tree.text(node.right)}`;
    if (left && names.includes("IN") && isNode(node.right)) {
      const inside = tree.sql.slice(...(rangeOf(node.right) as [number, number]));
      const literal = /'(?:[^']|'')*'|\d+(?:\.\d+)?/.exec(inside)?.[0];
      return literal ? `${of(left)} with ${left.name} = ${literal}, and one with a value outside the list` : null;
    }
    const right = column(tree, node.right, aliases);
    if (left && right && typeof node.operator === "string")
      return `${of(left)} whose ${left.name} equals ${right.name}, and one where it does not`;
  }
  return null;
}
