/**
 * The closed window a diff is measured over (framework Stage E step 2: "a
 * closed event_time window, identical on both sides"): `[COLUMN:]START:END`,
 * both ends included. A date END covers its whole day, so a timestamp column
 * read through 2025-12-03 keeps the evening of the 3rd; the predicate is
 * written with plain literals every warehouse coerces to the column's type,
 * which keeps partition pruning working.
 */
import { UsageError } from "../core/errors.ts";
import { stringLiteral, type DialectName } from "./dialect.ts";

export type BoundKind = "date" | "timestamp" | "number";

export interface Window {
  /** The column, or null: each model's dbt `event_time`. */
  column: string | null;
  start: string;
  end: string;
  kind: BoundKind;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

const USAGE = "usage: --window [COLUMN:]START:END, e.g. --window ordered_at:2025-12-01:2025-12-31";

function kindOf(text: string): BoundKind | null {
  if (DATE.test(text)) return validDate(text) ? "date" : null;
  if (TIMESTAMP.test(text)) return validDate(text.slice(0, 10)) ? "timestamp" : null;
  if (NUMBER.test(text)) return "number";
  return null;
}

function validDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/**
 * Reads `[COLUMN:]START:END`. Timestamps hold colons too, so the text is
 * split where both halves are bounds of one kind; anything else, or a START
 * after END, is a usage error.
 */
export function parseWindow(text: string): Window {
  const fail = (why: string): never => {
    throw new UsageError(`argument --window: ${why}`, USAGE);
  };
  const candidates: Window[] = [];
  const colons = [...text.matchAll(/:/g)].map((match) => match.index as number);
  const tryBounds = (column: string | null, rest: string, offset: number) => {
    for (const at of colons) {
      if (at <= offset) continue;
      // A colon at `at` in the whole text sits at `at - offset - 1` in `rest`.
      const start = rest.slice(0, at - offset - 1);
      const end = rest.slice(at - offset);
      const kind = kindOf(start);
      if (kind !== null && kind === kindOf(end)) candidates.push({ column, start, end, kind });
    }
  };
  tryBounds(null, text, -1);
  const first = text.indexOf(":");
  if (first > 0 && kindOf(text.slice(0, first)) === null) tryBounds(text.slice(0, first), text.slice(first + 1), first);
  if (candidates.length === 0) {
    fail(`'${text}' is not COLUMN:START:END with two dates, two timestamps or two numbers`);
  }
  if (candidates.length > 1) fail(`'${text}' can be read more than one way; write the timestamps with a T (2025-12-01T10:00:00)`);
  const window = candidates[0] as Window;
  if (window.column !== null && !/^[^\s:]+$/.test(window.column)) fail(`'${window.column}' is not a column name`);
  const before = window.kind === "number" ? Number(window.start) <= Number(window.end) : normal(window.start) <= normal(window.end);
  if (!before) fail(`the window starts (${window.start}) after it ends (${window.end})`);
  return window;
}

/** `column >= START and column < END + 1 day` (a date), else `... <= END`. */
export function windowPredicate(window: Window, column: string, dialect: DialectName): string {
  if (window.kind === "number") return `${column} >= ${window.start} and ${column} <= ${window.end}`;
  const start = stringLiteral(normal(window.start), dialect);
  if (window.kind === "timestamp") return `${column} >= ${start} and ${column} <= ${stringLiteral(normal(window.end), dialect)}`;
  return `${column} >= ${start} and ${column} < ${stringLiteral(nextDay(window.end), dialect)}`;
}

function normal(text: string): string {
  return text.replace("T", " ");
}

function nextDay(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}
