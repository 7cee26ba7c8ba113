/**
 * Where the nodes of a parsed YAML or JSON document start: what a finding's
 * line is read from. A document keeps its lines as one short text (each
 * node's line, in the order a walk of the value meets the nodes, as
 * differences), so the parse cache stores them for little more than the
 * value itself; a document's first lookup indexes it once.
 */
import { isMapping, type Value } from "../core/values.ts";

/** A parsed document with its lines. */
export interface WithLines {
  value: Value;
  /** Each node's line, in walk order (the node, then each key's or item's subtree), as base-36 differences joined by commas. */
  lines: string;
}

/**
 * The line tree a parser builds: a scalar is its 1-based line; a mapping is
 * `[line, {key: child}]`, where a child's line is its key's; a list is
 * `[line, [item...]]`. A child the tree lacks takes its parent's line.
 */
export type LineTree = number | [number, { [key: string]: LineTree }] | [number, LineTree[]];

/**
 * Encodes a parser's line tree along the value's own walk order (so keys the
 * parser did not see, as merged ones, still line up). Each node is its line
 * as a difference from the previous node's, in base 36; a mapping or list
 * adds `:` and how many nodes its subtree holds, so a lookup can step over a
 * sibling without walking it.
 */
export function encodeLines(value: Value, tree: LineTree): string {
  const out: string[] = [];
  let previous = 0;
  const visit = (node: Value, at: LineTree | undefined, fallback: number): number => {
    const line = at === undefined ? fallback : typeof at === "number" ? at : at[0];
    const slot = out.length;
    out.push((line - previous).toString(36));
    previous = line;
    if (node === null || typeof node !== "object") return 1;
    const children = at === undefined || typeof at === "number" ? undefined : at[1];
    let size = 1;
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        size += visit(item, Array.isArray(children) ? children[i] : undefined, line);
      });
    } else {
      for (const key of Object.keys(node)) {
        const child = children && !Array.isArray(children) && Object.hasOwn(children, key) ? children[key] : undefined;
        size += visit(node[key] as Value, child, line);
      }
    }
    out[slot] += `:${size.toString(36)}`;
    return size;
  };
  visit(value, tree, 1);
  return out.join(",");
}

interface Index {
  /** Each node's line, in walk order. */
  lines: Int32Array;
  /** How many nodes each node's subtree holds (1 for a scalar), in walk order. */
  sizes: Int32Array;
}

const indexes = new WeakMap<WithLines, Index>();

/** The line at a key path (["models", 0, "meta", "spec"]): the deepest step found, the root's line when none is. */
export function lineAt(document: WithLines, path: readonly (string | number)[]): number {
  const { lines, sizes } = indexOf(document);
  let node: Value = document.value;
  let position = 0;
  for (const step of path) {
    let next = position + 1;
    let child: Value | undefined;
    if (Array.isArray(node) && typeof step === "number" && step >= 0 && step < node.length) {
      for (let i = 0; i < step; i++) next += sizes[next] ?? 1;
      child = node[step];
    } else if (isMapping(node) && Object.hasOwn(node, String(step))) {
      for (const key of Object.keys(node)) {
        if (key === String(step)) break;
        next += sizes[next] ?? 1;
      }
      child = node[String(step)];
    } else break;
    node = child as Value;
    position = next;
  }
  return lines[position] ?? 1;
}

function indexOf(document: WithLines): Index {
  let index = indexes.get(document);
  if (index) return index;
  const nodes = document.lines === "" ? [] : document.lines.split(",");
  const lines = new Int32Array(nodes.length);
  const sizes = new Int32Array(nodes.length).fill(1);
  let line = 0;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as string;
    const colon = node.indexOf(":");
    line += parseInt(colon === -1 ? node : node.slice(0, colon), 36);
    lines[i] = line;
    if (colon !== -1) sizes[i] = parseInt(node.slice(colon + 1), 36);
  }
  index = { lines, sizes };
  indexes.set(document, index);
  return index;
}

/**
 * A node of a parsed document whose line is found when first asked: most
 * declarations are never named by a finding, and nothing is paid for those.
 * Readers build their declarations on it (Object.assign), so every
 * declaration of one kind has one shape.
 */
export class Located {
  readonly #document: WithLines;
  readonly #path: readonly (string | number)[];
  #line: number | undefined;

  constructor(document: WithLines, path: readonly (string | number)[]) {
    this.#document = document;
    this.#path = path;
  }

  /** 1-based line of the node. */
  get line(): number {
    this.#line ??= lineAt(this.#document, this.#path);
    return this.#line;
  }

  /** The line of a key path inside the node (["meta", "spec", "grain"]); the deepest key found, the node's line at worst. */
  lineOf(path: readonly (string | number)[]): number {
    return lineAt(this.#document, [...this.#path, ...path]);
  }
}
