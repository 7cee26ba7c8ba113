/**
 * What a stage's report says is wrong, in the forms ci and tcr show it: its
 * findings, plus one finding per failing unit test (model, file, line, and
 * the rows only in expected and only in actual), and the lines that show
 * each failing or erroring test case in full.
 */
import { decimalsMayBeShortened, shortDecimal } from "../core/numbers.ts";
import type { Report } from "../core/report.ts";
import { plural } from "../core/text.ts";
import { UNIT_TEST_RULE } from "../report/format.ts";
import type { Finding } from "../schemas/finding.ts";
import type { UnitData } from "../schemas/unit.ts";

/** Rows of each side quoted in a finding's message; the envelope's data has them all. */
const QUOTED_ROWS = 3;

/** The stage's findings, and a BLOCK finding per failed unit test (rule UNIT, name unit-test-failed, as the formats name it). */
export function stageFindings(report: Report): Finding[] {
  return [...report.findings, ...unitFailures(report)];
}

/** The identity of a finding across runs (HEAD against a step, a commit against its parent): rule, file, model, message. */
export function findingKey(finding: Finding): string {
  return [finding.rule, finding.file, finding.model, finding.message].join("\0");
}

/** The name of a finding that stands for an error: what made a stage unable to judge (its rule is the error's code). */
export const CANNOT_JUDGE = "cannot-judge";

/**
 * Why a stage could not judge, as BLOCK findings at each error's place (rule
 * the error's code, E_UNIT, E_INPUT, ...): what tcr reports when a step's
 * change made it unable to judge. A unit test's error names its model; a
 * refusal of the model's SQL at a place in its file (a line and a column) is
 * the model's, one finding naming every test it stopped.
 */
export function errorFindings(report: Report): Finding[] {
  if (report.command === "unit" && isUnitData(report.data)) {
    const placed = new Map<string, { finding: Finding; tests: string[]; detail: string }>();
    const findings = report.data.tests.flatMap((test) => {
      const error = test.error;
      if (test.status !== "error" || !error) return [];
      if (error.file !== null && error.line !== null && error.column !== null) {
        const key = JSON.stringify([test.model, error.file, error.line, error.column, error.message]);
        const known = placed.get(key);
        if (known) {
          known.tests.push(test.name);
          return [];
        }
        const detail = `${error.message} (line ${error.line}, column ${error.column})${error.fix ? `; ${error.fix}` : ""}`;
        const finding: Finding = {
          severity: "BLOCK",
          rule: "E_UNIT",
          name: CANNOT_JUDGE,
          file: error.file,
          line: error.line,
          model: test.model,
          message: "",
          // Placed in the model's file: the model's SQL is what to fix, whichever test met it first.
          fix: "sql",
        };
        placed.set(key, { finding, tests: [test.name], detail });
        return [finding];
      }
      const place = error.file ? { file: error.file, line: error.line } : { file: test.file, line: test.line };
      const fix = error.fix ? `; ${error.fix}` : "";
      return [
        {
          severity: "BLOCK",
          rule: "E_UNIT",
          name: CANNOT_JUDGE,
          ...place,
          model: test.model,
          message: `unit test ${test.name} cannot run: ${error.message}${fix}`,
          fix: test.fix ?? "sql",
        } satisfies Finding,
      ];
    });
    for (const { finding, tests, detail } of placed.values())
      finding.message = `${tests.length === 1 ? `unit test ${tests[0]}` : `unit tests ${tests.join(", ")}`} cannot run: ${detail}`;
    return findings;
  }
  return (report.errors ?? []).map((error) => ({
    severity: "BLOCK",
    rule: error.code,
    name: CANNOT_JUDGE,
    file: error.file ?? "",
    model: "",
    line: error.line,
    message: `${error.message}${error.fix ? `; ${error.fix}` : ""}`,
    // An error a change introduced (a model that no longer parses, say) is the code's to fix.
    fix: "sql" as const,
  }));
}

/** Each failing or erroring test case, with its diff or error indented under it. */
export function stageDetails(report: Report): string[] {
  const lines: string[] = [];
  for (const testCase of report.cases ?? []) {
    if (testCase.status === "pass") continue;
    lines.push(`${testCase.status.toUpperCase()}\t${testCase.suite}::${testCase.name}`);
    for (const line of testCase.details.split("\n")) if (line !== "") lines.push(`\t${line}`);
  }
  return lines;
}

function unitFailures(report: Report): Finding[] {
  if (report.command !== "unit" || !isUnitData(report.data)) return [];
  return report.data.tests
    .filter((test) => test.status === "fail")
    .map((test) => {
      const rows = test.diff?.rows ?? [];
      const columns = test.diff?.columns ?? [];
      const side = (name: "expected" | "actual") => rows.filter((row) => row.side === name).map((row) => row.values);
      const expected = side("expected");
      const actual = side("actual");
      // Long decimals at four, unless two different rows would then read the same (the envelope's data has them in full).
      const short = decimalsMayBeShortened(expected, actual);
      const shownValue = (value: string | null) => (value === null ? "NULL" : short ? shortDecimal(value) : value);
      const quote = (values: (string | null)[][]) => {
        const shown = values
          .slice(0, QUOTED_ROWS)
          .map((row) => `(${row.map((value, i) => `${columns[i] ?? i}=${shownValue(value)}`).join(", ")})`);
        return `${shown.join(", ")}${values.length > QUOTED_ROWS ? ` and ${values.length - QUOTED_ROWS} more` : ""}`;
      };
      const parts = [
        expected.length ? `only in expected ${quote(expected)}` : "",
        actual.length ? `only in actual ${quote(actual)}` : "",
      ].filter(Boolean);
      const edge = test.edge ? ` (edge: ${test.edge})` : "";
      const counts = `${plural(expected.length, "row")} only in expected, ${actual.length} only in actual`;
      return {
        severity: "BLOCK",
        rule: UNIT_TEST_RULE.code,
        name: UNIT_TEST_RULE.name,
        file: test.file,
        model: test.model,
        line: test.line,
        message: `unit test ${test.name}${edge} fails: ${counts}${parts.length ? `: ${parts.join("; ")}` : ""}`,
        fix: test.fix ?? "sql",
      } satisfies Finding;
    });
}

function isUnitData(data: unknown): data is UnitData {
  return typeof data === "object" && data !== null && Array.isArray((data as UnitData).tests);
}
