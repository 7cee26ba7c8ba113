/** `--format junit`: a JUnit XML document of a report's test cases, one suite per model, no timestamps. */
import { EXIT } from "../core/exit-codes.ts";
import type { Report, ReportCase } from "../core/report.ts";
import { compareCodePoints } from "../core/text.ts";
import type { Rendered } from "./renderers.ts";

export function renderJunit(report: Report): Rendered {
  const cases = report.cases ?? [];
  const suites = new Map<string, ReportCase[]>();
  for (const testCase of cases) suites.set(testCase.suite, [...(suites.get(testCase.suite) ?? []), testCase]);
  const count = (list: ReportCase[], status: ReportCase["status"]) => list.filter((c) => c.status === status).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="slp ${escape(report.command)}" tests="${cases.length}" failures="${count(cases, "fail")}" errors="${count(cases, "error")}">`,
  ];
  for (const [suite, list] of [...suites].sort(([a], [b]) => compareCodePoints(a, b))) {
    lines.push(`  <testsuite name="${escape(suite)}" tests="${list.length}" failures="${count(list, "fail")}" errors="${count(list, "error")}" skipped="0">`);
    for (const testCase of list) {
      const open = `    <testcase name="${escape(testCase.name)}" classname="${escape(suite)}" file="${escape(testCase.file)}"`;
      if (testCase.status === "pass") {
        lines.push(`${open}/>`);
        continue;
      }
      const tag = testCase.status === "fail" ? "failure" : "error";
      lines.push(`${open}>`, `      <${tag} message="${escape(testCase.message)}" type="${tag}">${escape(testCase.details)}</${tag}>`, "    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  const exitCode = report.exitCode ?? EXIT.ok;
  const stderr = (report.notes ?? []).map((note) => `WARNING ${note}\n`).join("");
  return { stdout: `${lines.join("\n")}\n`, stderr, exitCode };
}

function escape(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}
