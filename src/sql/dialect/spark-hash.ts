/**
 * Databricks/Spark `xxhash64(a, b, ...)` as the nested calls of slp's DuckDB
 * functions (src/engine/spark-hash.ts) that hash each argument the way Spark
 * hashes its type. Spark hashes an argument by its Spark type (an INT's 4
 * bytes, a BIGINT's 8), and a DuckDB type does not tell it (DuckDB's
 * row_number() is a BIGINT, Spark's an INT), so the type comes from how the
 * argument is written: a cast, a literal, an array of literals, or a name the
 * SQL defines as row_number(), rank() or dense_rank(). Any other argument is
 * refused, naming it and the cast that makes it hashable.
 */
import type { Call } from "./construct.ts";

type Hashed = "int" | "long" | "string" | "int_array" | "string_array";

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** Spark type names of a cast, as xxhash64 hashes them. */
const CAST_TYPES: Record<string, Hashed> = {
  string: "string",
  int: "int",
  integer: "int",
  smallint: "int",
  short: "int",
  tinyint: "int",
  byte: "int",
  bigint: "long",
  long: "long",
};

const SUPPORTED =
  "a string, int, bigint or boolean cast, a string, integer or boolean literal, an array of string or int literals, or a row_number()/rank()/dense_rank() alias";

/** xxhash64(...) as slp's functions folding each argument into the seed, from Spark's 42. */
export function sparkXxhash64(call: Call): string | { refuse: string } {
  if (call.written.length === 0) return { refuse: "xxhash64() takes at least one argument" };
  let hash = "42";
  for (let index = 0; index < call.written.length; index++) {
    const written = (call.written[index] as string).trim();
    const argument = call.args[index] as string;
    // A NULL argument leaves the seed unchanged (Spark skips it).
    if (/^null$/i.test(written)) continue;
    const typed = hashedType(written, call.sql);
    if ("refuse" in typed) return typed;
    hash = `__slp_xxhash64_${typed.hashed}(${typed.value(argument)}, ${hash})`;
  }
  return hash;
}

/** The Spark type an argument is hashed as, and its value as that type's DuckDB function takes it. */
function hashedType(written: string, sql: string): { hashed: Hashed; value: (argument: string) => string } | { refuse: string } {
  const kept = (argument: string) => argument;
  if (isString(written)) return { hashed: "string", value: kept };
  // Spark hashes a boolean as the int 1 or 0.
  if (/^(true|false)$/i.test(written)) return { hashed: "int", value: () => (/^true$/i.test(written) ? "1" : "0") };
  const integer = integerLiteral(written);
  if (integer !== null) {
    if ("refuse" in integer) return integer;
    return { hashed: integer.long ? "long" : "int", value: () => integer.value };
  }
  const cast = castType(written);
  if (cast !== null) {
    if (cast === "boolean") return { hashed: "int", value: (argument) => `cast(${argument} as int)` };
    const hashed = CAST_TYPES[cast];
    if (!hashed) return { refuse: `slp does not hash Spark type ${cast} in xxhash64() (it hashes ${SUPPORTED})` };
    return { hashed, value: kept };
  }
  const elements = arrayLiteral(written);
  if (elements !== null) {
    // A NULL element takes the others' type (and leaves the seed); with no other element the type is unknown.
    const typed = elements.filter((element) => !/^null$/i.test(element));
    if (typed.length > 0 && typed.every(isString)) return { hashed: "string_array", value: kept };
    const integers = typed.map(integerLiteral);
    if (typed.length > 0 && integers.every((each) => each !== null && !("refuse" in each) && !each.long))
      return { hashed: "int_array", value: kept };
    return { refuse: `slp hashes an array in xxhash64() only as array(...) of string or int literals, not ${written}` };
  }
  if (/^[A-Za-z_]\w*$/.test(written) && rankingAlias(written, sql)) return { hashed: "int", value: kept };
  return {
    refuse: `slp cannot tell the Spark type xxhash64() hashes ${written} as (Spark hashes an INT and a BIGINT differently): write cast(${written} as string) or another cast (slp hashes ${SUPPORTED})`,
  };
}

function isString(written: string): boolean {
  return /^'(?:[^'\\]|\\.)*'$/s.test(written) || /^"(?:[^"\\]|\\.)*"$/s.test(written);
}

/** An integer literal: Spark's INT when it fits, BIGINT when written with L or past an INT's range. */
function integerLiteral(written: string): { value: string; long: boolean } | { refuse: string } | null {
  const match = /^([+-]?\d+)([lsy]?)$/i.exec(written);
  if (!match) return null;
  const value = BigInt(match[1] as string);
  const suffix = (match[2] as string).toLowerCase();
  if (value < LONG_MIN || value > LONG_MAX) return { refuse: `${written} is a DECIMAL in Spark, which slp does not hash in xxhash64()` };
  const long = suffix === "l" || value < INT_MIN || value > INT_MAX;
  return { value: value.toString(), long };
}

/** The type of `cast(x as type)` when the argument is exactly one such cast, lower case without spaces; else null. */
function castType(written: string): string | null {
  if (!/^cast\s*\(/i.test(written) || !written.endsWith(")")) return null;
  const open = written.indexOf("(");
  if (closingParen(written, open) !== written.length - 1) return null;
  const type = /\s+as\s+([a-z]+(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?)\s*\)$/i.exec(written);
  if (type) return (type[1] as string).toLowerCase().replace(/\s+/g, "");
  // A type slp does not read (array<int>, a struct): named as written, and refused.
  return (/\s+as\s+([\s\S]+)\)$/i.exec(written)?.[1] ?? written).trim().toLowerCase();
}

/** The elements of `array(...)` as written, when the argument is exactly one such call; else null. */
function arrayLiteral(written: string): string[] | null {
  if (!/^array\s*\(/i.test(written)) return null;
  const open = written.indexOf("(");
  if (closingParen(written, open) !== written.length - 1) return null;
  const inside = written.slice(open + 1, -1).trim();
  if (inside === "") return [];
  // Only literals are hashed, so a comma inside a quoted string is the one thing to step over.
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (const char of inside) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === ",") {
      parts.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current.trim());
  return parts;
}

/** The index of the parenthesis closing the one at `open`, skipping quoted text; -1 when none. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
    } else if (char === "'" || char === '"' || char === "`") quote = char;
    else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * Whether every place the SQL names `name` as an alias (`... as name`) names a
 * row_number(), rank() or dense_rank() window (Spark's INT), and there is one.
 * audit_helper hashes its `row_number() over (...) as dbt_audit_pk_row_num`.
 */
function rankingAlias(name: string, sql: string): boolean {
  // The name is a plain identifier (\w+), so it goes into the pattern as it is.
  const named = String.raw`as\s+\`?${name}\`?(?![\w$])`;
  const aliases = sql.match(new RegExp(String.raw`\b${named}`, "gi"))?.length ?? 0;
  let rankings = 0;
  const window = /\b(?:row_number|rank|dense_rank)\s*\(\s*\)\s*over\s*\(/gi;
  for (let match = window.exec(sql); match !== null; match = window.exec(sql)) {
    const close = closingParen(sql, match.index + match[0].length - 1);
    if (close >= 0 && new RegExp(String.raw`^\s*${named}`, "i").test(sql.slice(close + 1))) rankings++;
  }
  return aliases > 0 && rankings === aliases;
}
