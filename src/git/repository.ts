/**
 * The git adapter: the only module that imports isomorphic-git. It reads
 * history in-process (no git binary at run time): refs, commits, trees and
 * blobs from loose objects, packfiles and packed refs. Everything read is
 * cached by object id, so a tree or a blob shared by many commits is read
 * and decoded once.
 */
import * as fs from "node:fs";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import git from "isomorphic-git";
import { formatLimit, LimitError, limitBytes } from "../core/limits.ts";
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
  /**
   * For a symbolic link filesIn could not turn into a file of the commit:
   * why (it points outside the repository, at nothing, or in a loop). Reading
   * it is refused; a link nothing reads is ignored, as dbt ignores it.
   */
  unresolved?: string;
}

const SYMLINK_MODE = "120000";
const SUBMODULE_MODE = "160000";
/** Links followed one after the other before a chain counts as a loop (Linux's own limit). */
const MAX_LINK_HOPS = 40;

type Lookup =
  | { kind: "blob"; oid: string; mode: string }
  | { kind: "tree"; oid: string; path: string }
  | { kind: "unresolved"; why: string };

const FETCH_FULL_HISTORY = "fetch the full history (actions/checkout with fetch-depth: 0, or git fetch --unshallow)";

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
  /** Trees and blobs read natively (zlib in native code); isomorphic-git reads whatever this cannot. */
  readonly #objects: ObjectReader;
  /** Every file under a tree, by tree id and path prefix: a subtree unchanged between commits is listed once. */
  readonly #flat = new Map<string, Promise<FileAt[]>>();
  /** Parents by commit id, for walks over a whole history. */
  readonly #parentsOf = new Map<string, string[]>();

  private constructor(root: string, worktreeGitdir: string) {
    this.root = root;
    this.worktreeGitdir = worktreeGitdir;
    const common = join(worktreeGitdir, "commondir");
    this.gitdir = existsSync(common) ? resolve(worktreeGitdir, readFileSync(common, "utf8").trim()) : worktreeGitdir;
    this.#objects = new ObjectReader(join(this.gitdir, "objects"));
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

  /**
   * The remote's default branch as the clone recorded it (`origin/HEAD`,
   * which `git clone` sets and no commit can change), by its short name; null
   * when the clone has none.
   */
  async remoteDefaultBranch(): Promise<string | null> {
    try {
      const target = await git.resolveRef({ fs, gitdir: this.gitdir, ref: "refs/remotes/origin/HEAD", depth: 2 });
      return target.startsWith("refs/remotes/origin/") ? target.slice("refs/remotes/origin/".length) : null;
    } catch {
      return null;
    }
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

  /** Every best common ancestor of two commits (`git merge-base --all`), sorted; empty when they share no history. */
  async mergeBases(a: string, b: string): Promise<string[]> {
    try {
      return [...(await git.findMergeBase({ fs, gitdir: this.gitdir, oids: [a, b], cache: this.#cache }))].sort();
    } catch (error) {
      throw missingObject(`the history between ${this.shortSha(a)} and ${this.shortSha(b)}`, error);
    }
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

  /**
   * Every commit `head` reaches and `base` does not (`git rev-list head
   * ^base`), parents before children: the commits a pull request brings,
   * whichever parent of a merge reaches them. Commits the base reaches (a
   * merge of the base into the branch brings them) are the base's and are
   * left out. `firstParent` is firstParentRange's answer for the same ends:
   * when none of its commits is a merge it is the whole range, and nothing
   * more is read. Otherwise the order is a depth-first walk from head that
   * visits each commit's parents in order, so it is fixed by the graph alone
   * (never by dates, which a commit can carry any of).
   */
  async branchRange(base: string, head: string, firstParent: readonly string[]): Promise<string[]> {
    let merges = false;
    for (const oid of firstParent) if ((await this.readCommit(oid)).parents.length > 1) merges = true;
    if (!merges) return [...firstParent];
    const excluded = await this.#ancestors(base);
    if (excluded.has(head)) return [];
    const order: string[] = [];
    const seen = new Set([head]);
    const stack: { oid: string; next: number; parents: string[] }[] = [{ oid: head, next: 0, parents: await this.#parents(head) }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const parent = top.parents[top.next++];
      if (parent === undefined) {
        order.push(top.oid);
        stack.pop();
      } else if (!seen.has(parent) && !excluded.has(parent)) {
        seen.add(parent);
        stack.push({ oid: parent, next: 0, parents: await this.#parents(parent) });
      }
    }
    return order;
  }

  async readTree(oid: string): Promise<TreeEntry[]> {
    let promise = this.#trees.get(oid);
    if (!promise) {
      const raw = this.#objects.read(oid);
      promise =
        raw?.type === "tree"
          ? Promise.resolve(parseTree(raw.data))
          : git
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
   * Every file of a commit under the given folders (repository-relative, with
   * a trailing slash) and exact paths; subtrees outside them are never read.
   * Each subtree wholly inside the scope is flattened once per tree id (and
   * path prefix), so consecutive commits of one history pay only for the
   * subtrees that changed. Paths are repository-relative and sorted as plain
   * strings.
   *
   * Symbolic links are read the way the work tree reads them (project/files/files.ts): a
   * link to a file of the commit is listed as that file's content under the
   * link's path (so a model's SQL behind a link is hashed by what it says); a
   * link to a folder inside the repository is listed as that folder's files
   * under the link's path; a link to a folder that holds it is a GitError; a
   * link that leaves the repository, points at nothing or loops is listed as
   * `unresolved` and refused when read. A submodule under a listed folder is
   * a GitError: its files are another repository's, which gate cannot read.
   */
  async filesIn(commit: string, scope: readonly string[]): Promise<FileAt[]> {
    const listed = await this.#filesInRaw(commit, scope);
    if (!listed.some((file) => file.mode === SYMLINK_MODE || file.mode === SUBMODULE_MODE)) return listed;
    const out: FileAt[] = [];
    for (const file of listed) {
      if (file.mode === SUBMODULE_MODE) {
        throw new GitError(
          `${file.path} is a git submodule at ${this.shortSha(commit)}: its files belong to another repository, which gate cannot read at that commit`,
          {
            file: file.path,
            fix: "keep submodules out of the folders slp reads (vendor a package under dbt_packages/ instead)",
          },
        );
      }
      if (file.mode === SYMLINK_MODE) out.push(...(await this.#followLink(commit, file, 0)));
      else out.push(file);
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** A listed link as what it leads to, within the commit. */
  async #followLink(commit: string, link: FileAt, depth: number): Promise<FileAt[]> {
    const target = await this.#lookup(commit, await this.#linkTarget(link), 1);
    if (target.kind === "blob") return [{ path: link.path, oid: target.oid, mode: target.mode }];
    if (target.kind === "unresolved") return [{ ...link, unresolved: target.why }];
    if (target.path === "" || link.path === target.path || link.path.startsWith(`${target.path}/`) || depth > MAX_LINK_HOPS) {
      throw new GitError(
        `${link.path} at ${this.shortSha(commit)} is a symbolic link to a folder that holds it, so reading it would never end`,
        {
          file: link.path,
          fix: "remove the link (dbt would read the same files again and again)",
        },
      );
    }
    const files: FileAt[] = [];
    for (const file of await this.#flatten(target.oid, `${link.path}/`)) {
      if (file.mode === SUBMODULE_MODE) {
        throw new GitError(
          `${file.path} is a git submodule at ${this.shortSha(commit)}: its files belong to another repository, which gate cannot read at that commit`,
          {
            file: file.path,
            fix: "keep submodules out of the folders slp reads",
          },
        );
      }
      if (file.mode === SYMLINK_MODE) files.push(...(await this.#followLink(commit, file, depth + 1)));
      else files.push(file);
    }
    return files;
  }

  /** Where a link leads, repository-relative; null when it leaves the repository. */
  async #linkTarget(link: FileAt): Promise<string | null> {
    const text = new TextDecoder().decode(await this.readBlob(link.oid));
    if (text.startsWith("/")) return null;
    const parts = link.path.split("/").slice(0, -1);
    for (const segment of text.split("/")) {
      if (segment === "" || segment === ".") continue;
      if (segment === "..") {
        if (parts.length === 0) return null;
        parts.pop();
      } else parts.push(segment);
    }
    return parts.join("/");
  }

  /** What is at a repository path in a commit, following links on the way (at most MAX_LINK_HOPS). */
  async #lookup(commit: string, path: string | null, hops: number): Promise<Lookup> {
    if (path === null) return { kind: "unresolved", why: "it leads outside the repository, and slp reads nothing outside it" };
    if (hops > MAX_LINK_HOPS) return { kind: "unresolved", why: "it is one of symbolic links that point at each other in a loop" };
    let oid = (await this.readCommit(commit)).tree;
    const segments = path.split("/").filter((part) => part !== "");
    for (let i = 0; i < segments.length; i++) {
      const entry = (await this.readTree(oid)).find((candidate) => candidate.path === segments[i]);
      const here = segments.slice(0, i + 1).join("/");
      if (!entry) return { kind: "unresolved", why: `it points at ${path}, which is not in that commit` };
      if (entry.mode === SYMLINK_MODE) {
        const next = await this.#linkTarget({ path: here, oid: entry.oid, mode: entry.mode });
        return this.#lookup(commit, next === null ? null : [next, ...segments.slice(i + 1)].filter(Boolean).join("/"), hops + 1);
      }
      if (i === segments.length - 1) {
        if (entry.type === "tree") return { kind: "tree", oid: entry.oid, path: here };
        if (entry.type === "commit") return { kind: "unresolved", why: `it points at ${here}, a submodule` };
        return { kind: "blob", oid: entry.oid, mode: entry.mode };
      }
      if (entry.type !== "tree") return { kind: "unresolved", why: `it points at ${path}, which is not in that commit` };
      oid = entry.oid;
    }
    return { kind: "tree", oid, path: segments.join("/") };
  }

  async #filesInRaw(commit: string, scope: readonly string[]): Promise<FileAt[]> {
    const root = (await this.readCommit(commit)).tree;
    const parts: FileAt[][] = [];
    const visit = async (oid: string, prefix: string): Promise<void> => {
      const entries = await this.readTree(oid);
      await Promise.all(
        entries.map(async (entry) => {
          const path = `${prefix}${entry.path}`;
          if (entry.type === "tree") {
            const dir = `${path}/`;
            if (scope.some((item) => item.endsWith("/") && dir.startsWith(item))) parts.push(await this.#flatten(entry.oid, dir));
            else if (scope.some((item) => item.startsWith(dir))) await visit(entry.oid, dir);
          } else if (scope.some((item) => (item.endsWith("/") ? path.startsWith(item) : path === item))) {
            parts.push([{ path, oid: entry.oid, mode: entry.mode }]);
          }
        }),
      );
    };
    await visit(root, "");
    return parts.flat().sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Every file of a commit under a folder (repository-relative, no trailing
   * slash; "" for the whole tree), sorted as plain strings; submodules are
   * listed with mode 160000.
   */
  async filesUnder(commit: string, dir: string): Promise<FileAt[]> {
    const tree = await this.treeAt(commit, dir);
    if (tree === null) return [];
    const files = await this.#flatten(tree, dir === "" ? "" : `${dir}/`);
    return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * The base branch as named, or, when no such ref exists here, its
   * remote-tracking branch `origin/<name>` (a fresh clone has only that);
   * `ref` says which was used.
   */
  async resolveBase(name: string): Promise<{ commit: string; ref: string }> {
    try {
      return { commit: await this.resolveCommit(name), ref: name };
    } catch (error) {
      if (name.startsWith("origin/") || !(error instanceof UnknownRefError)) throw error;
      const remote = `origin/${name}`;
      try {
        return { commit: await this.resolveCommit(remote), ref: remote };
      } catch {
        throw new GitError(`the base branch ${name} does not exist here, neither as a local branch nor as ${remote}`, {
          fix: `fetch it (git fetch origin ${name}), or name the branch pull requests target with SLP_BASE or base: in slp.yml`,
        });
      }
    }
  }

  /** A blob's bytes. */
  async readBlob(oid: string): Promise<Uint8Array> {
    const raw = this.#objects.read(oid);
    if (raw?.type === "blob") return raw.data;
    try {
      return (await git.readBlob({ fs, gitdir: this.gitdir, oid, cache: this.#cache })).blob;
    } catch (error) {
      throw missingObject(`blob ${oid.slice(0, 8)}`, error);
    }
  }

  /** The id of the tree at `dir` (repository-relative, no trailing slash) in a commit, or null when there is none. */
  async treeAt(commit: string, dir: string): Promise<string | null> {
    let oid = (await this.readCommit(commit)).tree;
    for (const segment of dir.split("/").filter((part) => part !== "")) {
      const entry = (await this.readTree(oid)).find((candidate) => candidate.path === segment);
      if (entry?.type !== "tree") return null;
      oid = entry.oid;
    }
    return oid;
  }

  /** `<short sha> by <author name>`, as `git log --format="%h by %an"` labels a commit. */
  async label(oid: string): Promise<string> {
    return `${this.shortSha(oid)} by ${(await this.readCommit(oid)).author.name}`;
  }

  /** A blob as UTF-8 text, decoded once per blob id; `where` names it in errors. */
  async readText(file: FileAt, where: string): Promise<string> {
    if (file.unresolved !== undefined) {
      throw new GitError(`cannot read ${file.path} at ${where}: it is a symbolic link, and ${file.unresolved}`, {
        file: file.path,
        fix: "commit the file itself instead of a link, or point the link at a file inside the repository",
      });
    }
    if (file.mode === "160000") {
      throw new GitError(`cannot read ${file.path} at ${where}: it is a submodule, not a file`, {
        fix: "keep submodules out of the folders slp reads",
      });
    }
    let promise = this.#texts.get(file.oid);
    if (!promise) {
      promise = (async () => {
        const raw = this.#objects.read(file.oid);
        const bytes =
          raw?.type === "blob" ? raw.data : (await git.readBlob({ fs, gitdir: this.gitdir, oid: file.oid, cache: this.#cache })).blob;
        if (bytes.length > limitBytes("file_mb")) throw tooLargeObject(file.oid.slice(0, 8));
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      })();
      this.#texts.set(file.oid, promise);
    }
    try {
      return await promise;
    } catch (error) {
      if (error instanceof LimitError) {
        throw new LimitError("file_mb", `at ${where}, the file is larger than ${formatLimit("file_mb")}`, { file: file.path });
      }
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

  #flatten(oid: string, prefix: string): Promise<FileAt[]> {
    const key = `${oid}\0${prefix}`;
    let promise = this.#flat.get(key);
    if (!promise) {
      promise = (async () => {
        const entries = await this.readTree(oid);
        const nested = await Promise.all(
          entries.map((entry) =>
            entry.type === "tree"
              ? this.#flatten(entry.oid, `${prefix}${entry.path}/`)
              : Promise.resolve([{ path: `${prefix}${entry.path}`, oid: entry.oid, mode: entry.mode }]),
          ),
        );
        return nested.flat();
      })();
      this.#flat.set(key, promise);
    }
    return promise;
  }

  async #ancestors(oid: string): Promise<Set<string>> {
    const seen = new Set<string>();
    const stack = [oid];
    while (stack.length > 0) {
      const current = stack.pop() as string;
      if (seen.has(current)) continue;
      seen.add(current);
      stack.push(...(await this.#parents(current)));
    }
    return seen;
  }

  /**
   * A commit's parents. Walking a whole history reads only these, so they
   * are read from the raw object where it lies (the headers before the first
   * blank line), and through readCommit for anything the native reader cannot.
   */
  async #parents(oid: string): Promise<string[]> {
    const known = this.#parentsOf.get(oid);
    if (known) return known;
    const raw = this.#commits.has(oid) ? null : this.#objects.read(oid);
    let parents: string[];
    if (raw?.type === "commit") {
      parents = [];
      const text = new TextDecoder().decode(raw.data);
      const end = text.indexOf("\n\n");
      for (const line of (end === -1 ? text : text.slice(0, end)).split("\n")) {
        if (line.startsWith("parent ")) parents.push(line.slice(7, 47));
      }
    } else {
      parents = (await this.readCommit(oid)).parents;
    }
    this.#parentsOf.set(oid, parents);
    return parents;
  }
}

function gitdirOf(dotGit: string): string {
  if (statSync(dotGit).isDirectory()) return dotGit;
  // A worktree or submodule: `.git` is a file pointing at the real git dir.
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
  if (!match) throw new GitError(`cannot read ${dotGit}`, { fix: "repair the repository's .git file" });
  return resolve(dirname(dotGit), (match[1] as string).trim());
}

/** A name that resolves to nothing (as opposed to history that cannot be read). */
class UnknownRefError extends GitError {}

function unknownRef(ref: string): GitError {
  return new UnknownRefError(`the ref ${ref} does not exist in this repository`, {
    fix: `check the name, and fetch it if it lives on a remote (git fetch origin ${ref.replace(/^origin\//, "")})`,
  });
}

function missingObject(what: string, error: unknown): GitError {
  return new GitError(`cannot read ${what}: ${(error as Error).message}`, { fix: FETCH_FULL_HISTORY }, { cause: error });
}

// --- native object reading: loose objects and version-2 packs, read where they lie ---

interface RawObject {
  type: string;
  data: Uint8Array;
}

interface Pack {
  idx: Uint8Array;
  pack: Uint8Array;
  count: number;
}

const TYPES = ["", "commit", "tree", "blob", "tag"];

/**
 * Reads git objects without isomorphic-git's JavaScript inflate: pack files
 * are memory-mapped, index lookups are binary searches, deltas are applied
 * here. Returns null for anything it does not handle (version-1 indexes,
 * alternates, a missing object), and the caller falls back to isomorphic-git.
 */
export class ObjectReader {
  readonly #dir: string;
  #packs?: Pack[];
  /** Resolved delta bases, by pack and offset. */
  readonly #bases = new Map<string, RawObject>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  read(oid: string): RawObject | null {
    try {
      for (const [i, pack] of this.#loadPacks().entries()) {
        const offset = findOffset(pack, oid);
        if (offset !== null) return this.#readPacked(pack, i, offset);
      }
      const loose = join(this.#dir, oid.slice(0, 2), oid.slice(2));
      if (!existsSync(loose)) return null;
      const bytes = inflated(readFileSync(loose), oid);
      const space = bytes.indexOf(0x20);
      const nul = bytes.indexOf(0, space);
      return { type: new TextDecoder().decode(bytes.subarray(0, space)), data: bytes.subarray(nul + 1) };
    } catch (error) {
      // A limit is a refusal, not an object to look for elsewhere.
      if (error instanceof LimitError) throw error;
      return null;
    }
  }

  #loadPacks(): Pack[] {
    if (!this.#packs) {
      this.#packs = [];
      const dir = join(this.#dir, "pack");
      const names = existsSync(dir)
        ? readdirSync(dir)
            .filter((name) => name.endsWith(".idx"))
            .sort()
        : [];
      for (const name of names) {
        const idx = mapFile(join(dir, name));
        const packPath = join(dir, name.replace(/\.idx$/, ".pack"));
        // Version 2 only ("\377tOc", 2); anything else is left to isomorphic-git.
        if (!existsSync(packPath) || idx[0] !== 0xff || idx[1] !== 0x74 || idx[2] !== 0x4f || idx[3] !== 0x63 || readUint32(idx, 4) !== 2)
          continue;
        this.#packs.push({ idx, pack: mapFile(packPath), count: readUint32(idx, 8 + 255 * 4) });
      }
    }
    return this.#packs;
  }

  #readPacked(pack: Pack, packIndex: number, offset: number): RawObject {
    const key = `${packIndex}:${offset}`;
    const cached = this.#bases.get(key);
    if (cached) return cached;
    const bytes = pack.pack;
    let p = offset;
    let c = bytes[p++] as number;
    const type = (c >> 4) & 7;
    while (c & 0x80) c = bytes[p++] as number;
    let result: RawObject;
    if (type === 6) {
      c = bytes[p++] as number;
      let back = c & 0x7f;
      while (c & 0x80) {
        c = bytes[p++] as number;
        back = (back + 1) * 128 + (c & 0x7f);
      }
      const base = this.#readPacked(pack, packIndex, offset - back);
      result = { type: base.type, data: applyDelta(base.data, inflated(bytes.subarray(p), "a pack delta")) };
    } else if (type === 7) {
      const baseOid = Buffer.from(bytes.subarray(p, p + 20)).toString("hex");
      const base = this.read(baseOid);
      if (!base) throw new Error(`missing delta base ${baseOid}`);
      result = { type: base.type, data: applyDelta(base.data, inflated(bytes.subarray(p + 20), baseOid)) };
    } else {
      const name = TYPES[type];
      if (!name) throw new Error(`unknown pack object type ${type}`);
      result = { type: name, data: inflated(bytes.subarray(p), "a packed object") };
    }
    // Only delta bases are read again; keeping trees and commits is cheap, blobs are cached as text upstream.
    if (result.type !== "blob") this.#bases.set(key, result);
    return result;
  }
}

/**
 * zlib's inflate, stopped at limit file_mb: a small compressed object can stand for gigabytes.
 * node:zlib is required here, not imported: the compiled binary loads every import of a builtin
 * at start, and zlib (with node's streams) is ~5 ms no task but a git read needs.
 */
function inflated(bytes: Uint8Array, what: string): Buffer {
  const { inflateSync } = require("node:zlib") as typeof import("node:zlib");
  try {
    return inflateSync(bytes, { maxOutputLength: limitBytes("file_mb") + 64 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) throw tooLargeObject(what);
    throw error;
  }
}

function tooLargeObject(what: string): LimitError {
  return new LimitError("file_mb", `a git object (${what}) is larger than ${formatLimit("file_mb")} once uncompressed`);
}

function mapFile(path: string): Uint8Array {
  try {
    return Bun.mmap(path, { shared: false }) as Uint8Array;
  } catch {
    return readFileSync(path);
  }
}

function readUint32(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at] as number) * 0x1000000 +
      (((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number))) >>>
    0
  );
}

/** The object's offset in the pack, by binary search of the index's sorted ids; null when the pack lacks it. */
function findOffset(pack: Pack, oid: string): number | null {
  const { idx, count } = pack;
  const first = parseInt(oid.slice(0, 2), 16);
  let lo = first === 0 ? 0 : readUint32(idx, 8 + (first - 1) * 4);
  let hi = readUint32(idx, 8 + first * 4);
  const target = Buffer.from(oid, "hex");
  const names = 8 + 256 * 4;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let order = 0;
    for (let i = 0; i < 20 && order === 0; i++) order = (idx[names + mid * 20 + i] as number) - (target[i] as number);
    if (order === 0) {
      const offsets = names + count * 24;
      const small = readUint32(idx, offsets + mid * 4);
      if (!(small & 0x80000000)) return small;
      const large = offsets + count * 4 + (small & 0x7fffffff) * 8;
      return readUint32(idx, large) * 0x100000000 + readUint32(idx, large + 4);
    }
    if (order < 0) lo = mid + 1;
    else hi = mid;
  }
  return null;
}

function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let p = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 1;
    let c: number;
    do {
      c = delta[p++] as number;
      value += (c & 0x7f) * shift;
      shift *= 128;
    } while (c & 0x80);
    return value;
  };
  if (varint() !== base.length) throw new Error("delta base size mismatch");
  const size = varint();
  // A delta declares its result's size: refuse a larger one before allocating it.
  if (size > limitBytes("file_mb")) throw tooLargeObject("a pack delta");
  const out = new Uint8Array(size);
  let o = 0;
  while (p < delta.length) {
    const op = delta[p++] as number;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += (delta[p++] as number) * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) size += (delta[p++] as number) * 2 ** (8 * i);
      if (size === 0) size = 0x10000;
      out.set(base.subarray(offset, offset + size), o);
      o += size;
    } else if (op > 0) {
      out.set(delta.subarray(p, p + op), o);
      o += op;
      p += op;
    } else {
      throw new Error("invalid delta opcode 0");
    }
  }
  if (o !== out.length) throw new Error("delta result size mismatch");
  return out;
}

/** `mode name\0<20-byte id>` entries, as isomorphic-git reports them (modes zero-padded to six digits). */
function parseTree(data: Uint8Array): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const decoder = new TextDecoder();
  let p = 0;
  while (p < data.length) {
    const space = data.indexOf(0x20, p);
    const nul = data.indexOf(0, space);
    const mode = decoder.decode(data.subarray(p, space)).padStart(6, "0");
    const path = decoder.decode(data.subarray(space + 1, nul));
    const oid = Buffer.from(data.subarray(nul + 1, nul + 21)).toString("hex");
    entries.push({ mode, path, oid, type: mode === "040000" ? "tree" : mode === "160000" ? "commit" : "blob" });
    p = nul + 21;
  }
  return entries;
}
