/**
 * The type names every warehouse shares, and the shapes of a warehouse's own
 * (warehouses/<name>.ts `types`): each as the DuckDB type that holds the same
 * values, or a refusal naming why there is none.
 */

/** `unlessSized`: a refusal for the bare name only; with a precision (and scale, else 0) it is that DECIMAL. */
export type Scalar = { duckdb: string } | { decimal: [precision: number, scale: number] } | { refuse: string; unlessSized?: true };

export const TEXT: Scalar = { duckdb: "VARCHAR" };
export const DOUBLE: Scalar = { duckdb: "DOUBLE" };
export const SEMI = (what: string): Scalar => ({ refuse: `${what} holds semi-structured values DuckDB has no faithful type for` });
export const SPATIAL: Scalar = { refuse: "DuckDB has no built-in spatial type (slp loads no extensions)" };

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
