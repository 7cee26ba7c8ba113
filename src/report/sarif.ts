/**
 * `--format sarif`: a SARIF 2.1.0 log (the OASIS standard GitHub code
 * scanning and most CI dashboards read), one run, one result per finding and
 * per failed unit test. Rule metadata comes from the rule registry: the id
 * (T1), the kebab name, the summary, the rationale and `slp explain`'s text as
 * help. Paths are relative to the repository root under the `%SRCROOT%` base,
 * so the log is the same on every machine.
 */
import type { SlpError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import type { Report } from "../core/report.ts";
import { compareCodePoints } from "../core/text.ts";
import { explainText } from "../rules/explain.ts";
import { findRule } from "../rules/index.ts";
import type { Finding } from "../schemas/finding.ts";
import { VERSION } from "../version.ts";
import {
  annotatedFindings,
  exitCodeOf,
  UNIT_TEST_RULE,
  verdictOf,
  summaryOf,
  type Format,
  type RenderContext,
  type Rendered,
} from "./format.ts";

const SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
/** The base every artifact URI is relative to: the repository root (GitHub's checkout). */
const SRCROOT = "%SRCROOT%";

type Level = "error" | "note";

interface ReportingDescriptor {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  help: { text: string; markdown: string };
  defaultConfiguration: { level: Level };
  properties: { tags: string[] };
}

/** The rule's entry in the log: from the registry when slp knows it, else from what the finding says of itself. */
function descriptorOf(finding: Finding): ReportingDescriptor {
  const rule = findRule(finding.rule);
  if (rule && rule.code === finding.rule) {
    const help = explainText(rule);
    return {
      id: rule.code,
      name: rule.name,
      shortDescription: { text: rule.docs.summary },
      fullDescription: { text: rule.docs.rationale },
      help: { text: help, markdown: `\`\`\`text\n${help}\`\`\`\n\n\`slp explain ${rule.code}\` prints the same.` },
      defaultConfiguration: { level: rule.severity === "BLOCK" ? "error" : "note" },
      properties: { tags: ["slp", rule.command, "dbt"] },
    };
  }
  const unit = finding.rule === UNIT_TEST_RULE.code;
  const summary = unit ? "A dbt unit test that failed or could not run." : `${finding.rule} ${finding.name}`;
  return {
    id: finding.rule,
    name: finding.name,
    shortDescription: { text: summary },
    fullDescription: {
      text: unit
        ? "slp unit ran the test on embedded DuckDB; its expect does not hold, or the test could not be rendered or run."
        : summary,
    },
    help: { text: summary, markdown: summary },
    defaultConfiguration: { level: finding.severity === "BLOCK" ? "error" : "note" },
    properties: { tags: ["slp", "dbt"] },
  };
}

/** A location URI: a relative reference with `/` separators, each segment percent-encoded as RFC 3986 asks. */
function uriOf(path: string): string {
  return path
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
}

function resultOf(finding: Finding, ruleIndex: number, context: RenderContext) {
  const file = finding.file === "" ? "" : context.locate(finding.file);
  const physical =
    file === ""
      ? undefined
      : {
          artifactLocation: { uri: uriOf(file), uriBaseId: SRCROOT },
          ...(finding.line ? { region: { startLine: finding.line } } : {}),
        };
  const logical = finding.model ? [{ name: finding.model, kind: "module" }] : undefined;
  const locations =
    physical || logical ? [{ ...(physical ? { physicalLocation: physical } : {}), ...(logical ? { logicalLocations: logical } : {}) }] : [];
  // Stable across runs and machines, so code scanning matches an alert to its earlier self.
  const fingerprint = new Bun.CryptoHasher("sha256")
    .update(`${finding.rule}\u0000${file}\u0000${finding.model}\u0000${finding.message}`)
    .digest("hex");
  return {
    ruleId: finding.rule,
    ruleIndex,
    level: (finding.severity === "BLOCK" ? "error" : "note") as Level,
    message: { text: finding.message },
    locations,
    partialFingerprints: { "slpFinding/v1": fingerprint },
  };
}

function log(command: string, rules: ReportingDescriptor[], results: unknown[], invocation: Record<string, unknown>) {
  return {
    $schema: SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "slp", version: VERSION, semanticVersion: VERSION, rules } },
        automationDetails: { id: `slp/${command}/` },
        originalUriBaseIds: {
          [SRCROOT]: {
            description: { text: "The root of the repository (GITHUB_WORKSPACE in GitHub Actions, else the directory slp ran in)." },
          },
        },
        invocations: [invocation],
        results,
        columnKind: "unicodeCodePoints",
      },
    ],
  };
}

export function renderSarif(report: Report, context: RenderContext): Rendered {
  const findings = annotatedFindings(report, context);
  const descriptors = new Map<string, ReportingDescriptor>();
  for (const finding of findings) if (!descriptors.has(finding.rule)) descriptors.set(finding.rule, descriptorOf(finding));
  const rules = [...descriptors.values()].sort((a, b) => compareCodePoints(a.id, b.id));
  const index = new Map(rules.map((rule, i) => [rule.id, i]));
  const results = findings.map((finding) => resultOf(finding, index.get(finding.rule) as number, context));
  const exitCode = exitCodeOf(report);
  const invocation = {
    executionSuccessful: exitCode !== EXIT.cannotJudge,
    exitCode,
    exitCodeDescription: verdictOf(exitCode),
    properties: { summary: summaryOf(report) },
    toolExecutionNotifications: (report.notes ?? []).map((note) => ({ level: "warning", message: { text: note } })),
  };
  return { stdout: `${JSON.stringify(log(report.command, rules, results, invocation), null, 2)}\n`, stderr: "", exitCode };
}

/** A log that says the run could not judge: no results, the error as a tool notification, executionSuccessful false. */
export function renderSarifError(command: string, error: SlpError, context: RenderContext): Rendered {
  const file = error.file ? context.locate(error.file) : "";
  const notification = {
    level: "error",
    message: { text: `${error.message}${error.fix ? `; ${error.fix}` : ""}` },
    descriptor: { id: error.code },
    ...(file
      ? {
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: uriOf(file), uriBaseId: SRCROOT },
                ...(error.line ? { region: { startLine: error.line } } : {}),
              },
            },
          ],
        }
      : {}),
  };
  const invocation = {
    executionSuccessful: false,
    exitCode: EXIT.cannotJudge,
    exitCodeDescription: "ERROR",
    properties: { summary: `slp ${command}: ERROR` },
    toolExecutionNotifications: [notification],
  };
  return { stdout: `${JSON.stringify(log(command, [], [], invocation), null, 2)}\n`, stderr: "", exitCode: EXIT.cannotJudge };
}

export const sarif: Format = { render: renderSarif, renderError: renderSarifError };
