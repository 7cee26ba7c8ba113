/**
 * What only a human changes (spec/rules.md §6.1, Control 5A): the one list
 * gate protects and `slp init` writes into CODEOWNERS, so the two can never
 * disagree. Patterns are repository-relative; a trailing slash is a folder.
 */
import { CONFIG_FILE } from "./config.ts";

/**
 * Paths only a human changes. With the project in a subfolder each is
 * protected both at the repository root and in the project folder: CI, owners
 * and agent rules live at the root, dbt_project.yml and macros/ beside the
 * project, and a team may keep either kind in either place.
 */
export const BUILT_IN_PROTECTED = [
  ".github/",
  "macros/",
  "models/semantic/",
  "docs/profile/",
  "tools/",
  ".pre-commit-config.yaml",
  "CODEOWNERS",
  "AGENTS.md",
  "dbt_project.yml",
] as const;

export interface ProtectedScope {
  /** The dbt project's folder relative to the repository root, "" at the root. */
  prefix: string;
  /** slp.yml's `protected_paths` (as the base commit has them). */
  extra?: readonly string[];
  /**
   * The project's own folders a human owns, project-relative, as the model
   * reads them from dbt_project.yml (its macro-paths, test-paths, ...): each is
   * protected as a folder inside the project folder.
   */
  projectFolders?: readonly string[];
}

/** Every protected pattern of a project, repository-relative, each once, in a stable order. */
export function protectedPatterns(scope: ProtectedScope): string[] {
  const patterns = new Set<string>([CONFIG_FILE]);
  for (const path of BUILT_IN_PROTECTED) {
    patterns.add(path);
    patterns.add(joinPath(scope.prefix, path));
  }
  for (const folder of scope.projectFolders ?? []) patterns.add(joinPath(scope.prefix, `${folder.replace(/\/+$/, "")}/`));
  for (const path of scope.extra ?? []) patterns.add(path.replace(/^(\.\/|\/)+/, ""));
  return [...patterns].filter((path) => path !== "" && path !== "/");
}

/** True when a path is the pattern's file, or lies under the pattern's folder. */
export function matchesProtected(pattern: string, path: string): boolean {
  return pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern;
}

export function joinPath(prefix: string, path: string): string {
  return prefix === "" ? path : `${prefix}/${path}`;
}
