/** The flags every project-reading task shares, and how they resolve against slp.yml. */
import { Type } from "@sinclair/typebox";
import { resolve } from "node:path";
import { loadConfig, type LoadedConfig } from "./config.ts";
import { checkMartsPathsExist, DEFAULT_MARTS_PATHS, normaliseMartsPath } from "./paths.ts";

export const ProjectDirOption = Type.String({
  default: ".",
  metavar: "DIR",
  description: "the dbt project folder (default .)",
});

export const MartsPathOption = Type.Optional(
  Type.Array(Type.String(), {
    metavar: "PATH",
    description: "a folder whose models are marts; giving it replaces the default models/marts",
  }),
);

export interface ResolvedProject {
  /** Absolute project dir. */
  dir: string;
  /** As the user gave it, for messages. */
  dirAsGiven: string;
  /** Normalised, in the order given, duplicates kept. */
  martsPaths: string[];
  config: LoadedConfig;
}

/** Resolves --project-dir and --marts-path (falling back to slp.yml, then models/marts). */
export function resolveProjectOptions(cwd: string, projectDir: string, martsPath: string[] | undefined): ResolvedProject {
  const dir = resolve(cwd, projectDir);
  const config = loadConfig(dir);
  const given = martsPath ?? config.config.marts_paths ?? DEFAULT_MARTS_PATHS;
  return { dir, dirAsGiven: projectDir, martsPaths: given.map(normaliseMartsPath), config };
}

/** As resolveProjectOptions, and each marts path must exist as a folder. */
export function resolveProjectOnDisk(cwd: string, projectDir: string, martsPath: string[] | undefined): ResolvedProject {
  const resolved = resolveProjectOptions(cwd, projectDir, martsPath);
  checkMartsPathsExist(resolved.dir, resolved.dirAsGiven, resolved.martsPaths);
  return resolved;
}
