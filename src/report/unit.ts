/**
 * `slp unit`'s report: one line per test (verdict, model::test, edge), a
 * failure's diff and an error's place and fix indented under it, then the
 * summary line; the same verdicts as envelope data and as JUnit cases.
 */
import { EXIT } from "../core/exit-codes.ts";
import { decimalsMayBeShortened, shortDecimal } from "../core/numbers.ts";
import type { Report, ReportCase, ReportError } from "../core/report.ts";
import { plural } from "../core/text.ts";
import type { DiffTable, UnitResult, UnitRun } from "../unit/types.ts";
import type { UnitData } from "../schemas/unit.ts";
import type { FixKind } from "../schemas/finding.ts";
import { testKey } from "../unit/types.ts";

/** At most this many rows of a diff are printed per side; the JSON has them all. */
const DIFF_ROWS = 20;

/**
 * `written`: the testKey of each test this branch added or changed (a failure
 * of one is the test's to check first); null when the base could not be read.
 */
export function unitReport(run: UnitRun, written: ReadonlySet<string> | null = null): Report {
  const fixOf = (result: UnitResult): FixKind | null => (result.status === "pass" ? null : written?.has(testKey(result)) ? "test" : "sql");
  const counts = { pass: 0, fail: 0, error: 0, disabled: run.disabled.length };
  for (const result of run.results) counts[result.status]++;
  const lines: string[] = [];
  // An error DuckDB placed in a model's SQL is the model's, whichever test met it: said once, under the first.
  const firstWith = new Map<string, UnitResult>();
  const shown = new Map<UnitResult, string>();
  for (const result of run.results) {
    lines.push(
      `${result.status.toUpperCase()}\t${result.model}::${result.name}\t${result.edge ?? ""}${result.ran === "translated" || result.ran === "untranslatable" ? `\t${result.ran}` : ""}`,
    );
    if (result.status === "fail" && result.diff) lines.push(...diffLines(result.diff).map((line) => `\t${line}`));
    if (!result.error) continue;
    const key = modelErrorKey(result);
    const first = key === null ? undefined : firstWith.get(key);
    shown.set(
      result,
      first ? `not run: the SQL of model ${result.model} is refused, as under ${first.model}::${first.name} above` : describeError(result),
    );
    lines.push(`\t${shown.get(result)}`);
    if (key !== null && !first) firstWith.set(key, result);
  }
  const exitCode = counts.error > 0 ? EXIT.cannotJudge : counts.fail > 0 ? EXIT.blocked : EXIT.ok;
  const summary = summaryOf(run, counts, exitCode);
  const data: UnitData = {
    tests: run.results.map((result) => ({
      id: result.id,
      model: result.model,
      name: result.name,
      file: result.file,
      line: result.line,
      edge: result.edge,
      status: result.status,
      failures: result.status === "fail" ? 1 : 0,
      sql_from: result.sqlFrom,
      ran: result.ran,
      error: result.error && {
        message: result.error.message,
        file: result.error.file,
        line: result.error.line,
        column: result.error.column ?? null,
        fix: result.error.fix,
      },
      diff: result.diff,
      fixtures: result.fixtures,
      rendered_sql: result.renderedSql,
      fix: fixOf(result),
    })),
    counts,
    dialect: { name: run.dialect.dialect, from: run.dialect.from },
    disabled: run.disabled,
  };
  const said = new Set<string>();
  const errors: ReportError[] = run.results
    .filter((result) => {
      if (!result.error) return false;
      const key = modelErrorKey(result);
      if (key === null) return true;
      if (said.has(key)) return false;
      said.add(key);
      return true;
    })
    .map((result) => ({
      code: "E_UNIT",
      message: `${modelErrorKey(result) === null ? `${result.model}::${result.name}` : result.model}: ${result.error?.message}`,
      file: result.error?.file ?? null,
      line: result.error?.line ?? null,
      column: result.error?.column ?? null,
      fix: result.error?.fix ?? null,
    }));
  const cases: ReportCase[] = run.results.map((result) => ({
    suite: result.model,
    name: result.name,
    file: result.file,
    line: result.line,
    status: result.status,
    message: result.status === "fail" ? "actual differs from expected" : result.error ? result.error.message : "",
    details: result.status === "fail" && result.diff ? diffLines(result.diff).join("\n") : (shown.get(result) ?? ""),
    ...(result.status === "pass" ? {} : { fix: fixOf(result) ?? "sql" }),
  }));
  return { command: "unit", findings: [], lines, summary, exitCode, data, notes: run.notes, errors, cases };
}

function summaryOf(run: UnitRun, counts: { pass: number; fail: number; error: number; disabled: number }, exitCode: number): string {
  const total = run.results.length;
  if (total === 0) return `slp unit: no unit tests - OK${counts.disabled ? ` (${counts.disabled} disabled)` : ""}`;
  const parts = [
    counts.error ? plural(counts.error, "error") : "",
    counts.fail ? `${counts.fail} failed` : "",
    counts.pass ? `${counts.pass} passed` : "",
  ].filter(Boolean);
  const word = exitCode === EXIT.cannotJudge ? "ERROR" : exitCode === EXIT.blocked ? "FAILED" : "OK";
  const models = new Set(run.results.map((result) => result.model)).size;
  const manifest = run.results.filter((result) => result.sqlFrom === "manifest").length;
  const rendered = run.results.filter((result) => result.sqlFrom === "rendered").length;
  const source =
    manifest + rendered === 0
      ? ""
      : manifest === 0
        ? ", SQL rendered by slp"
        : rendered === 0
          ? ", SQL from target/manifest.json"
          : `, SQL rendered by slp for ${rendered}, from target/manifest.json for ${manifest}`;
  const disabled = counts.disabled ? `, ${counts.disabled} disabled` : "";
  return `slp unit: ${parts.join(", ")} - ${word} (${plural(total, "test")} of ${plural(models, "model")}${source}, ${dialectPart(run)}${disabled})`;
}

/** `dialect duckdb`, or `dialect snowflake: 3 translated, 1 untranslatable` (how the tests ran). */
function dialectPart(run: UnitRun): string {
  const name = `dialect ${run.dialect.dialect}`;
  if (run.dialect.dialect === "duckdb") return name;
  const translated = run.results.filter((result) => result.ran === "translated").length;
  const refused = run.results.filter((result) => result.ran === "untranslatable").length;
  const parts = [translated ? `${translated} translated` : "", refused ? `${refused} untranslatable` : ""].filter(Boolean);
  return parts.length > 0 ? `${name}: ${parts.join(", ")}` : name;
}

/** The same refusal of a model's SQL at the same place: the model's error, not each test's (null for any other error). */
function modelErrorKey(result: UnitResult): string | null {
  const error = result.error;
  if (!error || error.column === undefined || error.column === null) return null;
  return JSON.stringify([result.model, error.file, error.line, error.column, error.message]);
}

function describeError(result: UnitResult): string {
  const error = result.error;
  if (!error) return "";
  const where = error.file ? `${error.file}${error.line ? `:${error.line}${error.column ? `:${error.column}` : ""}` : ""}: ` : "";
  return `${where}${error.message}${error.fix ? `; ${error.fix}` : ""}`;
}

/**
 * The diff as daff prints it for dbt: `---` a row only in expected, `+++` a
 * row only in actual, `→` a row in both whose cells differ (`expected→actual`),
 * paired when they agree on the first compared column. Values print with at
 * most four significant decimals (the envelope's data has them in full).
 */
export function diffLines(diff: DiffTable): string[] {
  const expected = diff.rows.filter((row) => row.side === "expected");
  const actual = diff.rows.filter((row) => row.side === "actual");
  // Long decimals at four, unless two different rows would then read the same.
  const short = decimalsMayBeShortened(
    expected.map((row) => row.values),
    actual.map((row) => row.values),
  );
  const show = (value: string | null) => (value === null ? "NULL" : short ? shortDecimal(value) : value);
  const table: string[][] = [["@@", ...diff.columns]];
  const pairedActual = new Set<number>();
  const body: string[][] = [];
  for (const row of expected.slice(0, DIFF_ROWS)) {
    const match = diff.columns.length > 1 ? actual.findIndex((other, i) => !pairedActual.has(i) && other.values[0] === row.values[0]) : -1;
    if (match >= 0) {
      pairedActual.add(match);
      const other = actual[match]!;
      body.push([
        "→",
        ...row.values.map((value, i) => (value === other.values[i] ? show(value) : `${show(value)}→${show(other.values[i] ?? null)}`)),
      ]);
    } else body.push(["---", ...row.values.map(show)]);
  }
  actual.forEach((row, i) => {
    if (!pairedActual.has(i) && body.length < 2 * DIFF_ROWS) body.push(["+++", ...row.values.map(show)]);
  });
  table.push(...body);
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => [...(row[i] ?? "")].length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] as number) - [...cell].length)))
      .join(" | ")
      .trimEnd(),
  );
  const hidden =
    expected.length +
    actual.length -
    expected.slice(0, DIFF_ROWS).length -
    body.filter((row) => row[0] === "+++").length -
    pairedActual.size;
  if (hidden > 0) lines.push(`... ${plural(hidden, "more row")} (all of them in --format json)`);
  return lines;
}
