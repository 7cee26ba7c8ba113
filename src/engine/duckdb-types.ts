/**
 * DuckDB's type ids (@duckdb/node-api's DuckDBTypeId) as slp's value
 * printers (spark-text.ts, bigquery-json.ts) read a value's type: written
 * out here so those modules need not load the DuckDB library itself.
 */

/** The parts of @duckdb/node-api's type objects the printers read. */
export interface NestedType {
  typeId: number;
  valueType?: NestedType;
  keyType?: NestedType;
  entryNames?: readonly string[];
  entryTypes?: readonly NestedType[];
}

export const TYPE_ID = {
  BOOLEAN: 1,
  TINYINT: 2,
  SMALLINT: 3,
  INTEGER: 4,
  BIGINT: 5,
  UTINYINT: 6,
  USMALLINT: 7,
  UINTEGER: 8,
  UBIGINT: 9,
  FLOAT: 10,
  DOUBLE: 11,
  TIMESTAMP: 12,
  DATE: 13,
  TIME: 14,
  INTERVAL: 15,
  HUGEINT: 16,
  VARCHAR: 17,
  BLOB: 18,
  DECIMAL: 19,
  LIST: 24,
  STRUCT: 25,
  MAP: 26,
  UUID: 27,
  TIMESTAMP_TZ: 31,
  ARRAY: 33,
} as const;

/** The integer types. */
export const INTEGRAL_TYPE_IDS = new Set<number>([
  TYPE_ID.TINYINT,
  TYPE_ID.SMALLINT,
  TYPE_ID.INTEGER,
  TYPE_ID.BIGINT,
  TYPE_ID.UTINYINT,
  TYPE_ID.USMALLINT,
  TYPE_ID.UINTEGER,
  TYPE_ID.UBIGINT,
  TYPE_ID.HUGEINT,
]);
