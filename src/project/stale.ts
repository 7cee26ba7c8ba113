/**
 * `compare --base`: which pre-registrations are inherited rather than this
 * branch's own. A pre-registration canonically identical to the one at the
 * merge-base was written for an earlier change (framework Stage B: "it counts
 * as absent"), so compare refuses a diff held against it (C0) and does not
 * ask for a diff for it (C7).
 *
 * Reads only the yml under the project's top folders at the merge-base. The
 * project may sit in a subfolder of the repository (the reference requires
 * the repository root).
 */
import { canonicalJson, isMapping, type Value } from "../core/values.ts";
import { Repository } from "../git/repository.ts";
import { isYamlFile, topDirectories } from "./paths.ts";
import { readDeclarations, type Project } from "./project.ts";

export interface StaleSet {
  /** The ref as the user gave it (`main`). */
  base: string;
  /** The merge-base of that ref and HEAD. */
  mergeBase: string;
  /** Models whose current pre-registration is the merge-base's. */
  models: Set<string>;
}

/** The merge-base of `base` and HEAD, and the models whose pre-registration it already had; GitError when git cannot say. */
export async function readStaleSet(project: Project, base: string): Promise<StaleSet> {
  const repo = Repository.open(project.dir);
  repo.assertFullHistory();
  const [baseCommit, head] = await Promise.all([repo.resolveCommit(base), repo.resolveCommit("HEAD")]);
  const mergeBase = await repo.mergeBase(baseCommit, head, [base, "HEAD"]);
  const before = await preRegistrationsAt(repo, mergeBase, project);

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
async function preRegistrationsAt(repo: Repository, commit: string, project: Project): Promise<Map<string, Value>> {
  const inRepo = repo.relativePath(project.dir);
  const prefix = inRepo === "" ? "" : `${inRepo}/`;
  const files = (await repo.listFiles(commit, topDirectories(project.martsPaths).map((top) => `${prefix}${top}`))).filter((file) =>
    isYamlFile(file.path),
  );
  const at = commit.slice(0, 8);
  const texts = await Promise.all(files.map((file) => repo.readText(file, at)));
  const found = new Map<string, Value>();
  files.forEach((file, index) => {
    const declarations = readDeclarations(file.path.slice(prefix.length), texts[index] as string, at);
    for (const model of declarations.models) found.set(model.name, model.preRegistration);
  });
  return found;
}
