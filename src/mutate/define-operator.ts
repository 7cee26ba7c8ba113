/**
 * A mutation operator is one file, like a rule: its code (the prefix of its
 * mutants' ids), a kebab-case name, docs and examples as data, `sites(tree)`
 * (where in a model's compiled SQL it can plant its defect) and
 * `mutate(site)` (the text that replaces the site). Everything but the two
 * functions is read by `slp explain`, the docs and the registry test.
 */
import { isNode, walkTree, type SqlNode } from "../sql/parser.ts";

/** A model's compiled SQL and its syntax tree, with the helpers operators share. */
export class SqlTree {
  readonly #nodes: { node: SqlNode; ancestors: readonly SqlNode[] }[] = [];

  constructor(
    readonly sql: string,
    readonly root: SqlNode,
  ) {
    walkTree(root, (node, ancestors) => this.#nodes.push({ node, ancestors: [...ancestors] }));
  }

  /** Every node of one of these types, in source order, with its ancestors (nearest last). */
  find(...types: string[]): { node: SqlNode; ancestors: readonly SqlNode[] }[] {
    return this.#nodes.filter((entry) => types.includes(entry.node.type));
  }

  /** The SQL text of a node (or of a keyword list). */
  text(node: unknown): string {
    const range = rangeOf(node);
    return range ? this.sql.slice(range[0], range[1]) : "";
  }

  /**
   * Where a symbol operator (`=`, `<=`, `/`) of a binary expression sits: the
   * parser gives it no range, so it is found between the two operands, past
   * any whitespace and comments.
   */
  symbolRange(expression: SqlNode, symbol: string): [number, number] | null {
    const left = rangeOf(expression.left);
    const right = rangeOf(expression.right);
    if (!left || !right) return null;
    let at = left[1];
    while (at < right[0]) {
      const rest = this.sql.slice(at, right[0]);
      const skip = /^(\s+|--[^\n]*|\/\*[\s\S]*?\*\/)/.exec(rest);
      if (skip) {
        at += skip[0].length;
        continue;
      }
      return rest.startsWith(symbol) ? [at, at + symbol.length] : null;
    }
    return null;
  }
}

/** Every binary expression whose symbol operator is a key of `table`, as a site on the symbol (cmp, boundary). */
export function symbolSites(tree: SqlTree, table: Record<string, string>): (Site & { symbol: string })[] {
  const sites: (Site & { symbol: string })[] = [];
  for (const { node } of tree.find("binary_expr")) {
    const symbol = node.operator;
    if (typeof symbol !== "string" || !(symbol in table)) continue;
    const range = tree.symbolRange(node, symbol);
    if (range) sites.push({ start: range[0], end: range[1], symbol });
  }
  return sites;
}

/** `[start, end)` of a node, or of a list of keywords (`left outer join`), or null. */
export function rangeOf(value: unknown): [number, number] | null {
  if (Array.isArray(value)) {
    const first = rangeOf(value[0]);
    const last = rangeOf(value[value.length - 1]);
    return first && last ? [first[0], last[1]] : null;
  }
  return isNode(value) && value.range ? value.range : null;
}

/** Upper-case keyword names of a keyword or keyword list (`["LEFT", "OUTER", "JOIN"]`), else []. */
export function keywordNames(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.every((item) => isNode(item) && item.type === "keyword") ? list.map((item) => String((item as SqlNode).name)) : [];
}

/** The lower-case name of a function call (`sum`, `date_trunc`), without any schema; null for a qualified name. */
export function functionName(call: SqlNode): string | null {
  const name = call.name;
  return isNode(name) && name.type === "identifier" ? String(name.name).toLowerCase() : null;
}

/** The argument nodes of a function call. */
export function functionArgs(call: SqlNode): SqlNode[] {
  const args = isNode(call.args) && isNode(call.args.expr) ? call.args.expr : null;
  const list = args && isNode(args.args) ? args.args : null;
  return list && Array.isArray(list.items) ? (list.items as SqlNode[]) : [];
}

/** `SUM` -> `MAX`, `sum` -> `max`: a replacement keyword keeps the original's case. */
export function matchCase(original: string, word: string): string {
  return original === original.toUpperCase() && original !== original.toLowerCase() ? word.toUpperCase() : word.toLowerCase();
}

/** One place an operator can plant its defect: the text `[start, end)` it replaces. */
export interface Site {
  start: number;
  end: number;
}

export type OperatorOrigin = "reference" | "command contract" | "slp";

export interface OperatorDocs {
  /** One sentence: the defect, as a reviewer would say it. */
  summary: string;
  /** Why a model's tests should notice it: the bug in analytics code it stands for. */
  rationale: string;
  /** Where the class comes from: the reference's mutate_model.py, the command contract (seed 001), or slp. */
  origin: OperatorOrigin;
}

export interface Operator<S extends Site = Site> {
  /** The prefix of its mutants' ids (`cmp/3`), and the key of tests/mutation_equivalents.yml entries. */
  code: string;
  /** Kebab-case name (`comparison-flipped`). */
  name: string;
  docs: OperatorDocs;
  /** SQL it plants a defect in (each gives at least one mutant), and SQL it leaves alone (none). */
  examples: { fires: string[]; silent: string[] };
  sites(tree: SqlTree): S[];
  /** The text that replaces `[site.start, site.end)`. */
  mutate(site: S, tree: SqlTree): string;
}

export function defineOperator<S extends Site>(operator: Operator<S>): Operator<S> {
  return operator;
}
