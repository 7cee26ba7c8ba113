/**
 * Fixture rows as typed SQL, the way dbt's get_fixture_sql builds them
 * (spec/dbt-unit-tests.md §3.2-3.3): every column of the upstream relation,
 * omitted ones as typed NULLs, each value cast to the column's type. The
 * type comes from the upstream's declared `data_type` (or a seed's
 * column_types or CSV), else from the values themselves; a column nothing can
 * type is a refusal naming it.
 */
import { isMapping, type Value } from "../core/values.ts";
import type { Column as DeclaredColumn } from "../project/unit-project.ts";
import { RenderRefusal } from "./dbt-context.ts";

export type TypeSource = "declared" | "seed" | "values";

export interface FixtureColumn {
  name: string;
  type: string;
  from: TypeSource;
}

/** A row as the fixture gives it: column name as written -> value. CSV values are strings or null. */
export type FixtureRow = Record<string, Value>;

export interface FixtureInput {
  /** How the input is written in the test (`ref('stg_orders')`), for messages. */
  label: string;
  /** The upstream's columns as its yml declares them (maybe without types). */
  declared: DeclaredColumn[];
  /** The declared list is the whole relation (an enforced contract, a seed's header). */
  complete: boolean;
  /** Where declared types came from. */
  declaredFrom: TypeSource;
  rows: FixtureRow[];
  /** CSV rows: every value is text, typed like dbt's seed inference. */
  csv: boolean;
}

export interface TypedFixture {
  columns: FixtureColumn[];
  sql: string;
}

/** The typed SELECT standing in for one upstream relation. */
export function fixtureSql(input: FixtureInput): TypedFixture {
  const columns: { name: string; dataType: string | null; from: TypeSource }[] = input.declared.map((column) => ({
    name: column.name,
    dataType: column.dataType,
    from: input.declaredFrom,
  }));
  const byLower = new Map(columns.map((column, i) => [column.name.toLowerCase(), i]));
  const keyToColumn = new Map<string, number>();
  for (const row of input.rows) {
    for (const key of Object.keys(row)) {
      if (keyToColumn.has(key)) continue;
      let index = byLower.get(key.toLowerCase());
      if (index === undefined) {
        if (input.complete) {
          throw new RenderRefusal(
            `Invalid column name: '${key}' in unit test fixture for ${input.label}. Accepted columns for ${input.label} are: [${columns.map((c) => `'${c.name}'`).join(", ")}]`,
            "use the upstream relation's column names",
          );
        }
        index = columns.length;
        columns.push({ name: key, dataType: null, from: "values" });
        byLower.set(key.toLowerCase(), index);
      }
      keyToColumn.set(key, index);
    }
  }
  const values: Value[][] = input.rows.map((row) => {
    const out: Value[] = columns.map(() => null);
    for (const [key, value] of Object.entries(row)) out[keyToColumn.get(key) as number] = value;
    return out;
  });
  const typed: FixtureColumn[] = columns.map((column, i) => {
    if (column.dataType !== null) return { name: column.name, type: column.dataType, from: column.from };
    const inferred = inferType(values.map((row) => row[i] ?? null), input.csv);
    if (inferred.type === null) {
      throw new RenderRefusal(`cannot type column '${column.name}' of ${input.label}: ${inferred.why}`, `declare data_type for ${column.name} in the yml of ${input.label.replace(/^ref\('|'\)$/g, "")}, or give it a non-null value in a fixture row`);
    }
    return { name: column.name, type: inferred.type, from: "values" };
  });
  return { columns: typed, sql: selectRows(typed, values) };
}

/** `select * from (values (...), ...) as t(cols)`, or a typed empty select for no rows. */
export function selectRows(columns: { name: string; type: string }[], rows: Value[][]): string {
  if (columns.length === 0) return "select 1 as __slp_no_column limit 0";
  if (rows.length === 0) {
    return `select ${columns.map((column) => `cast(null as ${column.type}) as ${quoteIdentifier(column.name)}`).join(", ")} limit 0`;
  }
  const tuples = rows.map((row) => `(${columns.map((column, i) => castLiteral(row[i] ?? null, column.type)).join(", ")})`);
  return `select * from (values ${tuples.join(", ")}) as __slp_rows(${columns.map((column) => quoteIdentifier(column.name)).join(", ")})`;
}

export function castLiteral(value: Value, type: string): string {
  return `cast(${sqlLiteral(value)} as ${type})`;
}

/** A value as dbt's format_row writes it: strings quoted, numbers and booleans as Python prints them. */
export function sqlLiteral(value: Value): string {
  if (value === null) return "null";
  if (typeof value === "string") return `'${value.replace(/'/g, "''")}'`;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "'nan'";
    if (!Number.isFinite(value)) return value > 0 ? "'inf'" : "'-inf'";
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(sqlLiteral).join(", ")}]`;
  if (isMapping(value)) return `{${Object.entries(value).map(([key, item]) => `'${key.replace(/'/g, "''")}': ${sqlLiteral(item)}`).join(", ")}}`;
  return `'${String(value)}'`;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const INT = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const TIMESTAMPTZ = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[-+]\d{2}(:?\d{2})?)$/;

/**
 * The type a column's values imply. For CSV text, dbt's seed inference
 * (integer, double, boolean, date, timestamp, else varchar); for YAML values,
 * their YAML type (dates as written in YAML arrive as ISO text).
 */
export function inferType(values: readonly Value[], csv: boolean): { type: string | null; why: string } {
  const kinds = new Set<string>();
  for (const value of values) {
    if (value === null) continue;
    kinds.add(kindOf(value, csv));
  }
  if (kinds.size === 0) return { type: null, why: "no row gives it a value and its yml declares no data_type" };
  if (kinds.has("LIST")) return { type: null, why: "its values are lists or mappings, whose element types slp does not guess" };
  const has = (...names: string[]) => [...kinds].every((kind) => names.includes(kind));
  if (kinds.size === 1) return { type: [...kinds][0] as string, why: "" };
  if (has("INTEGER", "BIGINT")) return { type: "BIGINT", why: "" };
  if (has("INTEGER", "BIGINT", "DOUBLE")) return { type: "DOUBLE", why: "" };
  if (has("DATE", "TIMESTAMP")) return { type: "TIMESTAMP", why: "" };
  if (csv && has("INTEGER", "BIGINT", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP", "TIMESTAMPTZ", "VARCHAR")) return { type: "VARCHAR", why: "" };
  if (has("DATE", "TIMESTAMP", "TIMESTAMPTZ", "VARCHAR")) return { type: "VARCHAR", why: "" };
  return { type: null, why: `its values mix ${[...kinds].sort().join(" and ")}` };
}

function kindOf(value: Value, csv: boolean): string {
  if (typeof value === "boolean") return "BOOLEAN";
  if (typeof value === "number") return Number.isInteger(value) ? (Math.abs(value) < 2 ** 31 ? "INTEGER" : "BIGINT") : "DOUBLE";
  if (typeof value === "string") {
    if (csv) {
      if (INT.test(value)) return Math.abs(Number(value)) < 2 ** 31 ? "INTEGER" : "BIGINT";
      if (DECIMAL.test(value)) return "DOUBLE";
      if (/^(true|false)$/i.test(value)) return "BOOLEAN";
    }
    if (DATE.test(value)) return "DATE";
    if (TIMESTAMP.test(value)) return "TIMESTAMP";
    if (TIMESTAMPTZ.test(value)) return "TIMESTAMPTZ";
    return "VARCHAR";
  }
  return "LIST";
}
