/**
 * What every output format shares: the interface a renderer implements, the
 * context the CLI hands it (where files are, --quiet, the environment), and
 * the one reading of a Report they are all fed from (its exit code, summary
 * line, the findings to show, the unit tests that failed).
 */
import { relative, resolve, sep } from "node:path";
import type { SlpError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import { exitCodeFor, sortFindings, summaryLine } from "../core/findings.ts";
import type { Report, ReportCase } from "../core/report.ts";
import type { Finding } from "../schemas/finding.ts";

export interface Rendered {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Markdown for GitHub's job summary; the CLI appends it to $GITHUB_STEP_SUMMARY when that is set. */
  stepSummary?: string;
}

export interface RenderContext {
  /**
   * A finding's file as a path relative to the repository root (GITHUB_WORKSPACE,
   * else the working directory), `/`-separated: what annotations and SARIF need.
   * Text, JSON and Markdown keep the file as the finding names it.
   */
  locate(file: string): string;
  /** --quiet: INFO findings are left out (the summary still counts them). */
  quiet: boolean;
  env: Record<string, string | undefined>;
}

export interface Format {
  render(report: Report, context: RenderContext): Rendered;
  /** The same format for a command that could not judge (exit 2): a document a CI parser still reads as a failure. */
  renderError(command: string, error: SlpError, context: RenderContext): Rendered;
}

/** A context for callers outside the CLI (tests, the public API): files as named, nothing hidden. */
export const PLAIN_CONTEXT: RenderContext = { locate: (file) => file, quiet: false, env: {} };

export function exitCodeOf(report: Report): number {
  return report.exitCode ?? (report.text !== undefined ? EXIT.ok : exitCodeFor(report.findings));
}

export function summaryOf(report: Report): string {
  return report.summary ?? summaryLine(report.command, report.findings, report.note);
}

/** OK, BLOCKED, ERROR or STOP: the verdict of an exit code, in one word. */
export function verdictOf(exitCode: number): "OK" | "BLOCKED" | "ERROR" | "STOP" {
  if (exitCode === EXIT.ok) return "OK";
  if (exitCode === EXIT.blocked) return "BLOCKED";
  if (exitCode === EXIT.stop) return "STOP";
  return "ERROR";
}

/** The findings a format lists, sorted as the text lines are; INFO left out with --quiet. */
export function shownFindings(report: Report, context: RenderContext): Finding[] {
  const sorted = sortFindings(report.findings);
  return context.quiet ? sorted.filter((finding) => finding.severity !== "INFO") : sorted;
}

/** The unit tests that failed or could not run, in the report's order. */
export function failedCases(report: Report): ReportCase[] {
  return (report.cases ?? []).filter((testCase) => testCase.status !== "pass");
}

/** A failed unit test read as a finding, so annotations and SARIF place it on the test's line. */
export const UNIT_TEST_RULE = { code: "UNIT", name: "unit-test-failed" } as const;

/** mutate's findings (a survivor, an untested model, an edge test that kills nothing), read by tcr's advice too. */
export const MUTANT_RULE = { code: "MUTANT", name: "mutation-check" } as const;

export function caseFinding(testCase: ReportCase): Finding {
  const what = testCase.status === "fail" ? "failed" : "could not run";
  return {
    severity: "BLOCK",
    rule: UNIT_TEST_RULE.code,
    name: UNIT_TEST_RULE.name,
    file: testCase.file,
    model: testCase.suite,
    line: testCase.line ?? null,
    message: `unit test '${testCase.name}' ${what}: ${testCase.message}${testCase.details ? `\n${testCase.details}` : ""}`,
    fix: testCase.fix ?? "sql",
  };
}

/**
 * What annotations and SARIF results are made of: the findings shown, then
 * every unit test that failed and is not already one of them (ci and tcr
 * list a failed test as a finding of its own).
 */
export function annotatedFindings(report: Report, context: RenderContext): Finding[] {
  const shown = shownFindings(report, context);
  const place = (file: string, model: string, line: number | null) => `${file}\0${model}\0${line}`;
  const listed = new Set(
    shown.filter((finding) => finding.rule === UNIT_TEST_RULE.code).map((finding) => place(finding.file, finding.model, finding.line)),
  );
  const cases = failedCases(report).filter((testCase) => !listed.has(place(testCase.file, testCase.suite, testCase.line ?? null)));
  return [...shown, ...cases.map(caseFinding)];
}

/** Warnings that are not findings, one `WARNING` line each on stderr. */
export function warningLines(report: Report): string {
  return (report.notes ?? []).map((note) => `WARNING ${note}\n`).join("");
}

/**
 * Where findings' files are, for annotations and SARIF: a finding names a
 * project-relative path, or a path as given on the command line (relative
 * to the working directory); both become relative to the repository root,
 * which in GitHub Actions is GITHUB_WORKSPACE and elsewhere the working
 * directory.
 */
export function pathLocator(options: {
  cwd: string;
  projectDir: string;
  root?: string;
  filesAsGiven?: readonly string[];
}): (file: string) => string {
  const root = resolve(options.cwd, options.root ?? ".");
  const project = resolve(options.cwd, options.projectDir);
  const asGiven = new Set(options.filesAsGiven ?? []);
  return (file) => {
    if (file === "") return "";
    const absolute = asGiven.has(file) ? resolve(options.cwd, file) : resolve(project, file);
    return relative(root, absolute).split(sep).join("/");
  };
}
