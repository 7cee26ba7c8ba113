/**
 * The models one Stage E command measures: those named on the command line,
 * or else every model that owes a diff. With `--base`, git says what the
 * branch changed (a model's SQL or its yml beyond the pre-registration),
 * which pre-registrations are inherited from the base, and which models are
 * new (production cannot have them, so their diff publishes values).
 */
import { InputError } from "../core/errors.ts";
import { isMapping } from "../core/values.ts";
import type { CheckProject } from "../rules/context/check.ts";
import type { DiffTarget } from "./diff.ts";
import { describeReason, modelSqlFiles, owedDiffs, refGraph } from "../project/owed-diffs.ts";

export interface Targets {
  targets: DiffTarget[];
  /** Why each model is measured. */
  reasons: Map<string, string>;
  /** The merge-base, when --base was given. */
  mergeBase: string | null;
}

interface BaseFacts {
  changed: Set<string>;
  inherited: Set<string>;
  existing: Set<string>;
  mergeBase: string;
}

export async function stageTargets(project: CheckProject, requested: readonly string[] | undefined, base: string | undefined): Promise<Targets> {
  const sqlFiles = await modelSqlFiles(project);
  const facts = base === undefined ? null : await readBase(project, base);
  let names: string[];
  let reasons: Map<string, string>;
  if (requested && requested.length > 0) {
    const unknown = requested.filter((name) => !project.models.has(name));
    if (unknown.length > 0) {
      throw new InputError(`the project declares no model named ${unknown.join(", ")}`, { fix: "name models its yml declares" });
    }
    names = [...new Set(requested)].sort();
    reasons = new Map(names.map((name) => [name, "named on the command line"]));
  } else {
    const owed = owedDiffs(project, await refGraph(project), facts?.changed ?? null, facts?.inherited ?? new Set());
    names = owed.models;
    reasons = new Map([...owed.reasons].map(([name, reason]) => [name, describeReason(reason)]));
  }
  const nodes = new Map((await project.model.nodes()).models.map((node) => [node.name, node]));
  const targets: DiffTarget[] = [];
  for (const name of names) {
    const file = sqlFiles.get(name);
    targets.push({
      model: project.models.get(name) as NonNullable<ReturnType<typeof project.models.get>>,
      sql: file ? await project.model.text(file) : null,
      projectConfig: nodes.get(name)?.config ?? {},
      isNew: facts !== null && !facts.existing.has(name),
    });
  }
  return { targets, reasons, mergeBase: facts?.mergeBase ?? null };
}

async function readBase(project: CheckProject, base: string): Promise<BaseFacts> {
  const [{ openBranch }, { readInventories }, { modelFingerprint }, { readStaleSet }] = await Promise.all([
    import("../project/history.ts"),
    import("../rules/context/gate-history.ts"),
    import("../rules/context/gate-inventory.ts"),
    import("../project/stale.ts"),
  ]);
  const branch = await openBranch({ dir: project.dir, base, head: "HEAD" });
  const { before, after } = await readInventories(branch, project.martsPaths, project.model.store);
  const changed = new Set<string>();
  for (const name of new Set([...after.models.keys(), ...after.code.keys()])) {
    if (modelFingerprint(before, name) !== modelFingerprint(after, name) || before.code.get(name) !== after.code.get(name)) changed.add(name);
  }
  const stale = await readStaleSet(project, base);
  const existing = new Set([...before.models.keys(), ...before.code.keys()]);
  // A pre-registration is how a model is meant to change; a model whose only change is one still changed.
  for (const model of project.models.values()) if (isMapping(model.preRegistration) && !stale.models.has(model.name)) changed.add(model.name);
  return { changed, inherited: stale.models, existing, mergeBase: branch.mergeBase };
}
