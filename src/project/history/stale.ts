/**
 * `compare --base`: which pre-registrations are inherited rather than this
 * branch's own. A pre-registration canonically identical to the one at the
 * merge-base was written for an earlier change (framework Stage B: "it counts
 * as absent"), so compare refuses a diff held against it (C0) and does not
 * ask for a diff for it (C7).
 *
 * Reads the project model at the merge-base, only the yml under the
 * project's top folders. The project may sit in a subfolder of the
 * repository (the reference requires the repository root).
 */
import { isMapping, type Mapping, type Value } from "../../core/values.ts";
import { Repository } from "../../git/repository.ts";
import type { LoadedConfig } from "../slp/slp-yml.ts";
import { configAt } from "./history.ts";
import { projectChanges } from "../dbt/lineage.ts";
import { ParseStore, Project } from "../model.ts";
import { ymlIn } from "../nodes/context.ts";
import { topDirectories } from "../files/paths.ts";
import { samePreRegistration } from "../artifacts/pre-registration.ts";
import { CommitTree } from "../files/source.ts";

export interface StaleSet {
  /** The ref as the user gave it (`main`). */
  base: string;
  /** The merge-base of that ref and HEAD. */
  mergeBase: string;
  /** Models whose current pre-registration is the merge-base's. */
  models: Set<string>;
}

/** The project as compare has it: its folder, marts paths, and each model's pre-registration. */
export interface CurrentProject {
  dir: string;
  martsPaths: readonly string[];
  models: ReadonlyMap<string, { name: string; preRegistration: Value }>;
}

/** The merge-base of `base` and HEAD, and the models whose pre-registration it already had; GitError when git cannot say. */
export async function readStaleSet(project: CurrentProject, base: string, store = new ParseStore()): Promise<StaleSet> {
  return staleSetAt(project, base, await baseProject(project.dir, base, store));
}

/** The repository, the base's tip, the merge-base of it and HEAD, and the project as the merge-base has it: what every `--base` reading starts from. */
interface BaseProject {
  repo: Repository;
  baseCommit: string;
  mergeBase: string;
  /** The project's folder relative to the repository root. */
  prefix: string;
  before: Project;
}

async function baseProject(dir: string, base: string, store: ParseStore): Promise<BaseProject> {
  const repo = Repository.open(dir);
  repo.assertFullHistory();
  const [baseCommit, head] = await Promise.all([repo.resolveCommit(base), repo.resolveCommit("HEAD")]);
  const mergeBase = await repo.mergeBase(baseCommit, head, [base, "HEAD"]);
  const prefix = repo.relativePath(dir);
  return {
    repo,
    baseCommit,
    mergeBase,
    prefix,
    before: new Project(new CommitTree(repo, mergeBase, prefix, mergeBase.slice(0, 8)), { store }),
  };
}

async function staleSetAt(project: CurrentProject, base: string, { mergeBase, before: baseModel }: BaseProject): Promise<StaleSet> {
  const before = await preRegistrationsAt(baseModel, project.martsPaths);

  const models = new Set<string>();
  for (const model of project.models.values()) {
    if (!isMapping(model.preRegistration) || !before.has(model.name)) continue;
    if (samePreRegistration(model.preRegistration, before.get(model.name))) models.add(model.name);
  }
  return { base, mergeBase, models };
}

/** What `--base` tells a Stage E command beyond the stale set: what the branch changed, and slp.yml as the base has it. */
export interface BaseChanges {
  mergeBase: string;
  /** Unique ids of the nodes the work tree changed against the merge-base (lineage.ts's definition, the one gate uses). */
  changed: Set<string>;
  /** Model names the merge-base has no node for. */
  newModels: Set<string>;
  /** slp.yml of the base's tip: its `lineage` decides how far a change is followed. */
  config: LoadedConfig;
}

async function baseChangesAt(
  project: CurrentProject & { model: Project },
  base: string,
  { repo, baseCommit, mergeBase, prefix, before }: BaseProject,
): Promise<BaseChanges> {
  const changes = await projectChanges(before, project.model);
  const newModels = new Set(
    [...changes.nodes.values()].filter((change) => change.kind === "model" && change.what.includes("new")).map((change) => change.name),
  );
  return { mergeBase, changed: new Set(changes.nodes.keys()), newModels, config: await configAt(repo, baseCommit, base, prefix) };
}

/** Everything `--base` tells a Stage E command (compare, diff, reconcile): the stale set and the changes. */
export interface BaseFacts {
  stale: StaleSet;
  changes: BaseChanges;
}

export async function readBaseFacts(
  project: CurrentProject & { model: Project },
  base: string,
  store = new ParseStore(),
): Promise<BaseFacts> {
  const at = await baseProject(project.dir, base, store);
  const [stale, changes] = await Promise.all([staleSetAt(project, base, at), baseChangesAt(project, base, at)]);
  return { stale, changes };
}

/**
 * Every model's pre-registration at a commit, from the yml under the top
 * folders, in git's path order; a model declared twice keeps the later
 * declaration (history is read as it was, not judged).
 */
async function preRegistrationsAt(project: Project, martsPaths: readonly string[]): Promise<Map<string, Value | Mapping>> {
  const files = ymlIn(await project.list(topDirectories(martsPaths)));
  const found = new Map<string, Value>();
  for (const declared of await project.propertiesOf(files)) {
    for (const model of declared.models) found.set(model.name, model.preRegistration);
  }
  return found;
}
