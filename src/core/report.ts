/** What a task hands back to the CLI: findings to render, or text for an informational task. */
import type { Finding, FixKind } from "../schemas/finding.ts";

export interface Report {
  /** The command name printed in the summary line (`slp <command>: ...`). */
  command: string;
  findings: Finding[];
  /** Appended to the summary line when nothing blocks. */
  note?: string;
  /** Replaces the computed summary line (e.g. `slp gate: OK (no commits)`). */
  summary?: string;
  /** The command's own structured result, for --format json. */
  data?: unknown;
  /** Warnings and remarks that are not findings; printed on stderr in text mode. */
  notes?: string[];
  /** For informational tasks (rules, explain, tasks): the text to print instead of findings. */
  text?: string;
  /** Lines printed after the findings and before the summary (what tcr reverted, say). */
  lines?: string[];
  /** Replaces the exit code computed from findings (tcr's 3). */
  exitCode?: number;
  /** Per-test results, for test-report formats (junit). */
  cases?: ReportCase[];
  /** Why the command could not judge some of its input, for the JSON envelope's `errors`. */
  errors?: ReportError[];
  /** What the command judged, in groups (ci has one per stage): every rule x model pair of a group is a JUnit testcase, passing when no BLOCK names it. */
  scope?: ReportScope[];
  /**
   * Paths named on the command line, relative to the working directory (compare's diffs):
   * findings on them are not project-relative, which annotations and SARIF need to know.
   */
  filesAsGiven?: string[];
  /** For a task that writes a document (review): the document as Markdown, for --format markdown and github. */
  markdown?: string;
}

export interface ReportScope {
  /** The rule codes that ran. */
  rules: string[];
  /** The models they ran on. */
  models: string[];
}

/** One test in a test report: a JUnit testcase. */
export interface ReportCase {
  /** The group it belongs to (a model). */
  suite: string;
  name: string;
  file: string;
  /** The line of the test in its file, when known. */
  line?: number | null;
  status: "pass" | "fail" | "error";
  /** One line saying what went wrong; "" for a pass. */
  message: string;
  /** The longer text (a diff table, a fix); "" for a pass. */
  details: string;
  /** Whose move a failure is: `test` for a test this branch wrote, else `sql`; absent for a pass. */
  fix?: FixKind;
}

export interface ReportError {
  code: string;
  message: string;
  file: string | null;
  line: number | null;
  /** The column on that line, where it is known (a parse or binder error in a model's SQL); the envelope writes null otherwise. */
  column?: number | null;
  fix: string | null;
}

/** The error as the envelope holds it: every key there, `column` null where unknown. */
export function envelopeError(error: ReportError): Required<ReportError> {
  return { code: error.code, message: error.message, file: error.file, line: error.line, column: error.column ?? null, fix: error.fix };
}

export function isReport(value: unknown): value is Report {
  return typeof value === "object" && value !== null && "command" in value && Array.isArray((value as Report).findings);
}

/** One line, as errors print: `file:line: message; fix` (the fix left out when `withFix` is false). */
export function describeReportError(error: ReportError, withFix = true): string {
  const where = error.file ? `${error.file}${error.line ? `:${error.line}${error.column ? `:${error.column}` : ""}` : ""}: ` : "";
  return `${where}${error.message}${withFix && error.fix ? `; ${error.fix}` : ""}`;
}
