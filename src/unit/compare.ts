/**
 * The compare stage: the expected rows cast to the model's output types
 * (spec/dbt-unit-tests.md §3.3-3.4), the compared columns, and the one query
 * that sets actual against expected as multisets (EXCEPT ALL both ways, so
 * order never matters, duplicates count, NULL equals NULL), read back as the
 * rows only in expected and only in actual.
 */
import type { Column } from "../engine/duckdb.ts";
import { RenderRefusal } from "../sql/dbt-context.ts";
import type { Dialect } from "../sql/dialect/dialects.ts";
import { refuseTextForNested } from "./fixtures.ts";
import { isJsonType, JSON_CANONICAL_MACRO, jsonValue, unknownJsonText } from "./json-values.ts";
import { castLiteral, quoteIdentifier, withClause } from "./sql.ts";
import type { DiffTable, FixtureRow, TestPlan } from "./types.ts";

/**
 * The expected rows as SQL, cast to the model's output types, and the columns compared. `dialect`: the one the
 * project is written in; a warehouse's JSON-backed values an expected JSON column's values are written as
 * (json-values.ts), where DuckDB's own JSON keeps dbt-duckdb's cast.
 */
export function expectedQuery(plan: TestPlan, output: Column[], dialect: Dialect = "duckdb"): { columns: Column[]; sql: string } {
  const semiStructured = dialect === "duckdb" ? null : dialect;
  if (plan.expectSql !== null) {
    const list = output.map((column) => quoteIdentifier(column.name)).join(", ");
    return { columns: output, sql: `select ${list} from (\n${plan.expectSql}\n) as __slp_expected_sql` };
  }
  const rows = plan.expectRows as FixtureRow[];
  if (rows.length === 0) return { columns: output, sql: "select * from __slp_actual limit 0" };
  // The compared columns are the first row's keys, after dbt moves the first row without a null to the top.
  const first = rows.find((row) => Object.values(row).every((value) => value !== null)) ?? (rows[0] as FixtureRow);
  const keys = Object.keys(first);
  const byLower = new Map(output.map((column) => [column.name.toLowerCase(), column]));
  const columns = keys.map((key) => {
    const column = byLower.get(key.toLowerCase());
    if (!column) {
      throw new RenderRefusal(
        `Invalid column name: '${key}' in unit test fixture for expected output. Accepted columns for expected output are: [${output.map((c) => `'${c.name}'`).join(", ")}]`,
        "name only columns the model returns",
      );
    }
    return column;
  });
  const wanted = keys
    .map((key) => key.toLowerCase())
    .sort()
    .join("\u0000");
  const values = rows.map((row, i) => {
    const own = Object.keys(row);
    if (
      own
        .map((key) => key.toLowerCase())
        .sort()
        .join("\u0000") !== wanted
    ) {
      throw new RenderRefusal(
        `expected row ${i + 1} has the columns [${own.join(", ")}], but the compared columns are [${keys.join(", ")}]`,
        "give every expected row the same columns (write null where you expect NULL); dbt pairs expected columns by position, so rows that differ compare wrongly there",
      );
    }
    const lower = new Map(own.map((key) => [key.toLowerCase(), row[key] ?? null]));
    for (const column of columns) refuseTextForNested(dialect, "expected output", column, lower.get(column.name.toLowerCase()));
    return keys.map((key) => lower.get(key.toLowerCase()) ?? null);
  });
  const tuples = values.map((row) => {
    const literals = row.map((value, i) => {
      const column = columns[i] as Column;
      // The output type says only JSON, not which warehouse type the model returns: text is refused (json-values.ts).
      const json = semiStructured !== null && isJsonType(column.type);
      return castLiteral(json ? jsonValue(value, unknownJsonText(semiStructured), column.name, "expected output") : value, column.type);
    });
    return `(${literals.join(", ")})`;
  });
  return {
    columns,
    sql: `select * from (values ${tuples.join(", ")}) as __slp_expected_rows(${columns.map((c) => quoteIdentifier(c.name)).join(", ")})`,
  };
}

/**
 * A column's value as the warehouse returns it to dbt, which compares what
 * comes back: BigQuery returns a NULL array as an empty one, and cannot return
 * an array holding a NULL (an error, "Array cannot have a null element").
 */
function returned(column: Column, dialect: string): string {
  const name = quoteIdentifier(column.name);
  if (dialect !== "bigquery" || !/\]$/.test(column.type.trim())) return name;
  return `case when list_bool_or(list_transform(${name}, lambda e: e is null)) then error('BigQuery cannot return an array with a NULL element (column ${column.name.replace(/'/g, "''")})') else coalesce(${name}, cast([] as ${column.type})) end as ${name}`;
}

/**
 * Actual against expected on the compared columns: the rows only in one side, as text, expected first.
 * `canonical`: a JSON column compares by its canonical text (json-values.ts), as the warehouse's own text of a
 * semi-structured value never depends on how its keys were written.
 */
export function compareQuery(
  fixtures: readonly { name: string; sql: string }[],
  modelSql: string,
  expected: { columns: Column[]; sql: string },
  dialect = "duckdb",
  canonical = false,
): string {
  const compared = (column: Column) =>
    canonical && isJsonType(column.type)
      ? `${JSON_CANONICAL_MACRO}(${quoteIdentifier(column.name)}) as ${quoteIdentifier(column.name)}`
      : returned(column, dialect);
  const columns = expected.columns.map(compared).join(", ");
  // Only where the warehouse returns or compares a value otherwise than DuckDB holds it are the expected rows read back too.
  const readBack = expected.columns.some((column) => compared(column) !== quoteIdentifier(column.name));
  const shown = expected.columns.map((column) => `cast(${quoteIdentifier(column.name)} as VARCHAR)`).join(", ");
  const order = expected.columns.map((_, i) => `${i + 2}`).join(", ");
  return withClause(
    [
      ...fixtures,
      { name: "__slp_actual", sql: `select ${columns} from (\n${modelSql}\n) as __slp_model` },
      { name: "__slp_expected", sql: readBack ? `select ${columns} from (\n${expected.sql}\n) as __slp_expected_values` : expected.sql },
      { name: "__slp_missing", sql: "select * from __slp_expected except all select * from __slp_actual" },
      { name: "__slp_extra", sql: "select * from __slp_actual except all select * from __slp_expected" },
    ],
    `select 'expected' as __slp_side, ${shown} from __slp_missing
union all
select 'actual' as __slp_side, ${shown} from __slp_extra
order by 1 desc${order ? `, ${order}` : ""}`,
  );
}

/** What follows the model's SQL at the end of outputQuery: where DuckDB's place of an error is counted back from (sql-place.ts). */
export const MODEL_TAIL = "\n) as __slp_model";

/** The model's output columns as DuckDB describes them over the fixtures; the query ends with the model's SQL and MODEL_TAIL. */
export function outputQuery(fixtures: readonly { name: string; sql: string }[], modelSql: string): string {
  return withClause(fixtures, `select * from (\n${modelSql}${MODEL_TAIL}`);
}

/** The rows the compare query returned, as the failure's diff; null when there is none (a pass). */
export function diffOf(rows: (string | null)[][], columns: Column[]): DiffTable | null {
  if (rows.length === 0) return null;
  return {
    columns: columns.map((column) => column.name),
    rows: rows.map((row) => ({ side: row[0] === "expected" ? "expected" : "actual", values: row.slice(1) })),
  };
}
