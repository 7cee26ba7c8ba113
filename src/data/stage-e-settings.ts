/**
 * Stage E's settings, from the command line first and slp.yml's `diff:`
 * second: where each side is, the window, the output folder and the engine.
 * A path on the command line is relative to the working directory; one in
 * slp.yml to slp.yml's own folder. The engine is opened here: DuckDB allowed
 * to read exactly the files and databases these settings name, or
 * PostgreSQL with credentials read from the environment variables slp.yml
 * names (never from slp.yml itself).
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ConfigError, UsageError } from "../core/errors.ts";
import type { LoadedConfig } from "../project/slp/slp-yml.ts";
import { stem } from "../project/files/paths.ts";
import { DuckDbEngine, PostgresEngine, QueryLedger, type DataEngine } from "./engine.ts";
import { assertNoLinkOut } from "../project/files/files.ts";
import { fillTemplate, globMatches, parseRelation, readScope, type Relation } from "./relation.ts";
import { parseWindow, type Window } from "./window.ts";

export interface Located {
  text: string;
  /** The folder a relative path in `text` is resolved from. */
  base: string;
}

export interface StageSettings {
  prod: Located | null;
  pr: Located | null;
  sources: Located | null;
  window: Window | null;
  /** Absolute output folder, and as shown. */
  out: { path: string; shown: string };
  engine: "duckdb" | "postgres";
  databases: string[];
  memoryLimit: string;
  timeoutSeconds: number;
  config: LoadedConfig;
}

export interface StageFlags {
  prod?: string;
  pr?: string;
  sources?: string;
  window?: string;
  out?: string;
  database?: string[];
  engine?: string;
}

export function stageSettings(flags: StageFlags, cwd: string, projectDir: string, config: LoadedConfig): StageSettings {
  const diff = config.config.diff ?? {};
  const configDir = config.dir ?? projectDir;
  const pick = (flag: string | undefined, setting: string | undefined): Located | null =>
    flag !== undefined ? { text: flag, base: cwd } : setting !== undefined ? { text: setting, base: configDir } : null;
  const windowText = flags.window ?? diff.window;
  const out = outFolder(flags.out, cwd, projectDir, config);
  const engine = flags.engine ?? diff.engine ?? "duckdb";
  if (engine !== "duckdb" && engine !== "postgres") {
    throw new UsageError(
      `argument --engine: invalid choice: '${engine}' (choose from 'duckdb', 'postgres')`,
      "usage: --engine {duckdb,postgres}",
    );
  }
  return {
    prod: pick(flags.prod, diff.prod),
    pr: pick(flags.pr, diff.pr),
    sources: pick(flags.sources, diff.sources),
    window: windowText === undefined ? null : parseWindow(windowText),
    out,
    engine,
    databases:
      flags.database !== undefined
        ? flags.database.map((path) => resolve(cwd, path))
        : (diff.databases ?? []).map((path) => resolve(configDir, path)),
    memoryLimit: diff.memory_limit ?? "2GiB",
    timeoutSeconds: diff.timeout_seconds ?? 600,
    config,
  };
}

/** Where diff files go: --out (from the working directory), else slp.yml's diff.out (from its folder), else the project's diff/. */
export function outFolder(
  flag: string | undefined,
  cwd: string,
  projectDir: string,
  config: LoadedConfig,
): { path: string; shown: string } {
  const setting = config.config.diff?.out;
  if (flag !== undefined) return { path: resolve(cwd, flag), shown: flag };
  const path = setting !== undefined ? resolve(config.dir ?? projectDir, setting) : resolve(projectDir, "diff");
  // Shown from where the command runs, like a flag would be.
  return { path, shown: relative(cwd, path).split("\\").join("/") || "." };
}

/** A template the command cannot run without: the flag, else slp.yml, else a usage error naming both. */
export function required(located: Located | null, flag: string, example: string): Located {
  if (located === null)
    throw new UsageError(
      `the following arguments are required: ${flag} (or diff.${flag.slice(2)} in slp.yml)`,
      `usage: slp diff ${flag} ${example}`,
    );
  return located;
}

/** Fills a template for each model: the relations one side of the run reads. */
export function relationsOf(template: Located, values: readonly Record<string, string>[], flag: string): Relation[] {
  return values.map((value) => parseRelation(fillTemplate(template.text, value, flag), template.base));
}

/** Opens the engine; for DuckDB, the files among `relations` become the only files it may open. */
export async function openEngine(
  settings: StageSettings,
  relations: readonly Relation[],
  projectDir: string,
  env: Record<string, string | undefined>,
): Promise<DataEngine> {
  const ledger = new QueryLedger(projectDir);
  if (settings.engine === "postgres") return openPostgres(settings, ledger, env);
  const files: string[] = [];
  const directories: string[] = [];
  // What DuckDB is let read, judged first as the project's file walk judges a link: none may lead out of the repository.
  const shown = (path: string) => (isInside(resolve(path), resolve(projectDir)) ? relative(projectDir, path) || "." : path);
  for (const relation of relations) {
    if (relation.kind !== "file") continue;
    const scope = readScope(relation);
    if (scope.file) {
      assertNoLinkOut(projectDir, scope.file, shown(scope.file));
      files.push(scope.file);
    }
    if (scope.directory) {
      assertNoLinkOut(projectDir, scope.directory, shown(scope.directory));
      for (const match of globMatches(relation)) assertNoLinkOut(projectDir, match, shown(match));
      directories.push(scope.directory);
    }
  }
  const names = new Set<string>();
  const databases = settings.databases.map((path) => {
    const name = stem(path);
    if (names.has(name))
      throw new UsageError(`two databases are both named ${name} (by their file stem); rename one`, "usage: --database FILE");
    names.add(name);
    const absolute = isAbsolute(path) ? path : resolve(path);
    assertNoLinkOut(projectDir, absolute, shown(absolute));
    return { path: absolute, name };
  });
  const { Database } = await import("../engine/duckdb.ts");
  const db = await Database.openForData({ files, directories, databases, memoryLimit: settings.memoryLimit });
  return new DuckDbEngine(db, ledger, settings.timeoutSeconds, settings.memoryLimit);
}

async function openPostgres(settings: StageSettings, ledger: QueryLedger, env: Record<string, string | undefined>): Promise<DataEngine> {
  const postgres = settings.config.config.diff?.postgres;
  const file = settings.config.file ?? "slp.yml";
  if (!postgres) {
    throw new ConfigError("the engine is postgres and slp.yml has no diff.postgres (host, port, database)", {
      file,
      fix: "add diff: {postgres: {host: ..., database: ..., user_env: PGUSER, password_env: PGPASSWORD}} to slp.yml",
    });
  }
  const written = ["password", "user", "username", "url"].filter((key) => (postgres as Record<string, unknown>)[key] !== undefined);
  if (written.length > 0) {
    throw new ConfigError(
      `diff.postgres sets ${written.join(", ")}: a credential is never written in slp.yml, which the repository keeps`,
      {
        file,
        fix: "remove it and name the environment variables instead: user_env, password_env",
      },
    );
  }
  const userVariable = postgres.user_env ?? "PGUSER";
  const passwordVariable = postgres.password_env ?? "PGPASSWORD";
  const username = env[userVariable];
  if (!username) {
    throw new ConfigError(`the PostgreSQL user comes from the environment variable ${userVariable}, which is not set`, {
      file,
      fix: `export ${userVariable} (credentials are never written in slp.yml)`,
    });
  }
  const { PostgresDatabase } = await import("../engine/postgres.ts");
  const db = PostgresDatabase.open({
    hostname: postgres.host ?? "localhost",
    port: postgres.port ?? 5432,
    database: postgres.database,
    username,
    password: env[passwordVariable],
    timeoutSeconds: settings.timeoutSeconds,
  });
  return new PostgresEngine(db, ledger);
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}
