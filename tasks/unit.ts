/** `slp unit`: the project's dbt unit tests, run natively on an in-process DuckDB. */
import { Type } from "@sinclair/typebox";
import { resolve } from "node:path";
import { UsageError } from "../src/core/errors.ts";
import { isMapping, type Mapping } from "../src/core/values.ts";
import type { Report } from "../src/core/report.ts";
import { defaultBase, loadConfig } from "../src/project/slp/slp-yml.ts";
import { DialectOption, NoManifestOption, ProjectDirOption } from "../src/project/slp/options.ts";
import { duckdbSettings } from "../src/sql/dialect/settings.ts";
import { projectDialect } from "../src/sql/dialect/profile.ts";
import { parseYaml } from "../src/project/files/yaml.ts";
import { defineTask, type TaskEnvironment } from "../src/runner/define-task.ts";
import type { DialectChoice } from "../src/sql/dialect/dialects.ts";
import type { Database } from "../src/engine/duckdb.ts";

export default defineTask({
  name: "unit",
  description: "Run the project's dbt unit tests on embedded DuckDB: no warehouse, no dbt, milliseconds",
  ciOrder: 30,
  input: Type.Object({
    projectDir: ProjectDirOption,
    select: Type.Optional(
      Type.Array(Type.String(), {
        metavar: "SELECTOR",
        aliases: ["-s", "-m", "--models"],
        nargs: "+",
        description:
          "dbt's selector syntax: a model (its unit tests), a unit test (or model::test), +model, model+, tag:, path:, package:, test_name:, config.materialized:, ...; several are a union, a comma an intersection",
      }),
    ),
    exclude: Type.Optional(
      Type.Array(Type.String(), { metavar: "SELECTOR", nargs: "+", description: "leave out what these dbt selectors choose" }),
    ),
    vars: Type.Optional(
      Type.String({ metavar: "YAML", description: "variables as a YAML mapping, as dbt's --vars; a test's overrides.vars win" }),
    ),
    noManifest: NoManifestOption,
    dialect: DialectOption,
  }),
  async run({ input, environment }): Promise<Report> {
    const cliVars = parseVarsOption(input.vars);
    const projectDir = resolve(environment.cwd, input.projectDir);
    // Loaded here, not at the top: the engine brings the Jinja interpreter and DuckDB, which no other task needs.
    // DuckDB first: its library loads on this thread, then the database is created on DuckDB's
    // while this thread works out the dialect (the settings follow once it is known), loads the
    // rest and reads the project.
    const { Database } = await import("../src/engine/duckdb.ts");
    await Database.load();
    const open = (settings: readonly string[] | Promise<readonly string[]>) => {
      const opening = Database.open({ settings });
      opening.catch(() => undefined);
      return opening;
    };
    // A caller running unit many times (gate --verify-commits) lends one database per settings.
    const shared = environment.shared;
    let dialect: DialectChoice;
    let database: Promise<Database>;
    if (shared) {
      dialect = dialectOption(projectDir, environment, input.dialect);
      const settings = duckdbSettings(dialect.dialect);
      database = shared.get(`duckdb\0${settings.join("\0")}`, () => open(settings), closeWhenOpen);
    } else {
      const settings = Promise.withResolvers<readonly string[]>();
      database = open(settings.promise);
      try {
        dialect = dialectOption(projectDir, environment, input.dialect);
      } catch (error) {
        settings.reject(error);
        throw error;
      }
      settings.resolve(duckdbSettings(dialect.dialect));
    }
    const [{ openWorkTree }, { readUnitProject }, { runUnitTests }, { unitReport }] = await Promise.all([
      import("../src/project/open.ts"),
      import("../src/project/dbt/unit-project.ts"),
      import("../src/unit/run.ts"),
      import("../src/report/unit.ts"),
    ]);
    let project: Awaited<ReturnType<typeof readUnitProject>>;
    try {
      project = await readUnitProject(openWorkTree(projectDir, environment.env, cliVars), input.projectDir);
    } catch (error) {
      if (!shared) closeWhenOpen(database);
      throw error;
    }
    const run = await runUnitTests({
      project,
      select: input.select ?? [],
      exclude: input.exclude ?? [],
      cliVars,
      env: environment.env,
      useManifest: input.noManifest !== true,
      closeDatabase: false,
      database,
      dialect,
    });
    return unitReport(run, await writtenOnBranch(projectDir, environment, project, run));
  },
});

/**
 * The failing tests this branch wrote (added or changed against the merge-base
 * with the base branch): read only when a test fails, so a green run opens no repository.
 */
async function writtenOnBranch(
  projectDir: string,
  environment: TaskEnvironment,
  project: { unitTests: { uniqueId: string; model: string; name: string; file: string; entry: Mapping }[] },
  run: { results: { id: string; status: string }[] },
): Promise<Set<string> | null> {
  const failing = new Set(run.results.filter((result) => result.status !== "pass").map((result) => result.id));
  if (failing.size === 0) return new Set();
  const tests = project.unitTests.filter((test) => failing.has(test.uniqueId));
  const { testsWrittenOnBranch } = await import("../src/unit/branch-tests.ts");
  return testsWrittenOnBranch(projectDir, defaultBase(environment.env, loadConfig(projectDir).config), tests);
}

function closeWhenOpen(database: Promise<{ close(): void }>): void {
  database.then(
    (db) => db.close(),
    () => undefined,
  );
}

/** The dialect the models are written in: --dialect, slp.yml's dialect, the profile's adapter type (mutate runs the same way). */
export function dialectOption(
  projectDir: string,
  environment: TaskEnvironment,
  flag: string | undefined,
  loaded: ReturnType<typeof loadConfig> = loadConfig(projectDir),
): DialectChoice {
  const { config, file: configFile } = loaded;
  return projectDialect({
    projectDir,
    cwd: environment.cwd,
    env: environment.env,
    flag,
    config: config.dialect ? { dialect: config.dialect, file: configFile ?? "slp.yml" } : undefined,
  });
}

/** --vars as a mapping (mutate takes the same option). */
export function parseVarsOption(text: string | undefined): Mapping {
  if (text === undefined) return {};
  const value = parseYaml(text, { file: "--vars" });
  if (value === null) return {};
  if (!isMapping(value))
    throw new UsageError("argument --vars: must be a YAML mapping, e.g. '{currency: EUR}'", "usage: slp unit [--vars YAML]");
  return value;
}
