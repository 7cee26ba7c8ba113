/**
 * Which existing unit test would catch a survivor, read from what the
 * mutant does rather than from its shape: the test's own fixtures run
 * through the model and through the mutant, and the first place their
 * outputs part that the test's expect does not look at (a column it does
 * not list, or a row it does not have). The fix it names is one edit to a
 * test that already exists.
 */
import type { TestOutputs } from "../unit/run.ts";

export interface Separation {
  /** The unit test whose fixtures tell the mutant from the model. */
  test: string;
  /** column: the outputs part on columns the expect does not list; row: on a whole row the expect does not have. */
  kind: "column" | "row";
  /** The output columns to add to the expect (kind column), in the model's column order; every output column (kind row). */
  columns: string[];
  /** The expected row (1-based, as written) the parting row is, when the expect has it. */
  row: number | null;
  /** The expect's own values of that row, by column: what names the row in words. */
  where: Record<string, string | null>;
  /** The parting row's values on `columns`: as the model returns them, and as the mutant does (null when it returns no such row). */
  model: Record<string, string | null> | null;
  mutant: Record<string, string | null> | null;
}

/** Where the mutant's output over one test's fixtures parts from the model's; null when it does not (or the outputs cannot be set side by side). */
export function separation(test: string, original: TestOutputs | null, mutated: TestOutputs | null): Separation | null {
  if (!original || !mutated) return null;
  if (original.columns.join("\u0000") !== mutated.columns.join("\u0000")) return null;
  const onlyModel = multisetMinus(original.rows, mutated.rows);
  const onlyMutant = multisetMinus(mutated.rows, original.rows);
  if (onlyModel.length === 0 && onlyMutant.length === 0) return null;
  const lower = original.columns.map((column) => column.toLowerCase());
  const compared = original.expected.columns.map((column) => lower.indexOf(column.toLowerCase())).filter((index) => index >= 0);
  const projection = (row: (string | null)[]) => JSON.stringify(compared.map((index) => row[index] ?? null));
  const expectedRow = (row: (string | null)[]): number | null => {
    const key = projection(row);
    const found = original.expected.rows.findIndex((expected) => JSON.stringify(expected) === key);
    return found < 0 ? null : found + 1;
  };
  const whereOf = (row: (string | null)[]) =>
    Object.fromEntries(compared.map((index) => [original.columns[index] as string, row[index] ?? null]));
  const valuesOf = (row: (string | null)[], indexes: number[]) =>
    Object.fromEntries(indexes.map((index) => [original.columns[index] as string, row[index] ?? null]));
  for (const row of onlyModel) {
    const partner = onlyMutant.find((other) => projection(other) === projection(row));
    if (!partner) continue;
    const parting = original.columns.map((_, index) => index).filter((index) => row[index] !== partner[index]);
    const missing = parting.filter((index) => !compared.includes(index));
    if (missing.length === 0) continue;
    return {
      test,
      kind: "column",
      columns: missing.map((index) => original.columns[index] as string),
      row: expectedRow(row),
      where: whereOf(row),
      model: valuesOf(row, missing),
      mutant: valuesOf(partner, missing),
    };
  }
  // No row changed in place: the mutant drops a row the model returns, or adds one.
  const all = original.columns.map((_, index) => index);
  const dropped = onlyModel[0];
  if (dropped)
    return { test, kind: "row", columns: [...original.columns], row: null, where: {}, model: valuesOf(dropped, all), mutant: null };
  const added = onlyMutant[0] as (string | null)[];
  return { test, kind: "row", columns: [...original.columns], row: null, where: {}, model: null, mutant: valuesOf(added, all) };
}

/** The hint's words for a separation: which test, which cell, what to add. */
export function separationText(found: Separation): string {
  const values = (record: Record<string, string | null>) =>
    Object.entries(record)
      .map(([column, value]) => `${column} = ${shown(value)}`)
      .join(", ");
  if (found.kind === "column") {
    const what = `${found.columns.length === 1 ? "column" : "columns"} ${found.columns.join(", ")}`;
    const which =
      found.row !== null
        ? `its expected row ${found.row}${Object.keys(found.where).length > 0 ? ` (${values(found.where)})` : ""}`
        : `the row${Object.keys(found.where).length > 0 ? ` with ${values(found.where)}` : ""}`;
    return `add ${what} to the expect of unit test ${found.test}, which would then catch it: on ${which} the model returns ${values(found.model ?? {})}, the mutant ${values(found.mutant ?? {})}`;
  }
  return found.model
    ? `add the row (${values(found.model)}) to the expect of unit test ${found.test}, which would then catch it: the model returns that row over the test's given rows, the mutant does not`
    : `list every row the model returns in the expect of unit test ${found.test}, which would then catch it: over the test's given rows the mutant returns (${values(found.mutant ?? {})}), the model does not`;
}

function shown(value: string | null): string {
  return value === null ? "null" : value;
}

/** The rows of `a` that `b` does not have, counting duplicates (EXCEPT ALL), in `a`'s order. */
function multisetMinus(a: readonly (string | null)[][], b: readonly (string | null)[][]): (string | null)[][] {
  const counts = new Map<string, number>();
  for (const row of b) {
    const key = JSON.stringify(row);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const left: (string | null)[][] = [];
  for (const row of a) {
    const key = JSON.stringify(row);
    const count = counts.get(key) ?? 0;
    if (count > 0) counts.set(key, count - 1);
    else left.push(row);
  }
  return left;
}
