/**
 * What a `ref()` or `source()` names, the way dbt's manifest looks it up
 * (dbt-core `Manifest.resolve_ref`, `_packages_to_search`, `RefableLookup`):
 * a named package is the only place looked; otherwise the root project
 * first, then the calling node's package, then every package at once, where
 * two packages defining the name is dbt's ambiguity error. An unpinned ref
 * is the latest version; `v=` names one version.
 */
import type { RefNode, SourceNode } from "./model.ts";
import type { RelationCall } from "./relations.ts";

/** Where a name was found: one node, nothing, or a node in several packages (dbt refuses to guess). */
export type Resolution<T> = { node: T } | { missing: true } | { ambiguous: T[] };

/** Models, seeds and snapshots by name (and `name.v<N>` for a version), then by package. */
export class RelationIndex {
  readonly #refs = new Map<string, Map<string, RefNode>>();
  readonly #sources = new Map<string, Map<string, SourceNode>>();
  readonly #byId = new Map<string, RefNode | SourceNode>();
  readonly root: string;

  constructor(root: string, refNodes: Iterable<RefNode>, sources: Iterable<SourceNode>) {
    this.root = root;
    for (const node of refNodes) {
      this.#byId.set(node.uniqueId, node);
      if (!node.enabled) continue;
      if (node.version !== null) add(this.#refs, `${node.name}.v${node.version}`, node.package, node);
      if (node.latest) add(this.#refs, node.name, node.package, node);
    }
    for (const source of sources) {
      this.#byId.set(source.uniqueId, source);
      if (!source.enabled) continue;
      const key = `${source.source}.${source.table}`;
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
    const byPackage = this.#refs.get(key);
    for (const pkg of searchOrder(this.root, from, call.package)) {
      if (pkg !== null) {
        const hit = byPackage?.get(pkg);
        if (hit) return { node: hit };
        continue;
      }
      const all = [...(byPackage?.values() ?? [])];
      if (all.length > 1) return { ambiguous: all };
      if (all.length === 1) return { node: all[0] as RefNode };
    }
    return { missing: true };
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
    return source ? { node: source } : { missing: true };
  }
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
