/**
 * Which warehouse dialect a dbt project is written in: `--dialect`, else
 * slp.yml's `dialect:`, else the adapter `type` of the profile
 * dbt_project.yml names, in the profiles.yml dbt would read
 * (`$DBT_PROFILES_DIR`, then beside the project, then `~/.dbt/`) and the
 * target dbt would pick (`$DBT_TARGET`, else the profile's `target:`).
 * A profile holds credentials: only `target` and `type` are ever read, only
 * `env_var()` is rendered in them, and no other value reaches a message.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { InputError } from "../../core/errors.ts";
import { isMapping, type Value } from "../../core/values.ts";
import { readText } from "../../project/files/source.ts";
import { parseYaml } from "../../project/files/yaml.ts";
import { DIALECTS, dialectOfAdapter, type DialectChoice } from "./dialects.ts";

/** profiles.yml is a small file; a larger one is not read. */
const PROFILES_MAX_BYTES = 1 << 20;

export interface DialectSources {
  /** Absolute project directory (holds dbt_project.yml). */
  projectDir: string;
  /** The directory relative paths in the environment resolve against. */
  cwd: string;
  env: Record<string, string | undefined>;
  /** `--dialect`, when given. */
  flag?: string;
  /** slp.yml's `dialect:`, when set, and the file it is in. */
  config?: { dialect: string; file: string };
}

export function projectDialect(sources: DialectSources): DialectChoice {
  if (sources.flag !== undefined) return { dialect: named(sources.flag, "--dialect"), from: "--dialect" };
  if (sources.config) return { dialect: named(sources.config.dialect, sources.config.file), from: sources.config.file };
  const profile = profileName(sources.projectDir);
  if (profile === null) return { dialect: "duckdb", from: "default: dbt_project.yml names no profile" };
  const found = profilesFile(sources);
  if (found === null) return { dialect: "duckdb", from: `default: no profiles.yml for profile '${profile}'` };
  return adapterOf(found, profile, sources.env);
}

function named(value: string, where: string): DialectChoice["dialect"] {
  const dialect = dialectOfAdapter(value);
  if (dialect === null) {
    throw new InputError(`dialect '${value}' is not one slp runs`, {
      file: where.startsWith("--") ? undefined : where,
      fix: `use one of ${DIALECTS.join(", ")}`,
    });
  }
  return dialect;
}

function profileName(projectDir: string): string | null {
  const file = "dbt_project.yml";
  if (!existsSync(join(projectDir, file))) return null;
  const project = parseYaml(readText(projectDir, file), { file });
  const profile = isMapping(project) ? project.profile : null;
  return typeof profile === "string" && profile.trim() !== "" ? profile.trim() : null;
}

interface ProfilesFile {
  /** Absolute path. */
  path: string;
  /** How messages name it (never an absolute path). */
  shown: string;
}

/** The profiles.yml dbt reads: $DBT_PROFILES_DIR, then the project's own, then ~/.dbt/. */
function profilesFile({ projectDir, cwd, env }: DialectSources): ProfilesFile | null {
  const candidates: ProfilesFile[] = [];
  if (env.DBT_PROFILES_DIR)
    candidates.push({ path: join(resolve(cwd, env.DBT_PROFILES_DIR), "profiles.yml"), shown: "$DBT_PROFILES_DIR/profiles.yml" });
  candidates.push({ path: join(projectDir, "profiles.yml"), shown: "profiles.yml" });
  if (env.HOME) candidates.push({ path: join(env.HOME, ".dbt", "profiles.yml"), shown: "~/.dbt/profiles.yml" });
  for (const candidate of candidates) {
    if (!existsSync(candidate.path)) continue;
    if (candidate.shown === "profiles.yml") insideProject(candidate, projectDir);
    return candidate;
  }
  return null;
}

/** The project's own profiles.yml is repository content: a symlink out of the project is not followed. */
function insideProject(file: ProfilesFile, projectDir: string): void {
  const real = relative(realpathSync(projectDir), realpathSync(file.path));
  if (real.startsWith("..") || isAbsolute(real)) {
    throw new InputError("profiles.yml leads outside the project (a symlink), so slp does not read it", {
      file: file.shown,
      fix: "make profiles.yml a regular file, or set dialect: in slp.yml",
    });
  }
}

function adapterOf(file: ProfilesFile, profile: string, env: Record<string, string | undefined>): DialectChoice {
  if (statSync(file.path).size > PROFILES_MAX_BYTES) {
    throw new InputError(`${file.shown} is larger than ${PROFILES_MAX_BYTES} bytes`, { fix: "set dialect: in slp.yml instead" });
  }
  const text = readText(dirname(file.path), "profiles.yml");
  const profiles = parseYaml(text, { file: file.shown });
  const entry = isMapping(profiles) ? profiles[profile] : undefined;
  if (!isMapping(entry)) return { dialect: "duckdb", from: `default: profile '${profile}' is not in ${file.shown}` };
  const target = env.DBT_TARGET
    ? env.DBT_TARGET
    : entry.target === undefined
      ? "default"
      : rendered(entry.target, "target", file, profile, env);
  const outputs = entry.outputs;
  const output = isMapping(outputs) ? outputs[target] : undefined;
  if (!isMapping(output)) {
    throw new InputError(`profile '${profile}' has no output '${target}' in ${file.shown}`, {
      fix: "name an output of the profile in its target: (or $DBT_TARGET), or set dialect: in slp.yml",
    });
  }
  const type = rendered(output.type, "type", file, profile, env);
  const dialect = dialectOfAdapter(type);
  if (dialect === null) {
    throw new InputError(`adapter type '${type}' (profile '${profile}', target '${target}' in ${file.shown}) is not one slp translates`, {
      fix: `set dialect: in slp.yml to one of ${DIALECTS.join(", ")} if the models are written in it`,
    });
  }
  return { dialect, from: `${file.shown}, profile ${profile}, target ${target}` };
}

/**
 * A profile value as dbt renders it, for `type` and `target` only: plain
 * text, or `{{ env_var('NAME') }}` / `{{ env_var('NAME', 'default') }}`.
 * Anything else is refused, never evaluated.
 */
function rendered(
  value: Value | undefined,
  key: string,
  file: ProfilesFile,
  profile: string,
  env: Record<string, string | undefined>,
): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new InputError(`profile '${profile}' in ${file.shown} has no ${key}`, {
      fix: `give the profile a ${key}:, or set dialect: in slp.yml`,
    });
  }
  return value
    .replace(/\{\{([\s\S]*?)\}\}/g, (_all, inner: string) => {
      const call = /^\s*env_var\(\s*(['"])([A-Za-z_][A-Za-z0-9_]*)\1\s*(?:,\s*(['"])([^'"]*)\3\s*)?\)\s*$/.exec(inner);
      if (!call) {
        throw new InputError(`the ${key} of profile '${profile}' in ${file.shown} uses Jinja slp does not evaluate in a profile`, {
          fix: `write ${key} as text or {{ env_var('NAME', 'default') }}, or set dialect: in slp.yml`,
        });
      }
      const fromEnv = env[call[2] as string];
      if (fromEnv !== undefined) return fromEnv;
      if (call[4] !== undefined) return call[4];
      throw new InputError(`the ${key} of profile '${profile}' in ${file.shown} reads env_var('${call[2]}'), which is not set`, {
        fix: `set ${call[2]}, or set dialect: in slp.yml`,
      });
    })
    .trim();
}
