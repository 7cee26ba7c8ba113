/**
 * The warehouse registry: an explicit list, one entry per file in this
 * folder, each a defineDialect (define.ts). A test proves it equals the
 * folder. Every reader of a warehouse's facts (constructsOf, mapType,
 * adapterMacros, duckdbSettings, the division macros, the LIKE rewrite, the
 * transpiler's dialect name) goes through it.
 *
 * A warehouse's file (its construct table, and with it the rewrites) is
 * loaded the first time it is read: a DuckDB project's run loads none of
 * them, a Snowflake project's only Snowflake's.
 */
import type { WarehouseDialect } from "../define.ts";
import type { Warehouse } from "../dialects.ts";

type Module = { default: WarehouseDialect };

const FILES: Record<Warehouse, () => Module> = {
  bigquery: () => require("./bigquery.ts") as Module,
  databricks: () => require("./databricks.ts") as Module,
  postgres: () => require("./postgres.ts") as Module,
  redshift: () => require("./redshift.ts") as Module,
  snowflake: () => require("./snowflake.ts") as Module,
  spark: () => require("./spark.ts") as Module,
};

const loaded = new Map<Warehouse, WarehouseDialect>();

/** One warehouse's dialect. */
export function warehouse(name: Warehouse): WarehouseDialect {
  let dialect = loaded.get(name);
  if (!dialect) {
    dialect = FILES[name]().default;
    loaded.set(name, dialect);
  }
  return dialect;
}

/** Every warehouse's dialect by name; reading one loads its file. */
export const WAREHOUSES = Object.defineProperties(
  {},
  Object.fromEntries(
    (Object.keys(FILES) as Warehouse[]).map((name) => [name, { enumerable: true, get: () => warehouse(name) }]),
  ),
) as Readonly<Record<Warehouse, WarehouseDialect>>;
