/**
 * A branch's history as `gate` reads it (spec/rules.md §5), in-process from
 * git: the merge-base of base and head, the first-parent walk oldest first, a
 * full inventory at both ends and the yml declarations of every commit in
 * between. Settings come from the base, never from the branch being judged.
 */
import { InputError } from "../core/errors.ts";
import { Repository, type FileAt } from "../git/repository.ts";
import { parseConfig, CONFIG_FILE, type LoadedConfig } from "./config.ts";
import {
  DeclarationCache,
  PACKAGE_FILES,
  readDeclared,
  readInventory,
  ymlFiles,
  type Declared,
  type Inventory,
  type ListedFile,
  type ReadPlan,
} from "./inventory.ts";
import { DEFAULT_MARTS_PATHS, normaliseMartsPath, topDirectories } from "./paths.ts";
import { joinPath as join, matchesProtected, protectedPatterns } from "./protected.ts";


export interface BranchOptions {
  /** Absolute project dir (inside the repository). */
  dir: string;
  base: string;
  head: string;
  /** --marts-path as given; replaces slp.yml's marts_paths and the default. */
  martsPath?: string[];
}

/** One commit of the walk and what its yml declare. */
export interface WalkStep {
  commit: string;
  /** `<short sha> by <author>`; the merge-base is labelled by the base ref. */
  label: string;
  declared: Declared;
}

export interface Branch {
  repo: Repository;
  /** The project dir relative to the repository root, "" at the root. */
  prefix: string;
  baseRef: string;
  headRef: string;
  baseCommit: string;
  headCommit: string;
  mergeBase: string;
  /** The first-parent commits of merge-base..head, oldest first (head last). */
  commits: string[];
  /** What the reader should know about how the refs were read (a base found only as origin/<base>). */
  notes: string[];
}

export interface BranchInventories {
  martsPaths: string[];
  config: LoadedConfig;
  before: Inventory;
  after: Inventory;
  /** The merge-base, each commit between, then head. */
  walk: WalkStep[];
}

/**
 * Resolves base and head, finds the merge-base and lists the walk. Where the
 * reference judges what it can read, this refuses (exit 2) a history it cannot
 * read whole: a shallow clone (even one deep enough today: its merge-base
 * cannot be trusted), an object missing between head and the merge-base, a
 * ref that does not exist. Files are hashed by blob id, so a binary file under
 * a protected folder is a change to report, never an unreadable file.
 */
export async function openBranch(options: BranchOptions): Promise<Branch> {
  const repo = Repository.open(options.dir);
  const prefix = repo.relativePath(options.dir);
  repo.assertFullHistory();
  const base = await repo.resolveBase(options.base);
  const headCommit = await repo.resolveCommit(options.head);
  const mergeBase = await repo.mergeBase(base.commit, headCommit, [base.ref, options.head]);
  const commits = await repo.firstParentRange(mergeBase, headCommit);
  const notes = base.ref === options.base ? [] : [baseFallbackNote(options.base, base.ref)];
  return { repo, prefix, baseRef: base.ref, headRef: options.head, baseCommit: base.commit, headCommit, mergeBase, commits, notes };
}

/** Says that a base was read from its remote-tracking branch. */
export function baseFallbackNote(asked: string, used: string): string {
  return `${asked} is not a branch in this clone; the base is ${used} (git fetch origin ${asked} keeps it current)`;
}

/** Reads slp.yml from the base, checks the marts paths at head, and reads every inventory of the walk. */
export async function readInventories(branch: Branch, martsPath: string[] | undefined): Promise<BranchInventories> {
  const { repo, prefix } = branch;
  const config = await baseConfig(branch);
  const martsPaths = (martsPath ?? config.config.marts_paths ?? DEFAULT_MARTS_PATHS).map(normaliseMartsPath);
  for (const marts of martsPaths) {
    if ((await repo.filesIn(branch.headCommit, [join(prefix, marts)])).length === 0) {
      throw new InputError(`${marts} holds no file at ${branch.headRef}; nothing to check is not OK`, {
        fix: "pass the folder that holds your marts models with --marts-path (or marts_paths in slp.yml on the base branch)",
      });
    }
  }
  const reader = new ProjectReader(repo, prefix, topDirectories(martsPaths), config.config.protected_paths ?? []);
  const short = (oid: string) => repo.shortSha(oid);
  const before = await reader.full(branch.mergeBase, `commit ${short(branch.mergeBase)}`);
  const walk: WalkStep[] = [{ commit: branch.mergeBase, label: branch.baseRef, declared: before }];
  for (const commit of branch.commits.slice(0, -1)) {
    walk.push({ commit, label: await repo.label(commit), declared: await reader.declared(commit, `commit ${short(commit)}`) });
  }
  const after = await reader.full(branch.headCommit, `${branch.headRef} (${short(branch.headCommit)})`);
  walk.push({ commit: branch.headCommit, label: await repo.label(branch.headCommit), declared: after });
  return { martsPaths, config, before, after, walk };
}

/** slp.yml of the base commit (the tip of the branch the PR targets): the project folder's, else the repository root's, if any. */
async function baseConfig(branch: Branch): Promise<LoadedConfig> {
  return configAt(branch.repo, branch.baseCommit, branch.baseRef, branch.prefix);
}

/**
 * slp.yml at a commit (`label` names the commit in errors): the project
 * folder's (`prefix`, "" at the root) when it has one, else the repository
 * root's, if any.
 */
export async function configAt(repo: Repository, commit: string, label: string, prefix = ""): Promise<LoadedConfig> {
  for (const path of prefix === "" ? [CONFIG_FILE] : [join(prefix, CONFIG_FILE), CONFIG_FILE]) {
    const [file] = (await repo.filesIn(commit, [path])).filter((found) => found.path === path);
    if (!file) continue;
    const text = await repo.readText(file, label);
    return parseConfig(text, CONFIG_FILE, label);
  }
  return { config: {}, file: null, warnings: [] };
}


/**
 * Lists and reads the project at any commit: paths are turned relative to
 * the project dir (a repository-root file outside it reads `../x`), blobs are
 * read only when parsed, and parsed yml and unchanged folders are reused
 * across commits.
 */
export class ProjectReader implements ReadPlan {
  readonly topDirs: readonly string[];
  readonly #repo: Repository;
  readonly #prefix: string;
  /** Protected patterns, repository-relative: a trailing slash is a folder. */
  readonly #protectedRepo: string[];
  /** The same, project-relative. */
  readonly #protected: string[];
  readonly #cache = new DeclarationCache();
  readonly #declared = new Map<string, Promise<Declared>>();

  constructor(repo: Repository, prefix: string, topDirs: readonly string[], extraProtected: readonly string[]) {
    this.#repo = repo;
    this.#prefix = prefix;
    this.topDirs = topDirs;
    this.#protectedRepo = protectedPatterns({ prefix, extra: extraProtected });
    this.#protected = this.#protectedRepo.map((path) => this.display(path));
  }

  /** A repository-relative path as the project sees it. */
  display(repoPath: string): string {
    if (this.#prefix === "") return repoPath;
    if (repoPath.startsWith(`${this.#prefix}/`)) return repoPath.slice(this.#prefix.length + 1);
    return `${"../".repeat(this.#prefix.split("/").length)}${repoPath}`;
  }

  isProtected(path: string): boolean {
    return this.#protected.some((pattern) => matchesProtected(pattern, path));
  }

  /** The full inventory at a commit (§5's read plan). */
  async full(commit: string, at: string): Promise<Inventory> {
    const scope = [
      ...this.topDirs.map((top) => join(this.#prefix, top)),
      join(this.#prefix, "tests/"),
      join(this.#prefix, "analyses/"),
      ...PACKAGE_FILES.map((file) => join(this.#prefix, file)),
      ...this.#protectedRepo,
    ];
    return readInventory(await this.#list(commit, scope, at), this, this.#cache, at);
  }

  /** What the yml under the top folders declare at a commit; a commit that left them untouched costs a lookup. */
  async declared(commit: string, at: string): Promise<Declared> {
    const trees = await Promise.all(this.topDirs.map((top) => this.#repo.treeAt(commit, join(this.#prefix, top.slice(0, -1)))));
    const key = trees.join(",");
    let promise = this.#declared.get(key);
    if (!promise) {
      promise = (async () => {
        const files = await this.#list(commit, this.topDirs.map((top) => join(this.#prefix, top)), at);
        return readDeclared(ymlFiles(files, this), this.#cache, at, true);
      })();
      this.#declared.set(key, promise);
    }
    return promise;
  }

  async #list(commit: string, scope: string[], at: string): Promise<ListedFile[]> {
    const files = await this.#repo.filesIn(commit, scope);
    return files.map((file: FileAt) => ({
      path: this.display(file.path),
      oid: file.oid,
      read: () => this.#repo.readText(file, at),
    }));
  }
}
