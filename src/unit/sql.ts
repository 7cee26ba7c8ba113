/**
 * The one place the unit runner writes SQL text: quoted names, literals as
 * dbt's format_row writes them, typed casts (a list, a struct or a map typed
 * from the column's own type), typed empty relations, and the WITH clause
 * that puts fixtures in front of a query. Every other stage asks for SQL here.
 */
import { isMapping, type Value } from "../core/values.ts";

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** dbt's name for a mocked relation: `__dbt__cte__<identifier>` (`<source>__<table>` for a source). */
export function cteName(identifier: string): string {
  return `__dbt__cte__${identifier}`;
}

/** A model's SQL as a subquery: a trailing semicolon or blank is not part of its SELECT. */
export function trimStatement(sql: string): string {
  let end = sql.length;
  while (end > 0 && (sql[end - 1] === ";" || /\s/.test(sql[end - 1] as string))) end--;
  return sql.slice(0, end);
}

/** `with a as (...), b as (...)\n` before `body`; just `body` when there are none. */
export function withClause(ctes: readonly { name: string; sql: string }[], body: string): string {
  if (ctes.length === 0) return body;
  return `with ${ctes.map((cte) => `${cte.name} as (\n${cte.sql}\n)`).join(",\n")}\n${body}`;
}

/** Every row of `sql` as a subquery the outer query names. */
export function selectAllFrom(sql: string, alias: string): string {
  return `select * from (\n${sql}\n) as ${alias}`;
}

/** `select cast(v as T) as "c", ...` per row, joined by VALUES; a typed empty select for no rows. */
export function selectRows(columns: readonly { name: string; type: string }[], rows: readonly Value[][]): string {
  if (columns.length === 0) return "select 1 as __slp_no_column limit 0";
  if (rows.length === 0) return emptyRelation(columns);
  const tuples = rows.map((row) => `(${columns.map((column, i) => castLiteral(row[i] ?? null, column.type)).join(", ")})`);
  return `select * from (values ${tuples.join(", ")}) as __slp_rows(${columns.map((column) => quoteIdentifier(column.name)).join(", ")})`;
}

/** A relation with these columns and no row. */
export function emptyRelation(columns: readonly { name: string; type: string }[]): string {
  if (columns.length === 0) return "select 1 as __slp_no_column limit 0";
  return `select ${columns.map((column) => `cast(null as ${column.type}) as ${quoteIdentifier(column.name)}`).join(", ")} limit 0`;
}

/** `cast(<literal> as <type>)`, the literal shaped by the type when it is a list, a struct or a map. */
export function castLiteral(value: Value, type: string): string {
  return `cast(${typedLiteral(value, type)} as ${type})`;
}

/**
 * A value as dbt's format_row writes it (strings quoted, numbers and
 * booleans as Python prints them, null as null). A YAML list or mapping is
 * written for the DuckDB type it is cast to: a MAP takes `MAP {k: v}`, a
 * STRUCT or list a literal of its own shape, their members typed in turn, so
 * `[1, null]` is a list with a NULL (dbt writes Python's `None` there and fails).
 */
export function typedLiteral(value: Value, type: string | null): string {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    const element = type === null ? null : listElement(type);
    return `[${value.map((item) => typedLiteral(item, element)).join(", ")}]`;
  }
  if (isMapping(value)) {
    const map = type === null ? null : mapTypes(type);
    if (map)
      return `MAP {${Object.entries(value)
        .map(([key, item]) => `${typedLiteral(key, map.key)}: ${typedLiteral(item, map.value)}`)
        .join(", ")}}`;
    const fields = type === null ? null : structFields(type);
    return `{${Object.entries(value)
      .map(([key, item]) => `${stringLiteral(key)}: ${typedLiteral(item, fields?.get(key.toLowerCase()) ?? null)}`)
      .join(", ")}}`;
  }
  return sqlLiteral(value);
}

/** A scalar as dbt writes it. */
function sqlLiteral(value: Value): string {
  if (value === null) return "null";
  if (typeof value === "string") return stringLiteral(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "'nan'";
    if (!Number.isFinite(value)) return value > 0 ? "'inf'" : "'-inf'";
    return String(value);
  }
  return typedLiteral(value, null);
}

function stringLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `INTEGER[]` -> `INTEGER`, `VARCHAR[3]` -> `VARCHAR`; null when the type is not a list. */
function listElement(type: string): string | null {
  const match = /^(.*)\[\d*\]$/s.exec(type.trim());
  return match ? (match[1] as string).trim() : null;
}

/** `MAP(VARCHAR, INTEGER)` -> its key and value types. */
function mapTypes(type: string): { key: string; value: string } | null {
  const inner = wrapped(type, "MAP");
  if (inner === null) return null;
  const [key, value] = splitTopLevel(inner);
  return key !== undefined && value !== undefined ? { key, value } : null;
}

/** `STRUCT(a INTEGER, "b c" VARCHAR)` -> field (lower-cased) -> type. */
function structFields(type: string): Map<string, string> | null {
  const inner = wrapped(type, "STRUCT");
  if (inner === null) return null;
  const fields = new Map<string, string>();
  for (const field of splitTopLevel(inner)) {
    const match = /^("(?:[^"]|"")*"|\S+)\s+([\s\S]+)$/.exec(field);
    if (!match) continue;
    const name = (match[1] as string).startsWith('"') ? (match[1] as string).slice(1, -1).replace(/""/g, '"') : (match[1] as string);
    fields.set(name.toLowerCase(), (match[2] as string).trim());
  }
  return fields;
}

function wrapped(type: string, keyword: string): string | null {
  const trimmed = type.trim();
  if (!trimmed.toUpperCase().startsWith(`${keyword}(`) || !trimmed.endsWith(")")) return null;
  return trimmed.slice(keyword.length + 1, -1);
}

/** Splits on commas outside parentheses and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && ch === "(") depth++;
    if (!quoted && ch === ")") depth--;
    if (!quoted && depth === 0 && ch === ",") {
      parts.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim() !== "") parts.push(current.trim());
  return parts;
}
