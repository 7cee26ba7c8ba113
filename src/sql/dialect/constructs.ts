/**
 * The contract: every construct slp runs per warehouse dialect, how it runs
 * on DuckDB (`same` meaning as written, `translated` by the transpiler,
 * `corrected` by slp where the transpiler is wrong, `refused`), and the
 * vendor's documented examples each is tested against (test/dialects*.test.ts).
 * Each warehouse's table is in warehouses/<name>.ts. A function or operator
 * not in a dialect's table is refused by name.
 */
import type { Construct } from "./construct.ts";
import type { Warehouse } from "./dialects.ts";
import { WAREHOUSES, warehouse } from "./warehouses/index.ts";

export type { Call, Construct, Example } from "./construct.ts";

const INDEX = new Map<string, Map<string, Construct>>();

/** The table of one dialect, by construct name. */
export function constructsOf(dialect: Warehouse): Map<string, Construct> {
  let index = INDEX.get(dialect);
  if (!index) {
    index = new Map();
    // A later entry (the dialect's own) replaces a common or inherited one of the same name.
    for (const construct of warehouse(dialect).constructs) index.set(construct.name, construct);
    INDEX.set(dialect, index);
  }
  return index;
}

/** Every dialect's table, for the docs and the tests (a dialect that inherits its parent's table: only its own entries). */
export function allConstructs(): [Warehouse, Construct[]][] {
  return Object.values(WAREHOUSES).map((dialect) => [
    dialect.name,
    dialect.inherited.includes("constructs") ? dialect.ownConstructs : [...constructsOf(dialect.name).values()],
  ]);
}
