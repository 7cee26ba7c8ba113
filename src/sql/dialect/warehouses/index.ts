/**
 * The warehouse registry: an explicit list of static imports, one per file
 * in this folder, each a defineDialect (define.ts). A test proves it equals
 * the folder. Every reader of a warehouse's facts (constructsOf, mapType,
 * adapterMacros, duckdbSettings, the division macros, the LIKE rewrite, the
 * transpiler's dialect name) goes through it.
 */
import type { WarehouseDialect } from "../define.ts";
import type { Warehouse } from "../dialects.ts";
import bigquery from "./bigquery.ts";
import databricks from "./databricks.ts";
import postgres from "./postgres.ts";
import redshift from "./redshift.ts";
import snowflake from "./snowflake.ts";
import spark from "./spark.ts";

export const WAREHOUSES: Record<Warehouse, WarehouseDialect> = { bigquery, databricks, postgres, redshift, snowflake, spark };

/** One warehouse's dialect. */
export function warehouse(name: Warehouse): WarehouseDialect {
  return WAREHOUSES[name];
}
