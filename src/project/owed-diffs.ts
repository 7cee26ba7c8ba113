/**
 * Which models owe a diff (framework Stage E): every model with a
 * pre-registration of this branch, and every critical model downstream of a
 * changed one, because critical models are built `state:modified+` and their
 * diff shows the change's full effect. `slp diff` produces what this says
 * is owed and `compare`'s C7 requires it. The graph is read from each
 * project model's DAG (each model's `ref()` calls, read statically).
 */
import { isMapping, type Value } from "../core/values.ts";
import type { Project } from "./model.ts";

/** The project as a Stage E command has it: the model it was read from, and each declared model's spec and pre-registration. */
export interface OwedProject {
  model: Project;
  models: ReadonlyMap<string, { name: string; spec: Value; preRegistration: Value }>;
}

/** Each SQL model's file, by name (from the project model's nodes). */
export async function modelSqlFiles(project: OwedProject): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const node of (await project.model.nodes()).models) if (node.file && node.language === "sql") files.set(node.name, node.file);
  return files;
}

/** model -> the models it refs, from the project model's DAG. */
export async function refGraph(project: OwedProject): Promise<Map<string, Set<string>>> {
  const [nodes, graph] = await Promise.all([project.model.nodes(), project.model.graph()]);
  const nameOf = new Map(nodes.models.map((node) => [node.uniqueId, node.name]));
  const parents = new Map<string, Set<string>>();
  for (const node of nodes.models) {
    const refs = new Set<string>();
    for (const edge of graph.parents.get(node.uniqueId) ?? []) {
      const name = edge.to === null ? undefined : nameOf.get(edge.to);
      if (name !== undefined) refs.add(name);
    }
    parents.set(node.name, refs);
  }
  return parents;
}

/** Every model downstream of `changed` (not including them unless another changed model feeds them). */
export function downstreamOf(parents: ReadonlyMap<string, ReadonlySet<string>>, changed: ReadonlySet<string>): Set<string> {
  const children = new Map<string, string[]>();
  for (const [model, refs] of parents) for (const ref of refs) children.set(ref, [...(children.get(ref) ?? []), model]);
  const found = new Set<string>();
  const queue = [...changed];
  while (queue.length > 0) {
    const model = queue.shift() as string;
    for (const child of children.get(model) ?? []) {
      if (found.has(child)) continue;
      found.add(child);
      queue.push(child);
    }
  }
  return found;
}

/** Why a model owes a diff. */
export type OwedReason = { kind: "pre-registered" } | { kind: "downstream"; of: string[] };

export interface OwedDiffs {
  /** Sorted model names. */
  models: string[];
  reasons: Map<string, OwedReason>;
}

/** "pre-registered", or "critical, downstream of fct_orders". */
export function describeReason(reason: OwedReason): string {
  return reason.kind === "pre-registered" ? "pre-registered" : `critical, downstream of ${reason.of.join(", ")}`;
}

/**
 * The models that owe a diff. `changed` is what the branch modifies (with
 * `--base`, from git; without it, the pre-registered models, since every
 * changed model must carry one); `inherited` are pre-registrations identical
 * to the base's, which are not this branch's.
 */
export function owedDiffs(
  project: OwedProject,
  parents: ReadonlyMap<string, ReadonlySet<string>>,
  changed: ReadonlySet<string> | null,
  inherited: ReadonlySet<string>,
): OwedDiffs {
  const reasons = new Map<string, OwedReason>();
  const preRegistered = [...project.models.values()].filter((model) => isMapping(model.preRegistration) && !inherited.has(model.name));
  for (const model of preRegistered) reasons.set(model.name, { kind: "pre-registered" });
  const modified = changed ?? new Set(preRegistered.map((model) => model.name));
  for (const name of [...downstreamOf(parents, modified)].sort()) {
    const model = project.models.get(name);
    const spec = model && isMapping(model.spec) ? model.spec : null;
    if (spec?.tier !== "critical" || reasons.has(name)) continue;
    const of = [...modified].filter((source) => downstreamOf(parents, new Set([source])).has(name)).sort();
    reasons.set(name, { kind: "downstream", of });
  }
  return { models: [...reasons.keys()].sort(), reasons };
}
