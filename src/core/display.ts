/** How a value from a project file is quoted inside a message: as YAML would write it. */
import { formatNumber } from "./numbers.ts";
import { isMapping } from "./values.ts";

/** Strings bare, `null`, `true`/`false`, numbers as people write them, lists `[a, b]`, mappings `{k: v}`. */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return formatNumber(value);
  if (Array.isArray(value)) return `[${value.map(displayValue).join(", ")}]`;
  if (isMapping(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${displayValue(v)}`)
      .join(", ")}}`;
  return String(value);
}
