/**
 * Loads `slp.yml`: the one in the dbt project's folder, else the one at the
 * repository root (a repository holding several dbt projects gives each its
 * own). An unknown key is a warning that names it (a typo must not silently
 * do nothing); a wrong type is exit 2.
 */
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ConfigError } from "../../core/errors.ts";
import { applyConfiguredLimits } from "../../core/limits.ts";
import { isMapping } from "../../core/values.ts";
import { Config } from "../../schemas/config.ts";
import { schemaProblems } from "../../schemas/validate.ts";
import { readProjectText } from "../files/files.ts";
import { parseYamlWithPositions } from "../files/yaml.ts";

export const CONFIG_FILE = "slp.yml";

export interface LoadedConfig {
  config: Config;
  /** Where it was read from, relative to the project dir; null when there is none. */
  file: string | null;
  /** The absolute folder holding it (paths written in it are relative to this folder); null when there is none. */
  dir?: string | null;
  warnings: string[];
}

/** The repository root: the nearest folder at or above `dir` holding `.git`, else `dir`. */
export function repositoryRoot(dir: string): string {
  let current = resolve(dir);
  for (;;) {
    if (existsSync(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return resolve(dir);
    current = parent;
  }
}

/** Reads the project folder's slp.yml, else the one at the repository root of `projectDir`, if there is one. */
export function loadConfig(projectDir: string): LoadedConfig {
  const root = [resolve(projectDir), repositoryRoot(projectDir)].find((dir) => existsSync(join(dir, CONFIG_FILE)));
  if (root === undefined) return { config: {}, file: null, dir: null, warnings: [] };
  const shown = relative(projectDir, join(root, CONFIG_FILE)).split("\\").join("/") || CONFIG_FILE;
  return { ...parseConfig(readProjectText(root, CONFIG_FILE), shown), dir: root };
}

/**
 * The branch pull requests target, for every task that takes `--base`:
 * `SLP_BASE`, else slp.yml's `base`, else `main` (an empty SLP_BASE counts as unset).
 */
export function defaultBase(env: Record<string, string | undefined>, config: Config): string {
  return env.SLP_BASE || config.base || "main";
}

/**
 * Validates the text of an slp.yml (also used for the base commit's copy)
 * and puts its `limits:` in force (the environment's SLP_LIMIT_* still win).
 */
export function parseConfig(text: string, file: string, at?: string): LoadedConfig {
  const parsed = parseYamlWithPositions(text, { file, at });
  const value = parsed.value ?? {};
  if (!isMapping(value)) {
    throw new ConfigError("slp.yml must be a mapping of settings", { file, line: 1, fix: "write key: value settings" });
  }
  const warnings: string[] = [];
  for (const problem of schemaProblems(Config, value, "slp.yml")) {
    const line = parsed.lineOf(problem.path);
    if (problem.keyword === "additionalProperties") {
      for (const key of problem.keys ?? []) {
        const keyLine = parsed.lineOf([...problem.path, key]);
        warnings.push(
          `${file}${keyLine ? `:${keyLine}` : ""}: unknown key '${key}' is ignored; known keys are listed in schemas/config.schema.json`,
        );
      }
      continue;
    }
    throw new ConfigError(problem.sentence, { file, line, fix: "correct the value's type (see schemas/config.schema.json)" });
  }
  const config = value as Config;
  applyConfiguredLimits(config.limits, file, (key) => parsed.lineOf(["limits", key]));
  return { config, file, warnings };
}
