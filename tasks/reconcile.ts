/** `slp reconcile`: each critical model's reconciliation query, run on the branch's build, its two numbers put in the model's diff (framework Stage E step 4). */
import { Type } from "@sinclair/typebox";
import { join, resolve } from "node:path";
import { InputError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { plural } from "../src/core/text.ts";
import { isMapping, type Mapping } from "../src/core/values.ts";
import { readDiffFiles } from "../src/project/history/diff-files.ts";
import { assertNoLinkOut } from "../src/project/files/files.ts";
import { openWorkTree } from "../src/project/open.ts";
import { readCheckProject } from "../src/rules/context/check.ts";
import { resolveProjectOnDisk } from "../src/project/slp/options.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { StageOptions, writeDiffs } from "../src/data/output.ts";

export default defineTask({
  name: "reconcile",
  description: "Run each critical model's reconciliation query on the branch's build and put its two numbers in the model's diff",
  input: Type.Object({
    models: Type.Optional(
      Type.Array(Type.String(), {
        positional: true,
        metavar: "MODEL",
        description: "the models to reconcile (default: every critical model that owes a diff)",
      }),
    ),
    pr: StageOptions.pr,
    sources: Type.Optional(
      Type.String({
        metavar: "TEMPLATE",
        description: "where source('s', 't') is: {source} and {table} filled in (default {source}.{table})",
      }),
    ),
    out: StageOptions.out,
    database: StageOptions.database,
    engine: StageOptions.engine,
    base: StageOptions.base,
    projectDir: StageOptions.projectDir,
    martsPath: StageOptions.martsPath,
  }),
  async run({ input, environment }): Promise<Report> {
    const resolved = resolveProjectOnDisk(environment.cwd, input.projectDir, input.martsPath);
    const model = openWorkTree(resolved.dir, environment.env);
    const project = await readCheckProject(model, resolved.dir, resolved.dirAsGiven, resolved.martsPaths);
    const [{ stageSettings, required, openEngine }, { stageTargets }, reconcile, { readUnitProject }, { dialect }] = await Promise.all([
      import("../src/data/stage-e-settings.ts"),
      import("../src/data/targets.ts"),
      import("../src/data/reconcile.ts"),
      import("../src/project/dbt/unit-project.ts"),
      import("../src/data/dialect.ts"),
    ]);
    const settings = stageSettings(input, environment.cwd, resolved.dir, resolved.config);
    const pr = required(settings.pr, "--pr", "'ci_pr_1.{model}'");
    const sources = settings.sources ?? { text: "{source}.{table}", base: environment.cwd };
    const { targets } = await stageTargets(project, input.models, input.base);
    const critical = targets
      .map((target) => target.model)
      .filter((model) => (input.models?.length ? true : isMapping(model.spec) && model.spec.tier === "critical"));
    if (critical.length === 0) {
      return {
        command: "reconcile",
        findings: [],
        summary: "slp reconcile: OK (no critical model owes a diff, so none is reconciled)",
        notes: resolved.config.warnings,
        data: { models: [], out: settings.out.shown, reconciliations: {} },
      };
    }

    // Each diff must be there already: the reconciliation is added to what slp diff measured.
    const diffs = critical.map((model) => {
      const path = join(settings.out.path, `${model.name}.json`);
      const shown = join(settings.out.shown, `${model.name}.json`);
      // The diff is read and then written back: a link in its path may not lead out of the repository.
      assertNoLinkOut(resolved.dir, resolve(environment.cwd, path), shown);
      try {
        const [file] = readDiffFiles(environment.cwd, [path]);
        return { model, shown, diff: (file as { value: Mapping }).value };
      } catch (error) {
        throw new InputError(`${model.name}: its diff is not there to add the reconciliation to (${(error as Error).message})`, {
          file: shown,
          fix: "run slp diff first, with the same --out",
        });
      }
    });

    const dbtProject = await readUnitProject(model, resolved.dirAsGiven);
    const d = dialect(settings.engine);
    const rendered = [];
    for (const { model } of diffs) {
      const file = reconcile.reconciliationQuery(model);
      rendered.push({ file, ...(await reconcile.renderReconciliation(dbtProject, file, { pr, sources }, d, environment.env)) });
    }
    const engine = await openEngine(
      settings,
      rendered.flatMap((query) => query.relations),
      resolved.dir,
      environment.env,
    );
    const guard = await import("../src/data/output-guard.ts");
    const watched = guard.watchedOf(
      rendered.flatMap((query) =>
        query.refs.flatMap(({ model: name, relation }) => {
          const read = project.models.get(name);
          return read ? [{ model: read, relation, side: "the branch's build" }] : [];
        }),
      ),
    );
    engine.watch(watched, "reconcile");
    const results: { model: string; diff: Mapping; numbers: { model_value: number; external_value: number } }[] = [];
    let report: Report;
    try {
      const kinds = engine.statementKinds
        ? (sql: string) => (engine.statementKinds as (sql: string) => Promise<string[]>).call(engine, sql)
        : null;
      for (const [i, { model, diff }] of diffs.entries()) {
        const query = rendered[i] as (typeof rendered)[number];
        const numbers = await reconcile.runReconciliation(model.name, query.file, query.sql, engine, kinds);
        results.push({ model: model.name, diff: reconcile.withReconciliation(diff, numbers), numbers });
      }
      report = reconcileReport(results, settings.out.shown, settings.engine, resolved.config.warnings);
      // Before anything is printed or written: only aggregates leave.
      const read = [...new Set(watched.map((entry) => entry.model))].flatMap((name) => project.models.get(name) ?? []);
      await guard.guardStageOutput("reconcile", { report, diffs: results.map(({ diff }) => diff) }, guard.columnsOf(read), watched, engine);
    } finally {
      await engine.close();
    }
    writeDiffs(resolve(settings.out.path), settings.out.shown, results);
    return report;
  },
});

/** What slp reconcile prints: each model's two numbers, and where its diff now holds them. */
function reconcileReport(
  results: readonly { model: string; numbers: { model_value: number; external_value: number } }[],
  out: string,
  engine: string,
  notes: string[],
): Report {
  const settings = { out: { shown: out }, engine };
  return {
    command: "reconcile",
    findings: [],
    lines: results.map(
      ({ model, numbers }) =>
        `${model}: the model says ${numbers.model_value}, the source of truth ${numbers.external_value} -> ${join(settings.out.shown, `${model}.json`)}`,
    ),
    note: `${plural(results.length, "model")} reconciled on ${settings.engine}`,
    notes,
    data: {
      out: settings.out.shown,
      models: results.map(({ model }) => model),
      reconciliations: Object.fromEntries(results.map(({ model, numbers }) => [model, numbers])),
    },
  };
}
