/**
 * The type names every warehouse shares, and the shapes of a warehouse's own
 * (warehouses/<name>.ts `types`): each as the DuckDB type that holds the same
 * values, or a refusal naming why there is none.
 */

/**
 * How a warehouse's JSON-backed (semi-structured) type reads a fixture's value: dbt casts the value, as it writes it,
 * to the column's type. `kind` says what text becomes: a JSON string (Snowflake VARIANT: dbt-snowflake writes
 * cast('<text>' as VARIANT), which holds it as a string), JSON parsed (a cast from text that parses it, as Postgres
 * casts text to json), or a refusal naming why slp does not reproduce the type's reading. `pythonContainers`: dbt
 * writes a YAML mapping or list as Python prints it ({'k': 1}), which the warehouse reads as a literal (Snowflake's
 * OBJECT and ARRAY constants), so a null inside (Python's None) or a string Python quotes with double quotes (one
 * holding a single quote) is not SQL there: the test errors in dbt.
 */
export type JsonText = { pythonContainers?: true } & ({ kind: "string" } | { kind: "parsed" } | { kind: "refused"; why: string });

/**
 * `unlessSized`: a refusal for the bare name only; with a precision (and scale, else 0) it is that DECIMAL.
 * `json`: a semi-structured type, held as DuckDB's JSON (types.ts JSON_TYPE).
 */
export type Scalar =
  | { duckdb: string }
  | { json: JsonText }
  | { decimal: [precision: number, scale: number] }
  | { refuse: string; unlessSized?: true };

export const TEXT: Scalar = { duckdb: "VARCHAR" };
export const DOUBLE: Scalar = { duckdb: "DOUBLE" };
export const SEMI = (what: string): Scalar => ({ refuse: `${what} holds semi-structured values DuckDB has no faithful type for` });
// Not even as WKT text for a model that only passes it through: the warehouse normalizes a geography it is given
// (BigQuery's POINT(1.0 2) comes back POINT(1 2)), so the text a fixture holds is not the value the model returns.
export const SPATIAL: Scalar = {
  refuse: "DuckDB has no built-in spatial type (slp loads no extensions), and the warehouse normalizes a geography's text",
};

/** Names shared by most warehouses, each dialect's own entries on top. */
export const COMMON_TYPES: Record<string, Scalar> = {
  boolean: { duckdb: "BOOLEAN" },
  bool: { duckdb: "BOOLEAN" },
  date: { duckdb: "DATE" },
  time: { duckdb: "TIME" },
  timestamp: { duckdb: "TIMESTAMP" },
  varchar: TEXT,
  char: TEXT,
  character: TEXT,
  "character varying": TEXT,
  text: TEXT,
  string: TEXT,
  smallint: { duckdb: "SMALLINT" },
  int: { duckdb: "INTEGER" },
  integer: { duckdb: "INTEGER" },
  bigint: { duckdb: "BIGINT" },
  real: { duckdb: "FLOAT" },
  float: DOUBLE,
  double: DOUBLE,
  "double precision": DOUBLE,
  decimal: { decimal: [18, 0] },
  numeric: { decimal: [18, 0] },
  geography: SPATIAL,
  geometry: SPATIAL,
};
