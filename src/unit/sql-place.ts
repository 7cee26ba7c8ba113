/**
 * Where an error DuckDB reports in a model's SQL is in the model's own .sql
 * file. DuckDB places a parse or binder error in the query slp built around
 * the model (fixtures as CTEs, the model as a subquery), in SQL slp may have
 * translated from a warehouse dialect, rendered from Jinja: the place is
 * taken back through each step. A parse error is asked again of the model's
 * SQL alone, so its place and words are the model's own (an unclosed `(`
 * would otherwise meet the wrapper's `) as ...` and name that `as`). Text a
 * Jinja tag produced is placed at the tag; a place the translation moved is
 * the statement's start, said as such, never a line that only looks right.
 */
import type { Database, DatabaseError } from "../engine/duckdb.ts";
import { readText } from "../project/files/source.ts";
import { SourceMap } from "../sql/source-map.ts";
import { MODEL_TAIL } from "./compare.ts";

export interface ModelPlace {
  /** 1-based line and column in the model's file. */
  line: number;
  column: number;
  /** DuckDB's message, for the model's SQL alone when it is a parse error. */
  message: string;
  /** The place is the statement's start: the translation moved the text DuckDB names. */
  statementStart: boolean;
}

export interface PlaceInput {
  /** The model's SQL as DuckDB ran it (translated, for a warehouse dialect). */
  ran: string;
  /** The model's SQL as rendered (or dbt's compiled code), before any translation. */
  rendered: string;
  /** The project folder and the model's file in it. */
  projectDir: string;
  file: string;
  database: Database;
  lane: number;
}

/** The error's place in the model's file, or null when DuckDB names none, or names one in slp's own text. */
export async function placeInModel(error: DatabaseError, input: PlaceInput): Promise<ModelPlace | null> {
  const { ran } = input;
  let message = error.message;
  let offset: number | null = null;
  if (/^(Parser|Syntax) Error/.test(error.message)) {
    const alone = await input.database.parseError(ran, input.lane);
    if (alone) {
      message = alone.message;
      // "syntax error at end of input" names no place: the end of the model's SQL is it.
      offset = alone.offset ?? lastToken(ran);
    }
  }
  if (offset === null && error.offset !== null && error.queryLength !== null) {
    const start = error.queryLength - MODEL_TAIL.length - ran.length;
    const inside = error.offset - start;
    if (inside >= 0 && inside <= ran.length) offset = inside;
  }
  if (offset === null) return null;
  // A given's rows are a VALUES list standing for the relation the model reads: DuckDB calls a table a table.
  message = message.replace(/^Binder Error: Values list "/, 'Binder Error: Table "');
  let source: string;
  try {
    source = readText(input.projectDir, input.file);
  } catch {
    return null;
  }
  let renderedOffset = offset;
  let statementStart = false;
  if (input.rendered !== ran) {
    const back = new SourceMap(input.rendered, ran).sourceOffset(offset);
    if (back.exact) renderedOffset = back.offset;
    else {
      renderedOffset = firstToken(input.rendered);
      statementStart = true;
    }
  }
  const map = new SourceMap(source, input.rendered);
  const { line, column } = map.lineColumn(map.sourceOffset(renderedOffset).offset);
  return { line, column, message, statementStart };
}

/** The index of the SQL's first token, past blanks and comments. */
function firstToken(sql: string): number {
  return /^(?:\s+|--[^\n]*|\/\*[\s\S]*?\*\/)*/.exec(sql)?.[0].length ?? 0;
}

/** The index of the SQL's last character that is not a blank (a `;` was trimmed already). */
function lastToken(sql: string): number {
  let end = sql.length;
  while (end > 0 && /\s/.test(sql[end - 1] as string)) end--;
  return Math.max(0, end - 1);
}

/** A 1-based line and column of the model's rendered SQL, placed in the model's file; null when the file cannot be read or the place is past the SQL. */
export function renderedPlace(
  rendered: string,
  at: { line: number; column: number },
  input: Pick<PlaceInput, "projectDir" | "file">,
): { line: number; column: number } | null {
  const lines = rendered.split("\n");
  if (at.line < 1 || at.line > lines.length) return null;
  const offset = lines.slice(0, at.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + Math.max(0, at.column - 1);
  let source: string;
  try {
    source = readText(input.projectDir, input.file);
  } catch {
    return null;
  }
  const map = new SourceMap(source, rendered);
  return map.lineColumn(map.sourceOffset(Math.min(offset, rendered.length)).offset);
}
