/** The DuckDB settings each dialect's SQL runs with. */
import type { Dialect } from "./dialects.ts";
import { warehouse } from "./warehouses/index.ts";

/**
 * The DuckDB settings a dialect's SQL needs to keep its meaning, as SET
 * statements run on every connection: the warehouses' functions work in UTC
 * unless told otherwise, NULLs sort where the warehouse sorts them (DuckDB's
 * own default is last either way, also inside an aggregate's ORDER BY, which
 * the transpiler leaves as written), and Postgres and Redshift divide
 * integers to an integer.
 */
export function duckdbSettings(dialect: Dialect): string[] {
  if (dialect === "duckdb") return [];
  const { nullOrder, integerDivision } = warehouse(dialect);
  return ["set TimeZone = 'UTC'", `set default_null_order = '${nullOrder}'`, ...(integerDivision ? ["set integer_division = true"] : [])];
}
