/**
 * The models one Stage E command measures: those named on the command line,
 * or else every model that owes a diff. With `--base`, git says what the
 * branch changed (a model's SQL or its yml beyond the pre-registration),
 * which pre-registrations are inherited from the base, and which models are
 * new (production cannot have them, so their diff publishes values).
 */
import { InputError } from "../core/errors.ts";
import { isMapping } from "../core/values.ts";
import type { Project } from "../project/project.ts";
import { readText } from "../project/project.ts";
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

export async function stageTargets(project: Project, requested: readonly string[] | undefined, base: string | undefined): Promise<Targets> {
  const sqlFiles = modelSqlFiles(project);
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
    const owed = owedDiffs(project, refGraph(project, sqlFiles), facts?.changed ?? null, facts?.inherited ?? new Set());
    names = owed.models;
    reasons = new Map([...owed.reasons].map(([name, reason]) => [name, describeReason(reason)]));
  }
  const targets = names.map((name): DiffTarget => {
    const file = sqlFiles.get(name);
    return {
      model: project.models.get(name) as NonNullable<ReturnType<typeof project.models.get>>,
      sql: file ? readText(project.dir, file) : null,
      isNew: facts !== null && !facts.existing.has(name),
    };
  });
  return { targets, reasons, mergeBase: facts?.mergeBase ?? null };
}

async function readBase(project: Project, base: string): Promise<BaseFacts> {
  const [{ openBranch, ProjectReader }, { modelFingerprint }, { readStaleSet }, { topDirectories }] = await Promise.all([
    import("../project/history.ts"),
    import("../project/inventory.ts"),
    import("../project/stale.ts"),
    import("../project/paths.ts"),
  ]);
  const branch = await openBranch({ dir: project.dir, base, head: "HEAD" });
  const reader = new ProjectReader(branch.repo, branch.prefix, topDirectories(project.martsPaths), []);
  const before = await reader.full(branch.mergeBase, `commit ${branch.repo.shortSha(branch.mergeBase)}`);
  const after = await reader.full(branch.headCommit, "HEAD");
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
