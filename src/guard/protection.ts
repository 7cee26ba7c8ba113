/**
 * What `slp guard` refuses before an agent writes: the paths gate would block
 * a branch for (protected.ts's entries, read for this repository), judged on
 * the path the agent is about to write, before any commit exists.
 */
import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { escapeRegExp } from "../core/text.ts";
import { loadConfig, repositoryRoot } from "../project/slp/slp-yml.ts";
import { readDbtPaths } from "../project/dbt/dbt-paths.ts";
import { mayAddUnderTests, protectedEntries, type ProtectedEntry } from "../project/history/protected.ts";

export interface Protection {
  /** The repository root, absolute. */
  root: string;
  entries: ProtectedEntry[];
  /**
   * The files under the test and analysis folders at HEAD: a test (G1) or a
   * reconciliation query (G5) exists once it is committed, as gate sees it;
   * null outside a git repository with commits, where the disk decides.
   */
  committed: Set<string> | null;
}

export interface Verdict {
  /** Repository-relative. */
  path: string;
  entry: ProtectedEntry;
}

/** The protection of the repository holding `projectDir`: slp.yml's extra paths and dbt_project.yml's folders included. */
export async function loadProtection(projectDir: string): Promise<Protection> {
  const root = repositoryRoot(projectDir);
  const prefix = relative(root, projectDir).split("\\").join("/");
  const dbtPaths = readDbtPaths(projectDir);
  const extra = loadConfig(projectDir).config.protected_paths ?? [];
  const entries = protectedEntries({ prefix, extra, dbtPaths });
  const folders = entries.filter((entry) => entry.rule === "G1" || entry.rule === "G5").map((entry) => entry.pattern.replace(/[^/]*$/, ""));
  return { root, entries, committed: await committedFiles(root, folders) };
}

/** The files under `folders` at HEAD, or null when there is no repository or no commit to read. */
async function committedFiles(root: string, folders: readonly string[]): Promise<Set<string> | null> {
  if (!existsSync(resolve(root, ".git"))) return null;
  // Loaded here: reading git costs a guard outside a repository nothing.
  const { Repository } = await import("../git/repository.ts");
  try {
    const repo = Repository.open(root);
    const head = await repo.resolveCommit("HEAD");
    return new Set((await repo.filesIn(head, folders)).map((file) => file.path));
  } catch {
    return null;
  }
}

/** The repository-relative form of a path given from `cwd`, or null when it lies outside the repository. */
export function repositoryPath(protection: Protection, cwd: string, path: string): string | null {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  const rel = relative(protection.root, absolute).split("\\").join("/");
  if (rel.startsWith("..") || isAbsolute(rel)) return null;
  return rel;
}

/**
 * Whether writing (or deleting) `rel` touches a protected path: the path is
 * one, lies inside one, or is a folder that holds one (`rm -rf models` takes
 * models/semantic/ with it). Tests and reconciliation queries are protected
 * once they exist (G1, G5); a new reconciliation query, singular test or
 * unit-test fixture may be written (the analysis folder holding the query is
 * G9's otherwise), anything else new under a test folder may not.
 */
export function judge(protection: Protection, rel: string): Verdict | null {
  const path = rel === "." ? "" : rel.replace(/\/+$/, "");
  // The paths other rules guard are judged before the folders G9 protects around them (analyses/ holds reconciliations).
  const guarded = protection.entries.filter((entry) => entry.rule === "G1" || entry.rule === "G5");
  for (const entry of [...guarded, ...protection.entries.filter((entry) => !guarded.includes(entry))]) {
    if (!touches(entry.pattern, path)) continue;
    if (entry.rule === "G1" || entry.rule === "G5") {
      const holdsIt = path === "" || entry.pattern.startsWith(`${path}/`);
      const exists = protection.committed ? protection.committed.has(path) : existsSync(resolve(protection.root, path));
      if (!holdsIt && !exists && (entry.rule === "G5" || mayAddUnderTests(entry.pattern.slice(0, -1), path))) return null;
    }
    return { path: path === "" ? "." : path, entry };
  }
  return null;
}

/** True when `path` is the pattern's file, lies under its folder, matches its `*`, or is a folder above it. */
function touches(pattern: string, path: string): boolean {
  if (path === "") return true;
  const literal = pattern.replace(/\*.*$/, "");
  if (pattern.includes("*")) {
    const matcher = new RegExp(`^${escapeRegExp(pattern).replace(/\\\*/g, "[^/]*")}$`);
    return matcher.test(path) || literal.startsWith(`${path}/`);
  }
  if (pattern.endsWith("/")) return `${path}/`.startsWith(pattern) || pattern.startsWith(`${path}/`);
  return path === pattern || pattern.startsWith(`${path}/`);
}
