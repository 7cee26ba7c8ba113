/**
 * What a `ref()` or `source()` names, the way dbt's manifest looks it up
 * (dbt-core `Manifest.resolve_ref`, `_packages_to_search`, `RefableLookup`):
 * a named package is the only place looked; otherwise the root project
 * first, then the calling node's package, then every package at once, where
 * two packages defining the name is dbt's ambiguity error. An unpinned ref
 * is the latest version; `v=` names one version.
 */
import type { RefNode, SourceNode } from "../model.ts";
import type { RelationCall } from "./relations.ts";

/**
 * Where a name was found: one node, nothing (with the disabled node of that
 * name, when there is one: dbt's "which is disabled"), or a node in several
 * packages (dbt refuses to guess).
 */
export type Resolution<T> = { node: T } | { missing: true; disabled?: T } | { ambiguous: T[] };

/** Models, seeds and snapshots by name (and `name.v<N>` for a version), then by package. */
export class RelationIndex {
  readonly #refs = new Map<string, Map<string, RefNode>>();
  /** The disabled nodes, by the same keys: what a ref that finds nothing enabled names. */
  readonly #disabled = new Map<string, Map<string, RefNode>>();
  readonly #sources = new Map<string, Map<string, SourceNode>>();
  readonly #disabledSources = new Map<string, SourceNode>();
  readonly #byId = new Map<string, RefNode | SourceNode>();
  readonly root: string;

  constructor(root: string, refNodes: Iterable<RefNode>, sources: Iterable<SourceNode>) {
    this.root = root;
    for (const node of refNodes) {
      this.#byId.set(node.uniqueId, node);
      const map = node.enabled ? this.#refs : this.#disabled;
      if (node.version !== null) add(map, `${node.name}.v${node.version}`, node.package, node);
      if (node.latest) add(map, node.name, node.package, node);
    }
    for (const source of sources) {
      this.#byId.set(source.uniqueId, source);
      const key = `${source.source}.${source.table}`;
      if (!source.enabled) {
        if (!this.#disabledSources.has(key)) this.#disabledSources.set(key, source);
        continue;
      }
      const byPackage = this.#sources.get(key) ?? new Map<string, SourceNode>();
      // dbt keeps the first source of a name a package defines.
      if (!byPackage.has(source.package)) byPackage.set(source.package, source);
      this.#sources.set(key, byPackage);
    }
  }

  /**
   * The node a ref names when a node of package `from` calls it; with `from`
   * null, the lookup a unit test's `input:` gets (every package at once, as
   * dbt's parser does it).
   */
  ref(call: Extract<RelationCall, { kind: "ref" }>, from: string | null): Resolution<RefNode> {
    const key = call.version === null ? call.name : `${call.name}.v${call.version}`;
    const found = lookUp(this.#refs.get(key), searchOrder(this.root, from, call.package));
    if (found) return found;
    const disabled = lookUp(this.#disabled.get(key), searchOrder(this.root, from, call.package));
    return disabled && "node" in disabled ? { missing: true, disabled: disabled.node } : { missing: true };
  }

  /** The table a source() names when a node of package `from` calls it (the first package defining it wins, as in dbt). */
  source(call: Extract<RelationCall, { kind: "source" }>, from: string | null): SourceNode | null {
    const byPackage = this.#sources.get(`${call.source}.${call.table}`);
    if (!byPackage) return null;
    for (const pkg of searchOrder(this.root, from, null)) {
      if (pkg === null) return byPackage.values().next().value ?? null;
      const hit = byPackage.get(pkg);
      if (hit) return hit;
    }
    return null;
  }

  /** A node by its unique id. */
  byId(id: string): RefNode | SourceNode | undefined {
    return this.#byId.get(id);
  }

  /** Any call. */
  resolve(call: RelationCall, from: string | null): Resolution<RefNode | SourceNode> {
    if (call.kind === "ref") return this.ref(call, from);
    const source = this.source(call, from);
    if (source) return { node: source };
    const disabled = this.#disabledSources.get(`${call.source}.${call.table}`);
    return disabled ? { missing: true, disabled } : { missing: true };
  }
}

/** The first package in `order` that has the name (null: every package at once, where two are ambiguous). */
function lookUp(byPackage: Map<string, RefNode> | undefined, order: (string | null)[]): Resolution<RefNode> | null {
  for (const pkg of order) {
    if (pkg !== null) {
      const hit = byPackage?.get(pkg);
      if (hit) return { node: hit };
      continue;
    }
    const all = [...(byPackage?.values() ?? [])];
    if (all.length > 1) return { ambiguous: all };
    if (all.length === 1) return { node: all[0] as RefNode };
  }
  return null;
}

/** dbt's wording when a node's ref names a disabled node (TargetNotFoundError). */
export function disabledTargetMessage(from: { uniqueId: string; file: string | null; kind: string }, call: RelationCall): string {
  const title = from.kind === "singular_test" ? "Test" : `${from.kind[0]?.toUpperCase()}${from.kind.slice(1)}`;
  const name = call.kind === "ref" ? call.name : `${call.source}.${call.table}`;
  const version = call.kind === "ref" && call.version !== null ? `with version '${call.version}' ` : "";
  const pkg = call.kind === "ref" && call.package !== null ? `in package or project '${call.package}' ` : "";
  return `${title} '${from.uniqueId}' (${from.file}) depends on a ${call.kind === "ref" ? "node" : "source"} named '${name}' ${version}${pkg}which is disabled`;
}

/**
 * A node whose `config(enabled=<Jinja>)` slp cannot judge: whether dbt
 * builds it (and so whether a ref to it or a test of it stands) only
 * rendering can say, and slp does not guess. Null for any other node.
 */
export function undecidedEnabled(node: RefNode | SourceNode): { message: string; fix: string } | null {
  const expression = node.enabledExpression;
  if (!expression || expression.value !== null) return null;
  return {
    message: `whether ${node.kind} ${node.name} is enabled depends on config(enabled=${expression.text}) in ${node.file}, which slp cannot judge: ${expression.why}`,
    fix: "write enabled as true/false, var('name', default) (with the var in dbt_project.yml or --vars) or a comparison of target.name",
  };
}

/** dbt's `_packages_to_search`: null stands for "every package". */
function searchOrder(root: string, from: string | null, named: string | null): (string | null)[] {
  if (named !== null) return [named];
  if (from === null) return [null];
  return from === root ? [root, null] : [root, from, null];
}

function add<T>(map: Map<string, Map<string, T>>, key: string, pkg: string, node: T): void {
  const byPackage = map.get(key) ?? new Map<string, T>();
  byPackage.set(pkg, node);
  map.set(key, byPackage);
}

/** dbt's wording for a one-argument ref that several packages answer (AmbiguousResourceNameRefError). */
export function ambiguityMessage(name: string, nodes: readonly { uniqueId: string; package: string }[]): { message: string; fix: string } {
  return {
    message: `When referencing '${name}', dbt found nodes in multiple packages: ${nodes.map((node) => `'${node.uniqueId}'`).join(", ")}`,
    fix: `use two-argument 'ref', with the package name first: ${nodes.map((node) => `'${node.package}'`).join(" or ")}`,
  };
}
