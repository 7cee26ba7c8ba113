/**
 * The contract: every construct slp runs per warehouse dialect, how it runs
 * on DuckDB (`same` meaning as written, `translated` by the transpiler,
 * `corrected` by slp where the transpiler is wrong, `refused`), and the
 * vendor's documented examples each is tested against (test/dialects.test.ts).
 * A function or operator not in a dialect's table is refused by name.
 */
import { DIVISION_MACROS, divisionMacros, type MacroDefinition } from "./arithmetic.ts";
import type { Dialect } from "./dialects.ts";

/** A documented example: SQL in the dialect, the documented result (one row), the page it is from. */
export interface Example {
  sql: string;
  expect: (string | null)[];
  source: string;
}

/** A call as a rewrite sees it: the arguments' source text (already rewritten) and literal values. */
export interface Call {
  name: string;
  args: string[];
  /** The value of argument `index` when it is one string or number literal, else null. */
  literal(index: number): string | null;
  /** The word after the call's closing parenthesis, lower case (`over`, `within`), else null. */
  next: string | null;
  /** For a construct that takes its window: ` over (...)` as written (rewritten), else empty. */
  window: string;
  /** For cast(x as T): the DuckDB type T maps to. */
  castType: string | null;
}

export interface Construct {
  /** As looked up: a function name in lower case (`div0`), or the syntax (`::`, `qualify`, `||`, `[]`). */
  name: string;
  how: "same" | "translated" | "corrected" | "refused";
  /** One clause for the README: what differs, or why it is refused. */
  note?: string;
  /** For `refused`: the reason a refusal gives. */
  why?: string;
  /** For `corrected`: the call rewritten (in the same dialect) before the transpiler sees it, or a refusal. */
  rewrite?: (call: Call) => string | { refuse: string };
  /** The rewrite replaces the call's `over (...)` too (it receives it as `window`). */
  window?: boolean;
  /** slp's DuckDB macros the corrected SQL calls. */
  macros?: string[];
  /** For `[]`: a 0-based index the translation moves to DuckDB's 1-based one. */
  subscript?: "zero-based" | "one-based";
  examples: Example[];
}

/** slp's DuckDB macros, created in the database only when a translated model calls one (after the macros each needs). */
export const MACROS: Record<string, MacroDefinition> = {
  ...DIVISION_MACROS,
  __slp_regexp_contains: { sql: "create macro __slp_regexp_contains(value, pattern) as regexp_matches(value, pattern)" },
  __slp_regexp_extract: { sql: "create macro __slp_regexp_extract(value, pattern, grp) as case when regexp_matches(value, pattern) then regexp_extract(value, pattern, grp) end" },
  __slp_add_months_eom: {
    sql: "create macro __slp_add_months_eom(d, n) as case when last_day(d) = cast(d as date) then cast(last_day(d + to_months(cast(n as integer))) as timestamp) else cast(d as timestamp) + to_months(cast(n as integer)) end",
  },
  __slp_strftime: { sql: "create macro __slp_strftime(value, format) as strftime(value, format)" },
  // Databricks in ANSI mode: a value CAST cannot convert is an error, not NULL.
  __slp_ansi_cast: { sql: "create macro __slp_ansi_cast(value, cast_value) as case when cast_value is null and value is not null then error('[CAST_INVALID_INPUT] ' || cast(value as varchar) || ' cannot be cast (Databricks runs CAST in ANSI mode)') else cast_value end" },
  // Spark's text of a value cast to an integer type: a fraction is truncated (DuckDB rounds); text must be an integer (or, without ANSI mode, a decimal, truncated).
  __slp_spark_integral_text: {
    sql: "create macro __slp_spark_integral_text(x, lenient) as list_transform([struct_pack(k := __slp_kind(typeof(x)), bool := typeof(x) = 'BOOLEAN', t := trim(cast(x as varchar)))], lambda c: case when c.bool then case when c.t = 'true' then '1' when c.t = 'false' then '0' end when c.k in ('float', 'decimal') then regexp_extract(c.t, '^(-?[0-9]+)', 1) when c.k = 'integer' then c.t when regexp_full_match(c.t, '[+-]?[0-9]+') then c.t when lenient and regexp_full_match(c.t, '[+-]?[0-9]*[.][0-9]*') then regexp_extract(c.t, '^([+-]?[0-9]*)', 1) end)[1]",
    needs: ["__slp_kind"],
  },
  __slp_part_index: { sql: "create macro __slp_part_index(n) as case when n = 0 then error('[INVALID_INDEX_OF_ZERO] split_part counts parts from 1 (or -1)') else n end" },
  __slp_array_agg_ignore_nulls: { sql: "create macro __slp_array_agg_ignore_nulls(value) as array_agg(value) filter (where value is not null)" },
};

/** The CREATE MACRO statements for `names` and every macro they need, each once, a macro after those it needs. */
export function macroStatements(names: Iterable<string>, created: Set<string> = new Set()): string[] {
  const statements: string[] = [];
  const visit = (name: string) => {
    if (created.has(name)) return;
    created.add(name);
    const definition = MACROS[name];
    if (!definition) throw new Error(`slp has no macro ${name}`);
    for (const needed of definition.needs ?? []) visit(needed);
    statements.push(definition.sql);
  };
  for (const name of names) visit(name);
  return statements;
}

// --- documentation pages the examples come from ---
const SF = (page: string) => `https://docs.snowflake.com/en/sql-reference/functions/${page}`;
const BQ = (anchor: string, page = "functions-and-operators") => `https://cloud.google.com/bigquery/docs/reference/standard-sql/${page}#${anchor}`;
const DBX = (page: string) => `https://docs.databricks.com/en/sql/language-manual/functions/${page}.html`;
const RS = (page: string) => `https://docs.aws.amazon.com/redshift/latest/dg/${page}.html`;
const PG = (page: string) => `https://www.postgresql.org/docs/current/${page}.html`;
const SF_ARITHMETIC = "https://docs.snowflake.com/en/sql-reference/operators-arithmetic";
const SNOWFLAKE_DIV0_SCALE = "https://docs.snowflake.com/en/release-notes/bcr-bundles/2023_08/bcr-1400";

const same = (name: string, examples: Example[], note?: string): Construct => ({ name, how: "same", examples, ...(note ? { note } : {}) });
const translated = (name: string, examples: Example[], note?: string): Construct => ({ name, how: "translated", examples, ...(note ? { note } : {}) });
const refused = (name: string, why: string): Construct => ({ name, how: "refused", why, note: why, examples: [] });
const ex = (sql: string, expect: (string | null)[], source: string): Example => ({ sql, expect, source });

/** AVG as the sum over the count, divided by the warehouse's rule for an average (arithmetic.ts); with OVER, both take the window. */
function average(dialect: Exclude<Dialect, "duckdb">, note: string, examples: Example[]): Construct {
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
const strictConcat = (call: Call): string =>
  call.args.length === 0 ? "concat()" : `case when ${call.args.map((arg) => `(${arg}) is null`).join(" or ")} then null else concat(${call.args.join(", ")}) end`;

/** Standard functions whose DuckDB meaning is the warehouse's for the values they take (checked for each dialect below). */
function common(source: (name: string) => string): Construct[] {
  return [
    same("count", [ex("select count(x) from (select 1 as x union all select null)", ["1"], source("count"))]),
    same("sum", [ex("select sum(x) from (select 1 as x union all select 2)", ["3"], source("sum"))]),
    same("min", [ex("select min(x) from (select 1 as x union all select 2)", ["1"], source("min"))]),
    same("max", [ex("select max(x) from (select 1 as x union all select 2)", ["2"], source("max"))]),
    same("avg", [ex("select avg(x) from (select 1 as x union all select 2)", ["1.5"], source("avg"))]),
    same("coalesce", [ex("select coalesce(null, 2, 3)", ["2"], source("coalesce"))]),
    same("nullif", [ex("select nullif(1, 1)", [null], source("nullif"))]),
    same("upper", [ex("select upper('abc')", ["ABC"], source("upper"))]),
    same("lower", [ex("select lower('ABC')", ["abc"], source("lower"))]),
    same("abs", [ex("select abs(-2)", ["2"], source("abs"))]),
    same("ceil", [ex("select ceil(1.2)", ["2"], source("ceil"))]),
    same("floor", [ex("select floor(-1.2)", ["-2"], source("floor"))]),
    same("trim", [ex("select trim('  a  ')", ["a"], source("trim"))]),
    same("replace", [ex("select replace('abc', 'b', 'x')", ["axc"], source("replace"))]),
    same("row_number", [ex("select row_number() over (order by x) from (select 1 as x)", ["1"], source("row_number"))]),
    same("rank", [ex("select rank() over (order by x) from (select 1 as x)", ["1"], source("rank"))]),
    same("dense_rank", [ex("select dense_rank() over (order by x) from (select 1 as x)", ["1"], source("dense_rank"))]),
    same("lag", [ex("select max(l) from (select lag(x) over (order by x) as l from (select 1 as x union all select 2))", ["1"], source("lag"))]),
    same("lead", [ex("select max(l) from (select lead(x) over (order by x) as l from (select 1 as x union all select 2))", ["2"], source("lead"))]),
    same("cast", [ex("select cast('12' as integer)", ["12"], source("cast"))], "the type is slp's own mapping (types.ts)"),
    same("%", [ex("select -5 % 3", ["-2"], source("mod")), ex("select 5 % 3", ["2"], source("mod"))]),
    refused("initcap", "DuckDB has no initcap, and the warehouses split words differently"),
  ];
}

const SNOWFLAKE: Construct[] = [
  ...common((name) => SF(name === "cast" ? "cast" : name)),
  {
    name: "div0",
    how: "corrected",
    note: "0 when the divisor is 0, else `/` with its NUMBER scale",
    rewrite: guardedDivision("0", "= 0"),
    examples: [ex("select div0(1, 0)", ["0"], SF("div0")), ex("select div0(4, 2)", ["2"], SF("div0")), ex("select div0(5, 9)", ["0.555556"], SNOWFLAKE_DIV0_SCALE)],
  },
  {
    name: "div0null",
    how: "corrected",
    note: "0 when the divisor is 0 or NULL, else `/` with its NUMBER scale",
    rewrite: guardedDivision("0", "= 0 or (%) is null"),
    examples: [ex("select div0null(1, null)", ["0"], SF("div0null")), ex("select div0null(1, 0)", ["0"], SF("div0null")), ex("select div0null(5, 9)", ["0.555556"], SNOWFLAKE_DIV0_SCALE)],
  },
  translated("iff", [ex("select iff(true, 'true', 'false')", ["true"], SF("iff")), ex("select iff(null, 'true', 'false')", ["false"], SF("iff"))]),
  translated("nvl", [ex("select nvl(null, 'x')", ["x"], SF("nvl"))]),
  translated("nvl2", [ex("select nvl2(null, 1, 2)", ["2"], SF("nvl2")), ex("select nvl2(0, 1, 2)", ["1"], SF("nvl2"))]),
  translated("ifnull", [ex("select ifnull(null, 3)", ["3"], SF("ifnull"))]),
  translated("zeroifnull", [ex("select zeroifnull(null)", ["0"], SF("zeroifnull")), ex("select zeroifnull(1.5)", ["1.5"], SF("zeroifnull"))]),
  translated("nullifzero", [ex("select nullifzero(0)", [null], SF("nullifzero"))]),
  translated("equal_null", [ex("select equal_null(null, null)", ["true"], SF("equal_null"))]),
  translated("decode", [ex("select decode(2, 1, 'one', 2, 'two', 'other')", ["two"], SF("decode"))]),
  translated("count_if", [ex("select count_if(x > 1) from (select 1 as x union all select 2 union all select 3)", ["2"], SF("count_if"))], "over only NULLs it is 0"),
  translated("greatest", [ex("select greatest(1, 3, 0)", ["3"], SF("greatest")), ex("select greatest(1, null, 3)", [null], SF("greatest"))], "NULL when any argument is NULL"),
  translated("least", [ex("select least(1, 3, 0)", ["0"], SF("least")), ex("select least(1, null)", [null], SF("least"))], "NULL when any argument is NULL"),
  {
    name: "concat",
    how: "corrected",
    note: "NULL when any argument is NULL (the transpiler keeps DuckDB's NULL-skipping concat)",
    rewrite: strictConcat,
    examples: [ex("select concat('George Washington ', 'Carver')", ["George Washington Carver"], SF("concat")), ex("select concat('a', null, 'b')", [null], SF("concat"))],
  },
  same("||", [ex("select 'a' || 'b'", ["ab"], SF("concat-operator")), ex("select 'a' || null", [null], SF("concat-operator"))]),
  translated("::", [ex("select '12'::number", ["12"], SF("cast")), ex("select '1.5'::number(10, 2)", ["1.50"], SF("cast"))]),
  {
    name: "dateadd",
    how: "corrected",
    note: "a negative amount is parenthesized (the transpiler wrote INTERVAL -1 DAY, which DuckDB rejects); a TIMESTAMP where Snowflake returns a DATE: the same instant",
    rewrite: parenthesized(1),
    examples: [ex("select dateadd(month, 1, '2024-01-31'::date)", ["2024-02-29"], SF("dateadd")), ex("select dateadd(day, -1, '2024-03-01'::date)", ["2024-02-29"], SF("dateadd"))],
  },
  { name: "timestampadd", how: "corrected", note: "as dateadd", rewrite: parenthesized(1), examples: [ex("select timestampadd(day, -1, '2024-03-01'::date)", ["2024-02-29"], SF("dateadd"))] },
  translated("datediff", [ex("select datediff(month, '2024-01-31'::date, '2024-02-01'::date)", ["1"], SF("datediff")), ex("select datediff(day, '2024-01-01'::date, '2024-03-05'::date)", ["64"], SF("datediff"))], "counts boundaries crossed, as Snowflake does"),
  translated("date_trunc", [ex("select date_trunc('month', '2024-03-05'::date)", ["2024-03-01"], SF("date_trunc"))]),
  translated("add_months", [ex("select add_months('2016-02-29'::date, 1)", ["2016-03-31"], SF("add_months")), ex("select add_months('2016-05-15'::date, 1)", ["2016-06-15"], SF("add_months"))], "month-end stays month-end"),
  translated("last_day", [ex("select last_day('2024-02-05'::date)", ["2024-02-29"], SF("last_day"))]),
  translated("to_date", [ex("select to_date('2024-03-05')", ["2024-03-05"], SF("to_date"))]),
  translated("try_to_date", [ex("select try_to_date('2024-03-05')", ["2024-03-05"], SF("try_to_date"))]),
  translated("year", [ex("select year('2024-03-05'::date)", ["2024"], SF("year"))]),
  translated("month", [ex("select month('2024-03-05'::date)", ["3"], SF("year"))]),
  translated("day", [ex("select day('2024-03-05'::date)", ["5"], SF("year"))]),
  translated("extract", [ex("select extract(year from '2024-03-05'::date)", ["2024"], SF("extract"))]),
  translated("date_part", [ex("select date_part('month', '2024-03-05'::date)", ["3"], SF("date_part"))]),
  {
    name: "to_number",
    how: "corrected",
    note: "NUMBER(38, 0) unless precision and scale are given (the transpiler made it a DOUBLE)",
    rewrite: toNumber("cast"),
    examples: [ex("select to_number('12.3')", ["12"], SF("to_decimal")), ex("select to_number('12.345', 10, 2)", ["12.35"], SF("to_decimal"))],
  },
  { name: "to_decimal", how: "corrected", note: "as to_number", rewrite: toNumber("cast"), examples: [ex("select to_decimal('12.3', 10, 1)", ["12.3"], SF("to_decimal"))] },
  {
    name: "try_to_number",
    how: "corrected",
    note: "NULL for text that is not a number (the transpiler left it to DuckDB, which has no such function)",
    rewrite: toNumber("try_cast"),
    examples: [ex("select try_to_number('12.3')", ["12"], SF("try_to_decimal")), ex("select try_to_number('x')", [null], SF("try_to_decimal"))],
  },
  translated("try_cast", [ex("select try_cast('x' as number)", [null], SF("try_cast")), ex("select try_cast('05' as integer)", ["5"], SF("try_cast"))]),
  {
    name: "regexp_like",
    how: "corrected",
    note: "matches the whole text, as Snowflake anchors it (the transpiler made it a partial match)",
    rewrite: (call) => `rlike(${call.args.join(", ")})`,
    examples: [ex("select regexp_like('San Jose', 'san.*', 'i')", ["true"], SF("regexp_like")), ex("select regexp_like('San Jose', 'Jose')", ["false"], SF("regexp_like"))],
  },
  translated("rlike", [ex("select rlike('800-456-7891', '[2-9]\\\\d{2}-\\\\d{3}-\\\\d{4}')", ["true"], SF("rlike")), ex("select rlike('abc', 'b')", ["false"], SF("rlike"))]),
  translated("regexp_replace", [ex("select regexp_replace('It was the best of times', 'times', 'days')", ["It was the best of days"], SF("regexp_replace")), ex("select regexp_replace('aXbX', 'X', '-')", ["a-b-"], SF("regexp_replace"))], "replaces every match"),
  translated("regexp_substr", [ex("select regexp_substr('It was the best of times', 'the\\\\W+\\\\w+')", ["the best"], SF("regexp_substr"))]),
  translated("split_part", [ex("select split_part('11.22.33', '.', 1)", ["11"], SF("split_part")), ex("select split_part('11.22.33', '.', -1)", ["33"], SF("split_part")), ex("select split_part('11.22.33', '.', 0)", ["11"], SF("split_part")), ex("select split_part('11.22.33', '.', 4)", [""], SF("split_part")), ex("select split_part('|a|b|c|', '|', 1)", [""], SF("split_part")), ex("select split_part('|a|b|c|', '|', 2)", ["a"], SF("split_part")), ex("select split_part('aaa--bbb-BBB--ccc', '--', 2)", ["bbb-BBB"], SF("split_part"))]),
  translated("split", [ex("select split('127.0.0.1', '.')[0]", ["127"], SF("split"))]),
  { name: "[]", how: "corrected", note: "array subscripts are 0-based", subscript: "zero-based", examples: [ex("select split('a,b,c', ',')[1]", ["b"], SF("split"))] },
  translated("listagg", [ex("select listagg(x, ', ') within group (order by x) from (select 'b' as x union all select 'a')", ["a, b"], SF("listagg"))]),
  {
    name: "array_agg",
    how: "corrected",
    note: "skips NULLs (the transpiler kept them unless WITHIN GROUP was written)",
    rewrite: (call) => {
      if (call.next === "within" || call.next === "over") return `array_agg(${call.args.join(", ")})`;
      if (call.args.length !== 1 || /^\s*distinct\b/i.test(call.args[0] as string)) return { refuse: "slp translates array_agg(x) and array_agg(x) within group (order by ...)" };
      return `__slp_array_agg_ignore_nulls(${call.args[0]})`;
    },
    macros: ["__slp_array_agg_ignore_nulls"],
    examples: [ex("select array_size(array_agg(x)) from (select 1 as x union all select null)", ["1"], SF("array_agg")), ex("select array_agg(x) within group (order by x) from (select 1 as x union all select null)", ["[1]"], SF("array_agg"))],
  },
  translated("array_size", [ex("select array_size(split('a,b', ','))", ["2"], SF("array_size"))]),
  translated("boolor_agg", [ex("select boolor_agg(x) from (select true as x union all select false)", ["true"], SF("boolor_agg"))]),
  translated("booland_agg", [ex("select booland_agg(x) from (select true as x union all select false)", ["false"], SF("booland_agg"))]),
  translated("len", [ex("select len('abc')", ["3"], SF("length"))]),
  same("length", [ex("select length('abc')", ["3"], SF("length"))]),
  translated("charindex", [ex("select charindex('an', 'banana')", ["2"], SF("charindex"))]),
  same("left", [ex("select left('ABCDEFG', 3)", ["ABC"], SF("left"))]),
  same("right", [ex("select right('ABCDEFG', 3)", ["EFG"], SF("right"))]),
  same("lpad", [ex("select lpad('7', 3, '0')", ["007"], SF("lpad"))]),
  translated("substr", [ex("select substr('abcdef', 2, 3)", ["bcd"], SF("substr")), ex("select substr('abcdef', -2)", ["ef"], SF("substr"))]),
  translated("substring", [ex("select substring('abcdef', 2, 3)", ["bcd"], SF("substr"))]),
  same("round", [ex("select round(2.5)", ["3"], SF("round")), ex("select round(-2.5)", ["-3"], SF("round")), ex("select round(1.2345, 2)", ["1.23"], SF("round"))], "half away from zero"),
  translated("trunc", [ex("select trunc(2.7)", ["2"], SF("trunc"))]),
  translated("mod", [ex("select mod(-5, 3)", ["-2"], SF("mod"))]),
  translated("md5", [ex("select md5('Snowflake')", ["edf1439075a83a447fb8b630ddc9c8de"], SF("md5"))]),
  translated("qualify", [ex("select x from (select 1 as x union all select 2) qualify row_number() over (order by x desc) = 1", ["2"], "https://docs.snowflake.com/en/sql-reference/constructs/qualify")]),
  translated("current_date", [ex("select current_date() is not null", ["true"], SF("current_date"))]),
  { name: "current_timestamp", how: "corrected", note: "without a precision (the transpiler kept the parentheses DuckDB rejects)", rewrite: bareKeyword("localtimestamp"), examples: [ex("select current_timestamp() is not null", ["true"], SF("current_timestamp"))] },
  translated("convert_timezone", [ex("select convert_timezone('UTC', '2024-01-01 10:00:00'::timestamp_tz) is not null", ["true"], SF("convert_timezone"))]),
  translated("ilike", [ex("select 'ABC' ilike 'a%'", ["true"], SF("ilike"))]),
  {
    name: "/",
    how: "corrected",
    note: "NUMBER operands divide to scale max(s1, min(s1 + 6, 12)), rounded half away from zero; FLOAT to FLOAT; by zero is an error",
    examples: [
      ex("select 7 / 2", ["3.5"], SF_ARITHMETIC),
      ex("select 1 / 3", ["0.333333"], SF_ARITHMETIC),
      ex("select 5 / 9", ["0.555556"], SNOWFLAKE_DIV0_SCALE),
      ex("select 1 / 100000000", ["0.000000"], SF_ARITHMETIC),
      ex("select 1.00000000 / 3", ["0.333333333333"], SF_ARITHMETIC),
      ex("select 1e0 / 3", ["0.3333333333333333"], SF_ARITHMETIC),
    ],
  },
  {
    name: "*",
    how: "corrected",
    note: "NUMBER operands multiply to scale min(s1 + s2, max(s1, s2, 12)), rounded half away from zero",
    examples: [ex("select 10.01 * 1.1", ["11.011"], SF_ARITHMETIC), ex("select 10.001 * .001", ["0.010001"], SF_ARITHMETIC), ex("select .1 * .0000000000001", ["0.0000000000000"], SF_ARITHMETIC), ex("select 100000 * 100000", ["10000000000"], SF_ARITHMETIC)],
  },
  translated("* exclude", [ex("select * exclude (b) from (select 1 as a, 2 as b)", ["1"], "https://docs.snowflake.com/en/sql-reference/sql/select")]),
  {
    name: "to_char",
    how: "corrected",
    note: "date and time formats only (YYYY, MM, DD, HH24, MI, SS, MON, DY, ...); number formats are refused",
    rewrite: (call) => formatted(call, SNOWFLAKE_FORMAT),
    macros: ["__slp_strftime"],
    examples: [ex("select to_char('2024-03-05'::date, 'YYYY-MM')", ["2024-03"], SF("to_char")), ex("select to_char('2024-03-05 13:04:05'::timestamp, 'DD/MM/YYYY HH24:MI:SS')", ["05/03/2024 13:04:05"], SF("to_char"))],
  },
  { name: "to_varchar", how: "corrected", note: "as to_char", rewrite: (call) => formatted(call, SNOWFLAKE_FORMAT), macros: ["__slp_strftime"], examples: [ex("select to_varchar('2024-03-05'::date, 'MON DD, YYYY')", ["Mar 05, 2024"], SF("to_char"))] },
  refused("flatten", "LATERAL FLATTEN walks VARIANT values, which slp does not hold in DuckDB"),
  refused("lateral", "LATERAL FLATTEN walks VARIANT values, which slp does not hold in DuckDB"),
  refused("parse_json", "VARIANT values have no faithful DuckDB type"),
  refused(":", "VARIANT paths (v:a.b) read values slp does not hold in DuckDB"),
  refused("hash", "Snowflake's HASH is its own 64-bit function; DuckDB's hash() gives other numbers"),
  refused("uuid_string", "a random value cannot be compared with an expected one"),
  refused("approx_count_distinct", "an estimate: DuckDB's algorithm gives other numbers than Snowflake's"),
  average("snowflake", "a NUMBER averages with division's scale (1, 2, 2 average to 1.666667); FLOAT to FLOAT", [
    ex("select avg(x) from (select 1 as x union all select 2 union all select 2)", ["1.666667"], "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/snowflake.snowpark.functions.avg"),
    ex("select avg(x) from (select 1 as x union all select 2)", ["1.5"], SF("avg")),
    ex("select avg(x) over (order by x rows between unbounded preceding and current row) from (select 1 as x union all select 2) qualify x = 2", ["1.5"], SF("avg")),
  ]),
];

const BIGQUERY: Construct[] = [
  ...common((name) => BQ(name === "cast" ? "cast" : name, ["count", "sum", "min", "max", "avg"].includes(name) ? "aggregate_functions" : name === "row_number" || name === "rank" || name === "dense_rank" || name === "lag" || name === "lead" ? "numbering_functions" : "functions-and-operators")),
  {
    name: "safe_divide",
    how: "corrected",
    note: "NULL when the divisor is 0, else `/`",
    rewrite: guardedDivision("null", "= 0"),
    examples: [ex("select safe_divide(20, 4)", ["5"], BQ("safe_divide", "mathematical_functions")), ex("select safe_divide(0, 20)", ["0"], BQ("safe_divide", "mathematical_functions")), ex("select safe_divide(20, 0)", [null], BQ("safe_divide", "mathematical_functions"))],
  },
  translated("div", [ex("select div(20, 4)", ["5"], BQ("div", "mathematical_functions")), ex("select div(12, -7)", ["-1"], BQ("div", "mathematical_functions"))]),
  translated("safe_cast", [ex("select safe_cast('apple' as int64)", [null], BQ("safe_casting", "conversion_functions"))]),
  translated("if", [ex("select if(1 > 2, 'a', 'b')", ["b"], BQ("if", "conditional_expressions"))]),
  translated("ifnull", [ex("select ifnull(null, 0)", ["0"], BQ("ifnull", "conditional_expressions"))]),
  {
    name: "countif",
    how: "corrected",
    note: "0 over only NULLs (the transpiler gave NULL)",
    rewrite: (call) => `countif((${call.args[0] ?? "null"}) is true)`,
    examples: [ex("select countif(x < 0) from unnest([5, -2, 3, 6, -10, -7, 4, 0]) as x", ["3"], BQ("countif", "aggregate_functions")), ex("select countif(x > 0) from unnest([cast(null as int64)]) as x", ["0"], BQ("countif", "aggregate_functions"))],
  },
  {
    name: "regexp_contains",
    how: "corrected",
    note: "a partial match (the transpiler made it a full match)",
    rewrite: (call) => `__slp_regexp_contains(${call.args.join(", ")})`,
    macros: ["__slp_regexp_contains"],
    examples: [ex("select regexp_contains('foo@example.com', r'@[a-zA-Z0-9-]+\\.[a-zA-Z0-9-.]+')", ["true"], BQ("regexp_contains", "string_functions")), ex("select regexp_contains('www.example.net', r'^[a-z]+$')", ["false"], BQ("regexp_contains", "string_functions"))],
  },
  {
    name: "regexp_extract",
    how: "corrected",
    note: "the first capturing group when the pattern has one, else the whole match; NULL when nothing matches",
    rewrite: (call) => {
      const pattern = call.literal(1);
      if (call.args.length !== 2 || pattern === null) return { refuse: "slp translates regexp_extract(value, 'literal pattern') only" };
      return `__slp_regexp_extract(${call.args[0]}, ${call.args[1]}, ${/\((?!\?)/.test(pattern.replace(/\\./g, "")) ? 1 : 0})`;
    },
    macros: ["__slp_regexp_extract"],
    examples: [
      ex("select regexp_extract('foo@example.com', r'^[a-zA-Z0-9_.+-]+')", ["foo"], BQ("regexp_extract", "string_functions")),
      ex("select regexp_extract('foo@example.com', r'^([a-zA-Z0-9_.+-]+)@')", ["foo"], BQ("regexp_extract", "string_functions")),
      ex("select regexp_extract('abc', r'\\d+')", [null], BQ("regexp_extract", "string_functions")),
    ],
  },
  {
    name: "concat",
    how: "corrected",
    note: "NULL when any argument is NULL",
    rewrite: strictConcat,
    examples: [ex("select concat('The sun ', 'is ', 'shining')", ["The sun is shining"], BQ("concat", "string_functions")), ex("select concat('a', null)", [null], BQ("concat", "string_functions"))],
  },
  same("||", [ex("select 'a' || 'b'", ["ab"], BQ("concatenation_operator", "operators"))]),
  {
    name: "date_trunc",
    how: "corrected",
    note: "WEEK (which starts on Sunday) and WEEK(<day>) are refused",
    rewrite: refuseWeek("date_trunc", 1),
    examples: [ex("select date_trunc(date '2008-12-25', month)", ["2008-12-01"], BQ("date_trunc", "date_functions"))],
  },
  { name: "date_diff", how: "corrected", note: "WEEK is refused", rewrite: refuseWeek("date_diff", 2), examples: [ex("select date_diff(date '2010-07-07', date '2008-12-25', day)", ["559"], BQ("date_diff", "date_functions")), ex("select date_diff(date '2017-12-30', date '2014-12-30', year)", ["3"], BQ("date_diff", "date_functions"))] },
  translated("current_date", [ex("select current_date() is not null", ["true"], BQ("current_date", "date_functions"))]),
  { name: "current_timestamp", how: "corrected", note: "without a precision", rewrite: bareKeyword("current_timestamp"), examples: [ex("select current_timestamp() is not null", ["true"], BQ("current_timestamp", "timestamp_functions"))] },
  translated("to_hex", [ex("select to_hex(md5('abc'))", ["900150983cd24fb0d6963f7d28e17f72"], BQ("to_hex", "string_functions"))]),
  translated("md5", [ex("select to_hex(md5('abc'))", ["900150983cd24fb0d6963f7d28e17f72"], BQ("md5", "hash_functions"))], "as to_hex(md5(x)), which dbt's hash() writes"),
  translated("date_add", [ex("select date_add(date '2008-12-25', interval 5 day)", ["2008-12-30"], BQ("date_add", "date_functions"))]),
  translated("date_sub", [ex("select date_sub(date '2008-12-25', interval 5 day)", ["2008-12-20"], BQ("date_sub", "date_functions"))]),
  translated("datetime_add", [ex("select datetime_add(datetime '2008-12-25 15:30:00', interval 10 minute)", ["2008-12-25 15:40:00"], BQ("datetime_add", "datetime_functions"))]),
  translated("datetime_diff", [ex("select datetime_diff(datetime '2010-07-07 10:20:00', datetime '2008-12-25 15:30:00', day)", ["559"], BQ("datetime_diff", "datetime_functions"))]),
  translated("timestamp_trunc", [ex("select timestamp_trunc(timestamp '2008-12-25 15:30:00+00', day)", ["2008-12-25 00:00:00+00"], BQ("timestamp_trunc", "timestamp_functions"))]),
  {
    name: "format_date",
    how: "corrected",
    note: "format elements checked one by one (%x, %D, %F, %T, %R spelled out; elements DuckDB lacks refused)",
    rewrite: bigqueryFormat("format_date"),
    examples: [ex("select format_date('%x', date '2008-12-25')", ["12/25/08"], BQ("format_date", "date_functions")), ex("select format_date('%b %Y', date '2008-12-25')", ["Dec 2008"], BQ("format_date", "date_functions")), ex("select format_date('%b-%d-%Y', date '2008-12-25')", ["Dec-25-2008"], BQ("format_date", "date_functions"))],
  },
  { name: "format_timestamp", how: "corrected", note: "as format_date", rewrite: bigqueryFormat("format_timestamp"), examples: [ex("select format_timestamp('%D %T', timestamp '2008-12-25 15:30:00+00')", ["12/25/08 15:30:00"], BQ("format_timestamp", "timestamp_functions"))] },
  { name: "format_datetime", how: "corrected", note: "as format_date", rewrite: bigqueryFormat("format_datetime"), examples: [ex("select format_datetime('%c', datetime '2008-12-25 15:30:00')", ["Thu Dec 25 15:30:00 2008"], BQ("format_datetime", "datetime_functions"))] },
  translated("parse_date", [ex("select parse_date('%Y%m%d', '20081225')", ["2008-12-25"], BQ("parse_date", "date_functions"))]),
  translated("last_day", [ex("select last_day(date '2008-11-25', month)", ["2008-11-30"], BQ("last_day", "date_functions"))]),
  {
    name: "extract",
    how: "corrected",
    note: "DAYOFWEEK is 1 (Sunday) to 7 (the transpiler kept DuckDB's 0 to 6); WEEK (Sunday weeks) is refused",
    rewrite: (call) => {
      const part = /^\s*(\w+)/.exec(call.args[0] ?? "")?.[1]?.toLowerCase() ?? "";
      if (part === "week" || part.startsWith("week(")) return { refuse: "BigQuery's WEEK starts on Sunday; DuckDB's on Monday" };
      const text = `extract(${call.args.join(", ")})`;
      return part === "dayofweek" ? `(${text} + 1)` : text;
    },
    examples: [ex("select extract(dayofweek from date '2024-03-05')", ["3"], BQ("extract", "date_functions")), ex("select extract(year from date '2024-03-05')", ["2024"], BQ("extract", "date_functions"))],
  },
  translated("date", [ex("select date(2016, 12, 25)", ["2016-12-25"], BQ("date", "date_functions"))]),
  {
    name: "array_agg",
    how: "corrected",
    note: "IGNORE NULLS is kept (the transpiler dropped it inside other calls); with ORDER BY or LIMIT it is refused",
    rewrite: (call) => {
      const only = call.args.length === 1 ? /^([\s\S]*?)\s+ignore\s+nulls\s*$/i.exec(call.args[0] as string) : null;
      if (only) return /\b(order|limit)\b/i.test(only[1] as string) ? { refuse: "slp translates array_agg(x ignore nulls) without ORDER BY or LIMIT" } : `__slp_array_agg_ignore_nulls(${only[1]})`;
      return /\bignore\s+nulls\b/i.test(call.args.join(",")) ? { refuse: "slp translates array_agg(x ignore nulls) without ORDER BY or LIMIT" } : `array_agg(${call.args.join(", ")})`;
    },
    macros: ["__slp_array_agg_ignore_nulls"],
    examples: [ex("select array_length(array_agg(x ignore nulls)) from unnest([1, null, 2]) as x", ["2"], BQ("array_agg", "aggregate_functions")), ex("select array_length(array_agg(x)) from unnest([1, 2]) as x", ["2"], BQ("array_agg", "aggregate_functions"))],
  },
  translated("array_length", [ex("select array_length([1, 2, 3])", ["3"], BQ("array_length", "array_functions"))]),
  translated("string_agg", [ex("select string_agg(fruit, ' & ' order by fruit) from unnest(['apple', 'pear', 'banana']) as fruit", ["apple & banana & pear"], BQ("string_agg", "aggregate_functions"))]),
  translated("split", [ex("select split('a,b,c', ',')[offset(1)]", ["b"], BQ("split", "string_functions"))]),
  translated("offset", [ex("select ['coffee', 'tea', 'milk'][offset(0)]", ["coffee"], BQ("array_subscript_operator", "operators"))]),
  translated("safe_offset", [ex("select ['coffee', 'tea'][safe_offset(5)]", [null], BQ("array_subscript_operator", "operators"))]),
  translated("ordinal", [ex("select ['coffee', 'tea', 'milk'][ordinal(1)]", ["coffee"], BQ("array_subscript_operator", "operators"))]),
  translated("[]", [ex("select ['coffee', 'tea', 'milk'][1]", ["tea"], BQ("array_subscript_operator", "operators"))], "a bare index is an OFFSET (0-based)"),
  translated("unnest", [ex("select count(*) from unnest([1, 2, 3]) as x", ["3"], BQ("unnest_operator", "query-syntax"))]),
  translated("starts_with", [ex("select starts_with('bar', 'b')", ["true"], BQ("starts_with", "string_functions"))]),
  translated("ends_with", [ex("select ends_with('apple', 'e')", ["true"], BQ("ends_with", "string_functions"))]),
  translated("strpos", [ex("select strpos('foo@example.com', '@')", ["4"], BQ("strpos", "string_functions"))]),
  translated("length", [ex("select length('абвгд')", ["5"], BQ("length", "string_functions"))]),
  translated("substr", [ex("select substr('apple', 2, 2)", ["pp"], BQ("substr", "string_functions")), ex("select substr('apple', -2)", ["le"], BQ("substr", "string_functions"))]),
  same("lpad", [ex("select lpad('c', 3, 'a')", ["aac"], BQ("lpad", "string_functions"))]),
  same("round", [ex("select round(2.5)", ["3"], BQ("round", "mathematical_functions")), ex("select round(-2.5)", ["-3"], BQ("round", "mathematical_functions"))], "half away from zero"),
  translated("mod", [ex("select mod(-25, 12)", ["-1"], BQ("mod", "mathematical_functions"))]),
  translated("logical_or", [ex("select logical_or(x) from unnest([true, false]) as x", ["true"], BQ("logical_or", "aggregate_functions"))]),
  translated("logical_and", [ex("select logical_and(x) from unnest([true, false]) as x", ["false"], BQ("logical_and", "aggregate_functions"))]),
  translated("qualify", [ex("select x from unnest([1, 2]) as x qualify row_number() over (order by x desc) = 1", ["2"], BQ("qualify_clause", "query-syntax"))]),
  translated("* except", [ex("select * except (b) from (select 1 as a, 2 as b)", ["1"], BQ("select_except", "query-syntax"))]),
  {
    name: "/",
    how: "corrected",
    note: "INT64 operands divide to FLOAT64; NUMERIC to 9 decimals, rounded half away from zero; by zero is an error",
    examples: [ex("select 7 / 2", ["3.5"], BQ("arithmetic_operators", "operators")), ex("select 1 / 3", ["0.3333333333333333"], BQ("arithmetic_operators", "operators")), ex("select numeric '1' / 3", ["0.333333333"], BQ("decimal_types", "data-types")), ex("select 1.0 / 3", ["0.3333333333333333"], BQ("floating_point_literals", "lexical"))],
  },
  {
    name: "*",
    how: "corrected",
    note: "NUMERIC products keep 9 decimals, rounded half away from zero; INT64 products are INT64",
    examples: [ex("select 2 * 3", ["6"], BQ("arithmetic_operators", "operators")), ex("select numeric '0.00001' * numeric '0.00001'", ["0.000000000"], BQ("decimal_types", "data-types")), ex("select numeric '1.5' * 3", ["4.5"], BQ("decimal_types", "data-types"))],
  },
  translated("greatest", [ex("select greatest(1, null, 3)", [null], BQ("greatest", "mathematical_functions"))], "NULL when any argument is NULL"),
  translated("least", [ex("select least(1, null)", [null], BQ("least", "mathematical_functions"))], "NULL when any argument is NULL"),
  refused("week", "BigQuery's WEEK starts on Sunday (or the day named); DuckDB truncates to Monday"),
  refused("farm_fingerprint", "BigQuery's own hash: DuckDB gives other numbers"),
  refused("approx_count_distinct", "an estimate: DuckDB's algorithm gives other numbers than BigQuery's"),
  average("bigquery", "INT64 averages to FLOAT64, NUMERIC to NUMERIC (9 decimals)", [
    ex("select avg(x) as avg from unnest([0, 2, 4, 4, 5]) as x", ["3"], BQ("avg", "aggregate_functions")),
    ex("select avg(x) from unnest([numeric '1', numeric '2', numeric '2']) as x", ["1.666666667"], BQ("avg", "aggregate_functions")),
  ]),
  refused("generate_uuid", "a random value cannot be compared with an expected one"),
  refused("json_extract", "JSON values have no faithful DuckDB type in slp"),
];

const DATABRICKS: Construct[] = [
  ...common((name) => DBX(name)),
  translated("if", [ex("select if(1 < 2, 'a', 'b')", ["a"], DBX("if"))]),
  translated("iff", [ex("select iff(1 < 2, 'a', 'b')", ["a"], DBX("iff"))]),
  translated("nvl", [ex("select nvl(null, 2)", ["2"], DBX("nvl"))]),
  translated("nvl2", [ex("select nvl2(null, 2, 1)", ["1"], DBX("nvl2"))]),
  translated("ifnull", [ex("select ifnull(null, 2)", ["2"], DBX("ifnull"))]),
  {
    name: "try_divide",
    how: "corrected",
    note: "NULL when the divisor is 0, else `/`",
    rewrite: guardedDivision("null", "= 0"),
    examples: [ex("select try_divide(3, 2)", ["1.5"], DBX("try_divide")), ex("select try_divide(2L, 2L)", ["1.0"], DBX("try_divide")), ex("select try_divide(2, 0)", [null], DBX("try_divide"))],
  },
  translated("div", [ex("select 3 div 2", ["1"], DBX("div"))]),
  {
    name: "/",
    how: "corrected",
    note: "integers divide to DOUBLE; decimals to scale max(6, s1 + p2 + 1) (Spark's rule); by zero is an error in ANSI mode (databricks) and NULL without it (spark)",
    examples: [ex("select 3 / 2", ["1.5"], DBX("slashsign")), ex("select 2L / 2L", ["1.0"], DBX("slashsign"))],
  },
  {
    name: "concat",
    how: "corrected",
    note: "NULL when any argument is NULL",
    rewrite: strictConcat,
    examples: [ex("select concat('Spark', 'SQL')", ["SparkSQL"], DBX("concat")), ex("select concat('Spark', null)", [null], DBX("concat"))],
  },
  refused("||", "the transpiler writes it as DuckDB's concat(), which skips NULLs where Databricks returns NULL: write concat(), which slp corrects"),
  same("concat_ws", [ex("select concat_ws(' ', 'Spark', 'SQL')", ["Spark SQL"], DBX("concat_ws")), ex("select concat_ws('s', 'a', null, 'b')", ["asb"], DBX("concat_ws"))]),
  translated("date_add", [ex("select date_add('2016-07-30', 1)", ["2016-07-31"], DBX("date_add"))]),
  translated("datediff", [ex("select datediff('2009-07-31', '2009-07-30')", ["1"], DBX("datediff"))]),
  translated("date_trunc", [ex("select date_trunc('MONTH', timestamp '2015-03-05 09:32:05.359')", ["2015-03-01 00:00:00"], DBX("date_trunc"))]),
  {
    name: "date_format",
    how: "corrected",
    note: "Java datetime patterns read by slp (y, yyyy, M, MM, MMM, MMMM, d, dd, E, EEEE, H, HH, h, mm, ss, SSS, a, 'text'); others refused",
    rewrite: javaFormat,
    macros: ["__slp_strftime"],
    examples: [ex("select date_format(date '2016-04-08', 'y')", ["2016"], DBX("date_format")), ex("select date_format(date '2016-04-08', 'yyyy-MM-dd')", ["2016-04-08"], DBX("date_format")), ex("select date_format(timestamp '2016-04-08 13:05:09', 'MMM d, yyyy h:mm a')", ["Apr 8, 2016 1:05 PM"], DBX("date_format"))],
  },
  translated("to_date", [ex("select to_date('2009-07-30 04:17:52')", ["2009-07-30"], DBX("to_date")), ex("select to_date('2016-12-31', 'yyyy-MM-dd')", ["2016-12-31"], DBX("to_date"))]),
  translated("year", [ex("select year(date '2016-07-30')", ["2016"], DBX("year"))]),
  translated("month", [ex("select month(date '2016-07-30')", ["7"], DBX("month"))]),
  translated("last_day", [ex("select last_day(date '2009-01-12')", ["2009-01-31"], DBX("last_day"))]),
  translated("regexp_extract", [ex("select regexp_extract('100-200', '(\\\\d+)-(\\\\d+)', 1)", ["100"], DBX("regexp_extract"))]),
  translated("rlike", [ex("select 'abc' rlike 'b'", ["true"], DBX("rlike"))], "a partial match, as Databricks finds it"),
  {
    name: "split_part",
    how: "corrected",
    note: "part 0 is the error INVALID_INDEX_OF_ZERO, as Databricks raises it",
    rewrite: (call) => (call.args.length === 3 ? `split_part(${call.args[0]}, ${call.args[1]}, __slp_part_index(${call.args[2]}))` : { refuse: "split_part takes a string, a delimiter and a part number" }),
    macros: ["__slp_part_index"],
    examples: [ex("select split_part('Hello,world,!', ',', 1)", ["Hello"], DBX("split_part")), ex("select split_part('Hello,world,!', ',', 100)", [""], DBX("split_part")), ex("select split_part('Hello,world,!', ',', -2)", ["world"], DBX("split_part")), ex("select split_part('', ',', 1)", [""], DBX("split_part"))],
  },
  translated("collect_list", [ex("select size(collect_list(x)) from (select 1 as x union all select null)", ["1"], DBX("collect_list"))]),
  translated("size", [ex("select size(array('b', 'd', 'c', 'a'))", ["4"], DBX("size"))]),
  translated("array", [ex("select size(array(1, 2, 3))", ["3"], DBX("array"))]),
  translated("array_contains", [ex("select array_contains(array(1, 2, 3), 2)", ["true"], DBX("array_contains"))]),
  { name: "[]", how: "corrected", note: "array subscripts are 0-based", subscript: "zero-based", examples: [ex("select array(1, 2, 3)[2]", ["3"], DBX("bracketsign"))] },
  translated("count_if", [ex("select count_if(col % 2 = 0) from (select 0 as col union all select 1 union all select 2)", ["2"], DBX("count_if"))]),
  translated("ilike", [ex("select 'Spark' ilike '_PARK'", ["true"], DBX("ilike"))]),
  translated("qualify", [ex("select x from (select 1 as x union all select 2) qualify row_number() over (order by x desc) = 1", ["2"], "https://docs.databricks.com/en/sql/language-manual/sql-ref-syntax-qry-select-qualify.html")]),
  translated("length", [ex("select length('Spark SQL ')", ["10"], DBX("length"))]),
  same("left", [ex("select left('Spark SQL', 3)", ["Spa"], DBX("left"))]),
  same("round", [ex("select round(2.5, 0)", ["3"], DBX("round"))], "half up"),
  translated("mod", [ex("select mod(-5, 3)", ["-2"], DBX("mod"))]),
  translated("greatest", [ex("select greatest(10, 9, 2, 4, 3)", ["10"], DBX("greatest")), ex("select greatest(1, null)", ["1"], DBX("greatest"))], "skips NULLs"),
  ...sparkCasts(true),
  refused("explode", "a generator in the select list (lateral view explode) has no faithful DuckDB form in slp"),
  refused("lateral view", "a generator in the select list (lateral view explode) has no faithful DuckDB form in slp"),
  refused("approx_count_distinct", "an estimate: DuckDB's algorithm gives other numbers than Databricks'"),
  average("databricks", "integers average to DOUBLE; DECIMAL(p, s) to scale s + 4", [
    ex("select avg(col) from values (1), (2), (3) as tab(col)", ["2.0"], DBX("avg")),
    ex("select avg(distinct col) from values (1), (1), (2) as tab(col)", ["1.5"], DBX("avg")),
  ]),
  refused("bround", "DuckDB has no half-even rounding function"),
];

const REDSHIFT_POSTGRES_COMMON = (source: (name: string) => string, divisionExamples: Example[]): Construct[] => [
  { name: "/", how: "corrected", note: "integers divide to an integer (truncated); numerics keep the warehouse's scale; by zero is an error", examples: [ex("select 7 / 2", ["3"], source("/")), ex("select -7 / 2", ["-3"], source("/")), ex("select 7.0 / 2", ["3.5"], source("/")), ...divisionExamples] },
  same("||", [ex("select 'a' || 'b'", ["ab"], source("||")), ex("select 'a' || null", [null], source("||"))]),
  translated("::", [ex("select '12'::integer", ["12"], source("::"))]),
  translated("date_trunc", [ex("select date_trunc('month', date '2024-03-05')", ["2024-03-01"], source("date_trunc"))]),
  translated("date_part", [ex("select date_part('dow', date '2024-03-05')", ["2"], source("date_part"))], "dow is 0 (Sunday) to 6"),
  translated("extract", [ex("select extract(year from date '2024-03-05')", ["2024"], source("extract"))]),
  same("split_part", [ex("select split_part('a,b,c', ',', 2)", ["b"], source("split_part"))]),
  same("left", [ex("select left('abcde', 2)", ["ab"], source("left"))]),
  same("right", [ex("select right('abcde', 2)", ["de"], source("right"))]),
  same("lpad", [ex("select lpad('hi', 5, 'xy')", ["xyxhi"], source("lpad"))]),
  translated("strpos", [ex("select strpos('high', 'ig')", ["2"], source("strpos"))]),
  translated("position", [ex("select position('om' in 'Thomas')", ["3"], source("position"))]),
  same("length", [ex("select length('jose')", ["4"], source("length"))]),
  translated("substring", [ex("select substring('Thomas' from 2 for 3)", ["hom"], source("substring"))]),
  same("round", [ex("select round(42.4382, 2)", ["42.44"], source("round")), ex("select round(2.5)", ["3"], source("round"))], "numeric rounds half away from zero"),
  translated("mod", [ex("select mod(9, 4)", ["1"], source("mod"))]),
  same("md5", [ex("select md5('abc')", ["900150983cd24fb0d6963f7d28e17f72"], source("md5"))]),
  translated("ilike", [ex("select 'ABC' ilike 'a%'", ["true"], source("ilike"))]),
  translated("~", [ex("select 'abc' ~ 'b'", ["true"], source("~"))], "a partial match"),
  translated("greatest", [ex("select greatest(1, null, 3)", ["3"], source("greatest"))], "skips NULLs"),
  translated("least", [ex("select least(1, null, 3)", ["1"], source("least"))], "skips NULLs"),
  translated("bool_or", [ex("select bool_or(x) from (select true as x union all select false) as t", ["true"], source("bool_or"))]),
  translated("bool_and", [ex("select bool_and(x) from (select true as x union all select false) as t", ["false"], source("bool_and"))]),
  {
    name: "to_char",
    how: "corrected",
    note: "date and time patterns only (YYYY, MM, DD, HH24, MI, SS, Mon, Dy, FMMonth, ...); number patterns are refused",
    rewrite: (call) => formatted(call, POSTGRES_FORMAT),
    macros: ["__slp_strftime"],
    examples: [ex("select to_char(timestamp '2024-03-05 13:04:05', 'YYYY-MM-DD HH24:MI:SS')", ["2024-03-05 13:04:05"], source("to_char")), ex("select to_char(date '2024-03-05', 'Mon DD YYYY')", ["Mar 05 2024"], source("to_char"))],
  },
  refused("approximate", "an estimate: DuckDB's algorithm gives other numbers"),
];

const REDSHIFT: Construct[] = [
  ...common((name) => RS(`r_${name.toUpperCase()}`)),
  ...REDSHIFT_POSTGRES_COMMON(
    (name) => RS(name === "/" || name === "||" || name === "::" || name === "~" || name === "ilike" ? "r_operators" : `r_${name.toUpperCase()}`),
    // DECIMAL(8,2) / DECIMAL(8,2) is DECIMAL(17,9): scale max(4, s1 + p2 - s2 + 1).
    [ex("select cast(10 as decimal(8,2)) / cast(3 as decimal(8,2))", ["3.333333333"], RS("r_numeric_computations201")), ex("select cast(2 as decimal(8,2)) / cast(3 as decimal(8,2))", ["0.666666667"], RS("r_numeric_computations201"))],
  ),
  translated("nvl", [ex("select nvl(null, 'x')", ["x"], RS("r_NVL_function"))]),
  translated("nvl2", [ex("select nvl2(null, 1, 2)", ["2"], RS("r_NVL2"))]),
  translated("decode", [ex("select decode(2, 1, 'one', 2, 'two', 'other')", ["two"], RS("r_DECODE_expression"))]),
  translated("len", [ex("select len('français')", ["8"], RS("r_LEN"))]),
  translated("charindex", [ex("select charindex('dog', 'fish')", ["0"], RS("r_CHARINDEX")), ex("select charindex('fish', 'dogfish')", ["4"], RS("r_CHARINDEX"))]),
  { name: "dateadd", how: "corrected", note: "a negative amount is parenthesized (the transpiler's INTERVAL -1 DAY is rejected by DuckDB)", rewrite: parenthesized(1), examples: [ex("select dateadd(month, 1, '2008-01-31'::date)", ["2008-02-29"], RS("r_DATEADD_function")), ex("select dateadd(day, 30, '2008-02-28'::date)", ["2008-03-29"], RS("r_DATEADD_function")), ex("select dateadd(day, -1, '2008-03-01'::date)", ["2008-02-29"], RS("r_DATEADD_function"))] },
  translated("datediff", [ex("select datediff(day, '2008-01-01'::date, '2008-03-05'::date)", ["64"], RS("r_DATEDIFF_function")), ex("select datediff(month, '2008-01-31'::date, '2008-02-01'::date)", ["1"], RS("r_DATEDIFF_function"))]),
  {
    name: "add_months",
    how: "corrected",
    note: "month-end stays month-end (the transpiler lost it)",
    rewrite: (call) => (call.args.length === 2 ? `__slp_add_months_eom(${call.args[0]}, ${call.args[1]})` : { refuse: "add_months takes a date and a number of months" }),
    macros: ["__slp_add_months_eom"],
    examples: [ex("select add_months('2008-03-31'::date, 1)", ["2008-04-30 00:00:00"], RS("r_ADD_MONTHS")), ex("select add_months('2008-02-29'::date, 1)", ["2008-03-31 00:00:00"], RS("r_ADD_MONTHS")), ex("select add_months('2008-01-15'::date, 1)", ["2008-02-15 00:00:00"], RS("r_ADD_MONTHS"))],
  },
  translated("last_day", [ex("select last_day('2008-02-05'::date)", ["2008-02-29"], RS("r_LAST_DAY"))]),
  translated("listagg", [ex("select listagg(x, ',') within group (order by x) from (select 'b' as x union all select 'a') as t", ["a,b"], RS("r_LISTAGG"))]),
  {
    name: "concat",
    how: "corrected",
    note: "NULL when either argument is NULL",
    rewrite: strictConcat,
    examples: [ex("select concat('December 25, ', '2008')", ["December 25, 2008"], RS("r_CONCAT")), ex("select concat('a', null)", [null], RS("r_CONCAT"))],
  },
  translated("getdate", [ex("select getdate() is not null", ["true"], RS("r_GETDATE"))]),
  refused("median", "Redshift's MEDIAN of an even count differs by type from DuckDB's"),
  average("redshift", "integers average to a BIGINT (truncated); the average of a DECIMAL is refused", [
    ex("select avg(x) from (select 1 as x union all select 2) as t", ["1"], RS("r_AVG")),
    ex("select avg(x) from (select 1.5::float8 as x union all select 2) as t", ["1.75"], RS("r_AVG")),
  ]),
];

const POSTGRES: Construct[] = [
  ...common((name) => PG("functions-aggregate")),
  ...REDSHIFT_POSTGRES_COMMON(
    (name) => PG(name === "/" || name === "mod" || name === "round" ? "functions-math" : name === "date_trunc" || name === "date_part" || name === "extract" ? "functions-datetime" : name === "to_char" ? "functions-formatting" : name === "~" || name === "ilike" ? "functions-matching" : name.startsWith("bool") || name === "greatest" || name === "least" ? "functions-aggregate" : "functions-string"),
    // Table 9.4: numeric division keeps at least 16 significant digits.
    [ex("select 5.0 / 2", ["2.5000000000000000"], PG("functions-math")), ex("select 5 / 2", ["2"], PG("functions-math")), ex("select (-5) / 2", ["-2"], PG("functions-math")), ex("select 1.0 / 3", ["0.33333333333333333333"], PG("functions-math"))],
  ),
  same("concat", [ex("select concat('abcde', 2, null, 22)", ["abcde222"], PG("functions-string"))], "skips NULLs, as DuckDB's does"),
  same("concat_ws", [ex("select concat_ws(',', 'abcde', 2, null, 22)", ["abcde,2,22"], PG("functions-string"))]),
  translated("string_agg", [ex("select string_agg(x, ',' order by x) from (values ('b'), ('a')) as t(x)", ["a,b"], PG("functions-aggregate"))]),
  translated("array_agg", [ex("select array_length(array_agg(x), 1) from (values (1), (2)) as t(x)", ["2"], PG("functions-aggregate"))]),
  translated("array_length", [ex("select array_length(array[1, 2, 3], 1)", ["3"], PG("functions-array"))]),
  same("[]", [ex("select (array[1, 2, 3])[1]", ["1"], PG("arrays"))], "1-based, as DuckDB's"),
  refused("~*", "the transpiler writes it as REGEXP_ILIKE, which DuckDB cannot parse: write regexp_like(x, p, 'i') or lower() with ~"),
  refused("!~*", "the transpiler writes it as REGEXP_ILIKE, which DuckDB cannot parse"),
  translated("!~", [ex("select 'thomas' !~ 't.*max'", ["true"], PG("functions-matching"))]),
  translated("regexp_replace", [ex("select regexp_replace('Thomas', '.[mN]a.', 'M')", ["ThM"], PG("functions-matching")), ex("select regexp_replace('abab', 'b', 'x', 'g')", ["axax"], PG("functions-matching"))], "the first match unless the g flag is given"),
  translated("make_date", [ex("select make_date(2013, 7, 15)", ["2013-07-15"], PG("functions-datetime"))]),
  translated("to_date", [ex("select to_date('05 Dec 2000', 'DD Mon YYYY')", ["2000-12-05"], PG("functions-formatting"))]),
  translated("div", [ex("select div(9, 4)", ["2"], PG("functions-math"))]),
  refused("age", "Postgres's age() counts months and days differently from DuckDB's"),
  refused("generate_series", "a set-returning function in the select list has no faithful DuckDB form in slp"),
  average("postgres", "integers and numerics average to numeric (16 significant digits); floats to double precision", [
    ex("select avg(x) from (values (1), (2), (2)) as t(x)", ["1.6666666666666667"], PG("functions-aggregate")),
    ex("select avg(x) from (values (1), (2)) as t(x)", ["1.5000000000000000"], PG("functions-aggregate")),
  ]),
];

/** Apache Spark (dbt-spark) runs with ANSI mode off, its 3.x default: what differs from Databricks SQL. */
const SPARK_OWN: Construct[] = [
  ...sparkCasts(false),
  {
    name: "/",
    how: "corrected",
    note: "as Databricks, but division by zero is NULL (ANSI mode off)",
    examples: [ex("select 3 / 2", ["1.5"], "https://spark.apache.org/docs/latest/api/sql/index.html#_10"), ex("select 1 / 0", [null], "https://spark.apache.org/docs/latest/sql-ref-ansi-compliance.html")],
  },
];

const TABLES: Record<Exclude<Dialect, "duckdb">, Construct[]> = {
  snowflake: SNOWFLAKE,
  bigquery: BIGQUERY,
  databricks: DATABRICKS,
  spark: [...DATABRICKS, ...SPARK_OWN],
  redshift: REDSHIFT,
  postgres: POSTGRES,
};

const INDEX = new Map<string, Map<string, Construct>>();

/** The table of one dialect, by construct name. */
export function constructsOf(dialect: Exclude<Dialect, "duckdb">): Map<string, Construct> {
  let index = INDEX.get(dialect);
  if (!index) {
    index = new Map();
    // A later entry (the dialect's own) replaces a common one of the same name.
    for (const construct of TABLES[dialect]) index.set(construct.name, construct);
    INDEX.set(dialect, index);
  }
  return index;
}

/** Every dialect's table, for the README and the tests (Spark: only where it differs from Databricks). */
export function allConstructs(): [Exclude<Dialect, "duckdb">, Construct[]][] {
  return (Object.keys(TABLES) as Exclude<Dialect, "duckdb">[]).map((dialect) => [dialect, dialect === "spark" ? SPARK_OWN : [...constructsOf(dialect).values()]]);
}

// --- rewrites ---

/** CAST and TRY_CAST in Databricks (ANSI mode) or Spark (without it). */
function sparkCasts(ansi: boolean): Construct[] {
  const mode = ansi ? "ANSI mode: a value it cannot convert is an error" : "ANSI mode off: a value it cannot convert is NULL";
  const macros = ["__slp_ansi_cast", "__slp_spark_integral_text"];
  return [
    {
      name: "cast",
      how: "corrected",
      note: `${mode}; a fraction cast to an integer type is truncated (DuckDB rounds)`,
      rewrite: sparkCast(ansi),
      macros,
      examples: [ex("select cast('10' as int)", ["10"], DBX("cast")), ex("select cast(5.6 as int)", ["5"], DBX("cast")), ex("select cast(-5.6 as int)", ["-5"], DBX("cast")), ex("select cast(true as int)", ["1"], DBX("cast")), ...(ansi ? [] : [ex("select cast('a' as int)", [null], "https://spark.apache.org/docs/latest/sql-ref-ansi-compliance.html")])],
    },
    {
      name: "try_cast",
      how: "corrected",
      note: "NULL for a value it cannot convert; a fraction cast to an integer type is truncated",
      rewrite: sparkCast(ansi),
      macros,
      examples: [ex("select try_cast('10' as int)", ["10"], DBX("try_cast")), ex("select try_cast('a' as int)", [null], DBX("try_cast")), ex("select try_cast(5.6 as int)", ["5"], DBX("try_cast"))],
    },
  ];
}

const INTEGRAL = new Set(["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"]);

/**
 * Spark's CAST and TRY_CAST (the transpiler writes both as DuckDB's TRY_CAST):
 * with ANSI mode (databricks) a CAST that cannot convert is an error; a
 * fraction cast to an integer type is truncated toward zero, as Spark does.
 */
function sparkCast(ansi: boolean) {
  return (call: Call): string | { refuse: string } => {
    const parts = /^([\s\S]*)\s+as\s+([\s\S]+)$/i.exec(call.args[0] ?? "");
    if (call.args.length !== 1 || !parts) return { refuse: `slp reads ${call.name} as ${call.name}(value as type)` };
    const [, value, type] = parts as unknown as [string, string, string];
    const input = call.castType !== null && INTEGRAL.has(call.castType) ? `__slp_spark_integral_text(${value}, ${ansi ? "false" : "true"})` : value;
    const converted = `try_cast(${input} as ${type})`;
    return ansi && call.name === "cast" ? `__slp_ansi_cast(${value}, ${converted})` : converted;
  };
}

/** `f(a, b)` as `case when b <test> then <result> else a / b end`, so the division keeps the warehouse's scale (arithmetic.ts); `%` in the test is b. */
function guardedDivision(result: "0" | "null", test: string) {
  return (call: Call): string | { refuse: string } => {
    if (call.args.length !== 2) return { refuse: `${call.name} takes a dividend and a divisor` };
    const [a, b] = call.args as [string, string];
    const zero = result === "0" ? ` and (${a}) is not null` : "";
    return `(case when ((${b}) ${test.replace("%", b)})${zero} then ${result} else (${a}) / (${b}) end)`;
  };
}

/** The call as written with argument `index` in parentheses (a negative literal stays one expression). */
function parenthesized(index: number) {
  return (call: Call): string => `${call.name}(${call.args.map((arg, i) => (i === index ? `(${arg})` : arg)).join(", ")})`;
}

/** `current_timestamp()` as the keyword DuckDB knows; a precision argument is refused. */
function bareKeyword(keyword: string) {
  return (call: Call): string | { refuse: string } => (call.args.length === 0 ? keyword : { refuse: `slp translates ${call.name}() without a precision` });
}

/** BigQuery format elements DuckDB's strftime spells the same, and those it spells out. */
const BIGQUERY_SAME = new Set("YmdHMSbBaAyjpIeZz%".split(""));
const BIGQUERY_SPELLED: Record<string, string> = { x: "%m/%d/%y", D: "%m/%d/%y", F: "%Y-%m-%d", T: "%H:%M:%S", R: "%H:%M", c: "%a %b %e %H:%M:%S %Y", h: "%b" };

function bigqueryFormat(name: string) {
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
    return `${name}('${out.replace(/'/g, "\\'")}', ${call.args.slice(1).join(", ")})`;
  };
}

/** Java datetime pattern letters (Databricks) as strftime codes, by run length. */
const JAVA_FORMAT: Record<string, Record<number, string>> = {
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

function javaFormat(call: Call): string | { refuse: string } {
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
  return `__slp_strftime(${call.args[0]}, '${out.replace(/'/g, "''")}')`;
}

/** A call kept as written unless its date part (argument `index`) is WEEK, whose start day DuckDB does not share. */
function refuseWeek(name: string, index: number) {
  return (call: Call): string | { refuse: string } =>
    /^\s*week\b/i.test(call.args[index] ?? "") ? { refuse: "BigQuery's WEEK starts on Sunday (or the day named); DuckDB's on Monday" } : `${name}(${call.args.join(", ")})`;
}

/** to_number(x[, p, s]) as a cast to NUMBER(p, s) (default 38, 0); a format argument is refused. */
function toNumber(cast: "cast" | "try_cast") {
  return (call: Call): string | { refuse: string } => {
    const [value, precision, scale] = call.args;
    if (call.args.length === 2 || call.args.length > 3) return { refuse: "slp translates to_number(text) and to_number(text, precision, scale), not a format" };
    if (precision !== undefined && (call.literal(1) === null || call.literal(2) === null)) return { refuse: "precision and scale must be numbers" };
    return `${cast}(${value} as number(${precision ?? 38}, ${scale ?? 0}))`;
  };
}

/** A date format's elements (longest first) as strftime codes; a format with anything else is refused. */
type FormatTable = [element: string, strftime: string][];

const SNOWFLAKE_FORMAT: FormatTable = [
  ["YYYY", "%Y"], ["MMMM", "%B"], ["HH24", "%H"], ["HH12", "%I"], ["FF9", "%n"], ["FF6", "%f"], ["FF3", "%g"], ["MON", "%b"],
  ["YY", "%y"], ["MM", "%m"], ["DD", "%d"], ["DY", "%a"], ["HH", "%H"], ["MI", "%M"], ["SS", "%S"], ["AM", "%p"], ["PM", "%p"],
];
const POSTGRES_FORMAT: FormatTable = [
  ["FMMonth", "%B"], ["FMDay", "%A"], ["YYYY", "%Y"], ["HH24", "%H"], ["HH12", "%I"], ["Mon", "%b"], ["Dy", "%a"],
  ["YY", "%y"], ["MM", "%m"], ["DD", "%d"], ["HH", "%I"], ["MI", "%M"], ["SS", "%S"], ["MS", "%g"], ["US", "%f"], ["AM", "%p"], ["PM", "%p"],
];

function formatted(call: Call, table: FormatTable): string | { refuse: string } {
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
    const element = table.find(([name]) => format.startsWith(name, i));
    if (element) {
      out += element[1];
      i += element[0].length;
      continue;
    }
    if (/[A-Za-z0-9]/.test(char)) return { refuse: `the format '${format}' has an element slp does not translate at '${format.slice(i)}' (number formats are not translated)` };
    out += char === "%" ? "%%" : char;
    i++;
  }
  return `__slp_strftime(${call.args[0]}, '${out.replace(/'/g, "''")}')`;
}
