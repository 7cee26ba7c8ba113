/**
 * The models one Stage E command measures: those named on the command line,
 * or else every model that owes a diff. With `--base`, git says what the
 * branch changed (lineage.ts: the definition gate uses), which
 * pre-registrations are inherited from the base, and which models are new
 * (production cannot have them, so their diff publishes values).
 */
import { InputError } from "../core/errors.ts";
import type { CheckProject } from "../rules/context/check.ts";
import type { DiffTarget } from "./diff.ts";
import { loadConfig } from "../project/slp/slp-yml.ts";
import { lineageMode } from "../project/dbt/lineage.ts";
import { describeReason, modelSqlFiles, owedDiffs } from "../project/history/owed-diffs.ts";

export interface Targets {
  targets: DiffTarget[];
  /** Why each model is measured. */
  reasons: Map<string, string>;
  /** The merge-base, when --base was given. */
  mergeBase: string | null;
}

export async function stageTargets(
  project: CheckProject,
  requested: readonly string[] | undefined,
  base: string | undefined,
): Promise<Targets> {
  const sqlFiles = await modelSqlFiles(project);
  const facts =
    base === undefined ? null : await (await import("../project/history/stale.ts")).readBaseFacts(project, base, project.model.store);
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
    const lineage = lineageMode((facts?.changes.config ?? loadConfig(project.dir)).config.lineage);
    const owed = await owedDiffs(project, facts?.changes.changed ?? null, facts?.stale.models ?? new Set(), lineage);
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
      isNew: facts?.changes.newModels.has(name) ?? false,
    });
  }
  return { targets, reasons, mergeBase: facts?.changes.mergeBase ?? null };
}
