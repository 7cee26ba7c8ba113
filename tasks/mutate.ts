/** `slp mutate`: what the unit tests are worth; plant one defect at a time in each changed model and see which ones no unit test catches. */
import { maskEnvValues } from "../src/core/env-values.ts";
import { Type } from "@sinclair/typebox";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputError } from "../src/core/errors.ts";
import { makeOutputDir } from "../src/core/output-dir.ts";
import type { Report } from "../src/core/report.ts";
import { canonicalJson, isMapping } from "../src/core/values.ts";
import { defaultBase, loadConfig } from "../src/project/slp/slp-yml.ts";
import { DEFAULT_MARTS_PATHS, normaliseMartsPath } from "../src/project/files/paths.ts";
import { openWorkTree } from "../src/project/open.ts";
import { readCheckProject } from "../src/rules/context/check.ts";
import { DialectOption, MartsPathOption, NoManifestOption, ProjectDirOption } from "../src/project/slp/options.ts";
import { defineTask } from "../src/runner/define-task.ts";

/** The reference's cap and ours: --max-mutants and slp.yml may only lower it. */
export const MAX_MUTANTS = 20;

export default defineTask({
  name: "mutate",
  description: "Plant one defect at a time in each changed model's SQL and run its unit tests against it: which defects no test catches",
  ciOrder: 40,
  input: Type.Object({
    projectDir: ProjectDirOption,
    martsPath: MartsPathOption,
    base: Type.Optional(
      Type.String({
        metavar: "REF",
        description:
          "judge the models whose SQL changed since this branch (default: SLP_BASE, slp.yml base, main); equivalents and slp.yml are read from it",
      }),
    ),
    select: Type.Optional(
      Type.Array(Type.String(), {
        metavar: "SELECTOR",
        aliases: ["-s", "-m", "--models"],
        nargs: "+",
        description:
          "mutate the models these dbt selectors choose instead, and those whose unit tests they choose (a model, a unit test, model::test, tag:, path:, +model, ... as slp unit --select)",
      }),
    ),
    exclude: Type.Optional(
      Type.Array(Type.String(), {
        metavar: "SELECTOR",
        nargs: "+",
        description:
          "leave out the models these dbt selectors choose (and the unit tests they choose), with --select or from the changed models",
      }),
    ),
    maxMutants: Type.Optional(
      Type.Integer({ minimum: 1, metavar: "N", description: `at most N mutants per model (default and ceiling ${MAX_MUTANTS})` }),
    ),
    out: Type.String({
      default: "mutation",
      metavar: "DIR",
      description: "where mutation/<model>.json and the Stryker report go, relative to the project (default mutation)",
    }),
    html: Type.Optional(
      Type.Boolean({ description: "also write <out>/mutation-report.html: the report in Stryker's web component, offline" }),
    ),
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          "list the mutants each model would get (id, line, original -> replacement, operator) and run nothing: no unit test read, no equivalents, no DuckDB, nothing written",
      }),
    ),
    vars: Type.Optional(Type.String({ metavar: "YAML", description: "variables as a YAML mapping, as dbt's --vars" })),
    noManifest: NoManifestOption,
    dialect: DialectOption,
    budgetMs: Type.Integer({
      default: 120000,
      minimum: 0,
      metavar: "MS",
      description: "mutants not started after this many milliseconds are not_run (exit 2; default 120000)",
    }),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        metavar: "MS",
        description: "interrupt a test's query on a mutant after this long (default: 2000, or 20 times the test's own time)",
      }),
    ),
  }),
  async run({ input, environment }): Promise<Report> {
    const dir = resolve(environment.cwd, input.projectDir);
    const dryRun = input.dryRun === true;
    // Loaded on use: git, the parser, the template engine and DuckDB are for this task only (a dry run opens no
    // DuckDB, nor does a run with no model to judge, as the loop's attempts that change no model are).
    const { Database } = await import("../src/engine/duckdb.ts");
    const [{ readUnitProject }, scope, { dialectOption, parseVarsOption }] = await Promise.all([
      import("../src/project/dbt/unit-project.ts"),
      import("../src/mutate/scope.ts"),
      import("./unit.ts"),
    ]);
    const local = loadConfig(dir);
    const dialect = dialectOption(dir, environment, input.dialect, local);
    const select = input.select ?? [];
    const exclude = input.exclude ?? [];
    const baseRef = input.base ?? defaultBase(environment.env, local.config);
    const base = await scope.readBase(dir, baseRef, select.length === 0 || input.base !== undefined, { equivalents: !dryRun });
    const settings = base.config.config.mutate ?? {};
    const maxMutants = Math.min(MAX_MUTANTS, settings.max_mutants ?? MAX_MUTANTS, input.maxMutants ?? MAX_MUTANTS);
    const martsPaths = (input.martsPath ?? base.config.config.marts_paths ?? DEFAULT_MARTS_PATHS).map(normaliseMartsPath);
    const project = await readUnitProject(openWorkTree(dir, environment.env, parseVarsOption(input.vars)), input.projectDir);
    const models = project.refNodes.filter((node) => node.kind === "model" && node.enabled && node.file);
    const files = new Map(models.map((node) => [node.name, node.file as string]));
    const isMart = (name: string) => martsPaths.some((path) => (files.get(name) ?? "").startsWith(path));

    /** The models dbt's selector syntax chooses, as slp unit reads it; a dry run reads no unit test, so there it chooses models only. */
    const selected = async (criteria: string[]): Promise<Set<string>> => {
      const [{ selectedModels }, { testSetOf }, { SelectorError }] = await Promise.all([
        import("../src/unit/plan.ts"),
        import("../src/unit/run.ts"),
        import("../src/project/dbt/select.ts"),
      ]);
      try {
        const set = dryRun ? null : testSetOf(project, { cliVars: parseVarsOption(input.vars), env: environment.env, dialect });
        return new Set(selectedModels(project, set, criteria, exclude).filter((name) => files.has(name)));
      } catch (error) {
        if (!dryRun || !(error instanceof SelectorError)) throw error;
        const given = [select.length > 0 ? `--select ${select.join(" ")}` : "", exclude.length > 0 ? `--exclude ${exclude.join(" ")}` : ""]
          .filter(Boolean)
          .join(" ");
        throw new InputError(
          `${given}: ${error.message}; a dry run reads no unit test, so ${exclude.length > 0 ? "--select and --exclude name" : "--select names"} models`,
          {
            fix: "select models (or model::test), or drop --dry-run to select by a unit test's name",
          },
        );
      }
    };
    let chosen: string[];
    let marts: Set<string>;
    let selectedBy: string;
    if (select.length > 0) {
      chosen = [...(await selected(select))];
      marts = new Set(chosen.filter(isMart));
      selectedBy = `selected with --select`;
    } else {
      const changed = await scope.changedModels(project, base, martsPaths);
      // With no --select, --exclude leaves models out of the changed ones.
      const kept = exclude.length > 0 ? await selected([]) : null;
      chosen = kept ? changed.models.filter((name) => kept.has(name)) : changed.models;
      marts = new Set([...changed.marts].filter((name) => chosen.includes(name)));
      selectedBy = `models changed since ${baseRef}`;
    }
    const notes = [...base.config.warnings];
    if (dryRun) {
      const { dryRunReport } = await import("../src/mutate/dry-run.ts");
      const vars = parseVarsOption(input.vars);
      return dryRunReport({
        project,
        models: chosen,
        warehouse: dialect.dialect,
        maxMutants,
        selectedBy,
        byChange: select.length === 0,
        notes,
        cliVars: vars,
        env: environment.env,
        useManifest: input.noManifest !== true,
        dialect,
      });
    }
    const [{ runMutants }, { mutateReport }, { strykerReport }, { duckdbSettings }] = await Promise.all([
      import("../src/mutate/run.ts"),
      import("../src/mutate/report.ts"),
      import("../src/mutate/stryker.ts"),
      import("../src/sql/dialect/settings.ts"),
    ]);
    if (base.repo === null)
      notes.push(
        `cannot read the base ${baseRef} (${base.unreadable}): no tests/mutation_equivalents.yml is read, so every survivor blocks`,
      );
    // Mutants are planted in the model's own dialect; the unit runner translates each one as it translates the model.
    const warehouse = dialect.dialect;
    // Database.open runs each query on one thread: a hundred tiny queries run steadier without DuckDB's pool.
    const duckdb = duckdbSettings(dialect.dialect);
    const database = chosen.length > 0 || select.length > 0 ? Database.open({ settings: duckdb }) : null;
    database?.catch(() => undefined);
    const run = database
      ? await runMutants({
          project,
          models: chosen,
          testSelect: select,
          exclude,
          warehouse,
          maxMutants,
          equivalents: base.equivalents,
          cliVars: parseVarsOption(input.vars),
          env: environment.env,
          useManifest: input.noManifest !== true,
          dialect,
          budgetMs: input.budgetMs,
          timeoutMs: input.timeoutMs,
          database,
          closeDatabase: false,
        })
      : { models: [], untested: [], notes: [] };
    if (select.length > 0 && run.models.length + run.untested.length === 0) {
      throw new InputError(`no model or unit test matches --select ${select.join(" ")}`, {
        fix: "select a model name, a test name, or model::test",
      });
    }
    // Tiers and edges are read for the models run; none run, none read (the check step of the loop read them already).
    const { tiers, knownEdges } =
      run.models.length > 0
        ? await specsOf(dir, input.projectDir, martsPaths, environment.env)
        : { tiers: new Map<string, string>(), knownEdges: new Map<string, string[]>() };
    const { report, artifacts } = mutateReport({
      run,
      files,
      marts,
      warehouse,
      maxMutants,
      tiers,
      minScore: settings.min_score ?? {},
      knownEdges,
      selectedBy,
      byChange: select.length === 0,
      notes,
    });
    if (run.models.length > 0) {
      const out = resolve(dir, input.out);
      makeOutputDir(out);
      // Mutants are rendered SQL: no value env_var() handed them is written.
      for (const artifact of artifacts) writeFileSync(join(out, `${artifact.model}.json`), maskEnvValues(prettyJson(artifact)));
      const low = Math.min(100, ...Object.values(settings.min_score ?? {}));
      const stryker = strykerReport(run.models, { high: 100, low: Math.floor(low) });
      writeFileSync(join(out, "mutation-report.json"), maskEnvValues(prettyJson(stryker)));
      if (input.html) {
        const { mutationHtml } = await import("../src/report/mutation-html.ts");
        writeFileSync(
          join(out, "mutation-report.html"),
          maskEnvValues(mutationHtml(stryker, `slp mutate: ${run.models.map((model) => model.model).join(", ")}`)),
        );
      }
    }
    return report;
  },
});

/** Sorted keys, two-space indent, a trailing newline: the same run writes the same bytes. */
function prettyJson(value: unknown): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(value)), null, 2)}\n`;
}

/** Each model's spec tier and known edges, from the yml `slp check` reads (hints and minimum scores only). */
async function specsOf(
  dir: string,
  dirAsGiven: string,
  martsPaths: string[],
  env: Record<string, string | undefined>,
): Promise<{ tiers: Map<string, string>; knownEdges: Map<string, string[]> }> {
  const tiers = new Map<string, string>();
  const knownEdges = new Map<string, string[]>();
  let project: Awaited<ReturnType<typeof readCheckProject>>;
  try {
    project = await readCheckProject(openWorkTree(dir, env), dir, dirAsGiven, martsPaths);
  } catch {
    return { tiers, knownEdges }; // no tier: the strict default (every survivor blocks) applies
  }
  for (const model of project.models.values()) {
    if (!isMapping(model.spec)) continue;
    if (typeof model.spec.tier === "string") tiers.set(model.name, model.spec.tier);
    if (Array.isArray(model.spec.known_edges)) knownEdges.set(model.name, model.spec.known_edges.map(String));
  }
  return { tiers, knownEdges };
}
