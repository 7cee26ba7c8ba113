/**
 * Where a project's files come from: the work tree or a commit. Both answer
 * the same three questions (which files are under these folders, what does
 * this file hold, what is its content id), so the project model reads a
 * checkout and a commit of history the same way. Content ids are git blob ids
 * on both sides, so a file's parse is shared between `check` and `gate`.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../core/errors.ts";
import { limitBytes } from "../../core/limits.ts";
import type { FileAt, Repository } from "../../git/repository.ts";
import { compareCodePoints } from "../../core/text.ts";
import type { FileIds } from "./file-ids.ts";
import { projectFileStat, projectText, readProjectFile, readProjectText } from "./files.ts";
import { isFile, listFiles } from "./paths.ts";

/** A file of the project: its path relative to the project folder, `/`-separated (`../x` above it). */
export interface SourceFile {
  readonly path: string;
  /** The git blob id, when the listing knows it (a commit); the work tree computes it on reading. */
  readonly id?: string;
}

export interface FileSource {
  /** How messages name where a text was read: undefined for the work tree, `commit 1a2b3c4` for history. */
  readonly at: string | undefined;
  /**
   * Every file under the folders (each with a trailing slash) and at the exact
   * paths of `scope`, project-relative, sorted as plain strings.
   */
  list(scope: readonly string[]): Promise<SourceFile[]>;
  /** The file's text (UTF-8, which it is checked to be when first read), and its content id. */
  read(file: SourceFile): Promise<{ text: string; id: string }>;
  /** The content id of a file, when it is known without reading the file (undefined: read it). */
  knownId?(file: SourceFile): string | undefined;
  /** The text alone (no content id to compute), for files read but never cached. */
  text(path: string): Promise<string>;
  /** True when a file (or folder) exists at a project-relative path. */
  exists(path: string): Promise<boolean>;
}

/** The git blob id of a file's bytes: what `git hash-object` prints for it. */
export function blobId(bytes: Uint8Array): string {
  // Fed in two parts: cheaper, in a fresh process, than copying the header and the bytes into one buffer.
  const hasher = new Bun.CryptoHasher("sha1");
  hasher.update(`blob ${bytes.length}\0`);
  hasher.update(bytes);
  return hasher.digest("hex");
}

/** The project folder on disk. Reads are synchronous underneath; `readText` serves callers that need them so. */
export class WorkTree implements FileSource {
  readonly at = undefined;
  /** Absolute project folder. */
  readonly dir: string;
  /** Content ids by path and stat, from earlier runs (the parse cache's); none by default. */
  readonly #ids: FileIds | null;

  constructor(dir: string, ids?: FileIds) {
    this.dir = dir;
    this.#ids = ids ?? null;
  }

  async list(scope: readonly string[]): Promise<SourceFile[]> {
    return this.listSync(scope);
  }

  listSync(scope: readonly string[]): SourceFile[] {
    const paths = new Set<string>();
    for (const item of scope) {
      if (item.endsWith("/")) for (const file of listFiles(this.dir, item)) paths.add(file);
      else if (isFile(join(this.dir, item))) paths.add(item);
    }
    return [...paths].sort(compareCodePoints).map((path) => ({ path }));
  }

  async read(file: SourceFile): Promise<{ text: string; id: string }> {
    const { bytes, stats } = readProjectFile(this.dir, file.path);
    const id = blobId(bytes);
    this.#ids?.record(file.path, stats, id);
    // Decoded only when asked for: a parse the cache holds needs the id alone.
    let text: string | undefined;
    return {
      id,
      get text() {
        text ??= projectText(bytes, file.path);
        return text;
      },
    };
  }

  async text(path: string): Promise<string> {
    return this.readText(path);
  }

  /** The id an earlier run hashed the file's content to, when its stat says it has not changed since. */
  knownId(file: SourceFile): string | undefined {
    if (!this.#ids || this.#ids.empty) return undefined;
    const stats = projectFileStat(this.dir, file.path);
    // Past file_mb (a limit lowered since): read, and refused as a read is, never taken from the cache.
    if (!stats || stats.size > limitBytes("file_mb")) return undefined;
    return this.#ids.lookup(file.path, stats);
  }

  /** A project file as UTF-8 text; InputError naming it when it cannot be read. */
  readText(path: string): string {
    return readText(this.dir, path);
  }

  async exists(path: string): Promise<boolean> {
    return this.existsSync(path);
  }

  existsSync(path: string): boolean {
    return existsSync(join(this.dir, path));
  }

  /** The newest modification time (ms) among the files, 0 when none can be read. */
  newest(paths: readonly string[]): number {
    let newest = 0;
    for (const path of paths) {
      try {
        newest = Math.max(newest, statSync(join(this.dir, path)).mtimeMs);
      } catch {
        // A file that vanished while the project was read leaves the others to decide.
      }
    }
    return newest;
  }
}

/** A project folder at one commit of a repository. */
export class CommitTree implements FileSource {
  readonly at: string;
  readonly repo: Repository;
  readonly commit: string;
  /** The project folder relative to the repository root, "" at the root. */
  readonly prefix: string;
  readonly #files = new Map<string, FileAt>();

  constructor(repo: Repository, commit: string, prefix: string, at: string) {
    this.repo = repo;
    this.commit = commit;
    this.prefix = prefix;
    this.at = at;
  }

  async list(scope: readonly string[]): Promise<SourceFile[]> {
    const files = await this.repo.filesIn(
      this.commit,
      scope.map((item) => this.toRepository(item)),
    );
    return files.map((file) => {
      const path = this.fromRepository(file.path);
      this.#files.set(path, file);
      return { path, id: file.oid };
    });
  }

  async read(file: SourceFile): Promise<{ text: string; id: string }> {
    let at = this.#files.get(file.path);
    if (!at) {
      await this.list([file.path]);
      at = this.#files.get(file.path);
      if (!at)
        throw new InputError(`cannot read ${file.path} at ${this.at}: it is not in that commit`, {
          file: file.path,
          fix: "check the path",
        });
    }
    return { text: await this.repo.readText(at, this.at), id: at.oid };
  }

  async text(path: string): Promise<string> {
    return (await this.read({ path })).text;
  }

  async exists(path: string): Promise<boolean> {
    if (this.#files.has(path)) return true;
    const target = this.toRepository(path);
    if ((await this.repo.filesIn(this.commit, [target])).length > 0) return true;
    return (await this.repo.treeAt(this.commit, target)) !== null;
  }

  /** A project-relative path (`models/x.yml`, `../.github/`) as the repository names it. */
  toRepository(path: string): string {
    const parts = this.prefix === "" ? [] : this.prefix.split("/");
    for (const segment of path.split("/")) {
      if (segment === "..") parts.pop();
      else if (segment !== ".") parts.push(segment);
    }
    const joined = parts.join("/");
    return path.endsWith("/") && !joined.endsWith("/") ? `${joined}/` : joined;
  }

  /** A repository path as the project sees it: relative to the project folder, `../` above it. */
  fromRepository(repoPath: string): string {
    if (this.prefix === "") return repoPath;
    if (repoPath.startsWith(`${this.prefix}/`)) return repoPath.slice(this.prefix.length + 1);
    return `${"../".repeat(this.prefix.split("/").length)}${repoPath}`;
  }
}

/**
 * Reads a project file as UTF-8 text; InputError when it cannot. The safe
 * read (files.ts): a regular file only, at most limit file_mb, never outside
 * the repository through a symbolic link.
 */
export const readText = readProjectText;
