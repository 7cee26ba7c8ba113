/**
 * Where the nodes of a parsed YAML or JSON document start: what a finding's
 * line is read from. A document keeps its lines as one short text (each
 * node's line, in the order a walk of the value meets the nodes), so the
 * parse cache stores them beside the value, and a lookup reads only the
 * part of the text on its way.
 */
import { isMapping, type Mapping, type Value } from "../../core/values.ts";

/** A parsed document with its lines. */
export interface WithLines {
  value: Value;
  /** Each node's line in walk order (the node, then each key's or item's subtree), base 36, joined by commas; containers add `:size`. */
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
 * in base 36; a mapping or list adds `:` and how many nodes its subtree
 * holds, so a lookup steps over a sibling without reading it.
 */
export function encodeLines(value: Value, tree: LineTree): string {
  const out: string[] = [];
  const visit = (node: Value, at: LineTree | undefined, fallback: number): number => {
    const line = at === undefined ? fallback : typeof at === "number" ? at : at[0];
    const slot = out.length;
    out.push(line.toString(36));
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

/**
 * The line at a key path (["models", 0, "meta", "spec"]): the deepest step
 * found, the root's line when none is. Reads the encoded text in place: it
 * skips nodes by counting commas and reads only the sizes of the siblings it
 * steps over and the line of the node it stops at. A document asked many
 * times remembers where each child of a container it stepped into starts,
 * so asking for every key of a mapping of n keys costs n steps, not n² (a
 * diff of 100,000 columns took minutes); one asked a few times pays nothing
 * for it.
 */
export function lineAt(document: WithLines, path: readonly (string | number)[]): number {
  const asked = (askedTimes.get(document) ?? 0) + 1;
  if (asked <= FEW) {
    askedTimes.set(document, asked);
    return lineByWalking(document, path);
  }
  let containers = childStarts.get(document);
  if (!containers) {
    containers = new Map();
    childStarts.set(document, containers);
  }
  const text = document.lines;
  let node: Value = document.value;
  // Where in the text the current node's entry starts.
  let at = 0;
  for (const step of path) {
    let index: number;
    let container = containers.get(at);
    if (Array.isArray(node) && typeof step === "number" && step >= 0 && step < node.length) {
      if (!container) containers.set(at, (container = { starts: [], children: node }));
      index = step;
    } else if (isMapping(node) && Object.hasOwn(node, String(step))) {
      if (!container) {
        const mapping: Mapping = node;
        const keys = Object.keys(mapping);
        container = { starts: [], children: keys.map((key) => mapping[key] as Value), keys: new Map(keys.map((key, i) => [key, i])) };
        containers.set(at, container);
      }
      index = container.keys?.get(String(step)) as number;
    } else break;
    const start = childStart(text, at, container, index);
    // Lines that do not match the value (they never should): the last node found stands.
    if (start === -1) break;
    node = container.children[index] as Value;
    at = start;
  }
  return readNumber(text, at) || 1;
}

/** Lookups a document answers by walking from its root before it remembers where children start. */
const FEW = 16;
const askedTimes = new WeakMap<WithLines, number>();

/** lineAt's walk from the root, remembering nothing. */
function lineByWalking(document: WithLines, path: readonly (string | number)[]): number {
  const text = document.lines;
  let node: Value = document.value;
  let at = 0;
  for (const step of path) {
    let before: Value[];
    let child: Value;
    if (Array.isArray(node) && typeof step === "number" && step >= 0 && step < node.length) {
      before = node.slice(0, step);
      child = node[step] as Value;
    } else if (isMapping(node) && Object.hasOwn(node, String(step))) {
      const mapping: Mapping = node;
      const keys = Object.keys(mapping);
      before = keys.slice(0, keys.indexOf(String(step))).map((key) => mapping[key] as Value);
      child = mapping[String(step)] as Value;
    } else break;
    const parent = at;
    at = skipEntries(text, at, 1);
    for (const sibling of before) {
      if (at === -1) break;
      at = skipEntries(text, at, sibling !== null && typeof sibling === "object" ? subtreeSize(text, at) : 1);
    }
    if (at === -1) {
      at = parent;
      break;
    }
    node = child;
  }
  return readNumber(text, at) || 1;
}

/** A container's children in walk order, and where the entries of the first ones start (filled as far as asked). */
interface ChildStarts {
  starts: number[];
  children: readonly Value[];
  keys?: Map<string, number>;
}

/** Per document, the containers stepped into, by where their entry starts. */
const childStarts = new WeakMap<WithLines, Map<number, ChildStarts>>();

/** Where the entry of the container's child `index` starts (the container's own entry starts at `at`); -1 past the text's end. */
function childStart(text: string, at: number, container: ChildStarts, index: number): number {
  const { starts, children } = container;
  if (starts.length === 0) starts.push(skipEntries(text, at, 1));
  while (starts.length <= index) {
    const previous = starts[starts.length - 1] as number;
    if (previous === -1) return -1;
    const sibling = children[starts.length - 1];
    starts.push(skipEntries(text, previous, sibling !== null && typeof sibling === "object" ? subtreeSize(text, previous) : 1));
  }
  return starts[index] as number;
}

/** Moves past `count` entries from `at`; -1 past the end. */
function skipEntries(text: string, at: number, count: number): number {
  for (let n = 0; n < count && at !== -1; n++) {
    const comma = text.indexOf(",", at);
    at = comma === -1 ? -1 : comma + 1;
  }
  return at;
}

/** How many entries the subtree whose entry starts at `at` holds (1 for a scalar). */
function subtreeSize(text: string, at: number): number {
  for (let i = at; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 44) return 1;
    if (code === 58) return readNumber(text, i + 1);
  }
  return 1;
}

function readNumber(text: string, from: number): number {
  let number = 0;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 44 || code === 58) break;
    number = number * 36 + (code <= 57 ? code - 48 : code - 87);
  }
  return number;
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
