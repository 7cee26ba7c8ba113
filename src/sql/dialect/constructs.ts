/**
 * The contract: every construct slp runs per warehouse dialect, how it runs
 * on DuckDB (`same` meaning as written, `translated` by the transpiler,
 * `corrected` by slp where the transpiler is wrong, `refused`), and the
 * vendor's documented examples each is tested against (test/dialects*.test.ts).
 * A function or operator not in a dialect's table is refused by name.
 */
import type { Construct } from "./construct.ts";
import type { Dialect } from "./dialects.ts";
import { BIGQUERY } from "./tables/bigquery.ts";
import { DATABRICKS, SPARK_OWN } from "./tables/databricks.ts";
import { POSTGRES } from "./tables/postgres.ts";
import { REDSHIFT } from "./tables/redshift.ts";
import { SNOWFLAKE } from "./tables/snowflake.ts";

export type { Call, Construct, Example } from "./construct.ts";

const TABLES: Record<Exclude<Dialect, "duckdb">, Construct[]> = {
  snowflake: SNOWFLAKE,
  bigquery: BIGQUERY,
  databricks: DATABRICKS,
  spark: [...DATABRICKS, ...SPARK_OWN],
  redshift: REDSHIFT,
  postgres: POSTGRES,
};

const INDEX = new Map<string, Map<string, Construct>>();

/** The table of one dialect, by construct name. */
export function constructsOf(dialect: Exclude<Dialect, "duckdb">): Map<string, Construct> {
  let index = INDEX.get(dialect);
  if (!index) {
    index = new Map();
    // A later entry (the dialect's own) replaces a common one of the same name.
    for (const construct of TABLES[dialect]) index.set(construct.name, construct);
    INDEX.set(dialect, index);
  }
  return index;
}

/** Every dialect's table, for the README and the tests (Spark: only where it differs from Databricks). */
export function allConstructs(): [Exclude<Dialect, "duckdb">, Construct[]][] {
  return (Object.keys(TABLES) as Exclude<Dialect, "duckdb">[]).map((dialect) => [
    dialect,
    dialect === "spark" ? SPARK_OWN : [...constructsOf(dialect).values()],
  ]);
}
