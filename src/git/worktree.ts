/**
 * The work tree side of the git adapter, for the TCR loop: what changed
 * since HEAD, committing all of it, and putting exactly that back. Ignored
 * files are never listed, staged or removed.
 */
import * as fs from "node:fs";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import git from "isomorphic-git";
import { GitError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";
import type { Repository } from "./repository.ts";

/** A file that differs from HEAD in the work tree (or only in the index). */
export interface Change {
  path: string;
  /** added: not in HEAD; modified: content differs; deleted: gone from the work tree. */
  kind: "added" | "modified" | "deleted";
}

export interface Identity {
  name: string;
  email: string;
}

const FILE = 0;
const HEAD = 1;
const WORKDIR = 2;
const STAGE = 3;

export class WorkTree {
  readonly #repo: Repository;
  readonly #cache: object = {};

  constructor(repo: Repository) {
    this.#repo = repo;
  }

  /** The git operation left half done (merge, rebase, cherry-pick, revert, bisect), or null. */
  operationInProgress(): string | null {
    const dir = this.#repo.worktreeGitdir;
    const markers: [string, string][] = [
      ["MERGE_HEAD", "a merge"],
      ["rebase-merge", "a rebase"],
      ["rebase-apply", "a rebase or git am"],
      ["CHERRY_PICK_HEAD", "a cherry-pick"],
      ["REVERT_HEAD", "a revert"],
      ["BISECT_LOG", "a bisect"],
    ];
    for (const [marker, what] of markers) if (existsSync(join(dir, marker))) return what;
    return null;
  }

  /** Paths with a merge conflict recorded in the index (an entry at stage 1-3). */
  conflictedPaths(): string[] {
    const file = join(this.#repo.worktreeGitdir, "index");
    if (!existsSync(file)) return [];
    return [...unmergedPaths(readFileSync(file))].sort(compareCodePoints);
  }

  /** Every change since HEAD, untracked files included, ignored files never. */
  async changes(): Promise<{ changes: Change[]; indexOnly: string[] }> {
    const matrix = await this.#status();
    const changes: Change[] = [];
    const indexOnly: string[] = [];
    for (const row of matrix) {
      const [path, head, workdir, stage] = [row[FILE], row[HEAD], row[WORKDIR], row[STAGE]] as [string, number, number, number];
      if (head === 1 && workdir === 1 && stage === 1) continue;
      if (head === 0 && workdir === 0) indexOnly.push(path);
      else if (head === 0) changes.push({ path, kind: "added" });
      else if (workdir === 0) changes.push({ path, kind: "deleted" });
      else if (workdir === 2) changes.push({ path, kind: "modified" });
      else indexOnly.push(path);
    }
    return { changes, indexOnly };
  }

  /**
   * Stages every change (new, modified, deleted) and writes the commit they
   * make, without moving the branch: the candidate a TCR step judges before
   * it lands. Returns its id.
   */
  async writeCandidate(message: string, author: Identity): Promise<string> {
    const { changes, indexOnly } = await this.changes();
    const dir = this.#repo.root;
    const gitdir = this.#repo.gitdir;
    const deleted = changes.filter((change) => change.kind === "deleted").map((change) => change.path);
    const present = changes.filter((change) => change.kind !== "deleted").map((change) => change.path);
    for (const filepath of [...deleted, ...indexOnly.filter((path) => !existsSync(join(dir, path)))]) {
      await git.remove({ fs, dir, gitdir, filepath, cache: this.#cache });
    }
    const toAdd = [...present, ...indexOnly.filter((path) => existsSync(join(dir, path)))];
    if (toAdd.length > 0) await git.add({ fs, dir, gitdir, filepath: toAdd, cache: this.#cache });
    const now = Math.floor(Date.now() / 1000);
    const signature = { ...author, timestamp: now, timezoneOffset: new Date().getTimezoneOffset() };
    try {
      return await git.commit({ fs, dir, gitdir, message, author: signature, committer: signature, noUpdateBranch: true, cache: this.#cache });
    } catch (error) {
      throw new GitError(`cannot commit: ${(error as Error).message}`, { fix: "run git status to see what stops the commit" });
    }
  }

  /** Moves the current branch to a commit written by writeCandidate (whose parent is HEAD). */
  async advanceBranch(branch: string, commit: string): Promise<void> {
    await git.writeRef({ fs, gitdir: this.#repo.gitdir, ref: `refs/heads/${branch}`, value: commit, force: true });
  }

  /**
   * Puts the work tree and the index back to HEAD: modified and deleted files
   * restored, files added since HEAD removed (and folders they leave empty),
   * index-only changes reset. Returns what it changed in the work tree.
   */
  async restore(): Promise<Change[]> {
    const { changes, indexOnly } = await this.changes();
    const dir = this.#repo.root;
    const gitdir = this.#repo.gitdir;
    const head = await this.#repo.resolveCommit("HEAD");
    const fromHead = changes.filter((change) => change.kind !== "added").map((change) => change.path);
    const headFiles = new Map((await this.#repo.filesIn(head, fromHead)).map((file) => [file.path, file]));
    for (const path of fromHead) {
      const file = headFiles.get(path);
      if (!file) continue;
      const { blob } = await git.readBlob({ fs, gitdir, oid: file.oid, cache: this.#cache });
      writeWithMode(join(dir, path), blob, file.mode);
    }
    for (const change of changes.filter((c) => c.kind === "added")) {
      rmSync(join(dir, change.path), { force: true });
      await git.remove({ fs, dir, gitdir, filepath: change.path, cache: this.#cache });
      removeEmptyParents(dir, change.path);
    }
    for (const filepath of [...indexOnly, ...fromHead]) {
      await git.resetIndex({ fs, dir, gitdir, filepath, cache: this.#cache });
    }
    return changes;
  }

  /**
   * Who commits: `GIT_AUTHOR_NAME`/`GIT_AUTHOR_EMAIL`, else `user.name`/`user.email`
   * from the repository's config, else from the user's global git config.
   */
  async identity(env: Record<string, string | undefined>): Promise<Identity | null> {
    const fromRepo = async (key: string) =>
      (await git.getConfig({ fs, gitdir: this.#repo.gitdir, path: key })) as string | undefined;
    const global = globalUserConfig(env);
    const name = env.GIT_AUTHOR_NAME || (await fromRepo("user.name")) || global.name;
    const email = env.GIT_AUTHOR_EMAIL || (await fromRepo("user.email")) || global.email;
    return name && email ? { name, email } : null;
  }

  async #status(): Promise<(string | number)[][]> {
    try {
      return await git.statusMatrix({ fs, dir: this.#repo.root, gitdir: this.#repo.gitdir, cache: this.#cache });
    } catch (error) {
      throw new GitError(`cannot read the work tree's status: ${(error as Error).message}`, {
        fix: "run git status to see what is wrong with the repository",
      });
    }
  }
}

/** Writes a file as HEAD holds it: bytes, executable bit, or a symlink. */
function writeWithMode(path: string, bytes: Uint8Array, mode: string): void {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  if (mode === "120000") {
    symlinkSync(new TextDecoder().decode(bytes), path);
    return;
  }
  writeFileSync(path, bytes);
  chmodSync(path, mode === "100755" ? 0o755 : 0o644);
}

function removeEmptyParents(root: string, path: string): void {
  let current = dirname(path);
  while (current !== "." && current !== "") {
    const absolute = join(root, current);
    if (!existsSync(absolute) || readdirSync(absolute).length > 0) return;
    rmdirSync(absolute);
    current = dirname(current);
  }
}

/** The paths of index entries at a merge stage (1-3), read from the index file (v2, v3 and v4). */
function unmergedPaths(index: Uint8Array): Set<string> {
  const view = new DataView(index.buffer, index.byteOffset, index.byteLength);
  const paths = new Set<string>();
  if (index.byteLength < 12 || String.fromCharCode(...index.subarray(0, 4)) !== "DIRC") return paths;
  const version = view.getUint32(4);
  const count = view.getUint32(8);
  const decoder = new TextDecoder();
  let offset = 12;
  let previous = "";
  for (let i = 0; i < count && offset < index.byteLength; i++) {
    const start = offset;
    const flags = view.getUint16(start + 60);
    let pathStart = start + 62;
    if (version >= 3 && flags & 0x4000) pathStart += 2;
    let path: string;
    if (version === 4) {
      // The path is the previous one minus N trailing bytes, plus a NUL-terminated suffix.
      let strip = 0;
      let byte: number;
      let cursor = pathStart;
      do {
        byte = index[cursor++] as number;
        strip = (strip << 7) | (byte & 0x7f);
        if (byte & 0x80) strip += 1;
      } while (byte & 0x80);
      const end = index.indexOf(0, cursor);
      path = previous.slice(0, previous.length - strip) + decoder.decode(index.subarray(cursor, end));
      offset = end + 1;
    } else {
      const end = index.indexOf(0, pathStart);
      path = decoder.decode(index.subarray(pathStart, end));
      offset = start + ((end - start + 8) & ~7);
    }
    previous = path;
    if ((flags >> 12) & 0x3) paths.add(path);
  }
  return paths;
}

/** `[user] name`/`email` from ~/.gitconfig or $XDG_CONFIG_HOME/git/config. */
function globalUserConfig(env: Record<string, string | undefined>): { name?: string; email?: string } {
  const home = env.HOME || homedir();
  const files = [join(env.XDG_CONFIG_HOME || join(home, ".config"), "git", "config"), join(home, ".gitconfig")];
  const found: { name?: string; email?: string } = {};
  for (const file of files) {
    if (!existsSync(file)) continue;
    let section = "";
    for (const raw of readFileSync(file, "utf8").split(/\r?\n/)) {
      const line = raw.trim();
      const header = /^\[([^\]\s"]+)[^\]]*\]$/.exec(line);
      if (header) {
        section = (header[1] as string).toLowerCase();
        continue;
      }
      const pair = /^([A-Za-z][\w-]*)\s*=\s*(.*)$/.exec(line);
      if (section !== "user" || !pair) continue;
      const key = (pair[1] as string).toLowerCase();
      const value = (pair[2] as string).replace(/^"(.*)"$/, "$1").trim();
      if (key === "name") found.name = value;
      if (key === "email") found.email = value;
    }
  }
  return found;
}
