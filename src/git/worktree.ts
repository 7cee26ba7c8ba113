/**
 * The work tree side of the git adapter, for the TCR loop: the step's change
 * as git itself stages it (into a private index, so the real index is
 * untouched until a commit lands), the commit it makes, the change saved as a
 * patch, and the work tree put back exactly as HEAD has it: the whole restore
 * is planned (every blob read) before the first file is touched.
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  chmodSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { GitError, InputError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";
import { gitText, runGit } from "./cli.ts";
import type { Repository, TreeEntry } from "./repository.ts";

/** A file's mode and blob in a tree. */
export interface TreeFile {
  mode: string;
  oid: string;
}

/**
 * One path that differs between HEAD and the work tree. added / deleted:
 * only on one side; modified: other content; mode: only the executable bit;
 * typechange: a file became a symlink or back.
 */
export interface Change {
  path: string;
  kind: "added" | "modified" | "deleted" | "mode" | "typechange";
  before: TreeFile | null;
  after: TreeFile | null;
}

/** The step's change as git stages it: the tree a commit would have, in a private index. */
export interface Snapshot {
  tree: string;
  /** The private index holding that tree (GIT_INDEX_FILE for hooks). */
  indexFile: string;
  /** HEAD's tree to this one, sorted by path. */
  changes: Change[];
}

export interface Identity {
  name: string;
  email: string;
}

/** One step of a restore, described for the report before it runs. */
export interface RestoreStep {
  action: "move aside" | "remove" | "remove folder" | "write" | "chmod";
  path: string;
}

interface PlannedStep extends RestoreStep {
  apply(): void;
}

export interface RestorePlan {
  steps: PlannedStep[];
  /** Ignored files in the way of a file HEAD has, moved into the saved change rather than deleted. */
  movedAside: string[];
}

export interface RestoreOutcome {
  done: number;
  /** The step that failed and why, when one did; the steps after it were not applied. */
  failed: { step: RestoreStep; error: string } | null;
  left: RestoreStep[];
}

export interface SavedChange {
  /** The folder (absolute). */
  dir: string;
  /** `git apply` this file to get the change back. */
  patch: string;
  /** The files the change added, copied as they were. */
  files: string[];
}

const GITLINK = "160000";
const SYMLINK = "120000";
const EXECUTABLE = "100755";

export class WorkTree {
  readonly #repo: Repository;
  readonly #env: Record<string, string | undefined>;

  constructor(repo: Repository, env: Record<string, string | undefined>) {
    this.#repo = repo;
    this.#env = env;
  }

  /** The real index of this work tree. */
  get indexFile(): string {
    return join(this.#repo.worktreeGitdir, "index");
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
    if (!existsSync(this.indexFile)) return [];
    return [...unmergedPaths(readFileSync(this.indexFile))].sort(compareCodePoints);
  }

  /**
   * Stages everything into a private copy of the index as `git add -A` does
   * (ignore files, attributes, filters and the executable bit as git reads
   * them) and writes its tree. A submodule that changed is refused: tcr
   * neither commits nor reverts another repository.
   */
  async stage(head: string, indexFile: string): Promise<Snapshot> {
    mkdirSync(dirname(indexFile), { recursive: true });
    rmSync(indexFile, { force: true });
    if (existsSync(this.indexFile)) copyIndex(this.indexFile, indexFile);
    const set = { GIT_INDEX_FILE: indexFile };
    try {
      runGit(this.#repo.root, ["add", "-A", "--", ":/"], { env: this.#env, set });
    } catch (error) {
      rmSync(indexFile, { force: true });
      throw error;
    }
    return this.snapshotOf(head, indexFile);
  }

  /** The tree a private index holds now (after a pre-commit hook may have changed it) and its changes. */
  async snapshotOf(head: string, indexFile: string): Promise<Snapshot> {
    const tree = gitText(this.#repo.root, ["write-tree"], { env: this.#env, set: { GIT_INDEX_FILE: indexFile } });
    const headTree = (await this.#repo.readCommit(head)).tree;
    const changes = await diffTrees(this.#repo, headTree, tree);
    const submodule = changes.find((change) => change.before?.mode === GITLINK || change.after?.mode === GITLINK);
    if (submodule) {
      rmSync(indexFile, { force: true });
      throw new InputError(
        `${submodule.path} is a submodule (a git repository inside this one) and it changed; tcr neither commits nor reverts another repository's state`,
        {
          file: submodule.path,
          fix: `settle it by hand first: commit the submodule's new commit with git, or put it back (git submodule update ${submodule.path}; for a repository you created inside this one, move it out or add it to .gitignore)`,
        },
      );
    }
    return { tree, indexFile, changes };
  }

  /** Writes the commit of a tree on top of `parent` (not moving any branch); returns its id. */
  commit(tree: string, parent: string, message: string, options: { author?: Identity; sign: boolean }): string {
    const set: Record<string, string> = {};
    if (options.author) {
      Object.assign(set, {
        GIT_AUTHOR_NAME: options.author.name,
        GIT_AUTHOR_EMAIL: options.author.email,
        GIT_COMMITTER_NAME: options.author.name,
        GIT_COMMITTER_EMAIL: options.author.email,
      });
    }
    const args = ["commit-tree", tree, "-p", parent, "-F", "-", ...(options.sign ? ["-S"] : [])];
    const run = runGit(this.#repo.root, args, { env: this.#env, set, input: message, allowFailure: true });
    if (run.exitCode !== 0) {
      if (/tell me who you are|unable to auto-detect email|empty ident name/i.test(run.stderr)) {
        throw new InputError("git does not say who commits (no user.name / user.email)", {
          fix: 'set them (git config user.name "..." and git config user.email "...") or pass --author "Name <email>"',
        });
      }
      throw new GitError(`git commit-tree failed: ${run.stderr.trim().split("\n").slice(-2).join(" / ")}`, {
        fix: "run git status and git log to see what stops the commit",
      });
    }
    return new TextDecoder().decode(run.stdout).trim();
  }

  /**
   * How `git commit` would commit here, read in one git call: the hooks
   * folder (core.hooksPath, relative to the work tree's root, else the common
   * git directory's hooks/) and whether every commit is signed (commit.gpgSign,
   * which `git commit-tree` does not read by itself).
   */
  commitSettings(): { hooksDir: string; sign: boolean } {
    const run = runGit(this.#repo.root, ["config", "-z", "--get-regexp", "^(core\\.hookspath|commit\\.gpgsign)$"], {
      env: this.#env,
      allowFailure: true,
    });
    const values = new Map<string, string>();
    for (const entry of new TextDecoder().decode(run.stdout).split("\0")) {
      const newline = entry.indexOf("\n");
      if (newline > 0) values.set(entry.slice(0, newline).toLowerCase(), entry.slice(newline + 1));
    }
    const hooksPath = values.get("core.hookspath");
    const home = this.#env.HOME ?? "";
    const hooksDir = hooksPath
      ? resolve(this.#repo.root, hooksPath.startsWith("~/") ? join(home, hooksPath.slice(2)) : hooksPath)
      : join(this.#repo.gitdir, "hooks");
    const sign = ["true", "yes", "on", "1"].includes((values.get("commit.gpgsign") ?? "").trim().toLowerCase());
    return { hooksDir, sign };
  }

  /**
   * Lands a commit: HEAD's branch moves from `from` to `commit` (refused if it
   * moved meanwhile; the reflog says why), and the private index that holds
   * the commit's tree becomes the real one.
   */
  advance(commit: string, from: string, subject: string, indexFile: string): void {
    runGit(this.#repo.root, ["update-ref", "-m", `commit (slp tcr): ${subject}`, "HEAD", commit, from], { env: this.#env });
    renameSync(indexFile, this.indexFile);
  }

  /** The change from HEAD to a snapshot as a binary patch, and a copy of each file it adds, in `dir`. */
  async save(head: string, snapshot: Snapshot, dir: string, message: string): Promise<SavedChange> {
    mkdirSync(dir, { recursive: true });
    const patch = join(dir, "change.patch");
    // Prefixes, paths and content as `git apply` reads them back, whatever the user's diff settings.
    const args = [
      "diff",
      "--binary",
      "--full-index",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "--no-relative",
      "--src-prefix=a/",
      "--dst-prefix=b/",
    ];
    const diff = runGit(this.#repo.root, [...args, head, snapshot.tree], { env: this.#env });
    writeFileSync(patch, diff.stdout);
    writeFileSync(join(dir, "message.txt"), message);
    const files: string[] = [];
    for (const change of snapshot.changes) {
      if (!change.after || (change.kind !== "added" && change.kind !== "typechange")) continue;
      const target = join(dir, "files", ...change.path.split("/"));
      mkdirSync(dirname(target), { recursive: true });
      const bytes = await this.#repo.readBlob(change.after.oid);
      if (change.after.mode === SYMLINK) symlinkSync(new TextDecoder().decode(bytes), target);
      else writeFileSync(target, bytes);
      files.push(target);
    }
    return { dir, patch, files };
  }

  /**
   * Plans putting the work tree back to HEAD: every blob read and every
   * obstacle on disk found before anything changes. Ignored files that stand
   * where HEAD has a file (or a folder) are moved into `asideDir`, never deleted.
   */
  async planRestore(changes: Change[], asideDir: string): Promise<RestorePlan> {
    const root = this.#repo.root;
    const absolute = (path: string) => join(root, ...path.split("/"));
    for (const change of changes) assertSafePath(change.path);
    const steps: PlannedStep[] = [];
    const movedAside: string[] = [];
    const gone = new Set<string>();
    const remove = (path: string) => {
      gone.add(path);
      steps.push({ action: "remove", path, apply: () => unlinkSync(absolute(path)) });
    };
    const moveAside = (path: string) => {
      gone.add(path);
      movedAside.push(path);
      steps.push({ action: "move aside", path, apply: () => moveInto(absolute(path), join(asideDir, ...path.split("/"))) });
    };

    // 1. What the work tree has and HEAD does not have in that form. A file of other content is
    //    overwritten in place, a mode is changed in place; a symlink or a new type is replaced.
    for (const change of changes) {
      if (!change.after) continue;
      const replace = !change.before || change.kind === "typechange" || (change.kind === "modified" && change.before.mode === SYMLINK);
      if (replace) remove(change.path);
    }
    // 2. Where HEAD has a file the work tree has a folder, or a file on the way to it: what is
    //    left there after step 1 is ignored by git; it is moved aside, never deleted.
    const mustGo = new Set<string>();
    for (const change of changes) {
      if (!change.before || (change.after && !gone.has(change.path))) continue;
      const parts = change.path.split("/");
      for (let depth = 1; depth <= parts.length; depth++) {
        const path = parts.slice(0, depth).join("/");
        const stat = gone.has(path) ? null : lstatOrNull(absolute(path));
        if (!stat) continue;
        if (!stat.isDirectory()) {
          if (depth < parts.length) moveAside(path);
          break;
        }
        if (depth < parts.length) continue;
        mustGo.add(path);
        for (const folder of listFolders(absolute(path), path)) mustGo.add(folder);
        for (const file of listFiles(absolute(path), path)) if (!gone.has(file)) moveAside(file);
      }
    }
    // 3. Folders: those in the way of a file must go; those left empty by steps 1-2 go too.
    const emptied = new Set<string>(mustGo);
    for (const folder of new Set([...gone].flatMap(ancestors))) {
      const stat = lstatOrNull(absolute(folder));
      if (stat?.isDirectory() && listFiles(absolute(folder), folder).every((path) => gone.has(path))) emptied.add(folder);
    }
    const deepestFirst = [...emptied].sort((a, b) => b.split("/").length - a.split("/").length || compareCodePoints(a, b));
    for (const folder of deepestFirst) {
      const required = mustGo.has(folder);
      steps.push({
        action: "remove folder",
        path: folder,
        apply: () => {
          const path = absolute(folder);
          if (required || (lstatOrNull(path)?.isDirectory() && readdirSync(path).length === 0)) rmdirSync(path);
        },
      });
    }
    // 4. HEAD's files, every blob read now, so a missing object stops the plan before any change.
    for (const change of changes) {
      const before = change.before;
      if (!before) continue;
      if (change.kind === "mode") {
        steps.push({ action: "chmod", path: change.path, apply: () => chmodSync(absolute(change.path), fileMode(before.mode)) });
        continue;
      }
      const bytes = await this.#repo.readBlob(before.oid);
      steps.push({ action: "write", path: change.path, apply: () => writeEntry(absolute(change.path), bytes, before.mode) });
    }
    return { steps, movedAside };
  }

  /** Applies a plan step by step; the first failure stops it and says what is left. */
  applyRestore(plan: RestorePlan): RestoreOutcome {
    for (const [index, step] of plan.steps.entries()) {
      try {
        step.apply();
      } catch (error) {
        const describe = ({ action, path }: RestoreStep) => ({ action, path });
        return {
          done: index,
          failed: { step: describe(step), error: (error as NodeJS.ErrnoException).code ?? (error as Error).message },
          left: plan.steps.slice(index).map(describe),
        };
      }
    }
    return { done: plan.steps.length, failed: null, left: [] };
  }

  /** The repository paths a saved patch writes (both sides of a rename), sorted. */
  patchPaths(patch: string): string[] {
    const run = runGit(this.#repo.root, ["apply", "--numstat", "-z", "--", patch], { env: this.#env });
    const fields = new TextDecoder().decode(run.stdout).split("\0");
    const paths = new Set<string>();
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i] as string;
      if (field === "") continue;
      // "added<TAB>deleted<TAB>path", or "added<TAB>deleted<TAB>" then the rename's source and target as two fields.
      const [, , path] = field.split("\t");
      if (path !== undefined && path !== "") paths.add(path);
      else {
        for (const side of [fields[i + 1], fields[i + 2]]) if (side) paths.add(side);
        i += 2;
      }
    }
    return [...paths].sort(compareCodePoints);
  }

  /**
   * Applies a saved patch to the work tree only (the index is left alone), as
   * `git apply` does: all of it or, when any part does not apply, nothing;
   * the error names why.
   */
  applyPatch(patch: string): { applied: boolean; error: string } {
    const run = runGit(this.#repo.root, ["apply", "--binary", "--", patch], { env: this.#env, allowFailure: true });
    return { applied: run.exitCode === 0, error: run.stderr.trim() };
  }

  /** The real index back to HEAD (after the work tree is), with fresh file stats. */
  resetIndex(): void {
    runGit(this.#repo.root, ["reset", "-q", "--no-recurse-submodules"], { env: this.#env });
  }
}

/** HEAD's tree against another, as changed files (folders flattened), sorted by path. */
async function diffTrees(repo: Repository, from: string | null, to: string | null, prefix = ""): Promise<Change[]> {
  const changes: Change[] = [];
  const [a, b] = await Promise.all([from ? repo.readTree(from) : [], to ? repo.readTree(to) : []]);
  const byName = new Map<string, [TreeEntry | undefined, TreeEntry | undefined]>();
  for (const entry of a) byName.set(entry.path, [entry, undefined]);
  for (const entry of b) byName.set(entry.path, [byName.get(entry.path)?.[0], entry]);
  for (const [name, [before, after]] of byName) {
    if (before && after && before.oid === after.oid && before.mode === after.mode) continue;
    const path = `${prefix}${name}`;
    const beforeTree = before?.type === "tree" ? before.oid : null;
    const afterTree = after?.type === "tree" ? after.oid : null;
    if (beforeTree || afterTree) changes.push(...(await diffTrees(repo, beforeTree, afterTree, `${path}/`)));
    const beforeFile = before && before.type !== "tree" ? { mode: before.mode, oid: before.oid } : null;
    const afterFile = after && after.type !== "tree" ? { mode: after.mode, oid: after.oid } : null;
    if (!beforeFile && !afterFile) continue;
    changes.push({ path, kind: kindOf(beforeFile, afterFile), before: beforeFile, after: afterFile });
  }
  return changes.sort((x, y) => compareCodePoints(x.path, y.path));
}

function kindOf(before: TreeFile | null, after: TreeFile | null): Change["kind"] {
  if (!before) return "added";
  if (!after) return "deleted";
  const type = (mode: string) => (mode === SYMLINK ? "link" : mode === GITLINK ? "submodule" : "file");
  if (type(before.mode) !== type(after.mode)) return "typechange";
  if (before.oid === after.oid) return "mode";
  return "modified";
}

/** Git never stores these; a tree that does (a crafted one) must not make slp write outside the folder it writes in. */
export function assertSafePath(path: string): void {
  const bad = path
    .split("/")
    .find((part) => part === "" || part === "." || part === ".." || part.toLowerCase() === ".git" || part.includes("\0"));
  if (bad !== undefined) {
    throw new GitError(`the tree holds the path ${JSON.stringify(path)}, which git never writes into a work tree`, {
      fix: "repair the commit with git; slp will not write outside the work tree",
    });
  }
}

function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/**
 * A copy of an index that keeps the original's modification time. Git trusts
 * an entry whose stat data match the file unless the entry is "racily clean"
 * (its mtime not older than the index file's): a copy stamped now would make
 * a file rewritten in the second the index was written, at the same size,
 * look unchanged, so a step's edit would go unstaged ("nothing to commit").
 * Rounded down to the millisecond: an older stamp only makes more entries
 * racy (checked by content), never fewer.
 */
function copyIndex(from: string, to: string): void {
  copyFileSync(from, to);
  const stamp = new Date(Math.floor(statSync(from).mtimeMs));
  utimesSync(to, stamp, stamp);
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Every entry under a folder that is not a folder (files, symlinks), not following symlinks, as repository paths. */
function listFiles(dir: string, prefix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listFiles(join(dir, entry.name), path));
    else out.push(path);
  }
  return out;
}

function listFolders(dir: string, prefix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = `${prefix}/${entry.name}`;
    out.push(path, ...listFolders(join(dir, entry.name), path));
  }
  return out;
}

function moveInto(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  renameSync(from, to);
}

/** A file's permission bits as git checks a mode out: executable or not, within the umask. */
function fileMode(mode: string): number {
  return (mode === EXECUTABLE ? 0o777 : 0o666) & ~process.umask();
}

/** Writes a file as HEAD holds it (its folder created): bytes and executable bit, or a symlink. */
function writeEntry(path: string, bytes: Uint8Array, mode: string): void {
  mkdirSync(dirname(path), { recursive: true });
  if (mode === SYMLINK) {
    rmSync(path, { force: true });
    symlinkSync(new TextDecoder().decode(bytes), path);
    return;
  }
  writeFileSync(path, bytes, { mode: fileMode(mode) });
  chmodSync(path, fileMode(mode));
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
