/**
 * The git adapter: the only module that imports isomorphic-git. It reads
 * history in-process (no git binary at run time): refs, commits, trees and
 * blobs from loose objects, packfiles and packed refs. Everything read is
 * cached by object id, so a tree or a blob shared by many commits is read
 * and decoded once.
 */
import * as fs from "node:fs";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import git from "isomorphic-git";
import { GitError } from "../core/errors.ts";

export interface Author {
  name: string;
  email: string;
  timestamp: number;
  timezoneOffset: number;
}

export interface Commit {
  oid: string;
  tree: string;
  parents: string[];
  author: Author;
  committer: Author;
  message: string;
}

export interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: "blob" | "tree" | "commit";
}

/** A file in a commit's tree: its path from the repository root and its blob id. */
export interface FileAt {
  path: string;
  oid: string;
  mode: string;
}

const FETCH_FULL_HISTORY =
  "fetch the full history (actions/checkout with fetch-depth: 0, or git fetch --unshallow)";

export class Repository {
  /** The work tree's root: the folder holding `.git`. */
  readonly root: string;
  /** Where objects and refs live (a linked worktree's common dir). */
  readonly gitdir: string;
  /** This work tree's own git dir (HEAD, index); the same as gitdir outside linked worktrees. */
  readonly worktreeGitdir: string;
  /** isomorphic-git's pack cache, shared by every call. */
  readonly #cache: object = {};
  readonly #commits = new Map<string, Promise<Commit>>();
  readonly #trees = new Map<string, Promise<TreeEntry[]>>();
  readonly #texts = new Map<string, Promise<string>>();

  private constructor(root: string, worktreeGitdir: string) {
    this.root = root;
    this.worktreeGitdir = worktreeGitdir;
    const common = join(worktreeGitdir, "commondir");
    this.gitdir = existsSync(common) ? resolve(worktreeGitdir, readFileSync(common, "utf8").trim()) : worktreeGitdir;
  }

  /** Opens the repository that holds `dir` (walking up to the folder with `.git`). */
  static open(dir: string): Repository {
    let current = resolve(dir);
    for (;;) {
      const dotGit = join(current, ".git");
      if (existsSync(dotGit)) return new Repository(current, gitdirOf(dotGit));
      const parent = dirname(current);
      if (parent === current) {
        throw new GitError(`${dir} is not inside a git repository`, {
          fix: "run slp from a clone of the repository (git clone, then cd into it)",
        });
      }
      current = parent;
    }
  }

  /** The path of `dir` relative to the repository root, `/`-separated, "" for the root itself. */
  relativePath(dir: string): string {
    return relative(this.root, resolve(dir)).split("\\").join("/");
  }

  /** True for a shallow clone: history stops at a boundary, and rules that read history cannot judge. */
  isShallow(): boolean {
    const file = join(this.gitdir, "shallow");
    return existsSync(file) && readFileSync(file, "utf8").trim() !== "";
  }

  /** Refuses a shallow clone with the fix. */
  assertFullHistory(): void {
    if (this.isShallow()) {
      throw new GitError("this clone is shallow, so the branch's history cannot be read back to where it left the base", {
        fix: FETCH_FULL_HISTORY,
      });
    }
  }

  /**
   * A ref, branch, tag, remote branch, full or abbreviated sha, with optional
   * `~N` / `^` suffixes, resolved to a commit id. Unknown refs are a GitError naming them.
   */
  async resolveCommit(ref: string): Promise<string> {
    const match = /^(.*?)((?:[~^]\d*)*)$/.exec(ref);
    const base = match?.[1] || ref;
    const suffix = match?.[2] ?? "";
    let oid = await this.#resolveName(base, ref);
    oid = await this.#peelToCommit(oid, ref);
    for (const step of suffix.matchAll(/([~^])(\d*)/g)) {
      const count = step[2] === "" ? 1 : Number(step[2]);
      if (step[1] === "^") {
        if (count === 0) continue;
        const parents = (await this.readCommit(oid)).parents;
        const parent = parents[count - 1];
        if (!parent) throw unknownRef(ref);
        oid = parent;
      } else {
        for (let i = 0; i < count; i++) {
          const parent = (await this.readCommit(oid)).parents[0];
          if (!parent) throw unknownRef(ref);
          oid = parent;
        }
      }
    }
    return oid;
  }

  /** The current branch's short name, or null when HEAD is detached. */
  async currentBranch(): Promise<string | null> {
    const head = this.#headTarget();
    return head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : null;
  }

  async readCommit(oid: string): Promise<Commit> {
    let promise = this.#commits.get(oid);
    if (!promise) {
      promise = git
        .readCommit({ fs, gitdir: this.gitdir, oid, cache: this.#cache })
        .then(({ oid: id, commit }) => ({
          oid: id,
          tree: commit.tree,
          parents: commit.parent,
          author: commit.author,
          committer: commit.committer,
          message: commit.message,
        }))
        .catch((error: unknown) => {
          throw missingObject(`commit ${oid.slice(0, 8)}`, error);
        });
      this.#commits.set(oid, promise);
    }
    return promise;
  }

  /** The merge-base of two commits, or a GitError when they share no history. */
  async mergeBase(a: string, b: string, names: [string, string] = [a, b]): Promise<string> {
    let bases: string[];
    try {
      bases = await git.findMergeBase({ fs, gitdir: this.gitdir, oids: [a, b], cache: this.#cache });
    } catch (error) {
      throw missingObject(`the history between ${names[0]} and ${names[1]}`, error);
    }
    const base = [...bases].sort()[0];
    if (!base) {
      throw new GitError(`${names[0]} and ${names[1]} share no history, so there is no merge-base to compare against`, {
        fix: `check that ${names[1]} was branched from ${names[0]}, and ${FETCH_FULL_HISTORY}`,
      });
    }
    return base;
  }

  /**
   * The commits of `base..head` along first parents, oldest first, as
   * `git rev-list --first-parent --reverse base..head` lists them: side
   * branches merged into the branch are not walked.
   */
  async firstParentRange(base: string, head: string): Promise<string[]> {
    const chain: string[] = [];
    let current: string | undefined = head;
    while (current && current !== base) {
      chain.push(current);
      const commit = await this.readCommit(current);
      current = commit.parents[0];
    }
    if (current === base) return chain.reverse();
    // The first-parent chain went past the base without meeting it (the base
    // branch was merged into this one): drop what the base can reach.
    const reachable = await this.#ancestors(base);
    return chain.filter((oid) => !reachable.has(oid)).reverse();
  }

  async readTree(oid: string): Promise<TreeEntry[]> {
    let promise = this.#trees.get(oid);
    if (!promise) {
      promise = git
        .readTree({ fs, gitdir: this.gitdir, oid, cache: this.#cache })
        .then(({ tree }) => tree as TreeEntry[])
        .catch((error: unknown) => {
          throw missingObject(`tree ${oid.slice(0, 8)}`, error);
        });
      this.#trees.set(oid, promise);
    }
    return promise;
  }

  /**
   * Every file of a commit under the given folders (repository-relative,
   * trailing slash) and exact paths; subtrees outside them are never read.
   * An empty `scope` lists the whole tree.
   */
  async listFiles(commit: string, scope: readonly string[] = []): Promise<FileAt[]> {
    const tree = (await this.readCommit(commit)).tree;
    const files: FileAt[] = [];
    const wanted = (path: string, isTree: boolean): boolean => {
      if (scope.length === 0) return true;
      return scope.some((entry) =>
        entry.endsWith("/")
          ? path.startsWith(entry) || (isTree && entry.startsWith(`${path}/`))
          : path === entry || (isTree && entry.startsWith(`${path}/`)),
      );
    };
    const visit = async (oid: string, prefix: string): Promise<void> => {
      const entries = await this.readTree(oid);
      await Promise.all(
        entries.map(async (entry) => {
          const path = `${prefix}${entry.path}`;
          if (entry.type === "tree") {
            if (wanted(path, true)) await visit(entry.oid, `${path}/`);
          } else if (wanted(path, false)) {
            files.push({ path, oid: entry.oid, mode: entry.mode });
          }
        }),
      );
    };
    await visit(tree, "");
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** A blob as UTF-8 text, decoded once per blob id; `where` names it in errors. */
  async readText(file: FileAt, where: string): Promise<string> {
    if (file.mode === "160000") {
      throw new GitError(`cannot read ${file.path} at ${where}: it is a submodule, not a file`, {
        fix: "keep submodules out of the folders slp reads",
      });
    }
    let promise = this.#texts.get(file.oid);
    if (!promise) {
      promise = git
        .readBlob({ fs, gitdir: this.gitdir, oid: file.oid, cache: this.#cache })
        .then(({ blob }) => new TextDecoder("utf-8", { fatal: true }).decode(blob));
      this.#texts.set(file.oid, promise);
    }
    try {
      return await promise;
    } catch (error) {
      const reason = error instanceof TypeError ? "it is not UTF-8 text" : (error as Error).message;
      throw new GitError(`cannot read ${file.path} at ${where}: ${reason}`, {
        file: file.path,
        fix: "keep only UTF-8 text files in the folders slp reads",
      });
    }
  }

  /** `%h`: the shortest prefix git would print, at least 7 characters. */
  shortSha(oid: string): string {
    return oid.slice(0, 7);
  }

  // --- internal ---

  /** HEAD of this work tree: `ref: refs/heads/x` or a sha. */
  #headTarget(): string {
    return readFileSync(join(this.worktreeGitdir, "HEAD"), "utf8").trim();
  }

  async #resolveName(name: string, asGiven: string): Promise<string> {
    if (/^[0-9a-f]{40}$/.test(name)) return name;
    if (name === "HEAD") {
      const head = this.#headTarget();
      if (!head.startsWith("ref: ")) return head;
      try {
        return await git.resolveRef({ fs, gitdir: this.gitdir, ref: head.slice(5) });
      } catch {
        throw new GitError("HEAD points at a branch with no commit yet", { fix: "commit once before running slp" });
      }
    }
    try {
      return await git.resolveRef({ fs, gitdir: this.gitdir, ref: name });
    } catch {
      if (/^[0-9a-f]{4,39}$/.test(name)) {
        try {
          return await git.expandOid({ fs, gitdir: this.gitdir, oid: name, cache: this.#cache });
        } catch {
          throw unknownRef(asGiven);
        }
      }
      throw unknownRef(asGiven);
    }
  }

  async #peelToCommit(oid: string, asGiven: string): Promise<string> {
    let current = oid;
    for (let depth = 0; depth < 10; depth++) {
      let object: { type: string; object: unknown };
      try {
        object = (await git.readObject({ fs, gitdir: this.gitdir, oid: current, cache: this.#cache, format: "parsed" })) as {
          type: string;
          object: unknown;
        };
      } catch (error) {
        throw missingObject(`${asGiven} (${current.slice(0, 8)})`, error);
      }
      if (object.type === "commit") return current;
      if (object.type === "tag") {
        current = (object.object as { object: string }).object;
        continue;
      }
      throw new GitError(`${asGiven} names a ${object.type}, not a commit`, { fix: "pass a branch, tag or commit" });
    }
    throw unknownRef(asGiven);
  }

  async #ancestors(oid: string): Promise<Set<string>> {
    const seen = new Set<string>();
    const stack = [oid];
    while (stack.length > 0) {
      const current = stack.pop() as string;
      if (seen.has(current)) continue;
      seen.add(current);
      stack.push(...(await this.readCommit(current)).parents);
    }
    return seen;
  }
}

function gitdirOf(dotGit: string): string {
  if (statSync(dotGit).isDirectory()) return dotGit;
  // A worktree or submodule: `.git` is a file pointing at the real git dir.
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
  if (!match) throw new GitError(`cannot read ${dotGit}`, { fix: "repair the repository's .git file" });
  return resolve(dirname(dotGit), (match[1] as string).trim());
}

function unknownRef(ref: string): GitError {
  return new GitError(`the ref ${ref} does not exist in this repository`, {
    fix: `check the name, and fetch it if it lives on a remote (git fetch origin ${ref.replace(/^origin\//, "")})`,
  });
}

function missingObject(what: string, error: unknown): GitError {
  return new GitError(`cannot read ${what}: ${(error as Error).message}`, { fix: FETCH_FULL_HISTORY }, { cause: error });
}
