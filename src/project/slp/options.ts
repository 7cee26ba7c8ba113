/** The flags every project-reading task shares, and how they resolve against slp.yml. */
import { Type } from "@sinclair/typebox";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { InputError } from "../../core/errors.ts";
import { loadConfig, type LoadedConfig } from "./slp-yml.ts";
import { readDbtPaths } from "../dbt/dbt-paths.ts";
import { checkMartsPathsExist, DEFAULT_MARTS_PATHS, normaliseMartsPath } from "../files/paths.ts";

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

/** unit's and mutate's: render every model, even where target/manifest.json holds fresh compiled code. */
export const NoManifestOption = Type.Optional(
  Type.Boolean({ description: "always render models, even when target/manifest.json holds fresh compiled code" }),
);

/** unit's and mutate's: the warehouse dialect, over slp.yml's and the profile's. */
export const DialectOption = Type.Optional(
  Type.String({
    metavar: "NAME",
    description: "the warehouse dialect the models are written in (default: slp.yml's dialect, else the profile's adapter type)",
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
  requireProjectFolder(resolve(cwd, projectDir), projectDir);
  const resolved = resolveProjectOptions(cwd, projectDir, martsPath);
  const origin = martsPath ? "--marts-path" : resolved.config.config.marts_paths ? "slp.yml" : "default";
  // Read only to say which folders exist: a dbt_project.yml that cannot be read is refused by what reads it next.
  let modelPaths = ["models"];
  try {
    modelPaths = readDbtPaths(resolved.dir)["model-paths"];
  } catch {}
  checkMartsPathsExist(resolved.dir, resolved.dirAsGiven, resolved.martsPaths, origin, modelPaths);
  return resolved;
}

/** The project folder itself must exist: a typo in --project-dir is not a missing marts folder. */
export function requireProjectFolder(dir: string, dirAsGiven: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) {
    throw new InputError(`the project folder ${dirAsGiven} does not exist`, {
      fix: "pass the folder that holds dbt_project.yml with --project-dir (default: the current folder)",
    });
  }
}

/**
 * What check's sensitive-column lineage reads besides the yml: the
 * environment env_var() sees, and the warehouse dialect the models are
 * written in (slp.yml's, else the profile's adapter), read only if lineage runs.
 */
export function lineageEnvironment(
  resolved: ResolvedProject,
  environment: { cwd: string; env: Record<string, string | undefined> },
): { env: Record<string, string | undefined>; dialect: () => Promise<string> } {
  return {
    env: environment.env,
    dialect: async () => {
      const { projectDialect } = await import("../../sql/dialect/profile.ts");
      const { config, file } = resolved.config;
      return projectDialect({
        projectDir: resolved.dir,
        cwd: environment.cwd,
        env: environment.env,
        flag: undefined,
        config: config.dialect ? { dialect: config.dialect, file: file ?? "slp.yml" } : undefined,
      }).dialect;
    },
  };
}
