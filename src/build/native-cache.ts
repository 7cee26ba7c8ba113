/**
 * Where the compiled binary keeps the DuckDB library it carries: unpacked into
 * a private (0700), content-addressed folder of the user's own cache, checked
 * for size and SHA-256 before it is loaded, and every way that can fail turned
 * into an error that names the folder and the fix (`SLP_CACHE_DIR`).
 *
 * Never a shared temporary folder: another user could plant a library there
 * that slp would load. A file whose hash was checked gets a stamp (hash, size,
 * inode, mtime and ctime, which no write can leave as they were), so later
 * runs compare a stat instead of hashing 70 MB again; a file that changes
 * changes its stat, and the hash is taken anew (a truncated library is
 * rewritten, never loaded).
 */
import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
  type Stats,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { EngineError } from "../core/errors.ts";

export interface EmbeddedFile {
  /** The file's name in the cache folder (`libduckdb.so`, `duckdb.node`). */
  name: string;
  /** Where its bytes are read from: the embedded file inside the binary. */
  source: string;
  size: number;
  sha256: string;
}

export interface NativeBundle {
  /** Names the folder with the platform and version, for people; the hash makes it content-addressed. */
  label: string;
  files: readonly EmbeddedFile[];
}

const FIX = "set SLP_CACHE_DIR to a folder of your own on a disk where programs may run (e.g. SLP_CACHE_DIR=$HOME/.cache/slp)";

/** `SLP_CACHE_DIR`, else `$XDG_CACHE_HOME/slp`, else `~/.cache/slp`; never the shared temporary folder. */
export function cacheRoot(env: Record<string, string | undefined>, home: string = safeHomedir()): string {
  if (env.SLP_CACHE_DIR) return resolve(env.SLP_CACHE_DIR);
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, "slp");
  if (home) return join(home, ".cache", "slp");
  throw new EngineError("there is no cache folder to unpack DuckDB into: HOME and XDG_CACHE_HOME are not set", { fix: FIX });
}

function safeHomedir(): string {
  try {
    return homedir();
  } catch {
    return "";
  }
}

/** The folder a bundle unpacks into: its label and the hash of every file it holds. */
export function bundleFolder(root: string, bundle: NativeBundle): string {
  const digest = new Bun.CryptoHasher("sha256");
  for (const file of bundle.files) digest.update(`${file.name}\0${file.sha256}\0`);
  return join(root, "native", `${bundle.label}-${digest.digest("hex").slice(0, 16)}`);
}

/**
 * Makes sure every file of the bundle sits, verified, in its private folder
 * (under `root`, the user's cache unless said), writing what is missing or
 * wrong; returns the folder.
 */
export function unpackBundle(bundle: NativeBundle, env: Record<string, string | undefined>, root: string = cacheRoot(env)): string {
  const folder = bundleFolder(root, bundle);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new EngineError(
      `cannot create the cache folder ${folder} to unpack DuckDB into (${reason(error)})`,
      { fix: FIX },
      { cause: error },
    );
  }
  assertPrivate(folder, "leaf");
  assertPrivate(dirname(folder), "parent");
  for (const file of bundle.files) {
    const target = join(folder, file.name);
    if (isVerified(target, file)) continue;
    writeVerified(target, file);
  }
  return folder;
}

/**
 * Loads the bundle's addon through `process.dlopen` and returns its exports;
 * a folder on a `noexec` mount or a damaged library is a named error, never
 * a crash or "a bug in slp".
 */
export function loadBundledAddon(bundle: NativeBundle, addon: string, env: Record<string, string | undefined>): unknown {
  const folder = unpackBundle(bundle, env);
  const module = { exports: {} as unknown };
  try {
    process.dlopen(module as { exports: Record<string, unknown> }, join(folder, addon));
  } catch (error) {
    throw new EngineError(
      `DuckDB could not be loaded from ${folder} (${reason(error)}); a folder on a noexec mount (a noexec /tmp, a read-only container) cannot hold it`,
      { fix: `${FIX}, or unpack it when the image is built (slp unpack)` },
      { cause: error },
    );
  }
  return module.exports;
}

/**
 * The folder is a real directory owned by this user that no one else may
 * read or write, and its parent lets no one else rename it away (not
 * writable by others, or sticky like /tmp).
 */
function assertPrivate(folder: string, role: "leaf" | "parent"): void {
  if (process.platform === "win32" || typeof process.getuid !== "function") return;
  let stats: Stats;
  try {
    stats = lstatSync(folder);
  } catch (error) {
    throw new EngineError(`cannot read the cache folder ${folder} (${reason(error)})`, { fix: FIX }, { cause: error });
  }
  const uid = process.getuid();
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new EngineError(
      `the cache folder ${folder} is not a plain folder (a symlink or a file), so slp will not load a library from it`,
      { fix: FIX },
    );
  }
  if (stats.uid !== uid && stats.uid !== 0) {
    throw new EngineError(
      `the cache folder ${folder} belongs to another user (uid ${stats.uid}), who could plant a library slp would load`,
      { fix: FIX },
    );
  }
  const othersMayWrite = (stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0;
  const othersMayEnter = (stats.mode & 0o077) !== 0;
  if (othersMayWrite || (role === "leaf" && othersMayEnter)) {
    const mode = (stats.mode & 0o7777).toString(8).padStart(4, "0");
    throw new EngineError(`the cache folder ${folder} is open to other users (mode ${mode}), who could plant a library slp would load`, {
      fix: `chmod 700 ${folder}, or ${FIX}`,
    });
  }
}

function isVerified(target: string, file: EmbeddedFile): boolean {
  let stats: Stats;
  try {
    stats = lstatSync(target);
  } catch {
    return false;
  }
  if (!stats.isFile() || stats.size !== file.size) return false;
  const stamp = stampOf(stats, file);
  try {
    if (readFileSync(`${target}.verified`, "utf8") === stamp) return true;
  } catch {
    // No stamp yet: hash the file once.
  }
  if (sha256(readFileSync(target)) !== file.sha256) return false;
  writeStamp(target, stamp);
  return true;
}

/** Writes a file beside its target, flushes it, then renames it into place: a crash leaves no half library behind. */
function writeVerified(target: string, file: EmbeddedFile): void {
  const bytes = readFileSync(file.source);
  if (bytes.length !== file.size || sha256(bytes) !== file.sha256) {
    throw new EngineError(`the DuckDB library inside this slp binary is damaged (${file.name} does not match its hash)`, {
      fix: "download or build slp again",
    });
  }
  const partial = `${target}.${process.pid}.partial`;
  try {
    const fd = openSync(partial, "w", 0o700);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new EngineError(`cannot write DuckDB's ${file.name} into ${dirname(target)} (${reason(error)})`, { fix: FIX }, { cause: error });
  }
  writeStamp(target, stampOf(lstatSync(target), file));
}

function stampOf(stats: Stats, file: EmbeddedFile): string {
  return `${file.sha256} ${stats.size} ${stats.ino} ${stats.mtimeMs} ${stats.ctimeMs}\n`;
}

/** A stamp that cannot be written only costs the next run one more hash. */
function writeStamp(target: string, stamp: string): void {
  try {
    writeFileSync(`${target}.verified`, stamp, { mode: 0o600 });
  } catch {
    // Read-only cache prepared at image build time: the stamp is already there or the hash is taken each run.
  }
}

export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

function reason(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") {
    const message = error instanceof Error ? error.message : "";
    return message.includes(error.code) ? message : `${error.code}: ${message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
