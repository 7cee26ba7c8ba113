/**
 * `--format github`: GitHub Actions workflow commands. Each BLOCK is an
 * `::error` annotation and each INFO a `::notice`, on the finding's file and
 * line (relative to the repository root); a failed unit test is an error on
 * its test; the summary line closes the log; and the Markdown report goes to
 * the job summary when $GITHUB_STEP_SUMMARY is set.
 *
 * Everything printed comes from a repository an agent may have written, so
 * nothing in it may become a workflow command of its own: data and properties
 * are escaped as the runner unescapes them, and plain lines that could be read
 * as a command are printed with command processing stopped.
 */
import type { SlpError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import type { Report } from "../core/report.ts";
import type { Finding } from "../schemas/finding.ts";
import { annotatedFindings, exitCodeOf, summaryOf, type Format, type RenderContext, type Rendered } from "./format.ts";
import { markdownOf, renderMarkdownError } from "./markdown.ts";

/** The message of a command: `%`, CR and LF escaped (the runner's data escaping). */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property value: the data escaping plus `:` and `,`, which end a property. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

function command(name: string, properties: Record<string, string | number | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}\n`;
}

function annotation(finding: Finding, context: RenderContext): string {
  const level = finding.severity === "BLOCK" ? "error" : "notice";
  const file = finding.file === "" ? undefined : context.locate(finding.file);
  const model = finding.model ? ` (${finding.model})` : "";
  return command(
    level,
    { file, line: file ? (finding.line ?? undefined) : undefined, title: `${finding.rule} ${finding.name}${model}` },
    finding.message,
  );
}

/**
 * Lines printed as they are, unless one could be read as a workflow command
 * (`::` after leading whitespace, the older `##[` anywhere): then all of them
 * are printed between `::stop-commands::TOKEN` and `::TOKEN::`, the runner's
 * own way to print untrusted text. The token is a hash of the lines, so
 * output stays deterministic and the lines cannot contain it.
 */
export function plainLines(lines: string[]): string {
  const physical = lines.flatMap((line) => line.split(/\r\n|\r|\n/));
  const text = physical.map((line) => `${line}\n`).join("");
  if (!physical.some((line) => /^\s*::/.test(line) || line.includes("##["))) return text;
  const token = `slp-${new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 32)}`;
  return `::stop-commands::${token}\n${text}::${token}::\n`;
}

export function renderGithub(report: Report, context: RenderContext): Rendered {
  const notes = (report.notes ?? []).map((note) => command("warning", { title: `slp ${report.command}` }, note)).join("");
  const annotations =
    report.text === undefined
      ? annotatedFindings(report, context)
          .map((finding) => annotation(finding, context))
          .join("")
      : "";
  const plain = report.text !== undefined ? [report.text.replace(/\n$/, "")] : [...(report.lines ?? []), summaryOf(report)];
  const summary = context.env.GITHUB_STEP_SUMMARY ? markdownOf(report, context) : undefined;
  return { stdout: `${notes}${annotations}${plainLines(plain)}`, stderr: "", exitCode: exitCodeOf(report), stepSummary: summary };
}

export function renderGithubError(command_: string, error: SlpError, context: RenderContext): Rendered {
  const file = error.file ? context.locate(error.file) : undefined;
  const fix = error.fix ? `; ${error.fix}` : "";
  return {
    stdout: command(
      "error",
      { file, line: file ? error.line : undefined, title: `slp ${command_} could not judge` },
      `${error.message}${fix}`,
    ),
    stderr: "",
    exitCode: EXIT.cannotJudge,
    stepSummary: context.env.GITHUB_STEP_SUMMARY ? renderMarkdownError(command_, error).stdout : undefined,
  };
}

export const github: Format = { render: renderGithub, renderError: renderGithubError };
