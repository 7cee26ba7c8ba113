/** `slp diff`: each model measured between production and this branch over one closed window, written as diff/<model>.json (framework Stage E). */
import { Type } from "@sinclair/typebox";
import { join } from "node:path";
import { UsageError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { plural } from "../src/core/text.ts";
import { isMapping, type Mapping } from "../src/core/values.ts";
import { openWorkTree } from "../src/project/open.ts";
import { readCheckProject } from "../src/rules/context/check.ts";
import { resolveProjectOnDisk } from "../src/project/slp/options.ts";
import { StageOptions, writeDiffs } from "../src/data/output.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { dialect, DIALECTS } from "../src/data/dialect.ts";

export default defineTask({
  name: "diff",
  description: "Measure each model between production and this branch over one closed window, and write diff/<model>.json",
  input: Type.Object({
    models: Type.Optional(
      Type.Array(Type.String(), {
        positional: true,
        metavar: "MODEL",
        description: "the models to measure (default: every model that owes a diff)",
      }),
    ),
    ...StageOptions,
    emitSql: Type.Optional(
      Type.Boolean({ description: "print each model's one aggregate query for your warehouse instead of running it" }),
    ),
    dialect: Type.Optional(
      Type.Union(
        DIALECTS.map((name) => Type.Literal(name)),
        {
          metavar: "DIALECT",
          description: `the warehouse --emit-sql writes for: ${DIALECTS.join(", ")}`,
        },
      ),
    ),
  }),
  async run({ input, environment }): Promise<Report> {
    const resolved = resolveProjectOnDisk(environment.cwd, input.projectDir, input.martsPath);
    const model = openWorkTree(resolved.dir, environment.env);
    const project = await readCheckProject(model, resolved.dir, resolved.dirAsGiven, resolved.martsPaths);
    // The data modules load only here: no other task pays for them.
    const [
      { stageSettings, required, openEngine, relationsOf },
      { stageTargets },
      { measureModel, emittedQuery, specMetrics },
      { assertTemplatePerModel },
      { unusedMetricKeys },
    ] = await Promise.all([
      import("../src/data/stage-e-settings.ts"),
      import("../src/data/targets.ts"),
      import("../src/data/diff.ts"),
      import("../src/data/relation.ts"),
      import("../src/data/metrics.ts"),
    ]);
    const settings = stageSettings(input, environment.cwd, resolved.dir, resolved.config);
    if (input.dialect !== undefined && !input.emitSql)
      throw new UsageError("argument --dialect: only with --emit-sql", "usage: slp diff --emit-sql --dialect DIALECT");
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
    const measuredNames = targets.map((target) => target.model.name);
    assertTemplatePerModel(prod.text, measuredNames, "--prod");
    assertTemplatePerModel(pr.text, measuredNames, "--pr");
    const diffSettings = { prod, pr, window: settings.window, metrics: resolved.config.config.metrics ?? {} };
    const notes = [
      ...resolved.config.warnings,
      ...unusedMetricKeys(diffSettings.metrics, new Map(targets.map((target) => [target.model.name, specMetrics(target.model)]))).map(
        (key) => `slp.yml: metrics names ${key}, which is not a metric of that model's spec; it is not measured`,
      ),
    ];

    if (input.emitSql) {
      const d = dialect(input.dialect ?? "duckdb");
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
        notes,
        data: { dialect: d.name, queries: Object.fromEntries(targets.map((target, i) => [target.model.name, blocks[i]])) },
      };
    }

    // What each model is measured on, read before the engine opens: the diff says which code it measured.
    const provenance = await (await import("../src/data/provenance.ts")).provenanceOf(resolved.dir, model, measuredNames);
    const names = targets.map((target) => ({ model: target.model.name }));
    const prodReads = relationsOf(prod, names, "--prod");
    const prReads = relationsOf(pr, names, "--pr");
    const reads = [...prodReads, ...prReads];
    const engine = await openEngine(settings, reads, resolved.dir, environment.env);
    const guard = await import("../src/data/output-guard.ts");
    const watched = guard.watchedOf(
      targets.flatMap((target, i) => [
        { model: target.model, relation: prodReads[i] as (typeof reads)[number], side: "production" },
        { model: target.model, relation: prReads[i] as (typeof reads)[number], side: "the branch's build" },
      ]),
    );
    engine.watch(watched, "diff");
    const measured: { model: string; diff: Mapping }[] = [];
    let report: Report;
    try {
      for (const target of targets) measured.push(withProvenance(await measureModel(target, diffSettings, engine), provenance));
      report = diffReport(measured, settings.out.shown, settings.engine, notes, reasons);
      // Before anything is printed or written: only aggregates leave.
      await guard.guardStageOutput("diff", report, guard.columnsOf(targets.map((target) => target.model)), watched, engine);
    } finally {
      await engine.close();
    }
    writeDiffs(settings.out.path, settings.out.shown, measured);
    return report;
  },
});

/** The diff with extra.slp: the commit and content ids it was measured on (src/data/provenance.ts). */
function withProvenance(
  measured: { model: string; diff: Mapping },
  provenance: ReadonlyMap<string, Mapping>,
): { model: string; diff: Mapping } {
  const record = provenance.get(measured.model);
  if (!record) return measured;
  const extra = isMapping(measured.diff.extra) ? measured.diff.extra : {};
  const sorted = Object.fromEntries(Object.entries({ ...extra, slp: record }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { model: measured.model, diff: { ...measured.diff, extra: sorted } };
}

/** What slp diff prints: a line per model, and the diffs it writes. */
function diffReport(
  measured: readonly { model: string; diff: Mapping }[],
  out: string,
  engine: string,
  notes: string[],
  reasons: Map<string, string>,
): Report {
  const lines = measured.map(({ model, diff }) => `${model}: ${summarise(diff)} -> ${join(out, `${model}.json`)}`);
  return {
    command: "diff",
    findings: [],
    lines,
    note: `${plural(measured.length, "model")} measured on ${engine}, written to ${out}`,
    notes,
    data: {
      out,
      models: measured.map(({ model }) => model),
      reasons: Object.fromEntries([...reasons].sort()),
      diffs: Object.fromEntries(measured.map(({ model, diff }) => [model, diff])),
    },
  };
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
