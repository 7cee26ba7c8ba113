/** Temporary folders for tests, removed when disposed (`using dir = tempDir()`). */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempDir extends Disposable {
  path: string;
}

export function tempDir(prefix = "slp-test-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/** Writes `files` (relative path -> content) under `root`. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** Copies a folder (a fixture, an example) into a fresh temporary folder. */
export function copyToTemp(source: string, prefix?: string): TempDir {
  const dir = tempDir(prefix);
  cpSync(source, dir.path, { recursive: true });
  return dir;
}
