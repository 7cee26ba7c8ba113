/**
 * The folders a dbt project declares in dbt_project.yml (`model-paths`,
 * `macro-paths`, `test-paths`, ...), with dbt's defaults, keyed as
 * dbt_project.yml spells them: the project model's reading of the file
 * (dbt-project.ts), for `slp init`'s CODEOWNERS and `slp guard`, which read the
 * work tree before anything else and need no more of the model.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defaultSettings, PROJECT_FILE, settingsFromText, type ProjectSettings } from "./dbt-project.ts";
import { readText } from "../files/source.ts";

export const DBT_PROJECT_FILE = PROJECT_FILE;

export type DbtPathKey =
  | "model-paths"
  | "macro-paths"
  | "seed-paths"
  | "test-paths"
  | "snapshot-paths"
  | "analysis-paths"
  | "function-paths"
  | "packages-install-path";

/** Each path key's folders, project-relative, no `./` and no trailing slash. */
export type DbtPaths = Record<DbtPathKey, string[]>;

/** The folders of settings the model read, under dbt_project.yml's own keys. */
export function dbtPathsOf(settings: ProjectSettings): DbtPaths {
  const { paths } = settings;
  return {
    "model-paths": paths.model,
    "macro-paths": paths.macro,
    "seed-paths": paths.seed,
    "test-paths": paths.test,
    "snapshot-paths": paths.snapshot,
    "analysis-paths": paths.analysis,
    "function-paths": paths.function,
    // One folder, listed like the others: where `dbt deps` installs packages (committed, its macros are the project's).
    "packages-install-path": [settings.packagesInstallPath],
  };
}

/** The paths of the work tree's dbt_project.yml in `projectDir` (dbt's defaults when there is none); a malformed one is refused as every command refuses it. */
export function readDbtPaths(projectDir: string): DbtPaths {
  if (!existsSync(join(projectDir, DBT_PROJECT_FILE))) return dbtPathsOf(defaultSettings());
  return dbtPathsOf(settingsFromText(readText(projectDir, DBT_PROJECT_FILE), DBT_PROJECT_FILE, undefined));
}
