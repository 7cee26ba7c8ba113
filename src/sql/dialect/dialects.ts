/**
 * The warehouse dialects slp runs on DuckDB, and the dbt adapter types that
 * name them: one list every part of the dialect support reads.
 */

/** The dialects slp translates (and DuckDB, which it runs as written). */
export const DIALECTS = ["bigquery", "databricks", "duckdb", "postgres", "redshift", "snowflake", "spark"] as const;
export type Dialect = (typeof DIALECTS)[number];

/** A dbt adapter type (profiles.yml `type:`) as the dialect slp translates from, or null when slp has none for it. */
export function dialectOfAdapter(type: string): Dialect | null {
  const name = type.trim().toLowerCase();
  return (DIALECTS as readonly string[]).includes(name) ? (name as Dialect) : null;
}

/** The dialect the transpiler reads for each of ours. */
export const TRANSPILER_DIALECT: Record<Exclude<Dialect, "duckdb">, string> = {
  bigquery: "bigquery",
  databricks: "databricks",
  postgres: "postgresql",
  redshift: "redshift",
  snowflake: "snowflake",
  spark: "spark",
};

/** How the unit runner should treat a dialect: where it came from, for the summary line and messages. */
export interface DialectChoice {
  dialect: Dialect;
  /** Where slp read it: `slp.yml`, `--dialect`, `profiles.yml` (with the place), or the default. */
  from: string;
}

/**
 * Where an ORDER BY without NULLS FIRST / LAST puts NULLs, in DuckDB's words
 * (DuckDB's own default is last either way): first ascending and last
 * descending in BigQuery and Spark/Databricks ("NULLs sort first if sort
 * order is ASC and last if DESC"); as the largest values in Snowflake (its
 * DEFAULT_NULL_ORDERING is LAST), Postgres and Redshift. Inside an aggregate
 * (array_agg(x order by y), which the transpiler leaves as written) too.
 */
const NULL_ORDER: Record<Exclude<Dialect, "duckdb">, string> = {
  bigquery: "nulls_first_on_asc_last_on_desc",
  databricks: "nulls_first_on_asc_last_on_desc",
  spark: "nulls_first_on_asc_last_on_desc",
  snowflake: "nulls_last_on_asc_first_on_desc",
  postgres: "nulls_last_on_asc_first_on_desc",
  redshift: "nulls_last_on_asc_first_on_desc",
};

/**
 * The DuckDB settings a dialect's SQL needs to keep its meaning, as SET
 * statements run on every connection: the warehouses' functions work in UTC
 * unless told otherwise, NULLs sort where the warehouse sorts them, and
 * Postgres and Redshift divide integers to an integer.
 */
export function duckdbSettings(dialect: Dialect): string[] {
  if (dialect === "duckdb") return [];
  return [
    "set TimeZone = 'UTC'",
    `set default_null_order = '${NULL_ORDER[dialect]}'`,
    ...(dialect === "postgres" || dialect === "redshift" ? ["set integer_division = true"] : []),
  ];
}
