/** `slp diff`: each model measured between production and this branch over one closed window, written as diff/<model>.json (framework Stage E). */
import { Type } from "@sinclair/typebox";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError, UsageError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { plural } from "../src/core/text.ts";
import { isMapping, type Mapping } from "../src/core/values.ts";
import { loadProject } from "../src/project/project.ts";
import { diffJsonText } from "../src/project/diff-row.ts";
import { MartsPathOption, ProjectDirOption, resolveProjectOnDisk } from "../src/project/options.ts";
import { defineTask } from "../src/runner/define-task.ts";
import type { DialectName } from "../src/data/dialect.ts";

export const StageOptions = {
  prod: Type.Optional(
    Type.String({ metavar: "TEMPLATE", description: "production's copy of each model: a relation (analytics.{model}) or a file (data/prod/{model}.parquet)" }),
  ),
  pr: Type.Optional(Type.String({ metavar: "TEMPLATE", description: "this branch's build of each model, written like --prod" })),
  window: Type.Optional(
    Type.String({ metavar: "[COLUMN:]START:END", description: "the closed window both sides are read over; no COLUMN: each model's event_time" }),
  ),
  out: Type.Optional(Type.String({ metavar: "DIR", description: "the folder diff/<model>.json files go to (default the project's diff/)" })),
  database: Type.Optional(
    Type.Array(Type.String(), { metavar: "FILE", description: "a DuckDB database file the relations live in, opened read-only" }),
  ),
  engine: Type.Optional(Type.String({ metavar: "ENGINE", description: "duckdb (embedded, the default) or postgres (diff.postgres in slp.yml)" })),
  base: Type.Optional(
    Type.String({ metavar: "REF", description: "the branch this one targets: what changed, which pre-registrations are this branch's, which models are new" }),
  ),
  projectDir: ProjectDirOption,
  martsPath: MartsPathOption,
};

export default defineTask({
  name: "diff",
  description: "Measure each model between production and this branch over one closed window, and write diff/<model>.json",
  input: Type.Object({
    models: Type.Optional(
      Type.Array(Type.String(), { positional: true, metavar: "MODEL", description: "the models to measure (default: every model that owes a diff)" }),
    ),
    ...StageOptions,
    emitSql: Type.Optional(Type.Boolean({ description: "print each model's one aggregate query for your warehouse instead of running it" })),
    dialect: Type.Optional(
      Type.Union(["duckdb", "postgres", "bigquery", "snowflake", "databricks", "redshift"].map((name) => Type.Literal(name)), {
        metavar: "DIALECT",
        description: "the warehouse --emit-sql writes for: duckdb, postgres, bigquery, snowflake, databricks, redshift",
      }),
    ),
  }),
  async run({ input, environment }): Promise<Report> {
    const resolved = resolveProjectOnDisk(environment.cwd, input.projectDir, input.martsPath);
    const project = loadProject({ dir: resolved.dir, dirAsGiven: resolved.dirAsGiven, martsPaths: resolved.martsPaths });
    const [{ stageSettings, required, openEngine }, { stageTargets }, { measureModel, emittedQuery }, { dialect }] = await Promise.all([
      import("../src/data/settings.ts"),
      import("../src/data/targets.ts"),
      import("../src/data/diff.ts"),
      import("../src/data/dialect.ts"),
    ]);
    const settings = stageSettings(input, environment.cwd, resolved.dir, resolved.config);
    if (input.dialect !== undefined && !input.emitSql) throw new UsageError("argument --dialect: only with --emit-sql", "usage: slp diff --emit-sql --dialect DIALECT");
    const prod = required(settings.prod, "--prod", "'analytics.{model}'");
    const pr = required(settings.pr, "--pr", "'ci_pr_1.{model}'");
    const { targets, reasons } = await stageTargets(project, input.models, input.base);
    if (targets.length === 0) {
      return {
        command: "diff",
        findings: [],
        summary: "slp diff: OK (no model owes a diff: none has a pre-registration of this branch)",
        notes: resolved.config.warnings,
        data: { models: [], out: settings.out.shown, diffs: {} },
      };
    }
    const diffSettings = { prod, pr, window: settings.window, metrics: resolved.config.config.metrics ?? {} };

    if (input.emitSql) {
      const d = dialect((input.dialect ?? "duckdb") as DialectName);
      const blocks = targets.map((target) => {
        const sql = emittedQuery(target, diffSettings, d);
        const name = target.model.name;
        return [
          `-- slp diff ${name} (${d.name}): run this in the warehouse, save its one row as CSV or JSON, then`,
          `--   slp diff-from-row --model ${name} ROW_FILE --out ${join(settings.out.shown, `${name}.json`)}`,
          `${sql.trimEnd()};`,
          "",
        ].join("\n");
      });
      return {
        command: "diff",
        findings: [],
        text: blocks.join("\n"),
        notes: resolved.config.warnings,
        data: { dialect: d.name, queries: Object.fromEntries(targets.map((target, i) => [target.model.name, blocks[i]])) },
      };
    }

    const reads = [
      { template: prod, values: targets.map((target) => ({ model: target.model.name })) },
      { template: pr, values: targets.map((target) => ({ model: target.model.name })) },
    ];
    const engine = await openEngine(settings, reads, resolved.dir, environment.env);
    const measured: { model: string; diff: Mapping }[] = [];
    try {
      for (const target of targets) measured.push(await measureModel(target, diffSettings, engine));
    } finally {
      await engine.close();
    }
    writeDiffs(settings.out.path, settings.out.shown, measured);

    const lines = measured.map(({ model, diff }) => `${model}: ${summarise(diff)} -> ${join(settings.out.shown, `${model}.json`)}`);
    return {
      command: "diff",
      findings: [],
      lines,
      note: `${plural(measured.length, "model")} measured on ${settings.engine}, written to ${settings.out.shown}`,
      notes: resolved.config.warnings,
      data: {
        out: settings.out.shown,
        models: measured.map(({ model }) => model),
        reasons: Object.fromEntries([...reasons].sort()),
        diffs: Object.fromEntries(measured.map(({ model, diff }) => [model, diff])),
      },
    };
  },
});

/** Writes every diff, or none: each goes to a temporary name first and is renamed once all are written. */
export function writeDiffs(folder: string, shown: string, diffs: readonly { model: string; diff: Mapping }[]): void {
  try {
    mkdirSync(folder, { recursive: true });
    const staged = diffs.map(({ model, diff }) => {
      const target = join(folder, `${model}.json`);
      const temporary = join(folder, `.${model}.json.slp-tmp`);
      writeFileSync(temporary, diffJsonText(diff));
      return { temporary, target };
    });
    for (const { temporary, target } of staged) renameSync(temporary, target);
  } catch (error) {
    throw new InputError(`cannot be written: ${(error as Error).message}`, { file: shown, fix: "choose an --out folder you can write to" });
  }
}

/** `row_delta +2, removed_pks 0, altered: none, gross_revenue +17.11 %` */
function summarise(diff: Mapping): string {
  const signed = (value: number) => (value > 0 ? `+${value}` : String(value));
  const altered = (diff.altered_columns as string[]).length === 0 ? "none" : (diff.altered_columns as string[]).join(", ");
  const metrics = Object.entries(isMapping(diff.metrics) ? diff.metrics : {}).map(([name, body]) => {
    const metric = body as { delta_pct: number | null; value?: number };
    if (metric.delta_pct === null) return `${name} ${metric.value === undefined ? "not measured" : `= ${metric.value}`}`;
    return `${name} ${signed(Math.round(metric.delta_pct * 100) / 100)} %`;
  });
  return [`row_delta ${signed(diff.row_delta as number)}`, `removed_pks ${diff.removed_pks}`, `altered: ${altered}`, ...metrics].join(", ");
}
