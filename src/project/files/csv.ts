/**
 * The CSV adapter: the only module that imports a CSV library. Reads the
 * result of a user's diff query as a warehouse exports it (RFC 4180: quoted
 * cells, doubled quotes, CRLF or LF, a UTF-8 byte-order mark) into rows of
 * text cells; blank lines are skipped, as Python's csv.DictReader skips them.
 */
import type * as CsvParse from "csv-parse/sync";
import { InputError } from "../../core/errors.ts";

/** Every record, header included, as text cells; InputError naming the line when the text is not CSV. */
export function parseCsv(text: string, source: { file: string; fix: string }): string[][] {
  return parsed<string[]>(text, source, false);
}

/** As parseCsv, each record with the line it ends on (a quoted cell may span lines). */
export function parseCsvWithLines(text: string, source: { file: string; fix: string }): { cells: string[]; line: number }[] {
  return parsed<{ record: string[]; info: { lines: number } }>(text, source, true).map(({ record, info }) => ({
    cells: record,
    line: info.lines,
  }));
}

function parsed<T>(text: string, source: { file: string; fix: string }, info: boolean): T[] {
  // Loaded on first use, so the tasks that never read CSV never pay for it.
  const { parse } = require("csv-parse/sync") as typeof CsvParse;
  try {
    return parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, info }) as T[];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new InputError(`not valid CSV: ${(error as Error).message}`, { file: source.file, line, fix: source.fix }, { cause: error });
  }
}
