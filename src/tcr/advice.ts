/**
 * What tcr tells the agent after a red: one line per kind of fix the red
 * findings carry (schemas/finding.ts FIX_KINDS), the human's first. "Fix the
 * code, not the tests" is right for a model that computes the wrong thing,
 * and wrong for a test the agent wrote itself, a bad pre-registration, or a
 * spec only its author may change: each of those cost an agent turns.
 */
import type { Finding, FixKind } from "../schemas/finding.ts";
import { MUTANT_RULE, UNIT_TEST_RULE } from "../report/format.ts";

/** The order the lines come in: what stops the agent first, the code last. */
const ORDER: readonly FixKind[] = ["human", "pre-registration", "test", "sql"];

/**
 * The advice lines for the BLOCK findings of a red attempt; `step` names what
 * was red, for a red that carries no finding (a hook that failed).
 */
export function adviceAfterRed(findings: readonly Finding[], step: string): string[] {
  const blocks = findings.filter((finding) => finding.severity === "BLOCK");
  if (blocks.length === 0) return [`fix what ${step} reports in the code, not in the tests (Rule 3)`];
  const lines: string[] = [];
  for (const kind of ORDER) {
    const mine = blocks.filter((finding) => finding.fix === kind);
    if (mine.length > 0) lines.push(ADVICE[kind](mine));
  }
  return lines;
}

const ADVICE: Record<FixKind, (findings: Finding[]) => string> = {
  human: (findings) =>
    `stop and ask a human: ${list(findings, (finding) => `${what(finding)} (${finding.message})`)}; that fix is theirs (a spec's author, the owner of a protected path); yours is at most to take back what you changed`,
  "pre-registration": (findings) =>
    `fix the pre-registration (meta.pre_registration${models(findings)}), not the SQL: ${list(findings, what)}`,
  test: (findings) => {
    const written = findings.filter((finding) => finding.rule === UNIT_TEST_RULE.code);
    const others = findings.filter((finding) => finding.rule !== UNIT_TEST_RULE.code);
    return [
      written.length > 0
        ? `check the expectation of ${list(written, what)}: this branch wrote ${written.length === 1 ? "that test" : "those tests"}, so the test may be what is wrong, not the model`
        : "",
      others.length > 0 ? `write or correct the unit tests these ask for: ${list(others, what)}` : "",
    ]
      .filter(Boolean)
      .join("; ");
  },
  sql: (findings) => `fix the SQL${models(findings)} in the code, not in the tests (Rule 3): ${list(findings, what)}`,
};

/** `unit test amounts_are_kept (models/x.yml:12)`, or `T2 untested-edge at models/x.yml:12`. */
function what(finding: Finding): string {
  const place = finding.file === "" ? "" : finding.line === null ? finding.file : `${finding.file}:${finding.line}`;
  if (finding.rule === UNIT_TEST_RULE.code) {
    const name = /^unit test '?([^\s']+)'?/.exec(finding.message)?.[1] ?? finding.model;
    return `unit test ${name}${place ? ` (${place})` : ""}`;
  }
  // mutate's findings say what survived and which test and cell would catch it: their first clause is the point.
  if (finding.rule === MUTANT_RULE.code) return `${finding.message.split("; ")[0]}${place ? ` (${place})` : ""}`;
  return `${finding.rule} ${finding.name}${place ? ` at ${place}` : ""}`;
}

function list(findings: Finding[], describe: (finding: Finding) => string): string {
  return [...new Set(findings.map(describe))].join(", ");
}

/** ` of orders, customers`: the models named, in the order met; "" when none is. */
function models(findings: Finding[]): string {
  const names = [...new Set(findings.map((finding) => finding.model).filter(Boolean))];
  return names.length > 0 ? ` of ${names.join(", ")}` : "";
}
