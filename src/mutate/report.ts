/**
 * `slp mutate`'s report: one line per mutant (verdict, model, id, line,
 * original -> replacement, who caught it), a finding for everything a human
 * must act on (an unlisted survivor, a changed mart without a unit test, a
 * score under its tier's minimum, a unit test named for an edge that kills
 * no mutant), the per-model artifacts
 * (`mutation/<model>.json`) and the score, killed / (killed + survived).
 */
import { EXIT } from "../core/exit-codes.ts";
import type { Report, ReportError } from "../core/report.ts";
import { plural } from "../core/text.ts";
import type { Finding, FixKind } from "../schemas/finding.ts";
import type { MutationArtifact } from "../schemas/mutation.ts";
import { edgeTestVerdicts } from "./edge-tests.ts";
import { hintFrom, readShape, type EdgeSource } from "./hints.ts";
import { separationText } from "./separation.ts";
import { treeOf, type ModelRun, type MutantResult, type MutateRun } from "./run.ts";
import { MUTANT_RULE } from "../report/format.ts";

export interface ReportContext {
  run: MutateRun;
  /** Model -> its .sql path, for models with no run (no unit test). */
  files: Map<string, string>;
  /** Changed models that are marts: no unit test there is a block. */
  marts: Set<string>;
  warehouse: string;
  maxMutants: number;
  /** Model -> spec tier, and the minimum score per tier (percent); no minimum: every survivor blocks. */
  tiers: Map<string, string>;
  minScore: Record<string, number>;
  /** Model -> the spec's known_edges. */
  knownEdges: Map<string, string[]>;
  /** How the models were chosen, for the note: "models changed since main", or "selected with --select". */
  selectedBy: string;
  /** True when the models were chosen by change against the base (not --select). */
  byChange: boolean;
  notes: string[];
}

const rule = { rule: MUTANT_RULE.code, name: MUTANT_RULE.name } as const;

export function mutateReport(context: ReportContext): { report: Report; artifacts: MutationArtifact[] } {
  const { run } = context;
  const findings: Finding[] = [];
  const lines: string[] = [];
  const errors: ReportError[] = [];
  const artifacts: MutationArtifact[] = [];
  const totals = { killed: 0, survived: 0, equivalent: 0, rejected: 0, timeout: 0, not_run: 0 };
  // A survivor, a missing unit test, a low score: each asks for a test that tells the model from a wrong one.
  const finding = (severity: "BLOCK" | "INFO", file: string, model: string, line: number | null, message: string, fix: FixKind = "test") =>
    findings.push({ severity, ...rule, file, model, line, message, fix });

  for (const model of run.untested) {
    const file = context.files.get(model) ?? "";
    const changed = context.byChange ? "the sql changed and " : "";
    if (context.marts.has(model))
      finding("BLOCK", file, model, null, `${changed}the model has no unit test; nothing can tell it from a wrong one (README §3 Stage D)`);
    else
      finding(
        "INFO",
        file,
        model,
        null,
        `${changed}the model has no unit test, so no mutant of it was run (the marts it feeds mock it in their unit tests)`,
      );
  }
  for (const model of run.models) {
    const counts = { killed: 0, survived: 0, equivalent: 0, rejected: 0, timeout: 0, not_run: 0 };
    for (const mutant of model.mutants) counts[mutant.verdict]++;
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += counts[key];
    const score = scoreOf(counts.killed, counts.survived);
    const refused = model.refusedSql;
    if (refused)
      finding(
        "INFO",
        model.file,
        model.model,
        refused.line,
        `${refused.tests.length === 1 ? `unit test ${refused.tests[0]} is` : `unit tests ${refused.tests.join(", ")} are`} left out of every verdict: ${refused.message} (line ${refused.line}, column ${refused.column})`,
        "sql",
      );
    for (const excluded of model.excluded.filter((entry) => !refused?.tests.includes(entry.test)))
      finding(
        "INFO",
        model.tests.find((test) => test.name === excluded.test)?.file ?? model.file,
        model.model,
        null,
        `unit test ${excluded.test} is left out of every verdict: ${excluded.reason}`,
      );
    if (model.passed.length === 0) {
      errors.push({
        code: "E_BASELINE",
        message: `no unit test of ${model.model} passes unmutated, so no mutant can be judged`,
        file: model.file,
        line: refused?.line ?? null,
        column: refused?.column ?? null,
        fix: refused
          ? "fix the model's SQL there, then run slp mutate"
          : `make the model's unit tests pass (slp unit --select ${model.model}), then run slp mutate`,
      });
    }
    if (model.finder?.kind === "scanner") {
      finding(
        "INFO",
        model.file,
        model.model,
        null,
        `sites found by the masked-text scanner, a fallback that knows only the reference's operator classes: the SQL parser (${model.finder.grammar ?? "no grammar"}) cannot read this SQL (${model.finder.reason})`,
        "sql",
      );
    }
    const tier = context.tiers.get(model.model) ?? null;
    const minimum = tier !== null ? context.minScore[tier] : undefined;
    const survivorsBlock = minimum === undefined || score === null || score < minimum;
    if (minimum !== undefined && score !== null && score < minimum) {
      finding(
        "BLOCK",
        model.file,
        model.model,
        null,
        `mutation score ${formatScore(score)} is below the minimum ${minimum}% slp.yml sets for tier ${tier}`,
      );
    }
    const edges: EdgeSource[] = [
      ...model.tests.filter((test) => test.edge).map((test) => ({ edge: test.edge as string, test: test.name })),
      ...(context.knownEdges.get(model.model) ?? []).map((edge) => ({
        edge,
        test: model.tests.find((test) => test.edge === edge)?.name ?? null,
      })),
    ];
    for (const mutant of model.mutants) {
      lines.push(mutantLine(model, mutant));
      const head = `mutant ${mutant.id} (${mutant.operatorName}): ${mutant.original} -> ${mutant.replacement} at line ${mutant.line}`;
      if (mutant.verdict === "survived") {
        const hint = hintFrom(mutant.shape ?? readShape(treeOf(mutant.sql, context.warehouse), mutant), edges);
        const threat = hint.edge
          ? `; it threatens edge '${hint.edge}'${hint.edgeTest ? ` (unit test ${hint.edgeTest})` : " (no unit test names it)"}`
          : "";
        // A test that exists and whose fixtures already tell the mutant apart is the fix; else the input that would.
        const reach = hint.row ? `; ${hint.row} would reach it` : "";
        const missing = mutant.separation
          ? `${separationText(mutant.separation)}${threat}`
          : `a unit test that cannot tell the code from this is a unit test the model does not have yet${threat}${reach}`;
        finding(survivorsBlock ? "BLOCK" : "INFO", model.file, model.model, mutant.line, `${head} survived every unit test; ${missing}`);
      } else if (mutant.verdict === "equivalent") {
        finding("INFO", model.file, model.model, mutant.line, `${head} survived and is listed as equivalent: ${mutant.reason}`);
      } else if (mutant.verdict === "rejected") {
        finding(
          "INFO",
          model.file,
          model.model,
          mutant.line,
          `${head} was refused by DuckDB, so it counts as neither killed nor survived: ${mutant.reason}`,
        );
      } else if (mutant.verdict === "timeout") {
        finding(
          "INFO",
          model.file,
          model.model,
          mutant.line,
          `${head} timed out (${mutant.reason}); it counts as neither killed nor survived`,
        );
      }
    }
    for (const stale of model.staleEquivalents) {
      finding(
        "INFO",
        model.file,
        model.model,
        null,
        `tests/mutation_equivalents.yml lists ${stale.operator} '${stale.original}' (occurrence ${stale.occurrence}) as equivalent, but a unit test kills it: the entry can go`,
      );
    }
    if (counts.not_run > 0) {
      errors.push({
        code: "E_BUDGET",
        message: `${plural(counts.not_run, "mutant")} of ${model.model} not run: the time budget ran out`,
        file: model.file,
        line: null,
        fix: "raise --budget-ms, or lower --max-mutants",
      });
    }
    const edgeVerdicts = edgeTestVerdicts(model, context.knownEdges.get(model.model) ?? [], edges, context.warehouse);
    findings.push(...edgeVerdicts.findings);
    errors.push(...edgeVerdicts.errors);
    const elided = Object.entries(model.elided).sort(([a], [b]) => (a < b ? -1 : 1));
    lines.push(
      `${model.model}: ${score === null ? "no score" : `score ${formatScore(score)}`} (${verdictCounts(counts)}) of ${plural(model.mutants.length, "mutant")}${
        elided.length ? `; the cap of ${context.maxMutants} left out ${elided.map(([code, n]) => `${code} ${n}`).join(", ")}` : ""
      }${model.cached ? "; cached: the model, its inputs and its unit tests are as a run before judged them" : ""}`,
    );
    artifacts.push(artifactOf(model, counts, score, context.maxMutants));
  }
  const score = scoreOf(totals.killed, totals.survived);
  const modelsRun = run.models.length;
  const note = `${totals.killed} killed, ${totals.equivalent} equivalent, in ${plural(modelsRun, "model")}${score === null ? "" : `, score ${formatScore(score)}`}; ${context.selectedBy}`;
  const report: Report = {
    command: "mutate",
    findings,
    note,
    lines,
    notes: [...context.notes, ...run.notes],
    errors,
    // Models whose verdicts an earlier run made (cache.ts): nothing of them ran this time.
    data: { score, ...totals, models: artifacts, cached: run.models.filter((model) => model.cached).map((model) => model.model) },
  };
  if (errors.length > 0) {
    report.exitCode = EXIT.cannotJudge;
    report.summary = `slp mutate: ERROR ${errors.map((error) => error.message).join("; ")}`;
  }
  return { report, artifacts };
}

function scoreOf(killed: number, survived: number): number | null {
  return killed + survived === 0 ? null : Math.round((killed / (killed + survived)) * 10000) / 100;
}

function formatScore(score: number): string {
  return `${Number.isInteger(score) ? score : score.toFixed(2).replace(/0$/, "")}%`;
}

function verdictCounts(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict.replace("_", " ")}`);
  return parts.length ? parts.join(", ") : "no mutant";
}

function mutantLine(model: ModelRun, mutant: MutantResult): string {
  const by = mutant.verdict === "killed" ? `\tby ${mutant.caughtBy.join(", ")}` : "";
  return `${mutant.verdict.toUpperCase()}\t${model.model}\t${mutant.id}\tline ${mutant.line}\t${mutant.original} -> ${mutant.replacement}${by}`;
}

function artifactOf(model: ModelRun, counts: Record<string, number>, score: number | null, maxMutants: number): MutationArtifact {
  return {
    model: model.model,
    file: model.file,
    mutants: model.mutants.map((mutant) => ({
      id: mutant.id,
      operator: mutant.operator,
      operator_name: mutant.operatorName,
      original: mutant.original,
      replacement: mutant.replacement,
      line: mutant.line,
      column: mutant.column,
      occurrence: mutant.occurrence,
      verdict: mutant.verdict,
      caught_by: mutant.caughtBy,
      ...(mutant.reason ? { reason: mutant.reason } : {}),
    })),
    killed: counts.killed ?? 0,
    survived: counts.survived ?? 0,
    equivalent: counts.equivalent ?? 0,
    rejected: counts.rejected ?? 0,
    timeout: counts.timeout ?? 0,
    not_run: counts.not_run ?? 0,
    score,
    baseline: { passed: model.passed, excluded: model.excluded },
    cap: { max_mutants: maxMutants, sites: model.sites, elided: model.elided },
    sites_from: model.finder ?? { kind: "parser", grammar: null, reason: null },
  };
}
