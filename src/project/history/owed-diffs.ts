/**
 * Which models owe a diff (framework Stage E): every model with a
 * pre-registration of this branch, and, as far as slp.yml's `lineage`
 * follows (all by default), every marts or critical model downstream of a
 * changed one: Stage E builds state:modified+, so their numbers move with the
 * change. "Changed" and "downstream" are lineage.ts's, the definitions gate's
 * G15 asks a pre-registration by, so what gate asks a prediction for is what
 * `slp diff` measures and `compare`'s C7 requires.
 */
import { compareCodePoints } from "../../core/text.ts";
import { isMapping, type Value } from "../../core/values.ts";
import { isCriticalSpec, type LineageMode } from "../dbt/lineage.ts";
import type { Project } from "../model.ts";

/** The project as a Stage E command has it: the model it was read from, each declared model's spec and pre-registration, and which are marts. */
export interface OwedProject {
  model: Project;
  models: ReadonlyMap<string, { name: string; spec: Value; preRegistration: Value }>;
  marts: ReadonlySet<string>;
}

/** Each SQL model's file, by name (from the project model's nodes). */
export async function modelSqlFiles(project: OwedProject): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const node of (await project.model.nodes()).models) if (node.file && node.language === "sql") files.set(node.name, node.file);
  return files;
}

/** Why a model owes a diff: its own pre-registration, or a change upstream of it (`of` names what changed). */
export type OwedReason = { kind: "pre-registered" } | { kind: "downstream"; of: string[]; critical: boolean };

export interface OwedDiffs {
  /** Sorted model names. */
  models: string[];
  reasons: Map<string, OwedReason>;
}

/** "pre-registered", "critical, downstream of fct_orders", "marts, downstream of stg_orders". */
export function describeReason(reason: OwedReason): string {
  return reason.kind === "pre-registered"
    ? "pre-registered"
    : `${reason.critical ? "critical" : "marts"}, downstream of ${reason.of.join(", ")}`;
}

/**
 * The models that owe a diff. `changed` holds the unique ids of what the
 * branch changed (with `--base`, lineage.ts's reading of git; null without
 * it); the pre-registered models count as changed either way, since every
 * changed model must carry one;
 * `inherited` are pre-registrations the base already has, which are not
 * this branch's. `lineage: critical-only` follows changes to critical models
 * only, `off` not at all.
 */
export async function owedDiffs(
  project: OwedProject,
  changed: ReadonlySet<string> | null,
  inherited: ReadonlySet<string>,
  lineage: LineageMode,
): Promise<OwedDiffs> {
  const reasons = new Map<string, OwedReason>();
  const preRegistered = [...project.models.values()].filter((model) => isMapping(model.preRegistration) && !inherited.has(model.name));
  for (const model of preRegistered) reasons.set(model.name, { kind: "pre-registered" });
  if (lineage !== "off") {
    const nodes = await project.model.nodes();
    const idOf = new Map(nodes.models.filter((node) => node.latest).map((node) => [node.name, node.uniqueId]));
    // A pre-registration is how a model is meant to change: its model counts as changed, --base or not.
    const modified = new Set([...(changed ?? []), ...preRegistered.flatMap((model) => idOf.get(model.name) ?? [])]);
    const graph = modified.size > 0 ? await project.model.graph() : null;
    const feeding = new Map<string, Set<string>>();
    for (const id of modified) {
      const source = nodes.byId.get(id);
      const name = source === undefined ? id : source.kind === "source" ? `${source.source}.${source.table}` : source.name;
      for (const down of graph?.downstream([id]) ?? []) {
        const node = nodes.byId.get(down);
        if (node?.kind !== "model") continue;
        feeding.set(node.name, (feeding.get(node.name) ?? new Set()).add(name));
      }
    }
    for (const [name, of] of [...feeding].sort(([a], [b]) => compareCodePoints(a, b))) {
      const critical = isCriticalSpec(project.models.get(name)?.spec);
      const owes = lineage === "critical-only" ? critical : critical || project.marts.has(name);
      if (owes && !reasons.has(name)) reasons.set(name, { kind: "downstream", of: [...of].sort(compareCodePoints), critical });
    }
  }
  return { models: [...reasons.keys()].sort(compareCodePoints), reasons };
}
