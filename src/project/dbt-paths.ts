/**
 * The folders a dbt project declares in dbt_project.yml (`model-paths`,
 * `macro-paths`, `test-paths`, ...), with dbt's defaults: one reading for the
 * unit runner, `slp init`'s CODEOWNERS and gate's protected paths, from the
 * work tree or from any commit's text.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isMapping, type Mapping, type Value } from "../core/values.ts";
import { readText } from "./project.ts";
import { parseYaml } from "./yaml.ts";

export const DBT_PROJECT_FILE = "dbt_project.yml";

export const DBT_PATH_DEFAULTS = {
  "model-paths": ["models"],
  "macro-paths": ["macros"],
  "seed-paths": ["seeds"],
  "test-paths": ["tests"],
  "snapshot-paths": ["snapshots"],
  "analysis-paths": ["analyses"],
  "function-paths": ["functions"],
} as const;

export type DbtPathKey = keyof typeof DBT_PATH_DEFAULTS;

/** Each path key's folders, project-relative with `prefix` prepended, no `./` and no trailing slash. */
export type DbtPaths = Record<DbtPathKey, string[]>;

/** The paths of a parsed dbt_project.yml (anything but a mapping reads as all defaults). */
export function dbtPathsOf(config: Value | Mapping, prefix = ""): DbtPaths {
  const mapping = isMapping(config) ? config : {};
  const paths = {} as DbtPaths;
  for (const key of Object.keys(DBT_PATH_DEFAULTS) as DbtPathKey[]) {
    const value = mapping[key];
    const list = Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [...DBT_PATH_DEFAULTS[key]];
    paths[key] = list.map((path) => `${prefix}${path.replace(/^(\.\/)+/, "").replace(/\/+$/, "")}`);
  }
  return paths;
}

/** The paths of the work tree's dbt_project.yml in `projectDir` (dbt's defaults when there is none). */
export function readDbtPaths(projectDir: string): DbtPaths {
  if (!existsSync(join(projectDir, DBT_PROJECT_FILE))) return dbtPathsOf({});
  return dbtPathsOf(parseYaml(readText(projectDir, DBT_PROJECT_FILE), { file: DBT_PROJECT_FILE }));
}
