/**
 * What only a human changes (spec/rules.md §6.1, Control 5A): the one list
 * gate protects and `slp init` writes into CODEOWNERS, so the two can never
 * disagree. Patterns are repository-relative; a trailing slash is a folder.
 */
import { CONFIG_FILE } from "../slp/slp-yml.ts";
import { type DbtPaths, dbtPathsOf } from "../dbt/dbt-paths.ts";
import { defaultSettings } from "../dbt/dbt-project.ts";

/** slp mutate's list of equivalent mutants, in a test folder (not a properties file), and where mutate reads it. */
export const EQUIVALENTS_NAME = "mutation_equivalents.yml";
export const EQUIVALENTS_FILE = `tests/${EQUIVALENTS_NAME}`;

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
 * agent's only commit path), the agents' hook settings `slp init --hooks`
 * writes (a hook the agent can switch off guards nothing), `docs/CODEOWNERS`
 * (GitHub reads CODEOWNERS there too), `.slp/` (task files CI runs), and
 * the files beside dbt_project.yml that decide what dbt reads and runs:
 * `selectors.yml` (a `default: true` selector is what a bare `dbt build`
 * selects), `.dbtignore` (files it names do not exist for dbt, their tests
 * included) and `profiles.yml` (dbt reads the project's own before ~/.dbt:
 * the target CI builds in).
 */
export const BUILT_IN_PROTECTED = [
  ".github/",
  "macros/",
  "models/semantic/",
  "docs/profile/",
  "tools/",
  ".pre-commit-config.yaml",
  "CODEOWNERS",
  "docs/CODEOWNERS",
  "AGENTS.md",
  "dbt_project.yml",
  "selectors.yml",
  "profiles.yml",
  ".dbtignore",
  ".slp-version",
  ".slp/",
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

/** dbt's folders when dbt_project.yml names none (or is not read). */
const DBT_DEFAULTS = dbtPathsOf(defaultSettings());

/** A folder key of dbt_project.yml, as the scope declares it or as dbt defaults it. */
function foldersOf(scope: ProtectedScope, key: keyof typeof DBT_DEFAULTS): readonly string[] {
  return scope.dbtPaths?.[key] ?? DBT_DEFAULTS[key];
}

/**
 * Every protected pattern of a project, repository-relative, each once, in a
 * stable order: the built-in paths, dbt_project.yml's macro, snapshot and
 * analysis folders (a snapshot is production's history, an analysis holds
 * the reconciliations; `analyses/reconciliation_*` itself is G5's) and its
 * packages-install-path (an installed package committed there is macros
 * and generic tests every model and test calls), and slp.yml's own.
 */
export function protectedPatterns(scope: ProtectedScope): string[] {
  // slp.yml judges the branch: protected at the root and, where a project folder keeps its own, there.
  const patterns = new Set<string>([CONFIG_FILE, joinPath(scope.prefix, CONFIG_FILE)]);
  for (const path of BUILT_IN_PROTECTED) {
    patterns.add(path);
    patterns.add(joinPath(scope.prefix, path));
  }
  for (const key of ["macro-paths", "snapshot-paths", "analysis-paths", "packages-install-path"] as const) {
    for (const folder of foldersOf(scope, key)) patterns.add(joinPath(scope.prefix, `${folder}/`));
  }
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
  for (const folder of foldersOf(scope, "test-paths")) {
    add(
      joinPath(scope.prefix, `${folder}/`),
      "G1",
      "an existing test changed or removed (a new file other than a singular test or a unit-test fixture, such as mutation_equivalents.yml, or a new generic test: G9; a new singular test that cannot fail: G10)",
    );
  }
  for (const folder of foldersOf(scope, "analysis-paths")) {
    add(joinPath(scope.prefix, `${folder}/reconciliation_*`), "G5", "a reconciliation query changed with the model it checks");
  }
  return entries;
}

/**
 * True when a file new under a test folder is one an agent may add: a
 * singular test (`<folder>/**.sql` outside `generic/`, which G10 reads) or a
 * unit-test fixture (`<folder>/fixtures/**.csv|sql`). Anything else new
 * there (a properties yml, mutation_equivalents.yml, a generic test)
 * changes how existing tests are judged (G9).
 */
export function mayAddUnderTests(folder: string, path: string): boolean {
  const rest = path.slice(folder.length + 1);
  if (rest.startsWith("fixtures/")) return /\.(csv|sql)$/.test(rest);
  return rest.endsWith(".sql") && !rest.startsWith("generic/");
}

/** True when a path is the pattern's file, or lies under the pattern's folder. */
export function matchesProtected(pattern: string, path: string): boolean {
  return pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern;
}

export function joinPath(prefix: string, path: string): string {
  return prefix === "" ? path : `${prefix}/${path}`;
}
