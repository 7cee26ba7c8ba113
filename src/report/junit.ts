/**
 * `--format junit`: a JUnit XML document, the test-report format every CI
 * reads (GitHub test reporters, GitLab, Jenkins, Azure). One testsuite per
 * rule, one testcase per model it judged (failing when a BLOCK names the
 * pair, its INFO lines as the case's output), and one testsuite per model of
 * unit tests, one testcase each. No timestamps, no host names.
 */
import type { SlpError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import type { Report, ReportCase } from "../core/report.ts";
import { compareCodePoints } from "../core/text.ts";
import { findRule } from "../rules/index.ts";
import type { Finding } from "../schemas/finding.ts";
import { exitCodeOf, shownFindings, summaryOf, warningLines, type Format, type RenderContext, type Rendered } from "./format.ts";

/** A testcase, and for a rule's case the INFO lines about its model, printed as the case's output. */
type JunitCase = ReportCase & { output?: string };

interface Suite {
  name: string;
  cases: JunitCase[];
}

/** What a finding is about, as a testcase name: its model, else its file, else the project. */
function subjectOf(finding: Finding): string {
  return finding.model || finding.file || "(project)";
}

/** One suite per rule: the rule x model pairs the command judged (its scope) and every pair a finding names. */
function ruleSuites(report: Report, context: RenderContext): Suite[] {
  const findings = shownFindings(report, context);
  const all = report.findings;
  const names = new Map<string, string>();
  for (const finding of all) names.set(finding.rule, finding.name);
  for (const group of report.scope ?? []) for (const rule of group.rules) if (!names.has(rule)) names.set(rule, findRule(rule)?.name ?? "");
  const pairs = new Map<string, Set<string>>();
  const add = (rule: string, subject: string) => pairs.set(rule, (pairs.get(rule) ?? new Set()).add(subject));
  for (const group of report.scope ?? []) for (const rule of group.rules) for (const model of group.models) add(rule, model);
  for (const finding of all) add(finding.rule, subjectOf(finding));

  const about = new Map<string, Finding[]>();
  for (const finding of findings) {
    const key = `${finding.rule}\u0000${subjectOf(finding)}`;
    const list = about.get(key);
    if (list) list.push(finding);
    else about.set(key, [finding]);
  }
  const describe = (finding: Finding) => `${finding.severity} ${finding.file}${finding.line ? `:${finding.line}` : ""}: ${finding.message}`;
  const suites: Suite[] = [];
  for (const rule of [...pairs.keys()].sort(compareCodePoints)) {
    const suiteName = names.get(rule) ? `${rule} ${names.get(rule)}` : rule;
    const cases: JunitCase[] = [];
    for (const subject of [...(pairs.get(rule) as Set<string>)].sort(compareCodePoints)) {
      const found = about.get(`${rule}\u0000${subject}`) ?? [];
      const blocks = found.filter((finding) => finding.severity === "BLOCK");
      cases.push({
        suite: suiteName,
        name: subject,
        file: found[0]?.file ?? "",
        line: found[0]?.line ?? null,
        status: blocks.length > 0 ? "fail" : "pass",
        message: blocks.length > 0 ? (blocks[0] as Finding).message : "",
        details: blocks.map(describe).join("\n"),
        output: found
          .filter((finding) => finding.severity === "INFO")
          .map(describe)
          .join("\n"),
      });
    }
    suites.push({ name: suiteName, cases });
  }
  return suites;
}

/** Unit tests, one suite per model, in model order. */
function caseSuites(report: Report): Suite[] {
  const suites = new Map<string, ReportCase[]>();
  for (const testCase of report.cases ?? []) {
    const list = suites.get(testCase.suite);
    if (list) list.push(testCase);
    else suites.set(testCase.suite, [testCase]);
  }
  return [...suites].sort(([a], [b]) => compareCodePoints(a, b)).map(([name, cases]) => ({ name, cases }));
}

function count(cases: readonly ReportCase[], status: ReportCase["status"]): number {
  return cases.filter((testCase) => testCase.status === status).length;
}

function document(title: string, suites: Suite[]): string {
  const every = suites.flatMap((suite) => suite.cases);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(title)}" tests="${every.length}" failures="${count(every, "fail")}" errors="${count(every, "error")}">`,
  ];
  for (const suite of suites) {
    lines.push(
      `  <testsuite name="${escapeXml(suite.name)}" tests="${suite.cases.length}" failures="${count(suite.cases, "fail")}" errors="${count(suite.cases, "error")}" skipped="0">`,
    );
    for (const testCase of suite.cases) {
      const file = testCase.file ? ` file="${escapeXml(testCase.file)}"` : "";
      const line = testCase.line ? ` line="${testCase.line}"` : "";
      const open = `    <testcase name="${escapeXml(testCase.name)}" classname="${escapeXml(suite.name)}"${file}${line}`;
      const body: string[] = [];
      if (testCase.status !== "pass") {
        const tag = testCase.status === "fail" ? "failure" : "error";
        body.push(`      <${tag} message="${escapeXml(testCase.message)}" type="${tag}">${escapeXml(testCase.details)}</${tag}>`);
      }
      if (testCase.output) body.push(`      <system-out>${escapeXml(testCase.output)}</system-out>`);
      lines.push(...(body.length === 0 ? [`${open}/>`] : [`${open}>`, ...body, "    </testcase>"]));
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

export function renderJunit(report: Report, context: RenderContext): Rendered {
  const exitCode = exitCodeOf(report);
  const suites = [...ruleSuites(report, context), ...caseSuites(report)];
  // A run that could not judge all it was given must not read as green: its errors are erroring testcases.
  if (exitCode === EXIT.cannotJudge && !suites.some((suite) => suite.cases.some((testCase) => testCase.status === "error"))) {
    const errors = report.errors?.length
      ? report.errors
      : [{ code: "E_UNKNOWN", message: summaryOf(report), file: null, line: null, fix: null }];
    suites.push({
      name: `slp ${report.command}`,
      cases: errors.map((error) => ({
        suite: `slp ${report.command}`,
        name: `could not judge: ${error.message}`,
        file: error.file ?? "",
        line: error.line,
        status: "error" as const,
        message: error.message,
        details: `${error.message}${error.fix ? `\nfix: ${error.fix}` : ""}`,
      })),
    });
  }
  return { stdout: document(`slp ${report.command}`, suites), stderr: warningLines(report), exitCode };
}

/** A command that could not judge is one erroring testcase, so no CI reads the run as green. */
export function renderJunitError(command: string, error: SlpError): Rendered {
  const where = error.file ? `${error.file}${error.line ? `:${error.line}` : ""}: ` : "";
  const suite: Suite = {
    name: `slp ${command}`,
    cases: [
      {
        suite: `slp ${command}`,
        name: "could not judge",
        file: error.file ?? "",
        line: error.line ?? null,
        status: "error",
        message: error.message,
        details: `${where}${error.message}${error.fix ? `\nfix: ${error.fix}` : ""}`,
      },
    ],
  };
  return { stdout: document(`slp ${command}`, [suite]), stderr: "", exitCode: EXIT.cannotJudge };
}

/** XML text: the five entities escaped, and the control characters XML 1.0 cannot hold dropped. */
const NEEDS_ESCAPE = /[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;

function escapeXml(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "");
}

export const junit: Format = { render: renderJunit, renderError: (command, error) => renderJunitError(command, error) };
