/**
 * Which models owe a diff (framework Stage E): every model with a
 * pre-registration of this branch, and every critical model downstream of a
 * changed one, because critical models are built `state:modified+` and their
 * diff shows the change's full effect. `slp diff` produces what this says
 * is owed and `compare`'s C7 requires it. The graph is read from each
 * model's `ref()` calls (the pattern T3 reads); until the project model
 * carries its DAG, this is the one module to switch over to it.
 */
import { isMapping } from "../core/values.ts";
import { listFiles, stem, topDirectories } from "./paths.ts";
import { readText, type Project } from "./project.ts";
import { sqlInputs } from "./sql-inputs.ts";

/** Each model's `.sql` under the top folders (the later path wins, as dbt would refuse two anyway). */
export function modelSqlFiles(project: Project): Map<string, string> {
  const files = new Map<string, string>();
  for (const top of topDirectories(project.martsPaths)) {
    for (const file of listFiles(project.dir, top).filter((path) => path.endsWith(".sql")).sort()) files.set(stem(file), file);
  }
  return files;
}

/** model -> the models it refs, from the SQL text of every model. */
export function refGraph(project: Project, sqlFiles: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const parents = new Map<string, Set<string>>();
  for (const [model, file] of sqlFiles) {
    const refs = new Set<string>();
    for (const input of sqlInputs(readText(project.dir, file))) {
      const match = /^ref\('(.*)'\)$/.exec(input);
      if (match) refs.add(match[1] as string);
    }
    parents.set(model, refs);
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
  project: Project,
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
