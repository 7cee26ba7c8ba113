/**
 * The warehouse dialects slp runs on DuckDB, and the dbt adapter types that
 * name them: one list every part of the dialect support reads (each
 * warehouse's facts are in warehouses/<name>.ts).
 */

/** The dialects slp translates (and DuckDB, which it runs as written). */
export const DIALECTS = ["bigquery", "databricks", "duckdb", "postgres", "redshift", "snowflake", "spark"] as const;
export type Dialect = (typeof DIALECTS)[number];
/** A dialect slp translates (each one file under warehouses/). */
export type Warehouse = Exclude<Dialect, "duckdb">;

/** A dbt adapter type (profiles.yml `type:`) as the dialect slp translates from, or null when slp has none for it. */
export function dialectOfAdapter(type: string): Dialect | null {
  const name = type.trim().toLowerCase();
  return (DIALECTS as readonly string[]).includes(name) ? (name as Dialect) : null;
}

/** How the unit runner should treat a dialect: where it came from, for the summary line and messages. */
export interface DialectChoice {
  dialect: Dialect;
  /** Where slp read it: `slp.yml`, `--dialect`, `profiles.yml` (with the place), or the default. */
  from: string;
}
