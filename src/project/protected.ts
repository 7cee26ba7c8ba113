/**
 * What only a human changes (spec/rules.md §6.1, Control 5A): the one list
 * gate protects and `slp init` writes into CODEOWNERS, so the two can never
 * disagree. Patterns are repository-relative; a trailing slash is a folder.
 */
import { CONFIG_FILE } from "./config.ts";
import type { DbtPaths } from "./dbt-paths.ts";

/** The package pin files beside dbt_project.yml (G6 watches them; CODEOWNERS lists them). */
export const PACKAGE_FILES = ["packages.yml", "package-lock.yml", "dependencies.yml"] as const;

/**
 * Paths only a human changes (G9). With the project in a subfolder each is
 * protected both at the repository root and in the project folder: CI, owners
 * and agent rules live at the root, dbt_project.yml and macros/ beside the
 * project, and a team may keep either kind in either place.
 *
 * Beyond the reference's list: `.slp-version` (CI installs the slp it names
 * from the base branch; a downgrade is a way to weaker rules), `tcr.sh` (the
 * agent's only commit path) and the agents' hook settings `slp init --hooks`
 * writes (a hook the agent can switch off guards nothing).
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
  ".slp-version",
  "tcr.sh",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".codex/config.toml",
  ".codex/hooks.json",
  ".cursor/hooks.json",
] as const;

export interface ProtectedScope {
  /** The dbt project's folder relative to the repository root, "" at the root. */
  prefix: string;
  /** slp.yml's `protected_paths` (as the base commit has them). */
  extra?: readonly string[];
  /** dbt_project.yml's folders, project-relative (its `macro-paths` are protected like macros/). */
  dbtPaths?: DbtPaths;
}

/** Every protected pattern of a project, repository-relative, each once, in a stable order. */
export function protectedPatterns(scope: ProtectedScope): string[] {
  // slp.yml judges the branch: protected at the root and, where a project folder keeps its own, there.
  const patterns = new Set<string>([CONFIG_FILE, joinPath(scope.prefix, CONFIG_FILE)]);
  for (const path of BUILT_IN_PROTECTED) {
    patterns.add(path);
    patterns.add(joinPath(scope.prefix, path));
  }
  for (const folder of scope.dbtPaths?.["macro-paths"] ?? []) patterns.add(joinPath(scope.prefix, `${folder}/`));
  for (const path of scope.extra ?? []) patterns.add(path.replace(/^(\.\/|\/)+/, ""));
  return [...patterns].filter((path) => path !== "" && path !== "/");
}

/** A path gate protects, and the rule that blocks a branch changing it. */
export interface ProtectedEntry {
  /** Repository-relative; a trailing slash is a folder, `*` any run of characters but `/`. */
  pattern: string;
  rule: "G9" | "G6" | "G1" | "G5";
  /** What change the rule blocks, for the CODEOWNERS comment. */
  blocks: string;
}

/**
 * Everything gate protects, G9's patterns and the paths other rules guard,
 * in one stable order: what `slp init` writes into CODEOWNERS.
 */
export function protectedEntries(scope: ProtectedScope): ProtectedEntry[] {
  const entries: ProtectedEntry[] = protectedPatterns(scope).map((pattern) => ({ pattern, rule: "G9", blocks: "any change" }));
  const seen = new Set(entries.map((entry) => entry.pattern));
  const add = (pattern: string, rule: ProtectedEntry["rule"], blocks: string) => {
    if (!seen.has(pattern)) entries.push({ pattern, rule, blocks });
    seen.add(pattern);
  };
  for (const file of PACKAGE_FILES) add(joinPath(scope.prefix, file), "G6", "a package pin added, removed or edited");
  for (const folder of scope.dbtPaths?.["test-paths"] ?? ["tests"]) {
    add(joinPath(scope.prefix, `${folder}/`), "G1", "an existing test changed or removed (new generic tests: G9; new singular tests that cannot fail: G10)");
  }
  for (const folder of scope.dbtPaths?.["analysis-paths"] ?? ["analyses"]) {
    add(joinPath(scope.prefix, `${folder}/reconciliation_*`), "G5", "a reconciliation query changed with the model it checks");
  }
  return entries;
}

/** True when a path is the pattern's file, or lies under the pattern's folder. */
export function matchesProtected(pattern: string, path: string): boolean {
  return pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern;
}

export function joinPath(prefix: string, path: string): string {
  return prefix === "" ? path : `${prefix}/${path}`;
}
