/**
 * Reading files safely: the one place slp opens a file of the project or one
 * the user named, and walks a folder. Every read is of a regular file (a
 * FIFO or a device such as /dev/zero would hang or never end), of bounded
 * size (limit file_mb), and, for project files, of a file whose real
 * location is inside the repository: a symbolic link may point anywhere
 * inside it (dbt follows links too), never outside it, and never in a loop.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { InputError, SYSTEM_REASONS } from "../../core/errors.ts";
import { formatLimit, LimitError, limitBytes } from "../../core/limits.ts";

/** How a path is named in messages: project-relative for project files, as given for arguments. */
export interface ReadTarget {
  /** Absolute path to open. */
  path: string;
  /** The name printed in messages. */
  shown: string;
  /** Named on the command line: messages say "cannot be read: ..." as the reference does. */
  argument?: boolean;
}

function cannot(target: ReadTarget, reason: string): string {
  return target.argument ? `cannot be read: ${reason}` : `cannot read the file: ${reason}`;
}

/**
 * The bytes of a regular file, at most `file_mb`. Opened without blocking,
 * then checked by descriptor, so a FIFO or a device is refused before a
 * single byte is waited for.
 */
export function readBoundedBytes(target: ReadTarget, fix: string): Uint8Array {
  return readOpened(openOrFail(target, fix, 0), target, fix).bytes;
}

function openOrFail(target: ReadTarget, fix: string, flags: number): number {
  try {
    return openSync(target.path, constants.O_RDONLY | constants.O_NONBLOCK | flags);
  } catch (error) {
    throw new InputError(cannot(target, systemReason(error)), { file: target.shown, fix });
  }
}

/** What a read gave: the bytes, and the descriptor's stat they were judged on. */
export interface FileRead {
  bytes: Uint8Array;
  stats: Stats;
}

function readOpened(fd: number, target: ReadTarget, fix: string): FileRead {
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new InputError(cannot(target, "it is a folder, not a file"), { file: target.shown, fix });
    if (!stats.isFile()) {
      throw new InputError(cannot(target, `it is ${kindOf(stats)}, not a regular file`), {
        file: target.shown,
        fix: "slp reads regular files only; replace it with the file itself",
      });
    }
    const cap = limitBytes("file_mb");
    if (stats.size > cap) throw tooLarge(target.shown, stats.size);
    // An ordinary file, in one read of one byte more than stat gave: fewer bytes back is the end (one
    // syscall, no copy). A file that grew since, or claims 0 bytes (as files under /proc do), goes on
    // in chunks below, never past the cap.
    const first = Buffer.allocUnsafe(Math.min(stats.size, cap) + 1);
    const got = readSync(fd, first, 0, first.length, null);
    if (got < first.length) return { bytes: first.subarray(0, got), stats };
    const chunks: Uint8Array[] = [first];
    let total = got;
    if (total > cap) throw tooLarge(target.shown, total);
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(cap - total + 1, 1 << 20));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > cap) throw tooLarge(target.shown, total);
      chunks.push(chunk.subarray(0, read));
      // Fewer bytes than asked for: the end.
      if (read < chunk.length) break;
    }
    return { bytes: chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, total), stats };
  } catch (error) {
    if (error instanceof InputError || error instanceof LimitError) throw error;
    throw new InputError(cannot(target, systemReason(error)), { file: target.shown, fix });
  } finally {
    closeSync(fd);
  }
}

/** UTF-8 text of a regular, bounded file; InputError naming it when it is not UTF-8. */
export function readBoundedText(target: ReadTarget, fix: string): string {
  return utf8(readBoundedBytes(target, fix), target);
}

function utf8(bytes: Uint8Array, target: ReadTarget): string {
  const text = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString("utf8");
  // The lenient decoder marks bad bytes with U+FFFD; only then pay for a strict decode.
  if (text.includes("\uFFFD")) {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new InputError(target.argument ? cannot(target, "it is not UTF-8 text") : "the file is not UTF-8 text", {
        file: target.shown,
        fix: "save it as UTF-8",
      });
    }
  }
  return text;
}

/** A project file as UTF-8 text: inside the repository, regular, bounded. */
export function readProjectText(dir: string, file: string): string {
  return projectText(readProjectFile(dir, file).bytes, file);
}

/** The bytes readProjectBytes gave for a project file, as UTF-8 text; InputError naming the file when they are not. */
export function projectText(bytes: Uint8Array, file: string): string {
  return utf8(bytes, { path: file, shown: file });
}

/** A project file's bytes: inside the repository, regular, bounded. */
export function readProjectBytes(dir: string, file: string): Uint8Array {
  return readProjectFile(dir, file).bytes;
}

/** A project file's bytes and the stat of what was read (the file a link leads to, for a link). */
export function readProjectFile(dir: string, file: string): FileRead {
  const target = { path: join(dir, file), shown: file };
  const fix = "check that the file exists and is readable";
  assertFolderInside(dir, target);
  let fd: number;
  try {
    // O_NOFOLLOW: a plain file opens at once; a link fails with ELOOP and is resolved and checked first.
    fd = openSync(target.path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw new InputError(cannot(target, systemReason(error)), { file, fix });
    const real = resolveLink(target);
    assertInside(dir, real, file);
    fd = openOrFail({ path: real, shown: file }, fix, 0);
  }
  return readOpened(fd, target, fix);
}

/**
 * The stat of a project path that is a regular file (not a link) in a folder
 * inside the repository; null for anything else, which a read then judges.
 */
export function projectFileStat(dir: string, file: string): Stats | null {
  const target = { path: join(dir, file), shown: file };
  assertFolderInside(dir, target);
  const stats = lstatSync(target.path, { throwIfNoEntry: false });
  return stats?.isFile() ? stats : null;
}

/**
 * True when anything is at a project path, a FIFO, a device or a link to
 * nothing included: a file slp looks for that is there but cannot be read is
 * a refusal when read, never "absent".
 */
export function isPresent(dir: string, file: string): boolean {
  return existsQuietly(join(dir, file));
}

/**
 * Every file under `dir` (project-relative, `/`-separated), hidden ones
 * included; none when the folder does not exist. A folder that cannot be
 * read, a special file (FIFO, socket, device), a link to a folder outside
 * the repository or to a folder that holds it, is an InputError naming the
 * path: a tree that cannot be read is never "nothing to check". Links
 * inside the repository are followed, as dbt follows them; a link to a file
 * is checked when the file is read (readProjectText).
 */
export function listFiles(projectDir: string, dir: string): string[] {
  const start = join(projectDir, dir);
  let stats: Stats;
  try {
    stats = lstatSync(start);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw unreadable(shownPath(projectDir, start), error);
  }
  const files: string[] = [];
  const walker = new Walker(projectDir, files);
  if (stats.isSymbolicLink()) walker.followLink(start, []);
  else if (stats.isDirectory()) walker.walk(start, [realpathOf(start, projectDir)]);
  else if (stats.isFile()) files.push(shownPath(projectDir, start));
  else throw special(shownPath(projectDir, start), stats);
  return files;
}

class Walker {
  constructor(
    private readonly projectDir: string,
    private readonly files: string[],
  ) {}

  /** `ancestors`: the real paths of the folders above and including `folder`, to tell a loop. */
  walk(folder: string, ancestors: string[]): void {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      throw unreadable(shownPath(this.projectDir, folder), error);
    }
    // In name order, so the first entry that cannot be read is the same on every machine.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // An entry's name is one segment (no `/`, never `.` or `..`): its paths are the folder's plus `/name`.
    const shownFolder = shownPath(this.projectDir, folder);
    const prefix = shownFolder === "." ? "" : `${shownFolder}/`;
    for (const entry of entries) {
      if (entry.isFile()) {
        this.files.push(prefix + entry.name);
        continue;
      }
      const path = folder.endsWith("/") ? folder + entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name.endsWith(".sql")) throw sqlNamedFolderError(prefix + entry.name);
        this.walk(path, [...ancestors, realpathOf(path, this.projectDir)]);
      } else if (entry.isSymbolicLink()) this.followLink(path, ancestors);
      else throw special(shownPath(this.projectDir, path), lstatSync(path));
    }
  }

  /**
   * A link to a file (or to nothing) is listed like a file: if a reader
   * needs it, reading it refuses a link that points nowhere, loops, or leaves
   * the repository; one no reader needs is ignored, as dbt ignores it. A link
   * to a folder is walked when the folder is inside the repository and does
   * not hold the link.
   */
  followLink(link: string, ancestors: string[]): void {
    const shown = shownPath(this.projectDir, link);
    let real: string;
    let stats: Stats;
    try {
      real = realpathSync(link);
      stats = statSync(real);
    } catch {
      this.files.push(shown);
      return;
    }
    if (!stats.isDirectory()) {
      this.files.push(shown);
      return;
    }
    if (shown.endsWith(".sql")) throw sqlNamedFolderError(shown);
    if (!reachable(this.projectDir, real)) {
      throw new InputError("is a symbolic link to a folder outside the repository, and slp reads nothing outside it", {
        file: shown,
        fix: "commit the folder itself instead of a link, or point the link at a folder inside the repository",
      });
    }
    if (ancestors.some((ancestor) => isInside(ancestor, real))) {
      throw new InputError("is a symbolic link to a folder that holds it, so walking it would never end", {
        file: shown,
        fix: "remove the link (dbt would read the same files again and again)",
      });
    }
    this.walk(link, [...ancestors, real]);
  }
}

// --- containment ---

const realRoots = new Map<string, string>();
const realDirs = new Map<string, string>();
/** Folders whose real path was found inside a project's reach, and that project. */
const insideFolders = new Map<string, string>();
/** Folders outside a project's repository that slp itself linked into it (a checkout's borrowed packages). */
const trusted = new Map<string, string[]>();

/**
 * Lets links under `projectDir` lead into `folder`: for a folder slp made
 * itself (a commit's checkout) that borrows what the work tree installed.
 * Never for anything a repository says.
 */
export function trustLinksInto(projectDir: string, folder: string): void {
  let real: string;
  try {
    real = realpathSync(folder);
  } catch {
    return;
  }
  trusted.set(projectDir, [...(trusted.get(projectDir) ?? []), real]);
}

/** Whether a real path is inside what `projectDir`'s reads may reach. */
function reachable(projectDir: string, real: string): boolean {
  return isInside(real, repositoryRealRoot(projectDir)) || (trusted.get(projectDir) ?? []).some((folder) => isInside(real, folder));
}

/** Forgets what was learnt about folders (each invocation starts afresh). */
export function forgetFolders(): void {
  realRoots.clear();
  realDirs.clear();
  insideFolders.clear();
}

/**
 * The real path of the repository that holds `projectDir` (the nearest folder
 * with `.git`, else the project folder itself): what no read may leave.
 */
function repositoryRealRoot(projectDir: string): string {
  let root = realRoots.get(projectDir);
  if (root === undefined) {
    root = realpathOf(repositoryRoot(projectDir), projectDir);
    realRoots.set(projectDir, root);
  }
  return root;
}

/** The repository folder that holds `projectDir` as written (the nearest folder with `.git`, else the project folder). */
function repositoryRoot(projectDir: string): string {
  let current = resolve(projectDir);
  const start = current;
  for (;;) {
    if (existsQuietly(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return start;
    current = parent;
  }
}

/**
 * A path slp hands a database to open (Stage E's data files, a glob's
 * matches, a database file), judged as the file walk judges a link: written
 * inside the repository, it must stay inside once its links are resolved
 * (the deepest part of it that exists). A path written outside the
 * repository is the configuration's own choice, and not this check's.
 */
export function assertNoLinkOut(projectDir: string, path: string, shown: string): void {
  const written = resolve(projectDir, path);
  const lexicalRoot = repositoryRoot(projectDir);
  const realRoot = repositoryRealRoot(projectDir);
  if (!isInside(written, lexicalRoot) && !isInside(written, realRoot)) return;
  let existing = written;
  let rest = "";
  for (;;) {
    try {
      const real = join(realpathSync(existing), rest);
      if (!reachable(projectDir, real)) {
        throw new InputError(
          "is a symbolic link (or is reached through one) that leads outside the repository, and slp reads nothing outside it",
          {
            file: shown,
            fix: "copy the data into the repository instead of linking it, or pass its real path on the command line (--prod, --pr, --sources, --database)",
          },
        );
      }
      return;
    } catch (error) {
      if (error instanceof InputError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw new InputError("is a symbolic link that loops", { file: shown, fix: "remove the link" });
      // Not there (yet): its nearest existing folder decides where it leads.
      const parent = dirname(existing);
      if (parent === existing) return;
      rest = join(basename(existing), rest);
      existing = parent;
    }
  }
}

/** The folder holding the file, resolved once per folder, must be inside the repository. */
function assertFolderInside(projectDir: string, target: ReadTarget): void {
  const folder = dirname(target.path);
  // Most reads are of files in a folder already judged: one lookup.
  if (insideFolders.get(folder) === projectDir) return;
  let real = realDirs.get(folder);
  if (real === undefined) {
    try {
      real = realpathSync(folder);
    } catch {
      // A missing folder: the open that follows names the file.
      return;
    }
    realDirs.set(folder, real);
  }
  assertInside(projectDir, real, target.shown);
  insideFolders.set(folder, projectDir);
}

function resolveLink(target: ReadTarget): string {
  try {
    return realpathSync(target.path);
  } catch (error) {
    throw new InputError(
      `cannot read the file: it is a symbolic link that ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "points at nothing" : "loops"}`,
      {
        file: target.shown,
        fix: "remove the link, or point it at a file inside the repository",
      },
    );
  }
}

function assertInside(projectDir: string, real: string, shown: string): void {
  if (!reachable(projectDir, real)) {
    throw new InputError(
      "cannot read the file: it leads outside the repository through a symbolic link, and slp reads nothing outside it",
      {
        file: shown,
        fix: "commit the file itself instead of a link, or point the link at a path inside the repository",
      },
    );
  }
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function realpathOf(path: string, projectDir: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    throw unreadable(shownPath(projectDir, path), error);
  }
}

function existsQuietly(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

// --- messages ---

function shownPath(projectDir: string, path: string): string {
  return relative(projectDir, path).split("\\").join("/") || ".";
}

function tooLarge(shown: string, bytes: number): LimitError {
  return new LimitError("file_mb", `the file is larger than ${formatLimit("file_mb")} (${(bytes / 1024 / 1024).toFixed(1)} MiB or more)`, {
    file: shown,
  });
}

function unreadable(shown: string, error: unknown): InputError {
  return new InputError(`cannot read the folder: ${systemReason(error)}`, {
    file: shown,
    fix: "make it readable (slp must read every file under the folders it checks), or move it out of them",
  });
}

function special(shown: string, stats: Stats): InputError {
  return new InputError(`cannot read ${kindOf(stats)}, which is not a regular file`, {
    file: shown,
    fix: "keep only regular files and folders under the folders slp reads",
  });
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "a special file";
}

/** The system's reason in words, without the absolute path it usually carries. */
export function systemReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code && Object.hasOwn(FILE_REASONS, code)) return FILE_REASONS[code] as string;
  return code ? `system error ${code}` : String((error as Error)?.message ?? error);
}

/** The codes a file read names in words (the rest by code); a missing file is a file here, a refusal is a refusal. */
const FILE_REASONS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: SYSTEM_REASONS.EISDIR as string,
  EACCES: SYSTEM_REASONS.EACCES as string,
  EPERM: SYSTEM_REASONS.EACCES as string,
  ENOTDIR: SYSTEM_REASONS.ENOTDIR as string,
  ELOOP: SYSTEM_REASONS.ELOOP as string,
};

/** The first folder on `path` (`/`-separated) whose name ends in `.sql`, or null: dbt reads the files inside such a folder, never the folder, as models. */
export function sqlNamedFolder(path: string): string | null {
  const at = path.indexOf(".sql/");
  if (at === -1) return null;
  return path.slice(0, at + ".sql".length);
}

/** The refusal of a folder named like a model's SQL file (`fct_orders.sql/`): the model it names has no SQL, and nothing says so. */
export function sqlNamedFolderError(folder: string, at?: string): InputError {
  return new InputError(
    `${at ? `at ${at}, ` : ""}a folder whose name ends in .sql; dbt reads the files inside it, not it, so the model its name promises has no SQL`,
    {
      file: folder,
      fix: "rename the folder, or put the model's SQL in a file of that name",
    },
  );
}
