/**
 * dbt's cross-database macros as each adapter writes them (dbt-adapters'
 * `<adapter>__<macro>` implementations, each warehouse's `crossDbMacros` in
 * warehouses/<name>.ts): a Snowflake model's `{{ dateadd(...) }}` renders the
 * Snowflake SQL dbt-snowflake would send, which the translation then runs
 * with Snowflake's meaning. What an adapter writes in a way slp does not
 * translate is a refusal at render time.
 */
import type { Macro } from "./adapter-sql.ts";
import type { Dialect } from "./dialects.ts";
import { warehouse } from "./warehouses/index.ts";

/** The cross-database macros an adapter writes its own way (empty for DuckDB). */
export function adapterMacros(dialect: Dialect): Record<string, Macro> {
  return dialect === "duckdb" ? {} : warehouse(dialect).crossDbMacros;
}

/** The prefixes adapter.dispatch tries, most specific first (dbt-redshift inherits from dbt-postgres). */
export function dispatchPrefixes(dialect: Dialect): string[] {
  return [dialect, ...(dialect === "duckdb" ? [] : warehouse(dialect).adapterInherits), "default"];
}
