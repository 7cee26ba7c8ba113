/**
 * A branch's history as `gate` reads it (spec/rules.md §5), in-process from
 * git: the merge-base of base and head, the first-parent walk oldest first,
 * every commit the branch brings (side branches merged in included), and the project model at any commit of it. Settings come from the base,
 * never from the branch being judged.
 */
import { ConfigError, GitError } from "../../core/errors.ts";
import { Repository } from "../../git/repository.ts";
import { parseConfig, CONFIG_FILE, type LoadedConfig } from "../slp/slp-yml.ts";
import { type ParseStore, Project } from "../model.ts";
import { joinPath as join } from "./protected.ts";
import { CommitTree } from "../files/source.ts";

export interface BranchOptions {
  /** Absolute project dir (inside the repository). */
  dir: string;
  base: string;
  head: string;
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
  /**
   * Every commit head reaches and the base does not, parents first (head
   * last): `commits` plus the side branches merged into the branch; what a
   * merge of the base brought in is the base's and is not here.
   */
  range: string[];
  /** What the reader should know about how the refs were read (a base found only as origin/<base>). */
  notes: string[];
}

/**
 * Resolves base and head, finds the merge-base and lists the walk. Where the
 * reference judges what it can read, this refuses (exit 2) a history it cannot
 * read whole: a shallow clone (even one deep enough today: its merge-base
 * cannot be trusted), an object missing between head and the merge-base, a
 * ref that does not exist.
 */
export async function openBranch(options: BranchOptions): Promise<Branch> {
  const repo = Repository.open(options.dir);
  const prefix = repo.relativePath(options.dir);
  repo.assertFullHistory();
  const base = await repo.resolveBase(options.base);
  const headCommit = await repo.resolveCommit(options.head);
  const mergeBase = await repo.mergeBase(base.commit, headCommit, [base.ref, options.head]);
  const commits = await repo.firstParentRange(mergeBase, headCommit);
  const range = await repo.branchRange(base.commit, headCommit, commits);
  const notes = base.ref === options.base ? [] : [baseFallbackNote(options.base, base.ref)];
  return { repo, prefix, baseRef: base.ref, headRef: options.head, baseCommit: base.commit, headCommit, mergeBase, commits, range, notes };
}

/** The base a branch is judged against, and where its name came from (for the notes). */
export interface JudgedBase {
  name: string;
  from: "--base" | "SLP_BASE" | "default" | "slp.yml";
  /** The branch whose slp.yml confirmed the name, when it came from slp.yml. */
  confirmedBy?: string;
}

/**
 * The base gate judges against, chosen so the branch being judged cannot
 * choose it: `--base`, else `SLP_BASE` (both the caller's), else `base:` in
 * slp.yml, but only as the repository's default branch has it (origin/HEAD
 * as the clone recorded it, else main, else master): the work tree's slp.yml
 * is the branch's own file, so a branch naming itself, or a commit after its
 * changes, would be judged against nothing. The work tree's `base:` must
 * say the same (either may leave it out, meaning main), or gate refuses
 * (exit 2) rather than pick one.
 */
export async function judgedBase(
  dir: string,
  env: Record<string, string | undefined>,
  asked: string | undefined,
  claimed: string | undefined,
): Promise<JudgedBase> {
  if (asked !== undefined) return { name: asked, from: "--base" };
  if (env.SLP_BASE) return { name: env.SLP_BASE, from: "SLP_BASE" };
  const repo = Repository.open(dir);
  const prefix = repo.relativePath(dir);
  const candidates = [await repo.remoteDefaultBranch(), "main", "master"].filter((name): name is string => name !== null);
  let anchor: { name: string; commit: string; ref: string } | null = null;
  for (const name of new Set(candidates)) {
    try {
      anchor = { name, ...(await repo.resolveBase(name)) };
      break;
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
    }
  }
  const claim = claimed ?? "main";
  if (anchor === null) {
    if (claimed === undefined) return { name: "main", from: "default" };
    throw new ConfigError(
      `slp.yml names base ${claimed}, and this clone has no default branch (origin/HEAD, main or master) whose slp.yml could confirm it; the branch being judged does not choose what it is judged against`,
      {
        file: CONFIG_FILE,
        fix: "pass --base, or set SLP_BASE (CI: the pull request's base)",
      },
    );
  }
  const anchorConfig = await configAt(repo, anchor.commit, anchor.ref, prefix);
  const confirmed = anchorConfig.config.base ?? "main";
  if (confirmed !== claim) {
    // Say what the default branch actually holds: no slp.yml at all, one naming no base, or one naming a base.
    const anchorSays =
      anchorConfig.file === null
        ? `${anchor.ref} has no slp.yml (so the base is main)`
        : `slp.yml on ${anchor.ref} names ${anchorConfig.config.base === undefined ? "no base (so main)" : `base ${confirmed}`}`;
    throw new ConfigError(
      `slp.yml here names ${claimed === undefined ? "no base (so main)" : `base ${claimed}`}, but ${anchorSays}; the branch being judged does not choose what it is judged against`,
      { file: CONFIG_FILE, fix: `pass --base ${confirmed} (or set SLP_BASE); a change of base is made on ${anchor.ref} first` },
    );
  }
  return confirmed === "main" ? { name: "main", from: "default" } : { name: confirmed, from: "slp.yml", confirmedBy: anchor.ref };
}

/** Says that a base was read from its remote-tracking branch. */
export function baseFallbackNote(asked: string, used: string): string {
  return `${asked} is not a branch in this clone; the base is ${used} (git fetch origin ${asked} keeps it current)`;
}

/**
 * The project at one commit of the branch. Every project of one branch shares
 * `store`, so a yml blob met at thirty commits is parsed once. `at` is how
 * messages name the commit.
 */
export function projectAt(branch: Branch, commit: string, at: string, store: ParseStore): Project<CommitTree> {
  return new Project(new CommitTree(branch.repo, commit, branch.prefix, at), { store });
}

/** slp.yml of the base commit (the tip of the branch the PR targets): the project folder's, else the repository root's, if any. */
export async function baseConfig(branch: Branch): Promise<LoadedConfig> {
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
