/** The constructs every dialect's table starts from, and those Redshift and Postgres share. */
import { ex, refused, same, translated, type Construct, type Example } from "./construct.ts";
import { dateTruncPart, framedValue, oneArgument } from "./rewrites.ts";

/** What a common construct is, for the address of the vendor's page on it. */
export type Kind = "aggregate" | "statistical" | "window" | "math" | "string" | "conditional" | "conversion" | "operator";

const KINDS: Record<string, Kind> = {
  count: "aggregate", sum: "aggregate", min: "aggregate", max: "aggregate", avg: "aggregate",
  stddev: "statistical", variance: "statistical", stddev_samp: "statistical", stddev_pop: "statistical", var_samp: "statistical", var_pop: "statistical",
  coalesce: "conditional", nullif: "conditional",
  upper: "string", lower: "string", trim: "string", replace: "string",
  abs: "math", ceil: "math", floor: "math", sign: "math", sqrt: "math", exp: "math", ln: "math", power: "math", mod: "math",
  row_number: "window", rank: "window", dense_rank: "window", lag: "window", lead: "window", ntile: "window", percent_rank: "window", cume_dist: "window",
  cast: "conversion",
};

/** Standard functions whose DuckDB meaning is the warehouse's for the values they take (checked for each dialect below). */
export function common(page: (name: string, kind: Kind) => string): Construct[] {
  const source = (name: string) => page(name, KINDS[name] ?? "operator");
  const over4 = (call: string, pick: "min" | "max") => `select ${pick}(v) from (select ${call} over (order by x) as v from (select 1 as x union all select 2 union all select 3 union all select 4) as t) as w`;
  const of3 = "(select 1 as x union all select 2 union all select 3) as t";
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
    { name: "ceil", how: "corrected", note: "of one number (a scale is refused where the warehouse has none)", rewrite: oneArgument, examples: [ex("select ceil(1.2)", ["2"], source("ceil"))] },
    { name: "floor", how: "corrected", note: "of one number (a scale is refused where the warehouse has none)", rewrite: oneArgument, examples: [ex("select floor(-1.2)", ["-2"], source("floor"))] },
    same("trim", [ex("select trim('  a  ')", ["a"], source("trim"))]),
    same("replace", [ex("select replace('abc', 'b', 'x')", ["axc"], source("replace"))]),
    same("row_number", [ex("select row_number() over (order by x) from (select 1 as x)", ["1"], source("row_number"))]),
    same("rank", [ex("select rank() over (order by x) from (select 1 as x)", ["1"], source("rank"))]),
    same("dense_rank", [ex("select dense_rank() over (order by x) from (select 1 as x)", ["1"], source("dense_rank"))]),
    same("lag", [ex("select max(l) from (select lag(x) over (order by x) as l from (select 1 as x union all select 2))", ["1"], source("lag")), ex("select min(l) from (select lag(x, 1, 0) over (order by x) as l from (select 1 as x union all select 2))", ["0"], source("lag"))], "a default value for the first rows, as the warehouse takes it"),
    same("lead", [ex("select max(l) from (select lead(x) over (order by x) as l from (select 1 as x union all select 2))", ["2"], source("lead")), ex("select min(l) from (select lead(x, 1, 0) over (order by x) as l from (select 1 as x union all select 2))", ["0"], source("lead"))]),
    same("cast", [ex("select cast('12' as integer)", ["12"], source("cast"))], "the type is slp's own mapping (types.ts)"),
    same("%", [ex("select -5 % 3", ["-2"], source("mod")), ex("select 5 % 3", ["2"], source("mod"))]),
    same("sign", [ex("select sign(-8.4)", ["-1"], source("sign")), ex("select sign(0)", ["0"], source("sign"))]),
    same("sqrt", [ex("select sqrt(16)", ["4"], source("sqrt"))]),
    same("exp", [ex("select exp(0)", ["1"], source("exp"))]),
    same("ln", [ex("select ln(1)", ["0"], source("ln"))]),
    same("power", [ex("select power(2, 10)", ["1024"], source("power"))]),
    same("ntile", [ex(over4("ntile(2)", "max"), ["2"], source("ntile")), ex(over4("ntile(3)", "max"), ["3"], source("ntile"))]),
    same("percent_rank", [ex(over4("percent_rank()", "min"), ["0"], source("percent_rank")), ex(over4("percent_rank()", "max"), ["1"], source("percent_rank"))]),
    same("cume_dist", [ex(over4("cume_dist()", "min"), ["0.25"], source("cume_dist")), ex(over4("cume_dist()", "max"), ["1"], source("cume_dist"))]),
    same("stddev", [ex(`select stddev(x) from ${of3}`, ["1"], source("stddev"))], "the sample standard deviation"),
    same("stddev_samp", [ex(`select stddev_samp(x) from ${of3}`, ["1"], source("stddev_samp"))]),
    same("stddev_pop", [ex("select stddev_pop(x) from (select 1 as x union all select 3) as t", ["1"], source("stddev_pop"))]),
    same("variance", [ex(`select variance(x) from ${of3}`, ["1"], source("variance"))], "the sample variance"),
    same("var_samp", [ex(`select var_samp(x) from ${of3}`, ["1"], source("var_samp"))]),
    same("var_pop", [ex("select var_pop(x) from (select 1 as x union all select 3) as t", ["1"], source("var_pop"))]),
  ];
}

export const REDSHIFT_POSTGRES_COMMON = (source: (name: string) => string, divisionExamples: Example[]): Construct[] => [
  { name: "/", how: "corrected", note: "integers divide to an integer (truncated); numerics keep the warehouse's scale; by zero is an error", examples: [ex("select 7 / 2", ["3"], source("/")), ex("select -7 / 2", ["-3"], source("/")), ex("select 7.0 / 2", ["3.5"], source("/")), ...divisionExamples] },
  same("||", [ex("select 'a' || 'b'", ["ab"], source("||")), ex("select 'a' || null", [null], source("||"))]),
  translated("::", [ex("select '12'::integer", ["12"], source("::"))]),
  {
    name: "date_trunc",
    how: "corrected",
    note: "a century or millennium starts in year 1 there (2001-01-01), in year 0 in DuckDB: refused",
    rewrite: dateTruncPart,
    examples: [ex("select date_trunc('month', date '2024-03-05')", ["2024-03-01"], source("date_trunc"))],
  },
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
  {
    name: "~",
    how: "corrected",
    note: "a partial POSIX match, the pattern (a literal) read as RE2: `.` matches a newline, \\y is \\b, \\Z is \\z; backreferences, lookaround, \\m, \\M and [[:<:]] are refused (posix-regex.ts)",
    examples: [
      ex("select 'abc' ~ 'b', 'abc' ~ '^b'", ["true", "false"], source("~")),
    ],
  },
  translated("greatest", [ex("select greatest(1, null, 3)", ["3"], source("greatest"))], "skips NULLs"),
  translated("least", [ex("select least(1, null, 3)", ["1"], source("least"))], "skips NULLs"),
  translated("bool_or", [ex("select bool_or(x) from (select true as x union all select false) as t", ["true"], source("bool_or"))]),
  translated("bool_and", [ex("select bool_and(x) from (select true as x union all select false) as t", ["false"], source("bool_and"))]),

  refused("approximate", "an estimate: DuckDB's algorithm gives other numbers"),
];

/**
 * FIRST_VALUE, LAST_VALUE and NTH_VALUE, tested over the whole window and
 * (where the warehouse has it) with IGNORE NULLS written its way. `strict`:
 * an ordered window without a frame is refused, because the warehouse's
 * default frame is not DuckDB's or a frame is required there (Snowflake, Redshift).
 */
export function framedValues(sources: [first: string, last: string, nth: string], options: { strict: boolean; ignoreNulls: ((call: string) => string) | null }): Construct[] {
  const whole = "over (order by o rows between unbounded preceding and unbounded following)";
  const over = (call: string) => `select max(v) from (select ${call} ${whole} as v from (select 3 as x, 1 as o union all select 5, 2 union all select null, 3) as t) as w`;
  const build = (name: string, call: string, plain: string | null, ignored: string | null, source: string): Construct => {
    const examples = [ex(over(call), [plain], source), ...(options.ignoreNulls && ignored !== null ? [ex(over(options.ignoreNulls(call)), [ignored], source)] : [])];
    return options.strict
      ? { name, how: "corrected", note: "an ordered window needs an explicit frame (its default frame is not DuckDB's)", rewrite: framedValue, window: true, examples }
      : { name, how: "translated", examples };
  };
  return [
    build("first_value", "first_value(x)", "3", null, sources[0]),
    build("last_value", "last_value(x)", null, "5", sources[1]),
    build("nth_value", "nth_value(x, 2)", "5", null, sources[2]),
  ];
}

/** JSON and semi-structured functions, refused by name: slp holds no JSON or VARIANT values in DuckDB. */
export const semiStructured = (...names: string[]): Construct[] => names.map((name) => refused(name, "JSON and semi-structured values have no faithful DuckDB type in slp"));
