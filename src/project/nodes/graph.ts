/** The DAG of a project and its packages, read statically from each node's SQL (relations.ts), resolved as dbt resolves refs. */
import { compareCodePoints } from "../../core/text.ts";
import { relationCalls, type FoundCall } from "../dbt/relations.ts";
import { RelationIndex } from "../dbt/resolve.ts";
import type { Edge, FileNode, Graph, Nodes, Project, RefNode } from "../model.ts";

export async function readGraph(project: Project): Promise<Graph> {
  const all: { project: Project; name: string; nodes: Nodes }[] = [];
  for (const one of [project, ...(await project.packages())])
    all.push({ project: one, name: (await one.settings()).name, nodes: await one.nodes() });
  const index = new RelationIndex(
    all[0]?.name ?? "",
    all.flatMap(({ nodes }) => [...nodes.models, ...nodes.seeds, ...nodes.snapshots]),
    all.flatMap(({ nodes }) => nodes.sources),
  );
  const parents = new Map<string, Edge[]>();
  const children = new Map<string, Set<string>>();
  const unresolved: Edge[] = [];
  // A project's own `ref` macro decides what a ref() with keywords of its own names (dbt renders it); without one,
  // dbt's ref ignores them, and the call names its model.
  const ownRef = all.some(({ nodes }) => nodes.macroFiles.some((file) => file.macros.some((macro) => macro.name === "ref")));
  for (const { project: owner, nodes } of all) {
    const withCode = [...nodes.models, ...nodes.snapshots, ...nodes.analyses, ...nodes.singularTests].filter(
      (node) => node.file !== null && /\.(sql|py)$/.test(node.file),
    );
    const sources: [RefNode | FileNode, FoundCall[]][] = [];
    for (const node of withCode) {
      const file = node.file as string;
      sources.push([node, relationCalls(await owner.text(file), file.endsWith(".py") ? "python" : "sql", !ownRef)]);
    }
    // A snapshot defined in yml alone (dbt >= 1.9) reads what its `relation:` names: a ref() or a source().
    for (const node of nodes.snapshots) {
      const relation = node.declaration?.entry.relation;
      if (node.language !== null || typeof relation !== "string") continue;
      sources.push([node, relationCalls(relation).map((found) => ({ ...found, line: node.line }))]);
    }
    for (const [node, calls] of sources) {
      const edges: Edge[] = calls.map((found) => {
        const resolved = found.call ? index.resolve(found.call, node.package) : null;
        const to = resolved && "node" in resolved ? resolved.node.uniqueId : null;
        return { from: node.uniqueId, to, call: found.call, text: found.text, line: found.line };
      });
      parents.set(node.uniqueId, edges);
      for (const edge of edges) {
        if (edge.to === null) unresolved.push(edge);
        else {
          const set = children.get(edge.to) ?? new Set<string>();
          set.add(node.uniqueId);
          children.set(edge.to, set);
        }
      }
    }
  }
  const sortedChildren = new Map([...children].map(([id, set]) => [id, [...set].sort(compareCodePoints)]));
  const walk = (start: Iterable<string>, next: (id: string) => Iterable<string>): string[] => {
    const seen = new Set<string>();
    const starts = new Set(start);
    const queue = [...starts];
    while (queue.length > 0) {
      const id = queue.pop() as string;
      for (const other of next(id)) {
        if (seen.has(other) || starts.has(other)) continue;
        seen.add(other);
        queue.push(other);
      }
    }
    return [...seen].sort(compareCodePoints);
  };
  return {
    parents,
    children: sortedChildren,
    unresolved,
    index,
    downstream: (ids) => walk(ids, (id) => sortedChildren.get(id) ?? []),
    upstream: (ids) => walk(ids, (id) => (parents.get(id) ?? []).flatMap((edge) => (edge.to === null ? [] : [edge.to]))),
  };
}
