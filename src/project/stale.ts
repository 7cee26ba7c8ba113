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
import { canonicalJson, isMapping, type Mapping, type Value } from "../core/values.ts";
import { Repository } from "../git/repository.ts";
import { ParseStore, Project, ymlIn } from "./model.ts";
import { topDirectories } from "./paths.ts";
import { CommitTree } from "./source.ts";

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
  const repo = Repository.open(project.dir);
  repo.assertFullHistory();
  const [baseCommit, head] = await Promise.all([repo.resolveCommit(base), repo.resolveCommit("HEAD")]);
  const mergeBase = await repo.mergeBase(baseCommit, head, [base, "HEAD"]);
  const before = await preRegistrationsAt(new Project(new CommitTree(repo, mergeBase, repo.relativePath(project.dir), mergeBase.slice(0, 8)), { store }), project.martsPaths);

  const models = new Set<string>();
  for (const model of project.models.values()) {
    if (!isMapping(model.preRegistration) || !before.has(model.name)) continue;
    if (canonicalJson(before.get(model.name)) === canonicalJson(model.preRegistration)) models.add(model.name);
  }
  return { base, mergeBase, models };
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
