/**
 * A commit's project written out in a folder of slp's own under the git
 * directory, so the tasks that read a work tree (check, unit) can judge any
 * commit: HEAD for tcr's baseline, every commit of a branch for
 * `gate --verify-commits`. Moving it to another commit rewrites only the files
 * that differ; the folder is kept between runs (so parse caches stay warm) and
 * used by one process at a time. A path the commit does not have may be
 * borrowed from the work tree as a link (the dbt packages it installed).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CONFIG_FILE } from "../project/slp/slp-yml.ts";
import { GitError } from "../core/errors.ts";
import type { FileAt, Repository } from "./repository.ts";
import { assertSafePath } from "./worktree.ts";
import { trustLinksInto } from "../project/files/files.ts";

const SYMLINK = "120000";
const GITLINK = "160000";
/** The manifest's mark of a borrowed link: it matches no commit's entry, so every move removes it. */
const BORROWED = "borrowed:";

export class TreeCheckout {
  readonly #repo: Repository;
  readonly #prefix: string;
  /** The checkout's root: the repository root as the commit has it. */
  readonly root: string;
  readonly #lock: string | null;
  /** What the folder holds now: path -> mode and blob. */
  #files = new Map<string, string>();
  #commit: string | null = null;

  private constructor(repo: Repository, prefix: string, root: string, lock: string | null, files: Map<string, string>) {
    this.#repo = repo;
    this.#prefix = prefix;
    this.root = root;
    this.#lock = lock;
    this.#files = files;
  }

  /**
   * The checkout folder of a repository's project (`prefix` from its root):
   * `<git dir>/slp/checkout`, or a temporary folder while another slp holds it.
   */
  static open(repo: Repository, prefix: string): TreeCheckout {
    const slp = join(repo.worktreeGitdir, "slp");
    mkdirSync(slp, { recursive: true });
    const lock = join(slp, "checkout.lock");
    if (takeLock(lock)) {
      const root = join(slp, "checkout");
      const manifest = join(slp, "checkout.json");
      let files = new Map<string, string>();
      try {
        files = new Map(Object.entries(JSON.parse(readFileSync(manifest, "utf8")) as Record<string, string>));
      } catch {
        rmSync(root, { recursive: true, force: true });
      }
      // Until it is written again at close, a crash leaves no manifest, and the next run starts clean.
      rmSync(manifest, { force: true });
      return new TreeCheckout(repo, prefix, root, lock, files);
    }
    return new TreeCheckout(repo, prefix, mkdtempSync(join(tmpdir(), "slp-checkout-")), null, new Map());
  }

  /** The project folder inside the checkout. */
  get projectDir(): string {
    return this.#prefix === "" ? this.root : join(this.root, ...this.#prefix.split("/"));
  }

  /**
   * Writes the commit's project (and the repository's slp.yml) into the folder;
   * returns a key that is equal for two commits whose checkouts are equal.
   */
  async moveTo(commit: string): Promise<string> {
    const [project, config] = await Promise.all([
      this.#repo.filesUnder(commit, this.#prefix),
      this.#prefix === "" ? Promise.resolve([]) : this.#repo.filesIn(commit, [CONFIG_FILE]),
    ]);
    const wanted = new Map<string, FileAt>();
    for (const file of [...project, ...config]) if (file.mode !== GITLINK) wanted.set(file.path, file);
    // A crafted tree could hold a path twice, as a file (or symlink) and as a folder: never write through one.
    for (const path of wanted.keys()) {
      assertSafePath(path);
      const parts = path.split("/");
      for (let depth = 1; depth < parts.length; depth++) {
        if (wanted.has(parts.slice(0, depth).join("/"))) {
          throw new GitError(
            `commit ${this.#repo.shortSha(commit)} holds ${parts.slice(0, depth).join("/")} both as a file and as a folder`,
            {
              fix: "repair the commit with git (git fsck names the bad tree)",
            },
          );
        }
      }
    }
    if (commit !== this.#commit) {
      for (const [path, entry] of this.#files) {
        const file = wanted.get(path);
        if (file && `${file.mode}:${file.oid}` === entry) continue;
        rmSync(this.#absolute(path), { force: true });
        this.#files.delete(path);
        removeEmptyParents(this.root, path);
      }
      for (const [path, file] of wanted) {
        if (this.#files.has(path)) continue;
        const target = this.#absolute(path);
        mkdirSync(dirname(target), { recursive: true });
        const bytes = await this.#repo.readBlob(file.oid);
        rmSync(target, { recursive: true, force: true });
        if (file.mode === SYMLINK) symlinkSync(new TextDecoder().decode(bytes), target);
        else writeFileSync(target, bytes);
        this.#files.set(path, `${file.mode}:${file.oid}`);
      }
      // A repository root for the readers that look for one (slp.yml is read there).
      mkdirSync(join(this.root, ".git"), { recursive: true });
      mkdirSync(this.projectDir, { recursive: true });
      this.#commit = commit;
    }
    return [...wanted.values()].map((file) => `${file.path}\0${file.mode}:${file.oid}`).join("\n");
  }

  /**
   * Links `path` (repository-relative, absent from the commit) to `target`
   * in the work tree, so the checkout reads what the work tree installed
   * without copying it. The link is dropped by the next move.
   */
  borrow(path: string, target: string): void {
    assertSafePath(path);
    const link = this.#absolute(path);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
    // slp's own link into the work tree: the safe reads may follow it (files.ts refuses links that leave a repository).
    trustLinksInto(this.projectDir, target);
    this.#files.set(path, `${BORROWED}${target}`);
  }

  /** Keeps the folder for the next run (with what it holds), or removes a temporary one. */
  close(): void {
    if (!this.#lock) {
      rmSync(this.root, { recursive: true, force: true });
      return;
    }
    writeFileSync(join(dirname(this.#lock), "checkout.json"), JSON.stringify(Object.fromEntries(this.#files)));
    rmSync(this.#lock, { force: true });
  }

  #absolute(path: string): string {
    return join(this.root, ...path.split("/"));
  }
}

/** A lock file holding our pid; one left by a process that is gone is taken over. */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      return true;
    } catch {
      const pid = Number.parseInt(safeRead(lock), 10);
      if (Number.isFinite(pid) && pid !== process.pid && alive(pid)) return false;
      if (pid === process.pid) return false;
      rmSync(lock, { force: true });
    }
  }
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function removeEmptyParents(root: string, path: string): void {
  const parts = path.split("/");
  for (let depth = parts.length - 1; depth > 0; depth--) {
    const dir = join(root, ...parts.slice(0, depth));
    if (!existsSync(dir) || readdirSync(dir).length > 0) return;
    rmdirSync(dir);
  }
}
