/** The flags every project-reading task shares, and how they resolve against slp.yml. */
import { Type } from "@sinclair/typebox";
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
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
 * written in (slp.yml's, else the profile's adapter), read only if lineage
 * runs. `stamp` tells, without reading the profile, whether what decided the
 * dialect is as it was: each input it names (`slp`, `env:NAME`, `file:PATH`)
 * read again.
 */
export function lineageEnvironment(
  resolved: ResolvedProject,
  environment: { cwd: string; env: Record<string, string | undefined> },
): LineageEnvironment {
  const { env, cwd } = environment;
  const { config, file } = resolved.config;
  const profiles = [
    ...(env.DBT_PROFILES_DIR ? [join(resolve(cwd, env.DBT_PROFILES_DIR), "profiles.yml")] : []),
    join(resolved.dir, "profiles.yml"),
    ...(env.HOME ? [join(env.HOME, ".dbt", "profiles.yml")] : []),
  ];
  const stamp = (input: string): string => {
    if (input === "slp") return config.dialect ?? "";
    if (input.startsWith("env:")) return env[input.slice(4)] ?? "\0unset";
    try {
      const stats = statSync(input.slice(5));
      return `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
    } catch {
      return "\0missing";
    }
  };
  return {
    env,
    stamp,
    dialect: async () => {
      const { projectDialect } = await import("../../sql/dialect/profile.ts");
      const dialect = projectDialect({
        projectDir: resolved.dir,
        cwd,
        env,
        flag: undefined,
        config: config.dialect ? { dialect: config.dialect, file: file ?? "slp.yml" } : undefined,
      }).dialect;
      // What decided it: slp.yml, the profile's location and target, each candidate profiles.yml, the env vars they name.
      const inputs = ["slp", "env:DBT_PROFILES_DIR", "env:DBT_TARGET", "env:HOME", ...profiles.map((path) => `file:${path}`)];
      for (const path of profiles) {
        if (stamp(`file:${path}`) === "\0missing") continue;
        try {
          for (const match of readFileSync(path, "utf8").matchAll(/env_var\(\s*['"]([^'"]+)['"]/g)) inputs.push(`env:${match[1]}`);
        } catch {}
      }
      return { dialect, inputs: Object.fromEntries(inputs.map((input) => [input, stamp(input)])) };
    },
  };
}

export interface LineageEnvironment {
  env: Record<string, string | undefined>;
  /** The dialect, and the inputs that decided it with their stamps. */
  dialect: () => Promise<{ dialect: string; inputs: Record<string, string> }>;
  /** One input's stamp now. */
  stamp: (input: string) => string;
}
