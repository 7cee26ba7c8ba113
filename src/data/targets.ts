/**
 * The models one Stage E command measures: those named on the command line,
 * or else every model that owes a diff. With `--base`, git says what the
 * branch changed (a model's SQL or its yml beyond the pre-registration),
 * which pre-registrations are inherited from the base, and which models are
 * new (production cannot have them, so their diff publishes values).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.ts";
import { isMapping, type Mapping, type Value } from "../core/values.ts";
import { scopedConfig } from "../project/dbt-project.ts";
import { parseYaml } from "../project/yaml.ts";
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
  const configs = projectModelConfigs(project);
  const targets = names.map((name): DiffTarget => {
    const file = sqlFiles.get(name);
    return {
      model: project.models.get(name) as NonNullable<ReturnType<typeof project.models.get>>,
      sql: file ? readText(project.dir, file) : null,
      projectConfig: configs(name, file),
      isNew: facts !== null && !facts.existing.has(name),
    };
  });
  return { targets, reasons, mergeBase: facts?.mergeBase ?? null };
}

/**
 * dbt_project.yml's `models:` configs for one model, by its fqn (project
 * name, the folders under its model path, its name); a project without a
 * dbt_project.yml configures nothing there, one that does not parse is exit 2.
 */
function projectModelConfigs(project: Project): (model: string, sqlFile: string | undefined) => Mapping {
  const document: Value = existsSync(join(project.dir, "dbt_project.yml"))
    ? parseYaml(readText(project.dir, "dbt_project.yml"), { file: "dbt_project.yml" })
    : null;
  const settings = isMapping(document) ? document : {};
  const name = typeof settings.name === "string" ? settings.name : "";
  const block = isMapping(settings.models) ? settings.models : {};
  return (model, sqlFile) => {
    const folders = sqlFile ? sqlFile.split("/").slice(1, -1) : [];
    return scopedConfig(block, [name, ...folders, model]);
  };
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
