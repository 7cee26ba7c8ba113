/**
 * A real parser for each warehouse dialect slp emits SQL for, to prove the
 * emitted queries are valid there: sql-parser-cst (through slp's adapter)
 * for BigQuery and PostgreSQL, DuckDB itself for DuckDB, and the
 * transpiler adapter's validator (`@polyglot-sql/sdk`) for Snowflake,
 * Databricks and Redshift.
 */
import type { DialectName } from "../../src/data/dialect.ts";
import { Database } from "../../src/engine/duckdb.ts";
import { parseErrorsIn } from "../../src/sql/dialect/transpiler.ts";
import { parseSql } from "../../src/sql/parser.ts";

/** The parser's errors for `sql` in `dialect`, [] when it parses; `parser` names which parser judged it. */
export async function parseErrors(sql: string, dialect: DialectName): Promise<{ parser: string; errors: string[] }> {
  switch (dialect) {
    case "bigquery":
    case "postgres": {
      const outcome = parseSql(sql, dialect);
      return { parser: `sql-parser-cst (${dialect})`, errors: "error" in outcome ? [outcome.error] : [] };
    }
    case "duckdb": {
      // DuckDB's own parser, without binding (the tables need not exist): json_serialize_sql.
      const db = await Database.open();
      try {
        const result = await db.query(`select json_serialize_sql('${sql.replace(/'/g, "''")}')`);
        const parsed = JSON.parse(result.rows[0]?.[0] as string) as { error: boolean; error_message?: string; statements?: unknown[] };
        if (parsed.error) return { parser: "DuckDB", errors: [parsed.error_message ?? "does not parse"] };
        return { parser: "DuckDB", errors: parsed.statements?.length === 1 ? [] : [`${parsed.statements?.length} statements`] };
      } finally {
        db.close();
      }
    }
    case "snowflake":
    case "databricks":
    case "redshift": {
      return { parser: `@polyglot-sql/sdk (${dialect})`, errors: await parseErrorsIn(sql, dialect) };
    }
  }
}
