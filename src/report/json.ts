/** `--format json`: exactly one envelope object on stdout, nothing else (schemas/envelope.schema.json). */
import { EXIT } from "../core/exit-codes.ts";
import { sortFindings } from "../core/findings.ts";
import { envelopeError, type Report } from "../core/report.ts";
import type { SlpError } from "../core/errors.ts";
import type { Envelope } from "../schemas/envelope.ts";
import { VERSION } from "../version.ts";
import { exitCodeOf, summaryOf, type Format, type Rendered } from "./format.ts";

/** The envelope is the agent's contract: complete whatever --quiet says, so its findings always match its summary. */
export function renderJson(report: Report): Rendered {
  const exitCode = exitCodeOf(report);
  const envelope: Envelope = {
    command: report.command,
    version: VERSION,
    status: exitCode === EXIT.ok ? "ok" : exitCode === EXIT.cannotJudge ? "error" : "blocked",
    exit_code: exitCode,
    summary: summaryOf(report),
    findings: sortFindings(report.findings),
    data: report.data ?? (report.text !== undefined ? { text: report.text } : null),
    notes: report.notes ?? [],
    errors: (report.errors ?? []).map(envelopeError),
  };
  return { stdout: `${JSON.stringify(envelope, null, 2)}\n`, stderr: "", exitCode };
}

/** The envelope of a command that could not judge. */
export function renderJsonError(command: string, error: SlpError, notes: string[] = []): Rendered {
  const envelope: Envelope = {
    command,
    version: VERSION,
    status: "error",
    exit_code: EXIT.cannotJudge,
    summary: `slp ${command}: ERROR`,
    findings: [],
    data: null,
    notes,
    errors: [
      {
        code: error.code,
        message: error.message,
        file: error.file ?? null,
        line: error.line ?? null,
        column: null,
        fix: error.fix ?? null,
      },
    ],
  };
  return { stdout: `${JSON.stringify(envelope, null, 2)}\n`, stderr: "", exitCode: EXIT.cannotJudge };
}

export const json: Format = { render: renderJson, renderError: (command, error) => renderJsonError(command, error) };
