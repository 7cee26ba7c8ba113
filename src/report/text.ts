/** The default renderer: one tab-separated line per finding, then the summary line (spec/rules.md §4.1). */
import { EXIT } from "../core/exit-codes.ts";
import type { Report } from "../core/report.ts";
import { exitCodeOf, shownFindings, summaryOf, warningLines, type Format, type RenderContext, type Rendered } from "./format.ts";

export function renderText(report: Report, context: RenderContext): Rendered {
  const stderr = warningLines(report);
  const exitCode = exitCodeOf(report);
  if (report.text !== undefined) return { stdout: report.text, stderr, exitCode };
  const lines = shownFindings(report, context).map(
    (finding) => `${finding.severity}\t${finding.file}\t${finding.model}\t${finding.message}\t[${finding.rule}]\n`,
  );
  const extra = (report.lines ?? []).map((line) => `${line}\n`).join("");
  return { stdout: `${lines.join("")}${extra}${summaryOf(report)}\n`, stderr, exitCode };
}

export const text: Format = {
  render: renderText,
  // The CLI prints the `ERROR ...` line on stderr for every format; text adds nothing on stdout.
  renderError: () => ({ stdout: "", stderr: "", exitCode: EXIT.cannotJudge }),
};
