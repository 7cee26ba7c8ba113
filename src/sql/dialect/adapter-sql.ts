/**
 * How dbt's adapters write their cross-database macros' SQL
 * (dbt-adapters' `<adapter>__<macro>` implementations), where more than one
 * adapter writes it the same way: the pieces each warehouse's `crossDbMacros`
 * (warehouses/<name>.ts) is written from.
 */
import { printable } from "../jinja.ts";

export type Macro = (...args: any[]) => string;

export const text = (value: unknown) => printable(value);
export const list = (fields: unknown) => (Array.isArray(fields) ? fields.map(printable) : [printable(fields)]);

/**
 * dbt's listagg as dbt-snowflake and dbt-redshift write it: the caller's
 * order_by_clause is a whole clause (`order by x desc`), placed in WITHIN
 * GROUP as written. A limit_num (their regexp over the aggregate) is left
 * to a refusal by name.
 */
export function withinGroupListagg(measure: unknown, delimiter: unknown, orderBy: unknown, limit: unknown): string {
  if (limit) return `listagg_with_limit_num_is_not_translated(${text(measure)})`;
  return `listagg(${text(measure)}, ${delimiter ? text(delimiter) : "','"})${orderBy ? ` within group (${text(orderBy)})` : ""}`;
}

/** dbt's listagg as dbt-bigquery and dbt-postgres write it: string_agg with the caller's whole order_by_clause inside. */
export function stringAggListagg(measure: unknown, delimiter: unknown, orderBy: unknown, limit: unknown): string {
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
