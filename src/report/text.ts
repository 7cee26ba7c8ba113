/**
 * The default renderer: one tab-separated line per finding, then the summary
 * line (spec/rules.md §4.1). Five fields, as the reference prints them, with
 * two additions a compiler's user expects: the file field is `path:line` when
 * the line is known, and a BLOCK's message ends with whose move the fix is.
 * `--format reference` prints the reference's exact bytes.
 */
import { EXIT } from "../core/exit-codes.ts";
import type { Report } from "../core/report.ts";
import type { Finding } from "../schemas/finding.ts";
import { exitCodeOf, shownFindings, summaryOf, warningLines, type Format, type RenderContext, type Rendered } from "./format.ts";

/** `BLOCK<TAB>models/x.yml:12<TAB>x<TAB>message (fix: sql)<TAB>[T1]`, without its newline. */
export function findingLine(finding: Finding): string {
  const file = finding.file !== "" && finding.line !== null ? `${finding.file}:${finding.line}` : finding.file;
  const fix = finding.severity === "BLOCK" ? ` (fix: ${finding.fix})` : "";
  return `${finding.severity}\t${file}\t${finding.model}\t${finding.message}${fix}\t[${finding.rule}]`;
}

/** The reference's line (spec/rules.md §4.1), byte for byte: the file as a path, the message as the rule words it. */
export function referenceLine(finding: Finding): string {
  return `${finding.severity}\t${finding.file}\t${finding.model}\t${finding.message}\t[${finding.rule}]`;
}

function renderLines(line: (finding: Finding) => string) {
  return (report: Report, context: RenderContext): Rendered => {
    const stderr = warningLines(report);
    const exitCode = exitCodeOf(report);
    if (report.text !== undefined) return { stdout: report.text, stderr, exitCode };
    const lines = shownFindings(report, context).map((finding) => `${line(finding)}\n`);
    const extra = (report.lines ?? []).map((text) => `${text}\n`).join("");
    return { stdout: `${lines.join("")}${extra}${summaryOf(report)}\n`, stderr, exitCode };
  };
}

export const renderText = renderLines(findingLine);

export const text: Format = {
  render: renderText,
  // The CLI prints the `ERROR ...` line on stderr for every format; text adds nothing on stdout.
  renderError: () => ({ stdout: "", stderr: "", exitCode: EXIT.cannotJudge }),
};

/** `--format reference`: the lines of the reference tool, for scripts and diffs written against it. */
export const reference: Format = {
  render: renderLines(referenceLine),
  renderError: () => ({ stdout: "", stderr: "", exitCode: EXIT.cannotJudge }),
};
