/**
 * Composing tasks' reports into one: `slp ci` and users' own tasks run
 * several stages and answer with one report and one exit code, the worst
 * of the stages'.
 */
import { asSlpError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import { countFindings, exitCodeFor, summaryLine } from "../core/findings.ts";
import { envelopeError, isReport, type Report } from "../core/report.ts";
import { plural } from "../core/text.ts";
import type { Task, TaskEnvironment } from "./define-task.ts";
import { runTask } from "./runner.ts";
import { stageDetails, stageFindings } from "./stage-findings.ts";

export interface StageResult {
  name: string;
  /** The stage's report; for a stage that could not judge, an error report. */
  report: Report;
  exitCode: number;
}

/** The part of a shared set of settings that a task takes as input (its defined, known keys). */
export function inputFor(task: Task<any, any>, shared: Record<string, unknown>): Record<string, unknown> {
  const properties = task.input.properties as Record<string, unknown>;
  return Object.fromEntries(Object.entries(shared).filter(([key, value]) => value !== undefined && key in properties));
}

/** True when a task takes the given input key (e.g. gate's `head`). */
export function takesInput(task: Task<any, any>, key: string): boolean {
  return key in (task.input.properties as Record<string, unknown>);
}

/** Runs one stage; an error becomes a report with exit 2 instead of ending the whole run. */
export async function runStage(task: Task<any, any>, input: Record<string, unknown>, environment: TaskEnvironment): Promise<StageResult> {
  try {
    const result = await runTask(task, input, environment);
    const report: Report = isReport(result) ? result : { command: task.name, findings: [], text: "" };
    // Every key an envelope's error has, so a stage's errors can be held as envelope errors (tcr's steps).
    if (report.errors) report.errors = report.errors.map(envelopeError);
    return { name: task.name, report, exitCode: report.exitCode ?? exitCodeFor(report.findings) };
  } catch (thrown) {
    const error = asSlpError(thrown);
    const report: Report = {
      command: task.name,
      findings: [],
      summary: `slp ${task.name}: ERROR ${error.describe()}`,
      exitCode: EXIT.cannotJudge,
      data: { error: { code: error.code, message: error.message, file: error.file ?? null, line: error.line ?? null } },
      errors: [
        {
          code: error.code,
          message: `${task.name}: ${error.message}`,
          file: error.file ?? null,
          line: error.line ?? null,
          column: null,
          fix: error.fix ?? null,
        },
      ],
    };
    return { name: task.name, report, exitCode: EXIT.cannotJudge };
  }
}

/**
 * One report of several stages: every finding (a failing unit test is one),
 * each failing test shown in full, a line per stage, the worst exit code,
 * and every stage's notes and errors.
 */
export function combineReports(command: string, stages: StageResult[]): Report {
  const findings = stages.flatMap((stage) => stageFindings(stage.report));
  const exitCode = Math.max(EXIT.ok, ...stages.map((stage) => stage.exitCode));
  const lines = [...stages.flatMap((stage) => stageDetails(stage.report)), ...stages.map((stage) => stageLine(stage))];
  const { blocks, infos } = countFindings(findings);
  const verdict = exitCode === EXIT.ok ? "OK" : exitCode === EXIT.blocked ? "BLOCKED" : "ERROR";
  const counts = [blocks ? plural(blocks, "block") : "", infos ? plural(infos, "info") : ""].filter(Boolean).join(", ");
  const failing = stages.filter((stage) => stage.exitCode !== EXIT.ok).map((stage) => stage.name);
  const summary = `slp ${command}: ${counts ? `${counts} - ` : ""}${verdict} (${plural(stages.length, "stage")}${
    failing.length ? `; not green: ${failing.join(", ")}` : ""
  })`;
  return {
    command,
    findings,
    summary,
    exitCode,
    lines,
    notes: [...new Set(stages.flatMap((stage) => stage.report.notes ?? []))],
    // What each stage judged and its unit tests, so test-report formats show them all.
    cases: stages.flatMap((stage) => stage.report.cases ?? []),
    scope: stages.flatMap((stage) => stage.report.scope ?? []),
    filesAsGiven: stages.flatMap((stage) => stage.report.filesAsGiven ?? []),
    errors: stages.flatMap((stage) => stage.report.errors ?? []),
    data: {
      stages: stages.map((stage) => ({
        name: stage.name,
        exit_code: stage.exitCode,
        summary: stageSummary(stage),
        data: stage.report.data ?? null,
      })),
    },
  };
}

export function stageSummary(stage: StageResult): string {
  const report = stage.report;
  return report.summary ?? summaryLine(report.command, report.findings, report.note);
}

function stageLine(stage: StageResult): string {
  return `${stage.name}: ${stageSummary(stage)}`;
}
