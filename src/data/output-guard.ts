/**
 * The release-blocking check of what Stage E is about to print and write:
 * only aggregates leave it. An output that holds rows of data, or a value of
 * a sensitive column (a spec's `sensitive_columns`, a column's
 * `meta: {sensitive: true}`), is a hard failure naming what, never a silent
 * scrub: something upstream let a value through, and the run says so. The
 * values are looked for with one aggregate query per relation (a count of
 * the sensitive values that appear among the output's words), so none of
 * them is ever read out of the database.
 */
import { InputError } from "../core/errors.ts";
import { isMapping, type Mapping } from "../core/values.ts";
import type { ModelDeclaration } from "../project/model.ts";
import { stringLiteral } from "./dialect.ts";
import type { DataEngine } from "./engine.ts";
import { fileRelationExists, relationSql, type Relation } from "./relation.ts";

/** The sensitive columns of one relation Stage E reads: a model's side (production, the branch) or what a query reads. */
export interface Watched {
  /** As named in a message: `fct_orders (the branch's build)`. */
  label: string;
  model: string;
  relation: Relation;
  columns: string[];
}

/** A value shorter than this is not looked for: "10" or "yes" is in any output, and so short a value identifies no one. */
const SHORTEST_LOOKED_FOR = 4;

/** The columns a model's spec lists as sensitive, and those its yml marks `meta: {sensitive: true}`, sorted. */
export function sensitiveColumns(model: ModelDeclaration): string[] {
  const spec = isMapping(model.spec) ? model.spec : {};
  const listed = Array.isArray(spec.sensitive_columns) ? spec.sensitive_columns.filter((c): c is string => typeof c === "string") : [];
  const flagged = model.columns.filter((column) => column.sensitive).map((column) => column.name);
  return [...new Set([...listed, ...flagged])].sort();
}

/**
 * Where `payload` holds rows of data: a list of records whose every key is a
 * column of a model Stage E read, holding plain values. Null when it holds none.
 */
export function rowShapedAt(payload: unknown, columns: ReadonlySet<string>, path = "data"): string | null {
  if (Array.isArray(payload)) {
    for (const [i, item] of payload.entries()) {
      if (isRecordOfColumns(item, columns)) return `${path}[${i}]`;
      const inner = rowShapedAt(item, columns, `${path}[${i}]`);
      if (inner) return inner;
    }
    return null;
  }
  if (isMapping(payload)) {
    for (const [key, value] of Object.entries(payload)) {
      const inner = rowShapedAt(value, columns, `${path}.${key}`);
      if (inner) return inner;
    }
  }
  return null;
}

function isRecordOfColumns(item: unknown, columns: ReadonlySet<string>): boolean {
  if (!isMapping(item)) return false;
  const entries = Object.entries(item as Mapping);
  return (
    entries.length > 0 && entries.every(([key, value]) => columns.has(key.toLowerCase()) && (value === null || typeof value !== "object"))
  );
}

/** The words of an output as a value could stand in it: split at spaces, quotes, brackets and separators, not inside an e-mail, a path or a number. */
export function outputWords(text: string): string[] {
  const words = new Set<string>();
  for (const word of text.split(/[\s"'`\\{}[\](),;:=<>|]+/)) {
    const trimmed = word.replace(/^[.!?…]+|[.!?…]+$/g, "");
    if (trimmed.length >= SHORTEST_LOOKED_FOR) words.add(trimmed);
  }
  return [...words].sort();
}

/**
 * The sensitive columns (`model.column`) one of whose values stands in
 * `text`, as a word or (a value of several words) anywhere in it. One
 * aggregate query per watched relation; nothing is read out but counts.
 */
export async function sensitiveValuesIn(text: string, watched: readonly Watched[], engine: DataEngine): Promise<string[]> {
  const words = outputWords(text);
  const found: string[] = [];
  if (words.length === 0) return found;
  const d = engine.dialect;
  const list = words.map((word) => stringLiteral(word, d.name)).join(", ");
  const whole = stringLiteral(text, d.name);
  for (const entry of watched) {
    if (entry.columns.length === 0) continue;
    // A side that is not there (a new model's production) or lacks a column holds none of its values.
    if (entry.relation.kind === "file" && !fileRelationExists(entry.relation)) continue;
    const present = new Set(
      (await engine.columns(entry.relation, `guard ${entry.model}`))?.map((column) => column.name.toLowerCase()) ?? [],
    );
    const columns = entry.columns.filter((column) => present.has(column.toLowerCase()));
    if (columns.length === 0) continue;
    const counts = columns.map((column, i) => {
      const value = `cast(${d.identifier(column)} as varchar)`;
      return `count(*) filter (where length(${value}) >= ${SHORTEST_LOOKED_FOR} and (${value} in (${list}) or (strpos(${value}, ' ') > 0 and strpos(${whole}, ${value}) > 0))) as hits_${i}`;
    });
    const rows = await engine.probe(`select ${counts.join(", ")} from ${relationSql(entry.relation, d)}`, `guard ${entry.model}`);
    const row = rows[0];
    columns.forEach((column, i) => {
      if (Number(row?.get(`hits_${i}`) ?? 0) > 0) found.push(`${entry.model}.${column} (${entry.label})`);
    });
  }
  return [...new Set(found)].sort();
}

/** What Stage E reads of each model (its relations, by side), watched for the model's sensitive columns. */
export function watchedOf(reads: readonly { model: ModelDeclaration; relation: Relation; side: string }[]): Watched[] {
  return reads.map(({ model, relation, side }) => ({
    label: side,
    model: model.name,
    relation,
    columns: sensitiveColumns(model),
  }));
}

/** Every column the models declare (lower-case), sensitive ones included: what a row of their data would be keyed by. */
export function columnsOf(models: readonly ModelDeclaration[]): Set<string> {
  return new Set(
    models
      .flatMap((model) => [...model.columns.map((column) => column.name), ...sensitiveColumns(model)])
      .map((name) => name.toLowerCase()),
  );
}

/** The hard failure: what was found, and that nothing of the output was printed or written. */
export function leakFailure(command: string, what: string): InputError {
  return new InputError(`the output of slp ${command} holds ${what}; nothing of it is printed or written`, {
    fix: "only aggregates leave Stage E: measure a sensitive column with an aggregate that keeps no one's value (count, count distinct), never min, max or the value itself, and never quote it into an error",
  });
}

/**
 * Checks a Stage E output before it is printed or written: `payload` is
 * everything that leaves (the report and the diff files), `columns` the
 * columns of the models read (for rows), `watched` their sensitive columns.
 */
export async function guardStageOutput(
  command: string,
  payload: unknown,
  columns: ReadonlySet<string>,
  watched: readonly Watched[],
  engine: DataEngine | null,
): Promise<void> {
  const rows = rowShapedAt(payload, columns);
  if (rows) throw leakFailure(command, `rows of data at ${rows}, where only aggregates may be`);
  if (!engine || watched.every((entry) => entry.columns.length === 0)) return;
  const found = await sensitiveValuesIn(JSON.stringify(payload), watched, engine);
  if (found.length > 0) throw leakFailure(command, `a value of the sensitive column ${found.join(", ")}`);
}
