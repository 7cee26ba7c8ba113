/**
 * dbt's cross-database macros as each adapter writes them (dbt-adapters'
 * `<adapter>__<macro>` implementations): a Snowflake model's `{{ dateadd(...) }}`
 * renders the Snowflake SQL dbt-snowflake would send, which the translation
 * then runs with Snowflake's meaning. What an adapter writes in a way slp
 * does not translate is a refusal at render time.
 */
import { printable } from "../jinja.ts";
import type { Dialect } from "./dialects.ts";

type Macro = (...args: any[]) => string;

const text = (value: unknown) => printable(value);
const list = (fields: unknown) => (Array.isArray(fields) ? fields.map(printable) : [printable(fields)]);

/** The macros each adapter writes differently from dbt's defaults; slp's DuckDB ones stay for the rest. */
const ADAPTER_MACROS: Record<Exclude<Dialect, "duckdb">, Record<string, Macro>> = {
  snowflake: {
    current_timestamp: () => "current_timestamp()",
    type_string: () => "varchar",
    type_int: () => "int",
    type_bigint: () => "bigint",
    type_float: () => "float",
    type_numeric: () => "numeric(28,6)",
    type_timestamp: () => "timestamp_ntz",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) => `dateadd(${text(part)}, ${text(interval)}, ${text(from)})`,
    datediff: (first, second, part) => `datediff(${text(part)}, ${text(first)}, ${text(second)})`,
    date_trunc: (part, date) => `date_trunc('${text(part)}', ${text(date)})`,
    safe_cast: (field, type) => `try_cast(${text(field)} as ${text(type)})`,
    concat: (fields) => `concat(${list(fields).join(", ")})`,
    hash: (field) => `md5(cast(${text(field)} as varchar))`,
    split_part: (string, delimiter, part) => `split_part(${text(string)}, ${text(delimiter)}, ${text(part)})`,
    listagg: (measure, delimiter, orderBy, limit) => withinGroupListagg(measure, delimiter, orderBy, limit),
  },
  bigquery: {
    current_timestamp: () => "current_timestamp()",
    type_string: () => "string",
    type_int: () => "int64",
    type_bigint: () => "int64",
    type_float: () => "float64",
    type_numeric: () => "numeric",
    type_timestamp: () => "timestamp",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) => `datetime_add(cast(${text(from)} as datetime), interval ${text(interval)} ${text(part)})`,
    datediff: (first, second, part) => `datetime_diff(cast(${text(second)} as datetime), cast(${text(first)} as datetime), ${text(part)})`,
    date_trunc: (part, date) => `timestamp_trunc(cast(${text(date)} as timestamp), ${text(part)})`,
    safe_cast: (field, type) => `safe_cast(${text(field)} as ${text(type)})`,
    concat: (fields) => `concat(${list(fields).join(", ")})`,
    hash: (field) => `to_hex(md5(cast(${text(field)} as string)))`,
    split_part: (string, delimiter, part) => `split(${text(string)}, ${text(delimiter)})[safe_offset(${text(part)} - 1)]`,
    listagg: (measure, delimiter, orderBy, limit) => stringAggListagg(measure, delimiter, orderBy, limit),
    // dbt-bigquery: BigQuery's set operators need their DISTINCT written out.
    intersect: () => "intersect distinct",
    except: () => "except distinct",
  },
  databricks: {
    current_timestamp: () => "current_timestamp()",
    type_string: () => "string",
    type_int: () => "int",
    type_bigint: () => "bigint",
    type_float: () => "double",
    type_numeric: () => "decimal(28,6)",
    type_timestamp: () => "timestamp",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) =>
      /^day$/i.test(text(part))
        ? `date_add(${text(from)}, ${text(interval)})`
        : `add_months(${text(from)}, ${/^year$/i.test(text(part)) ? `(${text(interval)}) * 12` : text(interval)})`,
    datediff: (first, second, part) =>
      /^day$/i.test(text(part))
        ? `datediff(${text(second)}, ${text(first)})`
        : `datediff_${text(part)}_is_not_translated(${text(first)}, ${text(second)})`,
    date_trunc: (part, date) => `date_trunc('${text(part)}', ${text(date)})`,
    safe_cast: (field, type) => `try_cast(${text(field)} as ${text(type)})`,
    concat: (fields) => `concat(${list(fields).join(", ")})`,
    hash: (field) => `md5(cast(${text(field)} as string))`,
    split_part: (string, delimiter, part) => `split_part(${text(string)}, ${text(delimiter)}, ${text(part)})`,
  },
  spark: {},
  redshift: {
    current_timestamp: () => "getdate()",
    type_string: () => "varchar",
    type_int: () => "integer",
    type_bigint: () => "bigint",
    type_float: () => "float",
    type_numeric: () => "numeric(28,6)",
    type_timestamp: () => "timestamp",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) => `dateadd(${text(part)}, ${text(interval)}, ${text(from)})`,
    datediff: (first, second, part) => `datediff(${text(part)}, ${text(first)}, ${text(second)})`,
    date_trunc: (part, date) => `date_trunc('${text(part)}', ${text(date)})`,
    safe_cast: (field, type) => `cast(${text(field)} as ${text(type)})`,
    concat: (fields) => list(fields).join(" || "),
    hash: (field) => `md5(cast(${text(field)} as varchar))`,
    split_part: (string, delimiter, part) => `split_part(${text(string)}, ${text(delimiter)}, ${text(part)})`,
    listagg: (measure, delimiter, orderBy, limit) => withinGroupListagg(measure, delimiter, orderBy, limit),
  },
  postgres: {
    current_timestamp: () => "now()",
    type_string: () => "varchar",
    type_int: () => "integer",
    type_bigint: () => "bigint",
    type_float: () => "float",
    type_numeric: () => "numeric(28,6)",
    type_timestamp: () => "timestamp",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) => `${text(from)} + ((interval '1 ${text(part)}') * (${text(interval)}))`,
    datediff: (first, second, part) => postgresDatediff(text(first), text(second), text(part).toLowerCase()),
    date_trunc: (part, date) => `date_trunc('${text(part)}', ${text(date)})`,
    safe_cast: (field, type) => `cast(${text(field)} as ${text(type)})`,
    concat: (fields) => list(fields).join(" || "),
    hash: (field) => `md5(cast(${text(field)} as varchar))`,
    split_part: (string, delimiter, part) => `split_part(${text(string)}, ${text(delimiter)}, ${text(part)})`,
    listagg: (measure, delimiter, orderBy, limit) => stringAggListagg(measure, delimiter, orderBy, limit),
  },
};
ADAPTER_MACROS.spark = ADAPTER_MACROS.databricks;

/**
 * dbt's listagg as dbt-snowflake and dbt-redshift write it: the caller's
 * order_by_clause is a whole clause (`order by x desc`), placed in WITHIN
 * GROUP as written. A limit_num (their regexp over the aggregate) is left
 * to a refusal by name.
 */
function withinGroupListagg(measure: unknown, delimiter: unknown, orderBy: unknown, limit: unknown): string {
  if (limit) return `listagg_with_limit_num_is_not_translated(${text(measure)})`;
  return `listagg(${text(measure)}, ${delimiter ? text(delimiter) : "','"})${orderBy ? ` within group (${text(orderBy)})` : ""}`;
}

/** dbt's listagg as dbt-bigquery and dbt-postgres write it: string_agg with the caller's whole order_by_clause inside. */
function stringAggListagg(measure: unknown, delimiter: unknown, orderBy: unknown, limit: unknown): string {
  if (limit) return `listagg_with_limit_num_is_not_translated(${text(measure)})`;
  return `string_agg(${text(measure)}, ${delimiter ? text(delimiter) : "','"}${orderBy ? ` ${text(orderBy)}` : ""})`;
}

/**
 * dbt's listagg as dbt-duckdb writes it: string_agg with the caller's whole
 * order_by_clause inside; a limit_num keeps the first items of the ordered
 * array_agg and joins them (list_aggr(..., 'string_agg', delimiter)).
 */
export function duckdbListagg(measure: unknown, delimiter: unknown, orderBy: unknown, limit: unknown): string {
  if (!limit) return stringAggListagg(measure, delimiter, orderBy, null);
  const ordered = `array_agg(${text(measure)}${orderBy ? ` ${text(orderBy)}` : ""})`;
  return `list_aggr((${ordered})[1:${text(limit)}], 'string_agg', ${delimiter ? text(delimiter) : "','"})`;
}

/** dbt-postgres's datediff: calendar parts counted from date_part differences. */
function postgresDatediff(first: string, second: string, part: string): string {
  const years = `(date_part('year', (${second})::date) - date_part('year', (${first})::date))`;
  const days = `((${second})::date - (${first})::date)`;
  switch (part) {
    case "year":
      return years;
    case "quarter":
      return `(${years} * 4 + date_part('quarter', (${second})::date) - date_part('quarter', (${first})::date))`;
    case "month":
      return `(${years} * 12 + date_part('month', (${second})::date) - date_part('month', (${first})::date))`;
    case "day":
      return days;
    case "hour":
      return `(${days} * 24 + date_part('hour', (${second})::timestamp) - date_part('hour', (${first})::timestamp))`;
    default:
      return `datediff_${part}_is_not_translated(${first}, ${second})`;
  }
}

/** The cross-database macros an adapter writes its own way (empty for DuckDB). */
export function adapterMacros(dialect: Dialect): Record<string, Macro> {
  return dialect === "duckdb" ? {} : ADAPTER_MACROS[dialect];
}

/** The prefixes adapter.dispatch tries, most specific first (dbt-redshift inherits from dbt-postgres). */
export function dispatchPrefixes(dialect: Dialect): string[] {
  if (dialect === "redshift") return ["redshift", "postgres", "default"];
  if (dialect === "databricks") return ["databricks", "spark", "default"];
  return [dialect, "default"];
}
