/**
 * The rewrites of the construct table: how a call the transpiler gets wrong is
 * written (still in the warehouse's dialect) before the transpiler sees it, or
 * the refusal that names why it cannot be.
 */
import { divisionMacros } from "./arithmetic.ts";
import type { Call, Construct, Example } from "./construct.ts";
import type { Dialect } from "./dialects.ts";
import { raw, rawArgument } from "./format-models.ts";

/** AVG as the sum over the count, divided by the warehouse's rule for an average (arithmetic.ts); with OVER, both take the window. */
export function average(dialect: Exclude<Dialect, "duckdb">, note: string, examples: Example[]): Construct {
  const names = divisionMacros(dialect, "avg");
  return {
    name: "avg",
    how: "corrected",
    note,
    window: true,
    rewrite: (call) => {
      if (call.args.length !== 1) return { refuse: "avg takes one argument" };
      const [sum, count] = [`sum(${call.args[0]})${call.window}`, `count(${call.args[0]})${call.window}`];
      return `${"__slp_typed"}(${names.value}(${sum}, ${count}), ${names.type}(${sum}, ${count}))`;
    },
    macros: ["__slp_typed", names.value, names.type],
    examples,
  };
}

/** concat that returns NULL when any argument is NULL (DuckDB's concat skips NULLs). */
export const strictConcat = (call: Call): string =>
  call.args.length === 0
    ? "concat()"
    : `case when ${call.args.map((arg) => `(${arg}) is null`).join(" or ")} then null else concat(${call.args.join(", ")}) end`;

export /** `cast(value as type)`'s two parts as written. */
function castParts(call: Call): { value: string; type: string } | { refuse: string } {
  const parts = /^([\s\S]*)\s+as\s+([\s\S]+)$/i.exec(call.args[0] ?? "");
  if (call.args.length !== 1 || !parts) return { refuse: `slp reads ${call.name} as ${call.name}(value as type)` };
  return { value: parts[1] as string, type: parts[2] as string };
}

const INTEGRAL = new Set(["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"]);

/**
 * Spark's CAST and TRY_CAST (the transpiler writes both as DuckDB's TRY_CAST):
 * with ANSI mode (databricks) a CAST that cannot convert is an error; a
 * fraction cast to an integer type is truncated toward zero, as Spark does.
 */
export function sparkCast(ansi: boolean) {
  return (call: Call): string | { refuse: string } => {
    const parts = castParts(call);
    if ("refuse" in parts) return parts;
    const { value, type } = parts;
    const input =
      call.castType !== null && INTEGRAL.has(call.castType) ? `__slp_spark_integral_text(${value}, ${ansi ? "false" : "true"})` : value;
    // To STRING: an array, map or struct as Spark writes it (slp's function), any other value as DuckDB casts it (it cannot fail).
    if (call.castType === "VARCHAR") return `__slp_nested_spark_string(${value})`;
    const converted = `try_cast(${input} as ${type})`;
    return ansi && call.name === "cast" ? `__slp_ansi_cast(${value}, ${converted})` : converted;
  };
}

/** `f(a, b)` as `case when b <test> then <result> else a / b end`, so the division keeps the warehouse's scale (arithmetic.ts); `%` in the test is b. */
export function guardedDivision(result: "0" | "null", test: string) {
  return (call: Call): string | { refuse: string } => {
    if (call.args.length !== 2) return { refuse: `${call.name} takes a dividend and a divisor` };
    const [a, b] = call.args as [string, string];
    const zero = result === "0" ? ` and (${a}) is not null` : "";
    return `(case when ((${b}) ${test.replace("%", b)})${zero} then ${result} else (${a}) / (${b}) end)`;
  };
}

/** The call as written with argument `index` in parentheses (a negative literal stays one expression). */
export function parenthesized(index: number) {
  return (call: Call): string => `${call.name}(${call.args.map((arg, i) => (i === index ? `(${arg})` : arg)).join(", ")})`;
}

/** `current_timestamp()` as the keyword DuckDB knows; a precision argument is refused. */
export function bareKeyword(keyword: string) {
  return (call: Call): string | { refuse: string } =>
    call.args.length === 0 ? keyword : { refuse: `slp translates ${call.name}() without a precision` };
}

/** BigQuery format elements DuckDB's strftime spells the same, and those it spells out. */
export const BIGQUERY_SAME = new Set("YmdHMSbBaAyjpIeZz%".split(""));
export const BIGQUERY_SPELLED: Record<string, string> = {
  x: "%m/%d/%y",
  D: "%m/%d/%y",
  F: "%Y-%m-%d",
  T: "%H:%M:%S",
  R: "%H:%M",
  c: "%a %b %e %H:%M:%S %Y",
  h: "%b",
};

export function bigqueryFormat(name: string) {
  return (call: Call): string | { refuse: string } => {
    const format = call.literal(0);
    if (format === null || call.args.length < 2) return { refuse: `slp translates ${name}('literal format', value) only` };
    let out = "";
    for (let i = 0; i < format.length; i++) {
      const char = format[i] as string;
      if (char !== "%") {
        out += char;
        continue;
      }
      const code = format[++i] ?? "";
      if (BIGQUERY_SAME.has(code)) out += `%${code}`;
      else if (BIGQUERY_SPELLED[code]) out += BIGQUERY_SPELLED[code];
      else return { refuse: `the format element %${code} has no DuckDB equivalent slp has verified` };
    }
    return `${name}(${call.quote(out)}, ${call.args.slice(1).join(", ")})`;
  };
}

/** Java datetime pattern letters (Databricks) as strftime codes, by run length. */
export const JAVA_FORMAT: Record<string, Record<number, string>> = {
  y: { 1: "%Y", 2: "%y", 4: "%Y" },
  M: { 1: "%-m", 2: "%m", 3: "%b", 4: "%B" },
  L: { 1: "%-m", 2: "%m", 3: "%b", 4: "%B" },
  d: { 1: "%-d", 2: "%d" },
  D: { 3: "%j" },
  E: { 1: "%a", 2: "%a", 3: "%a", 4: "%A" },
  H: { 1: "%-H", 2: "%H" },
  h: { 1: "%-I", 2: "%I" },
  m: { 1: "%-M", 2: "%M" },
  s: { 1: "%-S", 2: "%S" },
  S: { 3: "%g", 6: "%f" },
  a: { 1: "%p" },
};

export function javaFormat(call: Call): string | { refuse: string } {
  const format = call.literal(1);
  if (call.args.length !== 2 || format === null) return { refuse: "slp translates date_format(value, 'literal pattern') only" };
  let out = "";
  for (let i = 0; i < format.length; ) {
    const char = format[i] as string;
    if (char === "'") {
      const end = format.indexOf("'", i + 1);
      if (end < 0) return { refuse: `the pattern '${format}' has an unclosed quote` };
      out += end === i + 1 ? "'" : format.slice(i + 1, end).replace(/%/g, "%%");
      i = end + 1;
      continue;
    }
    if (/[A-Za-z]/.test(char)) {
      let run = 1;
      while (format[i + run] === char) run++;
      const code = JAVA_FORMAT[char]?.[run];
      if (!code) return { refuse: `the pattern letter ${char.repeat(run)} has no DuckDB equivalent slp has verified` };
      out += code;
      i += run;
      continue;
    }
    out += char === "%" ? "%%" : char;
    i++;
  }
  return `__slp_strftime(${call.args[0]}, ${call.quote(out)})`;
}

/** A call kept as written unless its date part (argument `index`) is WEEK, whose start day DuckDB does not share. */
export function refuseWeek(name: string, index: number) {
  return (call: Call): string | { refuse: string } =>
    /^\s*week\b/i.test(call.args[index] ?? "")
      ? { refuse: "BigQuery's WEEK starts on Sunday (or the day named); DuckDB's on Monday" }
      : `${name}(${call.args.join(", ")})`;
}

/** A call kept as written unless its date part (argument `index`) is WEEK(<day>) or ISOWEEK (plain WEEK, Sunday weeks, the transpiler writes right). */
export function refuseWeekNamed(name: string, index: number) {
  return (call: Call): string | { refuse: string } =>
    /^\s*(week\s*\(|isoweek\b)/i.test(call.args[index] ?? "")
      ? { refuse: "slp has not verified WEEK(<day>) and ISOWEEK there" }
      : `${name}(${call.args.join(", ")})`;
}

/**
 * Snowflake's parts below a day, by every name Snowflake accepts for them
 * (https://docs.snowflake.com/en/sql-reference/functions-date-time#supported-date-and-time-parts),
 * as DuckDB's date_diff names them.
 */
const SNOWFLAKE_TIME_PARTS: Record<string, string> = {
  ...Object.fromEntries(["hour", "h", "hh", "hr", "hours", "hrs"].map((name) => [name, "hour"])),
  ...Object.fromEntries(["minute", "m", "mi", "min", "minutes", "mins"].map((name) => [name, "minute"])),
  ...Object.fromEntries(["second", "s", "sec", "seconds", "secs"].map((name) => [name, "second"])),
  ...Object.fromEntries(["millisecond", "ms", "msec", "milliseconds"].map((name) => [name, "millisecond"])),
  ...Object.fromEntries(["microsecond", "us", "usec", "microseconds"].map((name) => [name, "microsecond"])),
};
const SNOWFLAKE_NANOSECOND_PARTS = new Set(["nanosecond", "ns", "nsec", "nanosec", "nsecond", "nanoseconds", "nanosecs", "nseconds"]);

/**
 * Snowflake's DATEDIFF (and TIMESTAMPDIFF, TIMEDIFF) in a part below a day:
 * the boundaries of that part crossed between two timestamps. The transpiler
 * cast both values to DATE first, so every difference within a day came out
 * 0; the rewrite keeps the time of day (DuckDB's date_diff counts boundaries
 * too). Parts of a day and above are left to the transpiler.
 */
export function snowflakeDatediff(name: string) {
  return (call: Call): string | { refuse: string } => {
    if (call.args.length !== 3) return { refuse: `slp reads ${name} as ${name}(part, value1, value2)` };
    const part = (call.literal(0) ?? (call.args[0] as string)).trim().toLowerCase();
    if (SNOWFLAKE_NANOSECOND_PARTS.has(part)) return { refuse: "slp has not verified nanoseconds (DuckDB's timestamps hold microseconds)" };
    const timePart = SNOWFLAKE_TIME_PARTS[part];
    return timePart ? `__slp_time_diff('${timePart}', ${call.args[1]}, ${call.args[2]})` : `${name}(${call.args.join(", ")})`;
  };
}

/** to_number(x[, p, s]) as a cast to NUMBER(p, s) (default 38, 0); a format argument is refused. */
export function toNumber(cast: "cast" | "try_cast") {
  return (call: Call): string | { refuse: string } => {
    const [value, precision, scale] = call.args;
    if (call.args.length === 2 || call.args.length > 3)
      return { refuse: "slp translates to_number(text) and to_number(text, precision, scale), not a format" };
    if (precision !== undefined && (call.literal(1) === null || call.literal(2) === null))
      return { refuse: "precision and scale must be numbers" };
    return `${cast}(${value} as number(${precision ?? 38}, ${scale ?? 0}))`;
  };
}

/** A date format's elements (longest first) as strftime codes; a format with anything else is refused. */
export type FormatTable = [element: string, strftime: string][];

/**
 * Snowflake's TO_CHAR / TO_VARCHAR: without a format, a timestamp is written
 * in the default TIMESTAMP_NTZ_OUTPUT_FORMAT (YYYY-MM-DD HH24:MI:SS.FF3), a
 * timestamp with a time zone is refused when it runs (its output format holds
 * the session's offset), anything else is DuckDB's text of it; with a date and
 * time format, its elements in any case (MON and DY written Apr, Fri; AM and PM
 * upper case only); a number format (9, 0) is refused by name.
 */
export const snowflakeToChar =
  (table: FormatTable) =>
  (call: Call): string | { refuse: string } => {
    if (call.args.length === 1)
      return raw(
        call.args[0] as string,
        `list_transform([${rawArgument(0)}], lambda slp_v: case when typeof(slp_v) in ('TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS') then strftime(cast(cast(slp_v as varchar) as timestamp), '%Y-%m-%d %H:%M:%S.%g') when typeof(slp_v) = 'TIMESTAMP WITH TIME ZONE' then error('TO_VARCHAR of a TIMESTAMP_TZ without a format: slp has not verified the session''s output format') else cast(slp_v as varchar) end)[1]`,
      );
    const format = call.literal(1);
    if (format !== null && /[09]/.test(format.replace(/"[^"]*"/g, "").replace(/FF\d/gi, "")))
      return { refuse: `the number format '${format}': slp does not translate Snowflake's number format models` };
    return formatted(call, table, true);
  };

export function formatted(call: Call, table: FormatTable, anyCase = false): string | { refuse: string } {
  if (call.args.length === 1) return `cast(${call.args[0]} as varchar)`;
  const format = call.literal(1);
  if (call.args.length !== 2 || format === null) return { refuse: "slp translates to_char(value, 'literal format') only" };
  let out = "";
  for (let i = 0; i < format.length; ) {
    const char = format[i] as string;
    if (char === '"') {
      const end = format.indexOf('"', i + 1);
      if (end < 0) return { refuse: `the format '${format}' has an unclosed quote` };
      out += format.slice(i + 1, end).replace(/%/g, "%%");
      i = end + 1;
      continue;
    }
    const element = table.find(
      ([name]) =>
        format.startsWith(name, i) || (anyCase && !/^(AM|PM)$/.test(name) && format.slice(i, i + name.length).toUpperCase() === name),
    );
    if (element) {
      out += element[1];
      i += element[0].length;
      continue;
    }
    if (/[A-Za-z0-9]/.test(char))
      return {
        refuse: `the format '${format}' has an element slp does not translate at '${format.slice(i)}' (number formats are not translated)`,
      };
    out += char === "%" ? "%%" : char;
    i++;
  }
  return `__slp_strftime(${call.args[0]}, ${call.quote(out)})`;
}

/** INITCAP(text) with the warehouse's word separators (macros.ts holds each kind's); a delimiters argument is refused. */
export function initcap(kind: "alphanumeric" | "delimiters" | "whitespace") {
  return (call: Call): string | { refuse: string } =>
    call.args.length === 1
      ? `__slp_initcap(${call.args[0]}, '${kind}')`
      : { refuse: "slp translates initcap(text) with the default delimiters only" };
}

/** CONCAT_WS that returns NULL when any argument is NULL (Snowflake; DuckDB's skips NULLs). */
export const strictConcatWs = (call: Call): string =>
  `case when ${call.args.map((arg) => `(${arg}) is null`).join(" or ")} then null else concat_ws(${call.args.join(", ")}) end`;

/** `name(a, b, ...)` as `macro(a, b, ...)` when it has `arity` arguments. */
export function macroCall(macro: string, arity: number, usage: string) {
  return (call: Call): string | { refuse: string } =>
    call.args.length === arity ? `${macro}(${call.args.join(", ")})` : { refuse: `slp translates ${usage} only` };
}

/** A date part given as a literal or a bare word, lower case; null when it is an expression. */
function datePart(call: Call, index: number): string | null {
  const literal = call.literal(index);
  const text = literal ?? call.args[index]?.trim() ?? "";
  return /^[A-Za-z_]+$/.test(text) ? text.toLowerCase() : null;
}

/** date_trunc('part', x) kept unless the part is century or millennium, which the warehouse starts at year 1 (2001) and DuckDB at year 0 (2000). */
export function dateTruncPart(call: Call): string | { refuse: string } {
  const part = datePart(call, 0);
  if (part === null) return { refuse: "slp translates date_trunc with a literal date part only" };
  if (/^(c|cent|centur|century|centuries|mil|millennium|millennia|millenniums)$/.test(part))
    return { refuse: `the ${part} starts in year 1 there (2001-01-01), in year 0 in DuckDB` };
  return `date_trunc(${call.args.join(", ")})`;
}

/** Snowflake TRUNC(date, 'part') as DATE_TRUNC; TRUNC(number[, scale]) kept. */
export function snowflakeTrunc(call: Call): string | { refuse: string } {
  const second = call.args.length === 2 ? call.literal(1) : null;
  if (second !== null && !/^-?\d+$/.test(second)) return `date_trunc(${call.quote(second)}, ${call.args[0]})`;
  return `trunc(${call.args.join(", ")})`;
}

/**
 * FIRST_VALUE, LAST_VALUE and NTH_VALUE over an ordered window without a
 * frame are refused where the warehouse's default frame is not DuckDB's
 * (or a frame is required): write the frame.
 */
export function framedValue(call: Call): string | { refuse: string } {
  const window = call.window;
  if (/\border\s+by\b/i.test(window) && !/\b(rows|range|groups)\b/i.test(window))
    return { refuse: `${call.name} over an ordered window needs an explicit frame (rows between ...): the default frame differs` };
  return `${call.name}(${call.args.join(", ")})${window}`;
}

/** The call under DuckDB's name for the same function. */
export function renamed(name: string) {
  return (call: Call): string => `${name}(${call.args.join(", ")})`;
}

/** BigQuery's CAST and SAFE_CAST: a floating-point value cast to an integer type rounds half away from zero (DuckDB rounds a DOUBLE half to even). */
export function halfAwayCast(call: Call): string | { refuse: string } {
  const parts = castParts(call);
  if ("refuse" in parts) return parts;
  const { value, type } = parts;
  const integral = call.castType !== null && INTEGRAL.has(call.castType);
  return `${call.name}(${integral ? `__slp_integral_half_away(${value})` : value} as ${type})`;
}

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** BigQuery DATE_TRUNC(d, WEEK | WEEK(<day>) | ISOWEEK) from the week's start day (DuckDB's weeks start on Monday); other parts kept. */
export function bigqueryDateTrunc(call: Call): string | { refuse: string } {
  if (call.args.length !== 2) return { refuse: "date_trunc takes a date and a date part" };
  const part = (call.args[1] as string).replace(/\s+/g, "").toLowerCase();
  const day =
    part === "week"
      ? 0
      : part === "isoweek"
        ? 1
        : /^week\((\w+)\)$/.exec(part)
          ? WEEKDAYS.indexOf(/^week\((\w+)\)$/.exec(part)?.[1] ?? "")
          : null;
  if (day === null) return `date_trunc(${call.args.join(", ")})`;
  if (day < 0) return { refuse: `${call.args[1]} names no day of the week` };
  return `__slp_week_start(${call.args[0]}, ${day})`;
}

/** Spark's HOUR(x), QUARTER(x), ...: the date part of x read as a timestamp (Spark casts text; DuckDB's functions take no text). */
export function datePartOf(part: string) {
  return (call: Call): string | { refuse: string } =>
    call.args.length === 1 ? `__slp_part('${part}', ${call.args[0]})` : { refuse: `${call.name} takes one value` };
}

/** Spark's EXTRACT fields as DuckDB date parts (of the value read as a timestamp); DAYOFWEEK is 1 (Sunday) to 7, SECOND keeps its microseconds. */
const SPARK_FIELDS: Record<string, string> = {
  year: "year",
  years: "year",
  y: "year",
  yr: "year",
  yrs: "year",
  yearofweek: "isoyear",
  quarter: "quarter",
  quarters: "quarter",
  qtr: "quarter",
  qtrs: "quarter",
  month: "month",
  months: "month",
  mon: "month",
  mons: "month",
  week: "week",
  weeks: "week",
  w: "week",
  day: "day",
  days: "day",
  d: "day",
  dayofmonth: "day",
  dayofweek_iso: "isodow",
  dow_iso: "isodow",
  doy: "doy",
  dayofyear: "doy",
  hour: "hour",
  hours: "hour",
  h: "hour",
  hr: "hour",
  hrs: "hour",
  minute: "minute",
  minutes: "minute",
  m: "minute",
  min: "minute",
  mins: "minute",
};

export function sparkExtract(call: Call): string | { refuse: string } {
  const parts = call.args.length === 1 ? /^\s*(\w+)\s+from\s+([\s\S]+)$/i.exec(call.args[0] as string) : null;
  if (!parts) return { refuse: "slp reads extract(field from value)" };
  const field = (parts[1] as string).toLowerCase();
  const value = parts[2] as string;
  if (field === "dayofweek" || field === "dow") return `(__slp_part('dow', ${value}) + 1)`;
  if (["second", "seconds", "s", "sec", "secs"].includes(field))
    return `cast(__slp_part('microseconds', ${value}) / 1000000 as decimal(8, 6))`;
  const part = SPARK_FIELDS[field];
  return part ? `__slp_part('${part}', ${value})` : { refuse: `slp has not verified the field ${field} there` };
}

/** CEIL(x[, scale]) and FLOOR(x[, scale]) (Snowflake, Databricks): with a scale, on the exact digits. */
export function scaledRounding(call: Call): string | { refuse: string } {
  if (call.args.length === 1) return `${call.name}(${call.args[0]})`;
  if (call.args.length !== 2) return { refuse: `${call.name} takes a number and a scale` };
  return `__slp_${call.name === "ceiling" ? "ceil" : call.name}_scale(${call.args[0]}, ${call.args[1]})`;
}

/** A call kept as written when it has one argument, the form the warehouse has. */
export function oneArgument(call: Call): string | { refuse: string } {
  return call.args.length === 1 ? `${call.name}(${call.args[0]})` : { refuse: `${call.name} takes one argument there` };
}

/** LAG and LEAD with a value and an offset, as Redshift has them; a default value is refused. */
export function atMostTwoArguments(call: Call): string | { refuse: string } {
  return call.args.length <= 2
    ? `${call.name}(${call.args.join(", ")})`
    : { refuse: `${call.name} takes a value and an offset there, no default` };
}

/**
 * Redshift CONVERT_TIMEZONE([source,] target, timestamp) with time zone names
 * (Region/City) or UTC: Redshift reads an abbreviation (PST) as a fixed offset
 * and a POSIX offset (GMT+2) as hours west, where DuckDB reads them otherwise.
 */
export function redshiftConvertTimezone(call: Call): string | { refuse: string } {
  if (call.args.length < 2 || call.args.length > 3) return { refuse: "convert_timezone takes [source,] target and a timestamp" };
  for (let i = 0; i < call.args.length - 1; i++) {
    const zone = call.literal(i);
    if (zone === null || !/^(UTC|[A-Za-z]+(\/[A-Za-z_]+)+)$/.test(zone))
      return {
        refuse:
          "slp translates time zone names (Region/City) and UTC only: Redshift reads abbreviations as fixed offsets and POSIX offsets as hours west",
      };
  }
  return `convert_timezone(${call.args.join(", ")})`;
}

/** Spark's DATE_ADD(start, days) and DATE_SUB(start, days): a DATE, the count in parentheses (a negative literal stays one expression). */
export function daysFrom(name: string) {
  return (call: Call): string | { refuse: string } =>
    call.args.length === 2
      ? `cast(${name}(${call.args[0]}, (${call.args[1]})) as date)`
      : { refuse: `${name} takes a date and a number of days` };
}

/** SHA2(value, 256) (and SHA2(value) where 256 is the default) as DuckDB's sha256: lower-case hex; other digest sizes are refused. */
export function sha256Only(defaultIs256: boolean) {
  return (call: Call): string | { refuse: string } =>
    (defaultIs256 && call.args.length === 1) || (call.args.length === 2 && call.literal(1) === "256")
      ? `sha256(${call.args[0]})`
      : { refuse: `slp translates sha2(value${defaultIs256 ? "[, 256]" : ", 256"}) only` };
}

/** A call whose result is NULL when any argument is NULL, where the DuckDB function it becomes skips a NULL (list_concat). */
export function nullWhenAnyNull(duckdb: string, arity: number) {
  return (call: Call): string | { refuse: string } =>
    call.args.length !== arity
      ? { refuse: `${call.name} takes ${arity} arguments` }
      : `(case when ${call.args.map((arg) => `(${arg}) is null`).join(" or ")} then null else ${duckdb}(${call.args.join(", ")}) end)`;
}

/**
 * A Snowflake JSON path (`a.b[0]`, `a["b c"]`, `a:b`, `['k']`: field names
 * joined by periods or colons, the first without one, and index operators
 * holding a non-negative integer or a quoted key) as DuckDB's JSONPath
 * (`$."a"."b"[0]`), every key quoted so none is read as syntax. A key that
 * holds a quote or a backslash, or anything else, is refused.
 */
export function snowflakeJsonPath(path: string): string | { refuse: string } {
  const refuse = (why: string) => ({ refuse: `the JSON path '${path}': ${why}` });
  let out = "$";
  let i = 0;
  while (i < path.length) {
    const rest = path.slice(i);
    if (rest.startsWith("[")) {
      const index = /^\[(?:(\d+)|'([^'"\\]+)'|"([^'"\\]+)")\]/.exec(rest);
      if (!index) return refuse("slp reads an index operator as [n], ['key'] or [\"key\"]");
      out += index[1] !== undefined ? `[${Number(index[1])}]` : `."${index[2] ?? index[3]}"`;
      i += index[0].length;
      continue;
    }
    const separated = i > 0 && (rest.startsWith(".") || rest.startsWith(":"));
    if (i > 0 && !separated) return refuse(`slp expected . or [ at character ${i + 1}`);
    const field = /^(?:"([^'"\\]+)"|([A-Za-z0-9_$]+))/.exec(separated ? rest.slice(1) : rest);
    if (!field) return refuse(`slp reads a field name as letters, digits, _ and $, or in double quotes (at character ${i + 1})`);
    out += `."${field[1] ?? field[2]}"`;
    i += field[0].length + (separated ? 1 : 0);
  }
  return out === "$" ? refuse("it is empty") : out;
}

/** Snowflake JSON_EXTRACT_PATH_TEXT(text, 'path') with a literal path, on slp's macro. */
export function jsonPathText(call: Call): string | { refuse: string } {
  const path = call.literal(1);
  if (call.args.length !== 2) return { refuse: "json_extract_path_text takes a JSON text and a path" };
  if (path === null || !/^\s*'/.test(call.args[1] as string))
    return { refuse: "slp translates json_extract_path_text with a path written as a string literal" };
  const duckdb = snowflakeJsonPath(path);
  if (typeof duckdb !== "string") return duckdb;
  return `__slp_json_path_text(${call.args[0]}, '${duckdb}')`;
}

/** DuckDB's interval of `n` units, for each unit Databricks' TIMESTAMPADD names (QUARTER is three months; DAYOFYEAR a day). */
const INTERVAL_OF: Record<string, (n: string) => string> = {
  microsecond: (n) => `to_microseconds(${n})`,
  millisecond: (n) => `to_milliseconds(${n})`,
  second: (n) => `to_seconds(${n})`,
  minute: (n) => `to_minutes(${n})`,
  hour: (n) => `to_hours(${n})`,
  day: (n) => `to_days(${n})`,
  dayofyear: (n) => `to_days(${n})`,
  week: (n) => `to_weeks(${n})`,
  month: (n) => `to_months(${n})`,
  quarter: (n) => `to_months(3 * ${n})`,
  year: (n) => `to_years(${n})`,
};

/**
 * Databricks TIMESTAMPADD(unit, value, expr) (and its synonym DATEADD) as the
 * timestamp plus DuckDB's interval of that unit: a month added to a month's
 * last days lands on the shorter month's last day in both; a fraction of a
 * unit is an error (slp has not verified how Spark counts it).
 */
export function timestampAdd(call: Call): string | { refuse: string } {
  const unit = call.args[0]?.trim().toLowerCase() ?? "";
  const interval = INTERVAL_OF[unit];
  if (call.args.length !== 3) return { refuse: `${call.name} takes a unit, a number of units and a timestamp` };
  if (!interval) return { refuse: `${call.name} by '${call.args[0]?.trim()}': slp runs the units ${Object.keys(INTERVAL_OF).join(", ")}` };
  return `(${call.args[2]} + ${interval(`__slp_whole_count(${call.args[1]})`)})`;
}

/**
 * Snowflake's regular-expression parameters as RE2 flags before the pattern:
 * c (case-sensitive, the default) and i (the last of them wins), m (^ and $
 * at line breaks), s (. matches a newline), e (extract a group); others are
 * refused. Snowflake's patterns are otherwise read as DuckDB reads them.
 */
function snowflakeRegexParameters(call: Call, index: number): { flags: string; extract: boolean } | { refuse: string } {
  if (call.args.length <= index) return { flags: "", extract: false };
  const parameters = call.literal(index);
  if (parameters === null || !/^[cimes]*$/.test(parameters))
    return { refuse: `slp translates ${call.name}'s parameters c, i, m, e and s, written as a literal` };
  const insensitive = parameters.lastIndexOf("i") > parameters.lastIndexOf("c");
  const flags = `${insensitive ? "i" : ""}${parameters.includes("m") ? "m" : ""}${parameters.includes("s") ? "s" : ""}`;
  return { flags, extract: parameters.includes("e") };
}

/** The pattern with the flags in front (text concatenated when it runs, for a pattern that is not a literal). */
function flagged(pattern: string, flags: string): string {
  return flags === "" ? pattern : `('(?${flags})' || ${pattern})`;
}

/** A position argument slp reads: omitted or the literal 1 (from another position, ^ and \b would read the text's start otherwise). */
function fromFirstCharacter(call: Call, index: number): boolean {
  return call.args.length <= index || call.literal(index) === "1";
}

/** Snowflake REGEXP_SUBSTR(subject, pattern[, position[, occurrence[, parameters[, group]]]]): the occurrence-th match (or its group), NULL when none. */
export function snowflakeRegexpSubstr(call: Call): string | { refuse: string } {
  if (call.args.length < 2 || call.args.length > 6)
    return { refuse: "regexp_substr takes a subject, a pattern, a position, an occurrence, parameters and a group" };
  if (!fromFirstCharacter(call, 2)) return { refuse: "slp translates regexp_substr from position 1 only" };
  const parameters = snowflakeRegexParameters(call, 4);
  if ("refuse" in parameters) return parameters;
  const group = call.args.length === 6 ? call.args[5] : parameters.extract ? "1" : "0";
  if (call.args.length === 6 && call.literal(5) === null)
    return { refuse: "slp translates regexp_substr with a group written as a number" };
  const occurrence = call.args[3] ?? "1";
  return `(regexp_extract_all(${call.args[0]}, ${flagged(call.args[1] as string, parameters.flags)}, ${group}))[__slp_whole_index(${occurrence})]`;
}

/** Snowflake REGEXP_REPLACE(subject, pattern[, replacement[, position[, occurrence[, parameters]]]]): every match (occurrence 0, the default) or the first (1). */
export function snowflakeRegexpReplace(call: Call): string | { refuse: string } {
  if (call.args.length < 2 || call.args.length > 6)
    return { refuse: "regexp_replace takes a subject, a pattern, a replacement, a position, an occurrence and parameters" };
  if (!fromFirstCharacter(call, 3)) return { refuse: "slp translates regexp_replace from position 1 only" };
  const occurrence = call.args.length > 4 ? call.literal(4) : "0";
  if (occurrence !== "0" && occurrence !== "1")
    return { refuse: "slp translates regexp_replace of every occurrence (0) or the first (1) only" };
  const parameters = snowflakeRegexParameters(call, 5);
  if ("refuse" in parameters) return parameters;
  if (parameters.extract) return { refuse: "the e parameter has no meaning slp has verified for regexp_replace" };
  // slp's macros, so the transpiler (which reads a fourth argument as Snowflake's position) does not touch the call.
  return `${occurrence === "0" ? "__slp_regexp_replace_all" : "__slp_regexp_replace_first"}(${call.args[0]}, ${flagged(call.args[1] as string, parameters.flags)}, ${call.args[2] ?? "''"})`;
}

/** Snowflake REGEXP_COUNT(subject, pattern[, position[, parameters]]): non-overlapping matches. */
export function snowflakeRegexpCount(call: Call): string | { refuse: string } {
  if (call.args.length < 2 || call.args.length > 4) return { refuse: "regexp_count takes a subject, a pattern, a position and parameters" };
  if (!fromFirstCharacter(call, 2)) return { refuse: "slp translates regexp_count from position 1 only" };
  const parameters = snowflakeRegexParameters(call, 3);
  if ("refuse" in parameters) return parameters;
  if (parameters.extract) return { refuse: "the e parameter has no meaning slp has verified for regexp_count" };
  return `__slp_regexp_count(${call.args[0]}, ${flagged(call.args[1] as string, parameters.flags)})`;
}

/** Snowflake REGEXP_LIKE / RLIKE(subject, pattern[, parameters]): the whole subject matches, the parameters c, i, m, s as RE2 flags (DuckDB's own m would also keep . and [^...] off a newline). */
export function snowflakeRegexpLike(call: Call): string | { refuse: string } {
  if (call.args.length < 2 || call.args.length > 3) return { refuse: `${call.name} takes a subject, a pattern and parameters` };
  const parameters = snowflakeRegexParameters(call, 2);
  if ("refuse" in parameters) return parameters;
  if (parameters.extract) return { refuse: `the e parameter has no meaning slp has verified for ${call.name}` };
  return `rlike(${call.args[0]}, ${flagged(call.args[1] as string, parameters.flags)})`;
}
