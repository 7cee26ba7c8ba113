/**
 * Reads a branch's inventories (gate-inventory.ts) from the project model at
 * each commit of its walk: whole at the merge-base and at head, the yml
 * declarations in between. Loaded only by gate, which alone reads git.
 */
import { InputError } from "../../core/errors.ts";
import { baseConfig, projectAt, type Branch } from "../../project/history/history.ts";
import { ParseStore, type Project } from "../../project/model.ts";
import { sqlNamedFolder, sqlNamedFolderError } from "../../project/files/files.ts";
import type { CommitTree } from "../../project/files/source.ts";
import { refuseDuplicateUnitTests } from "../../project/nodes/unit-tests.ts";
import { CODEOWNERS_LOCATIONS, refuseUnreadableCodeowners } from "../../project/slp/codeowners.ts";
import { ymlIn } from "../../project/nodes/context.ts";
import {
  DEFAULT_MARTS_PATHS,
  missingMartsFix,
  modelFoldersOf,
  normaliseMartsPath,
  stem,
  topDirectories,
} from "../../project/files/paths.ts";
import { dbtPathsOf, type DbtPaths } from "../../project/dbt/dbt-paths.ts";
import { localPackageFolders } from "../../project/dbt/package-entries.ts";
import { joinPath, matchesProtected, protectedPatterns } from "../../project/history/protected.ts";
import { mergeDeclared, PACKAGE_FILES, type BranchInventories, type Declared, type Inventory, type WalkStep } from "./gate-inventory.ts";

export { sameInventory } from "./gate-inventory.ts";

/**
 * Reads slp.yml from the base, checks the marts paths at head, and reads the
 * project at every commit of the walk: whole at the merge-base and at head,
 * its yml declarations in between.
 */
export async function readInventories(
  branch: Branch,
  martsPath: string[] | undefined,
  store = new ParseStore(),
): Promise<BranchInventories> {
  const { repo, prefix } = branch;
  const config = await baseConfig(branch);
  const martsPaths = (martsPath ?? config.config.marts_paths ?? DEFAULT_MARTS_PATHS).map(normaliseMartsPath);
  const dbtPaths = await baseDbtPaths(branch, store);
  for (const marts of martsPaths) {
    if ((await repo.filesIn(branch.headCommit, [joinPath(prefix, marts)])).length === 0) {
      // What to do next names the model folders head has (dbt_project.yml's model-paths on the base).
      const modelPaths = dbtPaths["model-paths"];
      const files = await repo.filesIn(
        branch.headCommit,
        modelPaths.map((path) => joinPath(prefix, `${path}/`)),
      );
      const folders = modelFoldersOf(
        files.map((file) => file.path.slice(prefix === "" ? 0 : prefix.length + 1)),
        modelPaths,
      );
      const origin = martsPath ? "--marts-path" : config.config.marts_paths ? "slp.yml" : "default";
      throw new InputError(`${marts} holds no file at ${branch.headRef}; nothing to check is not OK`, {
        fix: `${missingMartsFix(origin, folders, modelPaths)} (slp.yml as the base branch has it)`,
      });
    }
  }
  // A local package's folder (packages.yml `local:`, as the base names them) holds macros and generic tests like macros/.
  const localPackages = (await baseLocalPackages(branch, store)).map((folder) => joinPath(prefix, folder));
  const reader = new InventoryReader(
    branch,
    store,
    topDirectories(martsPaths),
    [...(config.config.protected_paths ?? []), ...localPackages],
    dbtPaths,
  );
  const short = (oid: string) => repo.shortSha(oid);
  const before = await reader.full(branch.mergeBase, `commit ${short(branch.mergeBase)}`);
  const walk: WalkStep[] = [{ commit: branch.mergeBase, label: branch.baseRef, declared: before }];
  for (const commit of branch.commits.slice(0, -1)) {
    walk.push({ commit, label: await repo.label(commit), declared: await reader.declared(commit, `commit ${short(commit)}`) });
  }
  const after = await reader.full(branch.headCommit, `${branch.headRef} (${short(branch.headCommit)})`, true);
  walk.push({ commit: branch.headCommit, label: await repo.label(branch.headCommit), declared: after });
  const walked = new Map(walk.slice(1).map((step) => [step.commit, step]));
  const range: WalkStep[] = [];
  for (const commit of branch.range) {
    range.push(
      walked.get(commit) ?? { commit, label: await repo.label(commit), declared: await reader.declared(commit, `commit ${short(commit)}`) },
    );
  }
  store.save();
  const fileAlongWalk = (path: string) =>
    Promise.all(walk.map(async (step) => (await repo.filesIn(step.commit, [joinPath(prefix, path)]))[0]?.oid ?? null));
  return { martsPaths, config, before, after, walk, range, dbtPaths, fileAlongWalk };
}

/**
 * dbt_project.yml's folders as the base declares them: those of the
 * merge-base and of the base's tip together (a branch that moves a folder in
 * its own dbt_project.yml is G9's, and is judged by the folders it left).
 */
async function baseDbtPaths(branch: Branch, store: ParseStore): Promise<DbtPaths> {
  const at = async (commit: string) =>
    dbtPathsOf(await projectAt(branch, commit, `commit ${branch.repo.shortSha(commit)}`, store).settings());
  const [mergeBase, tip] = await Promise.all([at(branch.mergeBase), at(branch.baseCommit)]);
  const union = {} as DbtPaths;
  for (const key of Object.keys(mergeBase) as (keyof DbtPaths)[]) union[key] = [...new Set([...mergeBase[key], ...tip[key]])];
  return union;
}

/** The CODEOWNERS GitHub would read at the commit (the repository root's; else the project folder's, as check finds it), refused if it holds a NUL byte. */
async function refuseUnreadableCodeownersAt(project: Project<CommitTree>, prefix: string, at: string): Promise<void> {
  const places = [
    ...CODEOWNERS_LOCATIONS.map((location) => project.source.fromRepository(location)),
    ...(prefix === "" ? [] : CODEOWNERS_LOCATIONS),
  ];
  for (const place of places) {
    if (await project.source.exists(place)) {
      refuseUnreadableCodeowners(await project.text(place), place, at);
      return;
    }
  }
}

/** The folders of the local packages the base names (merge-base and base tip together), project-relative. */
async function baseLocalPackages(branch: Branch, store: ParseStore): Promise<string[]> {
  const at = (commit: string) => localPackageFolders(projectAt(branch, commit, `commit ${branch.repo.shortSha(commit)}`, store));
  const [mergeBase, tip] = await Promise.all([at(branch.mergeBase), at(branch.baseCommit)]);
  return [...new Set([...mergeBase, ...tip])];
}

/** Reads inventories at commits of one branch, reusing parses and the declarations of unchanged top folders. */
class InventoryReader {
  readonly #branch: Branch;
  readonly #store: ParseStore;
  readonly #topDirs: readonly string[];
  /** Protected patterns, repository-relative: a trailing slash is a folder. */
  readonly #protectedRepo: string[];
  readonly #declared = new Map<string, Promise<Declared>>();
  readonly #dbtPaths: DbtPaths;

  constructor(branch: Branch, store: ParseStore, topDirs: readonly string[], extraProtected: readonly string[], dbtPaths: DbtPaths) {
    this.#branch = branch;
    this.#store = store;
    this.#topDirs = topDirs;
    this.#dbtPaths = dbtPaths;
    this.#protectedRepo = protectedPatterns({ prefix: branch.prefix, extra: extraProtected, dbtPaths });
  }

  /** The full inventory at a commit (§5's read plan); at `head`, what the branch leaves that dbt or GitHub would refuse is refused. */
  async full(commit: string, at: string, head = false): Promise<Inventory> {
    const project = projectAt(this.#branch, commit, at, this.#store);
    // dbt_project.yml is read as every command reads it: a malformed one is refused here too.
    await project.settings();
    const protectedPaths = this.#protectedRepo.map((path) => project.source.fromRepository(path));
    const isProtected = (path: string) => protectedPaths.some((pattern) => matchesProtected(pattern, path));
    const folders = (key: keyof DbtPaths) => this.#dbtPaths[key].map((path) => `${path}/`);
    const tests = folders("test-paths");
    const recon = this.#dbtPaths["analysis-paths"].map((path) => `${path}/reconciliation_`);
    // Properties yml are read under the top folders and every model, seed and snapshot folder, so tests on seeds and snapshots are gated too.
    const ymlFolders = [...new Set([...this.#topDirs, ...folders("model-paths"), ...folders("seed-paths"), ...folders("snapshot-paths")])];
    const scope = [...ymlFolders, ...tests, ...folders("analysis-paths"), ...PACKAGE_FILES, ...protectedPaths];
    const files = await project.list(scope);
    if (head) {
      const folder = files.map((file) => sqlNamedFolder(file.path)).find((found) => found !== null);
      if (folder) throw sqlNamedFolderError(folder, at);
      await refuseUnreadableCodeownersAt(project, this.#branch.prefix, at);
    }
    const inventory: Omit<Inventory, keyof Declared> = {
      project,
      sqls: new Map(),
      code: new Map(),
      files: new Map(),
      singular: new Map(),
      recons: new Map(),
      packages: new Map(),
      protected: new Map(),
    };
    const twins = new Map<string, string[]>();
    for (const file of files) {
      const { path } = file;
      const id = file.id as string;
      // A reconciliation is G5's before the analysis folder it sits in is G9's.
      if (recon.some((prefix) => path.startsWith(prefix))) {
        inventory.recons.set(path, id);
      } else if (isProtected(path)) {
        inventory.protected.set(path, id);
      } else if (/\.(sql|py)$/.test(path) && this.#topDirs.some((top) => path.startsWith(top))) {
        // A model's code is its .sql or its .py (a Python model): one rewritten in the other language changed.
        // A stem met twice keeps its later path (and that path's hash), unless dbt keeps the other (below).
        if (inventory.sqls.has(stem(path)))
          twins.set(stem(path), [...(twins.get(stem(path)) ?? [inventory.sqls.get(stem(path)) as string]), path]);
        inventory.sqls.set(stem(path), path);
        inventory.code.set(stem(path), id);
      } else if (tests.some((folder) => path.startsWith(folder))) {
        inventory.files.set(path, id);
        if (path.endsWith(".sql") && !tests.some((folder) => path.startsWith(`${folder}generic/`))) inventory.singular.set(path, file);
      } else if ((PACKAGE_FILES as readonly string[]).includes(path)) {
        inventory.packages.set(path, id);
      }
    }
    if (twins.size > 0) {
      // Two models of one name: dbt keeps the enabled one and sets a disabled one aside (the model reader knows which).
      const ids = new Map(files.map((file) => [file.path, file.id as string]));
      const models = new Map((await project.nodes()).models.map((node) => [node.file, node]));
      for (const [name, paths] of twins) {
        const kept = paths.find((path) => models.get(path)?.enabled) ?? paths.find((path) => models.has(path));
        if (kept === undefined) continue;
        inventory.sqls.set(name, kept);
        inventory.code.set(name, ids.get(kept) as string);
      }
    }
    const ymls = ymlIn(files).filter((file) => ymlFolders.some((top) => file.path.startsWith(top)));
    const properties = await project.propertiesOf(ymls);
    if (head) {
      refuseDuplicateUnitTests(
        properties.flatMap((file) => file.unitTests),
        await project.settings(),
        at,
      );
    }
    const declared = mergeDeclared(properties, false);
    return { ...declared, ...inventory };
  }

  /** What the yml under the top folders declare at a commit; a commit that left them untouched costs a lookup. */
  async declared(commit: string, at: string): Promise<Declared> {
    const { repo, prefix } = this.#branch;
    const trees = await Promise.all(this.#topDirs.map((top) => repo.treeAt(commit, joinPath(prefix, top.slice(0, -1)))));
    const key = trees.join(",");
    let promise = this.#declared.get(key);
    if (!promise) {
      promise = (async () => {
        const project = projectAt(this.#branch, commit, at, this.#store);
        return mergeDeclared(await project.propertiesOf(ymlIn(await project.list(this.#topDirs))), true);
      })();
      this.#declared.set(key, promise);
    }
    return promise;
  }
}
