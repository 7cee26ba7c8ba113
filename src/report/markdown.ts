/**
 * `--format markdown`: the report as a pull-request comment (and GitHub's job
 * summary): the verdict, a table of findings (blocks first, so a cut never
 * hides one), the unit tests that failed, the command's own lines, within
 * GitHub's 65,536-character limit, saying what was left out when it is cut.
 */
import type { SlpError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import { formatNumber } from "../core/numbers.ts";
import type { Report } from "../core/report.ts";
import type { Finding } from "../schemas/finding.ts";
import { exitCodeOf, failedCases, shownFindings, summaryOf, verdictOf, type Format, type RenderContext, type Rendered } from "./format.ts";
import { COMMENT_LIMIT, counted, fence, fitToLimit, htmlText, mdInline } from "./markdown-text.ts";

const MARK = { OK: "✅", BLOCKED: "⛔", ERROR: "❌", STOP: "🛑" } as const;

export function renderMarkdown(report: Report, context: RenderContext): Rendered {
  return { stdout: markdownOf(report, context), stderr: "", exitCode: exitCodeOf(report) };
}

/** The report as a Markdown document of at most `limit` characters. */
export function markdownOf(report: Report, context: RenderContext, limit = COMMENT_LIMIT): string {
  const rest = `the whole report is \`slp ${report.command} --format json\``;
  if (report.markdown !== undefined) return fitToLimit(report.markdown, rest, limit);
  const findings = [...shownFindings(report, context)].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === "BLOCK" ? -1 : 1));
  const rows = findings.map(tableRow);
  const full = documentOf(report, findings, rows, rows.length, true);
  if (full.length <= limit) return full;
  // Too long: the log goes first, then findings from the end (infos before blocks), as many as fit.
  const without = documentOf(report, findings, rows, 0, false).length;
  let keep = 0;
  let used = without;
  // Room for the "N more findings not shown" line, which is at most this long.
  const notice = 300;
  while (keep < rows.length && used + (rows[keep] as string).length + 1 + notice <= limit) used += (rows[keep++] as string).length + 1;
  return fitToLimit(documentOf(report, findings, rows, keep, false), rest, limit);
}

function tableRow(finding: Finding): string {
  const where = finding.file === "" ? "" : `${finding.file}${finding.line ? `:${finding.line}` : ""}`;
  return `| ${finding.severity === "BLOCK" ? "⛔ BLOCK" : "ℹ️ INFO"} | ${mdInline(`${finding.rule} ${finding.name}`)} | ${mdInline(where)} | ${mdInline(finding.model)} | ${mdInline(finding.message)} |`;
}

function documentOf(report: Report, findings: Finding[], rows: string[], keep: number, withLog: boolean): string {
  const exitCode = exitCodeOf(report);
  const verdict = verdictOf(exitCode);
  const parts = [`### ${MARK[verdict]} ${mdInline(summaryOf(report))}`];
  if (report.text !== undefined) parts.push(fence(report.text));
  if (rows.length > 0) {
    parts.push(["| | Rule | File | Model | Finding |", "| --- | --- | --- | --- | --- |", ...rows.slice(0, keep)].join("\n"));
    if (keep < rows.length) {
      const left = findings.slice(keep);
      const blocks = left.filter((finding) => finding.severity === "BLOCK").length;
      const kinds = [blocks ? counted(blocks, "block") : "", left.length - blocks ? counted(left.length - blocks, "info") : ""]
        .filter(Boolean)
        .join(" and ");
      parts.push(
        `> **${counted(left.length, "more finding")} not shown** (${kinds}): GitHub comments hold ${formatNumber(COMMENT_LIMIT)} characters; the whole report is \`slp ${report.command} --format json\`.`,
      );
    }
  }
  const failed = failedCases(report);
  if (failed.length > 0) {
    const list = [`**${counted(failed.length, "unit test")} not green**`, ""];
    for (const testCase of failed) {
      const where = `${testCase.file}${testCase.line ? `:${testCase.line}` : ""}`;
      const title = `${testCase.suite}::${testCase.name} ${testCase.status === "fail" ? "failed" : "could not run"}: ${testCase.message} (${where})`;
      list.push(`<details><summary>${htmlText(title)}</summary>`, "", fence(testCase.details || testCase.message), "", "</details>");
    }
    parts.push(list.join("\n"));
  }
  const lines = report.lines ?? [];
  if (lines.length > 0) {
    parts.push(
      withLog
        ? `<details><summary>${htmlText(`slp ${report.command}: ${counted(lines.length, "line")}`)}</summary>\n\n${fence(lines.join("\n"))}\n\n</details>`
        : `> ${counted(lines.length, "line")} of \`slp ${report.command}\`'s own output left out for length.`,
    );
  }
  for (const note of report.notes ?? []) parts.push(`> ⚠️ ${mdInline(note)}`);
  return `${parts.join("\n\n")}\n`;
}

export function renderMarkdownError(command: string, error: SlpError): Rendered {
  const fix = error.fix ? `\n\n**Fix:** ${mdInline(error.fix)}` : "";
  const where = error.file ? ` (${mdInline(`${error.file}${error.line ? `:${error.line}` : ""}`)})` : "";
  return {
    stdout: `### ${MARK.ERROR} slp ${mdInline(command)}: could not judge\n\n${mdInline(error.message)}${where}${fix}\n`,
    stderr: "",
    exitCode: EXIT.cannotJudge,
  };
}

export const markdown: Format = {
  render: renderMarkdown,
  renderError: renderMarkdownError,
};
