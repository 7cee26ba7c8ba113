/**
 * `slp diff-from-row`: the single result row of a user's own diff query (CSV
 * with a header, or a JSON object) turned into a valid `diff.json`, with the
 * reference's column conventions (spec/rules.md §7.4). Converting a row by
 * hand was error-prone; a converter that guesses is worse, so every doubtful
 * input is an error that names the column, never a default.
 *
 * Columns read (names matched exactly, after trimming spaces in a CSV header):
 * - `row_delta`, `removed_pks`: required whole numbers (`8400.0` is 8400);
 *   `removed_pks` is 0 or more;
 * - `<m>_delta_pct`: metric m's percentage change; an empty cell, `null` or
 *   `none` stays null (production's value is 0), never 0;
 * - `<m>_value`: metric m's value (a metric with only a value gets
 *   `delta_pct: null`); columns starting `reconciliation_` are not metrics;
 * - `<m>_changed`: a count (a whole number, 0 or more); above 0 puts column m in `altered_columns`;
 * - every number is finite and at most 2^53 - 1 in magnitude: past that a
 *   double cannot hold every whole number, and a count must not be rounded;
 * - `reconciliation_model_value` + `reconciliation_external_value`: both,
 *   or neither;
 * - `window_column`, `window_start`, `window_end`: all three, or none;
 * - `prod_null_keys`, `pr_null_keys`, `prod_duplicate_keys`,
 *   `pr_duplicate_keys` (what `slp diff --emit-sql` returns): above 0, the
 *   diff is undefined and the row is refused.
 * Any other column is ignored.
 */
import { InputError } from "../../core/errors.ts";
import { compareCodePoints, sortByText } from "../../core/text.ts";
import { isMapping, type Mapping, type Value } from "../../core/values.ts";
import { Diff } from "../../schemas/diff.ts";
import { schemaErrors } from "../../schemas/validate.ts";
import { parseCsvWithLines } from "../files/csv.ts";
import { parseJsonWithLines } from "../files/json.ts";
import { lineAt } from "../files/lines.ts";

export interface RowSource {
  /** The input as the user named it (`-` for standard input). */
  file: string;
  /** The line a column's cell is on, when the row was read from a file (readRow). */
  lineOf?: (column: string) => number | undefined;
}

/** One result row: column name -> cell (text from CSV; any JSON value from JSON). */
export type Row = Map<string, Value>;

const FIX = "give the one result row of the diff query: a CSV header and one line, or one JSON object";

/** Reads exactly one row from CSV or JSON text (JSON when it starts with `{` or `[`), with the line of each cell. */
export function readRow(text: string, source: RowSource): { row: Row; lineOf: (column: string) => number | undefined } {
  const body = text.replace(/^\uFEFF/, "");
  const fail = (message: string): never => {
    throw new InputError(message, { file: source.file, fix: FIX });
  };
  if (body.trim() === "") return fail("no row: the input is empty");
  const first = body.trimStart()[0];
  if (first === "{" || first === "[") {
    const document = parseJsonWithLines(body, { file: source.file, fix: FIX });
    const value = document.value;
    const rows = Array.isArray(value) ? value : [value];
    if (rows.length === 0) return fail("no row: the JSON list is empty");
    if (rows.length > 1) return fail(`${rows.length} rows; a diff is made from exactly one (aggregate the query to one row)`);
    const row = rows[0];
    if (!isMapping(row)) return fail("the JSON row must be an object of column: value");
    const at = Array.isArray(value) ? [0] : [];
    return { row: new Map(Object.entries(row)), lineOf: (column) => lineAt(document, [...at, column]) };
  }
  const read = parseCsvWithLines(body, { file: source.file, fix: FIX });
  const records = read.map((record) => record.cells);
  const header = (records[0] ?? []).map((name) => name.trim());
  const seen = new Set<string>();
  const twice = header.find((name) => seen.size === seen.add(name).size);
  if (twice !== undefined) return fail(`the column ${twice} appears twice in the header`);
  if (records.length < 2) return fail("no row: the CSV has a header and no row under it");
  if (records.length > 2) return fail(`${records.length - 1} rows; a diff is made from exactly one (aggregate the query to one row)`);
  const cells = records[1] as string[];
  if (cells.length !== header.length) {
    return fail(`the row has ${cells.length} cells and the header ${header.length} columns`);
  }
  // Every cell of the one row is on its line (the one it ends on, for a quoted cell across lines).
  const line = read[1]?.line;
  return { row: new Map(header.map((name, index) => [name, cells[index] as string])), lineOf: () => line };
}

/** The diff.json a row describes, keys sorted; InputError naming the column on any doubtful cell. */
export function diffFromRow(model: string, row: Row, source: RowSource): Mapping {
  /** Refuses the row; `column` names the cell at fault, whose line the message then carries. */
  const fail = (message: string, column?: string): never => {
    const line = column === undefined ? undefined : source.lineOf?.(column);
    throw new InputError(message, { file: source.file, line, fix: "correct the diff query's output" });
  };
  const number = (column: string): number => {
    const cell = row.get(column) as Value;
    if (isEmpty(cell)) return fail(`${column} is empty; it must be a number`, column);
    const parsed = toNumber(cell);
    if (parsed === null) return fail(`${column} is ${shown(cell)}, which is not a number`, column);
    if (!Number.isFinite(parsed)) return fail(`${column} is ${shown(cell)}, which is not a finite number`, column);
    if (Math.abs(parsed) > Number.MAX_SAFE_INTEGER) {
      return fail(
        `${column} is ${shown(cell)}, beyond 9,007,199,254,740,991 (2^53 - 1), where a number can no longer be held exactly; slp refuses it rather than round it`,
        column,
      );
    }
    return parsed;
  };
  const whole = (column: string): number => {
    const value = number(column);
    if (!Number.isInteger(value)) fail(`${column} is ${shown(row.get(column) as Value)}, which is not a whole number`, column);
    return value;
  };

  for (const side of ["prod", "pr"]) {
    const name = side === "prod" ? "production" : "the branch";
    for (const [column, what] of [
      [`${side}_null_keys`, "a null primary key"],
      [`${side}_duplicate_keys`, "a primary key another row also has"],
    ]) {
      if (row.has(column as string) && number(column as string) > 0) {
        fail(`${column} is ${shown(row.get(column as string) as Value)}: rows of ${name} with ${what} make the diff undefined`, column);
      }
    }
  }
  const missing = ["row_delta", "removed_pks"].filter((column) => !row.has(column));
  if (missing.length > 0) fail(`missing required column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
  const rowDelta = whole("row_delta");
  const removedPks = whole("removed_pks");
  if (removedPks < 0)
    fail(`removed_pks is ${shown(row.get("removed_pks") as Value)}; keys that disappeared cannot be fewer than 0`, "removed_pks");

  const metrics = new Map<string, { delta_pct: number | null; value?: number }>();
  const metric = (name: string) => {
    let entry = metrics.get(name);
    if (!entry) {
      entry = { delta_pct: null };
      metrics.set(name, entry);
    }
    return entry;
  };
  const altered: string[] = [];
  for (const column of row.keys()) {
    const isMetric = !column.startsWith("reconciliation_");
    if (isMetric && column.endsWith("_delta_pct") && column.length > "_delta_pct".length) {
      const cell = row.get(column) as Value;
      metric(column.slice(0, -"_delta_pct".length)).delta_pct = isEmpty(cell) ? null : number(column);
    } else if (isMetric && column.endsWith("_value") && column.length > "_value".length) {
      metric(column.slice(0, -"_value".length)).value = number(column);
    } else if (column.endsWith("_changed") && column.length > "_changed".length) {
      const count = whole(column);
      if (count < 0) fail(`${column} is ${shown(row.get(column) as Value)}; a count of changed rows cannot be below 0`, column);
      if (count > 0) altered.push(column.slice(0, -"_changed".length));
    }
  }

  const diff: Mapping = {
    altered_columns: sortByText(altered),
    metrics: Object.fromEntries(
      [...metrics.entries()].sort(([a], [b]) => compareCodePoints(a, b)).map(([name, entry]) => [name, sortedKeys(entry)]),
    ),
    model,
    removed_pks: removedPks,
    row_delta: rowDelta,
  };

  const given = (column: string) => row.has(column) && !isEmpty(row.get(column) as Value);
  const reconciliation = ["reconciliation_model_value", "reconciliation_external_value"];
  const present = reconciliation.filter(given);
  if (present.length === 1) {
    fail(`${present[0]} is given and ${reconciliation.find((column) => !given(column))} is not; the reconciliation needs both numbers`);
  }
  if (present.length === 2) {
    diff.reconciliation = { external_value: number("reconciliation_external_value"), model_value: number("reconciliation_model_value") };
  }

  const window = ["window_column", "window_end", "window_start"];
  const framed = window.filter(given);
  if (framed.length > 0 && framed.length < window.length) {
    fail(
      `${framed.join(", ")} given without ${window.filter((column) => !given(column)).join(", ")}; a window needs its column, start and end`,
    );
  }
  if (framed.length === window.length) {
    diff.window = Object.fromEntries(
      window.map((column) => {
        const cell = row.get(column) as Value;
        if (typeof cell !== "string" && typeof cell !== "number") fail(`${column} is ${shown(cell)}; it must be text`, column);
        return [column.slice("window_".length), String(cell).trim()];
      }),
    );
  }

  const errors = schemaErrors(Diff, diff, "diff");
  if (errors.length > 0) fail(`the row does not make a valid diff.json: ${errors.join("; ")}`);
  return sortedKeys(diff);
}

/** The JSON slp writes: two-space indented, keys sorted, one final newline. */
export function diffJsonText(diff: Mapping): string {
  return `${JSON.stringify(diff, null, 2)}\n`;
}

// --- internal ---

const NUMERIC = /^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;

function isEmpty(cell: Value | undefined): boolean {
  if (cell === null || cell === undefined) return true;
  return typeof cell === "string" && ["", "null", "none"].includes(cell.trim().toLowerCase());
}

/** A JSON number, or text that is a decimal number; null for anything else (booleans included). */
function toNumber(cell: Value): number | null {
  if (typeof cell === "number") return cell;
  if (typeof cell !== "string") return null;
  const text = cell.trim();
  if (/^[-+]?(?:nan|inf|infinity)$/i.test(text)) return Number.NaN;
  return NUMERIC.test(text) ? Number(text) : null;
}

/** A cell as the user would recognise it: text quoted, numbers as written by JSON (NaN included). */
function shown(cell: Value): string {
  if (typeof cell === "number") return String(cell);
  return JSON.stringify(cell);
}

function sortedKeys<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareCodePoints(a, b))) as T;
}
