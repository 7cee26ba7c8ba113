/** The default renderer: one tab-separated line per finding, then the summary line (spec/rules.md §4.1). */
import { exitCodeFor, sortFindings, summaryLine } from "../core/findings.ts";
import type { Report } from "../core/report.ts";
import type { Rendered } from "./renderers.ts";

export function renderText(report: Report): Rendered {
  const stderr = (report.notes ?? []).map((note) => `WARNING ${note}\n`).join("");
  if (report.text !== undefined) return { stdout: report.text, stderr, exitCode: report.exitCode ?? 0 };
  const lines = sortFindings(report.findings).map(
    (finding) => `${finding.severity}\t${finding.file}\t${finding.model}\t${finding.message}\t[${finding.rule}]\n`,
  );
  const extra = (report.lines ?? []).map((line) => `${line}\n`).join("");
  const summary = report.summary ?? summaryLine(report.command, report.findings, report.note);
  return { stdout: `${lines.join("")}${extra}${summary}\n`, stderr, exitCode: report.exitCode ?? exitCodeFor(report.findings) };
}
