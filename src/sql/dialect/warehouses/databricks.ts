/** Databricks SQL (ANSI mode) and Apache Spark (dbt-spark, ANSI mode off): the constructs slp runs, with their documented examples. */
import { DBX, ex, refused, same, translated, type Construct, type Example } from "../construct.ts";
import { average, bareKeyword, datePartOf, daysFrom, guardedDivision, initcap, javaFormat, macroCall, scaledRounding, sha256Only, sparkCast, sparkExtract, strictConcat, timestampAdd } from "../rewrites.ts";
import { NESTED_CAST_EXAMPLES, sparkNested } from "../nested.ts";
import { sparkXxhash64 } from "../spark-hash.ts";
import { common, framedValues, semiStructured } from "../common.ts";
import { list, text } from "../adapter-sql.ts";
import { rule } from "../arithmetic.ts";
import { defineDialect } from "../define.ts";
import { CONTROL_ESCAPES, type EscapeRules, QUOTE_ESCAPES } from "../lexical-rules.ts";
import { SEMI } from "../type-names.ts";

export const DATABRICKS: Construct[] = [
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
  { name: "date_add", how: "corrected", note: "a DATE; a negative count is parenthesized (the transpiler wrote INTERVAL -1 DAY, which DuckDB rejects)", rewrite: daysFrom("date_add"), examples: [ex("select date_add('2016-07-30', 1)", ["2016-07-31"], DBX("date_add")), ex("select date_add('2016-07-30', -1)", ["2016-07-29"], DBX("date_add"))] },
  translated("datediff", [ex("select datediff('2009-07-31', '2009-07-30')", ["1"], DBX("datediff"))]),
  makeDate(true),
  ...["timestampadd", "dateadd"].map(
    (name): Construct => ({
      name,
      how: "corrected",
      note: `${name === "dateadd" ? "a synonym of TIMESTAMPADD: " : ""}the timestamp plus an interval of the unit; a month from a month's last days lands on the shorter month's last day; a fraction of a unit is an error`,
      rewrite: timestampAdd,
      macros: ["__slp_whole_count"],
      examples: [
        ex(`select ${name}(MICROSECOND, 5, TIMESTAMP'2022-02-28 00:00:00')`, ["2022-02-28 00:00:00.000005"], DBX(name)),
        ex(`select ${name}(MONTH, -1, TIMESTAMP'2022-03-31 00:00:00')`, ["2022-02-28 00:00:00"], DBX(name)),
      ],
    }),
  ),
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
  translated("count_if", [ex("select count_if(col % 2 = 0) from (select 0 as col union all select 1 union all select 2)", ["2"], DBX("count_if"))]),
  translated("ilike", [ex("select 'Spark' ilike '_PARK'", ["true"], DBX("ilike"))]),
  translated("qualify", [ex("select x from (select 1 as x union all select 2) qualify row_number() over (order by x desc) = 1", ["2"], "https://docs.databricks.com/en/sql/language-manual/sql-ref-syntax-qry-select-qualify.html")]),
  translated("length", [ex("select length('Spark SQL ')", ["10"], DBX("length"))]),
  same("left", [ex("select left('Spark SQL', 3)", ["Spa"], DBX("left"))]),
  same("round", [ex("select round(2.5, 0)", ["3"], DBX("round"))], "half up"),
  translated("mod", [ex("select mod(-5, 3)", ["-2"], DBX("mod"))]),
  translated("greatest", [ex("select greatest(10, 9, 2, 4, 3)", ["10"], DBX("greatest")), ex("select greatest(1, null)", ["1"], DBX("greatest"))], "skips NULLs"),
  { name: "initcap", how: "corrected", note: "words are separated by white space", rewrite: initcap("whitespace"), macros: ["__slp_initcap"], examples: [ex("select initcap('sPark sql')", ["Spark Sql"], DBX("initcap"))] },
  same("lpad", [ex("select lpad('hi', 5, '??')", ["???hi"], DBX("lpad")), ex("select lpad('hi', 1, '??')", ["h"], DBX("lpad"))]),
  same("rpad", [ex("select rpad('hi', 5, '??')", ["hi???"], DBX("rpad")), ex("select rpad('hi', 1, '??')", ["h"], DBX("rpad"))]),
  translated("reverse", [ex("select reverse('Spark SQL')", ["LQS krapS"], DBX("reverse"))]),
  translated("repeat", [ex("select repeat('123', 2)", ["123123"], DBX("repeat"))]),
  translated("ltrim", [ex("select ltrim('    SparkSQL   ')", ["SparkSQL   "], DBX("ltrim"))]),
  translated("rtrim", [ex("select rtrim('    SparkSQL   ')", ["    SparkSQL"], DBX("rtrim"))]),
  same("trim", [ex("select trim('    SparkSQL   ')", ["SparkSQL"], DBX("trim")), ex("select trim(both 'SL' from 'SSparkSQLS')", ["parkSQ"], DBX("trim"))]),
  translated("substr", [ex("select substr('Spark SQL', 5)", ["k SQL"], DBX("substr")), ex("select substr('Spark SQL', -3)", ["SQL"], DBX("substr")), ex("select substr('Spark SQL', 5, 1)", ["k"], DBX("substr"))]),
  translated("substring", [ex("select substring('Spark SQL', 5)", ["k SQL"], DBX("substring")), ex("select substring('Spark SQL', -3)", ["SQL"], DBX("substring")), ex("select substring('Spark SQL', 5, 1)", ["k"], DBX("substring"))]),
  translated("instr", [ex("select instr('SparkSQL', 'SQL')", ["6"], DBX("instr"))]),
  translated("locate", [ex("select locate('bar', 'foobarbar')", ["4"], DBX("locate"))]),
  translated("char_length", [ex("select char_length('Spark SQL ')", ["10"], DBX("char_length"))]),
  { name: "add_months", how: "corrected", note: "a DATE; a day past the month's end falls to its last day and month-end is not kept; a negative count is parenthesized (the transpiler wrote INTERVAL -6 MONTH, which DuckDB rejects)", rewrite: (call) => (call.args.length === 2 ? `cast(add_months(${call.args[0]}, (${call.args[1]})) as date)` : { refuse: "add_months takes a date and a number of months" }), examples: [ex("select add_months('2016-08-31', 1)", ["2016-09-30"], DBX("add_months")), ex("select add_months('2016-08-31', -6)", ["2016-02-29"], DBX("add_months")), ex("select add_months('2016-02-29', 1)", ["2016-03-29"], DBX("add_months"))] },
  {
    name: "extract",
    how: "corrected",
    note: "of a value read as a timestamp; DAYOFWEEK is 1 (Sunday) to 7; SECOND keeps the microseconds",
    rewrite: sparkExtract,
    macros: ["__slp_part"],
    examples: [
      ex("select extract(year from timestamp '2019-08-12 01:00:00.123456')", ["2019"], DBX("extract")),
      ex("select extract(week from timestamp '2019-08-12 01:00:00.123456')", ["33"], DBX("extract")),
      ex("select extract(doy from date '2019-08-12')", ["224"], DBX("extract")),
      ex("select extract(seconds from timestamp '2019-10-01 00:00:01.000001')", ["1.000001"], DBX("extract")),
      ex("select extract(dayofweek from date '2009-07-30')", ["5"], DBX("dayofweek")),
    ],
  },
  { name: "dayofweek", how: "corrected", note: "1 (Sunday) to 7 (DuckDB's is 0 to 6)", rewrite: (call) => (call.args.length === 1 ? `(__slp_part('dow', ${call.args[0]}) + 1)` : { refuse: "dayofweek takes one date" }), macros: ["__slp_part"], examples: [ex("select dayofweek('2009-07-30')", ["5"], DBX("dayofweek"))] },
  translated("to_timestamp", [ex("select to_timestamp('2016-12-31 00:12:00')", ["2016-12-31 00:12:00"], DBX("to_timestamp"))]),
  { name: "hour", how: "corrected", note: "of a date, timestamp or text read as a timestamp", rewrite: datePartOf("hour"), macros: ["__slp_part"], examples: [ex("select hour('2009-07-30 12:58:59')", ["12"], DBX("hour"))] },
  { name: "minute", how: "corrected", note: "of a date, timestamp or text read as a timestamp", rewrite: datePartOf("minute"), macros: ["__slp_part"], examples: [ex("select minute('2009-07-30 12:58:59')", ["58"], DBX("minute"))] },
  { name: "second", how: "corrected", note: "of a date, timestamp or text read as a timestamp", rewrite: datePartOf("second"), macros: ["__slp_part"], examples: [ex("select second('2009-07-30 12:58:59')", ["59"], DBX("second"))] },
  { name: "dayofmonth", how: "corrected", note: "of a date, timestamp or text read as a timestamp", rewrite: datePartOf("day"), macros: ["__slp_part"], examples: [ex("select dayofmonth('2009-07-30')", ["30"], DBX("dayofmonth"))] },
  { name: "quarter", how: "corrected", note: "of a date, timestamp or text read as a timestamp", rewrite: datePartOf("quarter"), macros: ["__slp_part"], examples: [ex("select quarter('2016-08-31')", ["3"], DBX("quarter"))] },
  { name: "dayofyear", how: "corrected", note: "of a date, timestamp or text read as a timestamp", rewrite: datePartOf("doy"), macros: ["__slp_part"], examples: [ex("select dayofyear('2016-04-09')", ["100"], DBX("dayofyear"))] },
  { name: "weekofyear", how: "corrected", note: "of a date, timestamp or text read as a timestamp (ISO weeks)", rewrite: datePartOf("week"), macros: ["__slp_part"], examples: [ex("select weekofyear('2008-02-20')", ["8"], DBX("weekofyear"))] },
  { name: "date_sub", how: "corrected", note: "a DATE; a negative count is parenthesized", rewrite: daysFrom("date_sub"), examples: [ex("select date_sub('2016-07-30', 1)", ["2016-07-29"], DBX("date_sub")), ex("select date_sub('2016-07-30', -1)", ["2016-07-31"], DBX("date_sub"))] },
  same("md5", [ex("select md5('Spark')", ["8cde774d6f7333752ed72cacddb05126"], DBX("md5"))]),
  {
    name: "sha2",
    how: "corrected",
    note: "the 256-bit digest as lower-case hex; other bit lengths are refused",
    rewrite: sha256Only(false),
    examples: [ex("select sha2('Spark', 256)", ["529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b"], DBX("sha2"))],
  },
  translated("sha1", [ex("select sha1('Spark')", ["85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c"], DBX("sha1"))]),
  {
    name: "xxhash64",
    how: "corrected",
    note: "Spark's XXH64 from seed 42 by slp's DuckDB functions, each argument hashed by its Spark type: a string, int, bigint or boolean cast, a literal, an array of literals, or a row_number()/rank()/dense_rank() alias; others refused",
    rewrite: sparkXxhash64,
    examples: [ex("select xxhash64('Spark', array(123), 2)", ["5602566077635097486"], DBX("xxhash64"))],
  },
  translated("array_max", [ex("select array_max(array(1, 20, null, 3))", ["20"], DBX("array_max"))]),
  translated("array_min", [ex("select array_min(array(1, 20, null, 3))", ["1"], DBX("array_min"))]),
  same("sign", [ex("select sign(40)", ["1.0"], DBX("sign"))]),
  same("sqrt", [ex("select sqrt(4)", ["2.0"], DBX("sqrt"))]),
  translated("pow", [ex("select pow(2, 3)", ["8.0"], DBX("pow"))]),
  { name: "ceil", how: "corrected", note: "to a scale on the exact digits (the transpiler multiplied by a DOUBLE power of ten)", rewrite: scaledRounding, macros: ["__slp_ceil_scale"], examples: [ex("select ceil(-0.1)", ["0"], DBX("ceil")), ex("select ceil(5)", ["5"], DBX("ceil")), ex("select ceil(3.1411, 3)", ["3.142"], DBX("ceil")), ex("select ceil(3.1411, -3)", ["1000"], DBX("ceil"))] },
  { name: "floor", how: "corrected", note: "to a scale on the exact digits (the transpiler multiplied by a DOUBLE power of ten)", rewrite: scaledRounding, macros: ["__slp_floor_scale"], examples: [ex("select floor(-0.1)", ["-1"], DBX("floor")), ex("select floor(5)", ["5"], DBX("floor")), ex("select floor(3.1411, 3)", ["3.141"], DBX("floor")), ex("select floor(3.1411, -3)", ["0"], DBX("floor"))] },
  translated("median", [ex("select median(col) from values (0), (10) as tab(col)", ["5.0"], DBX("median"))]),
  translated("bool_and", [ex("select bool_and(col) from values (true), (true), (true) as tab(col)", ["true"], DBX("bool_and")), ex("select bool_and(col) from values (null), (true), (true) as tab(col)", ["true"], DBX("bool_and")), ex("select bool_and(col) from values (true), (false), (true) as tab(col)", ["false"], DBX("bool_and"))]),
  translated("bool_or", [ex("select bool_or(col) from values (true), (false), (false) as tab(col)", ["true"], DBX("bool_or")), ex("select bool_or(col) from values (null), (true), (false) as tab(col)", ["true"], DBX("bool_or")), ex("select bool_or(col) from values (false), (false), (null) as tab(col)", ["false"], DBX("bool_or"))]),
  translated("max_by", [ex("select max_by(x, y) from values ('a', 10), ('b', 50), ('c', 20) as tab(x, y)", ["b"], DBX("max_by"))]),
  translated("min_by", [ex("select min_by(x, y) from values ('a', 10), ('b', 50), ('c', 20) as tab(x, y)", ["a"], DBX("min_by"))]),
  translated("any_value", [ex("select any_value(col) from values (10), (10) as tab(col)", ["10"], DBX("any_value"))]),
  ...framedValues([DBX("first_value"), DBX("last_value"), DBX("nth_value")], { strict: false, ignoreNulls: (call) => `${call} ignore nulls` }),
  {
    name: "regexp_replace",
    how: "corrected",
    note: "replaces every match (the transpiler replaced the first); a position argument is refused",
    rewrite: (call) => (call.args.length === 3 ? `__slp_regexp_replace_all(${call.args.join(", ")})` : { refuse: "slp translates regexp_replace(str, regexp, rep) only" }),
    macros: ["__slp_regexp_replace_all"],
    examples: [ex("select regexp_replace('100-200', '(\\\\d+)', 'num')", ["num-num"], DBX("regexp_replace"))],
  },
  { name: "regexp_count", how: "corrected", note: "non-overlapping matches", rewrite: macroCall("__slp_regexp_count", 2, "regexp_count(str, regexp)"), macros: ["__slp_regexp_count"], examples: [ex("select regexp_count('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')", ["2"], DBX("regexp_count")), ex("select regexp_count('Mary had a little lamb', 'Ste(v|ph)en')", ["0"], DBX("regexp_count"))] },
  { name: "regexp_substr", how: "corrected", note: "the whole first match, NULL when none (the transpiler took group 1)", rewrite: macroCall("__slp_regexp_substr", 2, "regexp_substr(str, regexp)"), macros: ["__slp_regexp_substr"], examples: [ex("select regexp_substr('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')", ["Steven"], DBX("regexp_substr")), ex("select regexp_substr('Mary had a little lamb', 'Ste(v|ph)en')", [null], DBX("regexp_substr"))] },
  translated("regexp_like", [ex("select regexp_like('Spark SQL', 'S.*L')", ["true"], DBX("regexp_like")), ex("select regexp_like('Spark SQL', 'park')", ["true"], DBX("regexp_like"))], "a partial match, as rlike"),
  { name: "split", how: "corrected", note: "the delimiter is a regular expression; trailing empty parts are kept; a limit is refused", rewrite: (call) => (call.args.length === 2 ? `split(${call.args.join(", ")})` : { refuse: "slp translates split(str, regex) without a limit" }), examples: [ex("select split('oneAtwoBthreeC', '[ABC]')", ["[one, two, three, '']"], DBX("split"))] },
  translated("startswith", [ex("select startswith('SparkSQL', 'Spark')", ["true"], DBX("startswith")), ex("select startswith('SparkSQL', 'spark')", ["false"], DBX("startswith"))]),
  translated("endswith", [ex("select endswith('SparkSQL', 'SQL')", ["true"], DBX("endswith")), ex("select endswith('SparkSQL', 'sql')", ["false"], DBX("endswith"))]),
  translated("contains", [ex("select contains('SparkSQL', 'Spark')", ["true"], DBX("contains")), ex("select contains('SparkSQL', 'spark')", ["false"], DBX("contains")), ex("select contains(null, 'Spark')", [null], DBX("contains"))]),
  translated("current_date", [ex("select current_date() = current_date", ["true"], DBX("current_date"))]),
  { name: "current_timestamp", how: "corrected", note: "without arguments (the transpiler wrote a CURRENT_TIMESTAMP() DuckDB rejects)", rewrite: bareKeyword("cast(get_current_timestamp() as timestamp)"), examples: [ex("select current_timestamp() is not null", ["true"], DBX("current_timestamp"))] },
  translated("now", [ex("select now() is not null", ["true"], DBX("now"))]),
  translated("least", [ex("select least(10, 9, 2, 4, 3)", ["2"], DBX("least")), ex("select least(1, null)", ["1"], DBX("least"))], "skips NULLs"),
  ...sparkCasts(true),
  ...semiStructured("json_tuple", "parse_json"),
  ...sparkNested(true),
  refused("approx_count_distinct", "an estimate: DuckDB's algorithm gives other numbers than Databricks'"),
  average("databricks", "integers average to DOUBLE; DECIMAL(p, s) to scale s + 4", [
    ex("select avg(col) from values (1), (2), (3) as tab(col)", ["2.0"], DBX("avg")),
    ex("select avg(distinct col) from values (1), (1), (2) as tab(col)", ["1.5"], DBX("avg")),
  ]),
  refused("bround", "DuckDB has no half-even rounding function"),
  {
    name: "like",
    how: "corrected",
    note: "the backslash is the default escape (ESCAPE '\\' in DuckDB); escaping another character is an error; LIKE ANY / ALL as ORs / ANDs",
    examples: [
      ex("select r'%SystemDrive%\\Users\\John' like r'%SystemDrive%\\\\Users%'", ["true"], DBX("like")),
      ex("select r'%SystemDrive%\\Users\\John' like '%SystemDrive%\\\\\\\\Users%'", ["true"], DBX("like")),
      ex("select '%SystemDrive%/Users/John' like '/%SystemDrive/%//Users%' escape '/'", ["true"], DBX("like")),
      ex("select 'a_c' like 'a\\\\_c', 'abc' like 'a\\\\_c'", ["true", "false"], DBX("like")),
    ],
  },
];

/**
 * MAKE_DATE(year, month, day): a field out of bounds (month 13, February 30)
 * is NULL in Databricks SQL and in Spark without ANSI mode, an error in
 * Databricks Runtime with it; slp cannot tell a SQL warehouse from a cluster,
 * so for Databricks that case is an error naming it (never a guessed value).
 */
export function makeDate(ansi: boolean): Construct {
  const page = ansi ? DBX("make_date") : "https://spark.apache.org/docs/latest/api/sql/index.html#make_date";
  return {
    name: "make_date",
    how: "corrected",
    note: ansi ? "a field out of bounds is an error (Databricks SQL gives NULL, Databricks Runtime in ANSI mode the error)" : "a field out of bounds is NULL (ANSI mode off)",
    rewrite: (call) => (call.args.length === 3 ? `__slp_make_date(${call.args.join(", ")}, ${ansi})` : { refuse: "make_date takes a year, a month and a day" }),
    macros: ["__slp_make_date"],
    examples: [
      ex("select make_date(2013, 7, 15)", ["2013-07-15"], page),
      ex("select make_date(2019, 7, null)", [null], page),
      ...(ansi ? [] : [ex("select make_date(2019, 13, 1)", [null], DBX("make_date")), ex("select make_date(2019, 2, 30)", [null], DBX("make_date"))]),
    ],
  };
}

/** CAST and TRY_CAST in Databricks (ANSI mode) or Spark (without it). */
export function sparkCasts(ansi: boolean): Construct[] {
  const mode = ansi ? "ANSI mode: a value it cannot convert is an error" : "ANSI mode off: a value it cannot convert is NULL";
  const macros = ["__slp_ansi_cast", "__slp_spark_integral_text", "__slp_nested_spark_string"];
  return [
    {
      name: "cast",
      how: "corrected",
      note: `${mode}; a fraction cast to an integer type is truncated (DuckDB rounds); an array, map or struct cast to STRING is written as Spark writes it`,
      rewrite: sparkCast(ansi),
      macros,
      examples: [ex("select cast('10' as int)", ["10"], DBX("cast")), ex("select cast(5.6 as int)", ["5"], DBX("cast")), ex("select cast(-5.6 as int)", ["-5"], DBX("cast")), ex("select cast(true as int)", ["1"], DBX("cast")), ...(ansi ? [] : [ex("select cast('a' as int)", [null], "https://spark.apache.org/docs/latest/sql-ref-ansi-compliance.html")]), ...NESTED_CAST_EXAMPLES],
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

/** Spark's decimal division (DecimalPrecision): scale max(6, s1 + p2 + 1); past 38 digits it gives way to the p1 - s1 + s2 integer digits, to no fewer than 6. */
const sparkScale = (ta: string, tb: string) => {
  const digits = `(__slp_precision(${ta}) - __slp_scale(${ta}) + __slp_scale(${tb}))`;
  const wide = `greatest(6, __slp_scale(${ta}) + __slp_precision(${tb}) + 1)`;
  return `case when ${digits} + ${wide} > 38 then greatest(38 - ${digits}, least(${wide}, 6)) else ${wide} end`;
};

// --- lexical rules (lexer.ts reads them) ---
const DATABRICKS_STRING = "https://docs.databricks.com/en/sql/language-manual/data-types/string-type.html";
const DATABRICKS_COMMENTS = "https://docs.databricks.com/en/sql/language-manual/sql-ref-syntax-comment.html";
const DATABRICKS_LIKE = "https://docs.databricks.com/en/sql/language-manual/functions/like.html";

/**
 * Databricks: \0 \b \n \r \t \Z \' \" \\, \% and \_ keep their backslash,
 * any other character is itself. Spark also reads octal and \u escapes the
 * Databricks page does not list: slp refuses a digit or u / U after a backslash.
 */
const SPARK_ESCAPES: EscapeRules = {
  named: { b: "\b", n: "\n", r: "\r", t: "\t", Z: "\x1a", ...QUOTE_ESCAPES, "0": "\0" },
  kept: ["%", "_"],
  octal: null,
  hex: null,
  unicode: null,
  other: "itself",
  unverified: "0123456789uU",
};

const DATABRICKS_EXAMPLES: Example[] = [
  ex(
    // Not String.raw: Bun writes a non-ASCII character of a raw template as its \u escape.
    "select 'Spark', 'O\\'Connell', 'Some\\nText', r'Some\\nText', '서울시', '', '\\\\', r'\\\\'",
    ["Spark", "O'Connell", "Some\nText", String.raw`Some\nText`, "서울시", "", "\\", "\\\\"],
    DATABRICKS_STRING,
  ),
  ex(String.raw`select "Spark", '\b\r\t\Z', '\%\_', '\q'`, ["Spark", "\b\r\t\x1a", String.raw`\%\_`, "q"], DATABRICKS_STRING),
  ex(String.raw`select 'a_c' like 'a\\_c', 'abc' like 'a\\_c', 'a%' like 'a\%'`, ["true", "false", "true"], DATABRICKS_LIKE),
  ex("select '-- This is not a comment' -- This is a comment\n, /* a bracketed /* nested */ comment */ 1", ["-- This is not a comment", "1"], DATABRICKS_COMMENTS),
];

export default defineDialect({
  name: "databricks",
  transpiler: "databricks",
  // dbt-databricks is built on dbt-spark.
  adapterInherits: ["spark"],
  lexical: {
    likeEscape: "error",
    identifierQuote: "`",
    identifierEscapes: false,
    singleQuoted: SPARK_ESCAPES,
    // Spark's lexer took '' as one quote only lately (before, 'a''b' was two adjacent literals, read as 'ab').
    doubledQuote: "Spark versions read it as one quote or as two adjacent literals, and Databricks documents neither",
    doubleQuoted: "string",
    raw: "plain",
    tripleQuoted: false,
    newlineEndsString: false,
    bytes: false,
    escapeStrings: null,
    unicodeStrings: false,
    dollarQuoted: null,
    adjacentStringsNeedNewline: false,
    lineComments: [],
    // bracketed_comment: /* text [ bracketed_comment [...] ] text */
    nestedComments: true,
    unquotedCase: "insensitive",
    sources: [DATABRICKS_STRING, DATABRICKS_COMMENTS, DATABRICKS_LIKE],
    examples: DATABRICKS_EXAMPLES,
  },
  // "NULLs sort first if sort order is ASC and last if DESC".
  nullOrder: "nulls_first_on_asc_last_on_desc",
  integerDivision: false,
  // https://docs.databricks.com/en/sql/language-manual/sql-ref-datatypes.html
  types: {
    tinyint: { duckdb: "TINYINT" },
    byte: { duckdb: "TINYINT" },
    short: { duckdb: "SMALLINT" },
    long: { duckdb: "BIGINT" },
    float: { duckdb: "FLOAT" },
    real: { duckdb: "FLOAT" },
    dec: { decimal: [10, 0] },
    decimal: { decimal: [10, 0] },
    numeric: { decimal: [10, 0] },
    binary: { duckdb: "BLOB" },
    timestamp: { duckdb: "TIMESTAMPTZ" },
    timestamp_ntz: { duckdb: "TIMESTAMP" },
    timestamp_ltz: { duckdb: "TIMESTAMPTZ" },
    time: { refuse: "Databricks has no TIME type" },
    variant: SEMI("VARIANT"),
    object: SEMI("OBJECT"),
    interval: { refuse: "Databricks year-month and day-time intervals have no one DuckDB type" },
  },
  constructs: DATABRICKS,
  crossDbMacros: {
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
  formats: {},
  division: {
    // https://docs.databricks.com/en/sql/language-manual/functions/slashsign.html: a fractional result; division by zero is an error in ANSI mode
    quotient: rule(sparkScale, "float"),
    // AVG of DECIMAL(p, s) has scale s + 4.
    average: rule((ta) => `least(38, __slp_scale(${ta}) + 4)`, "float"),
    byZero: "error",
  },
  // dbt-databricks dispatches validate_fixture_rows to the default, which checks nothing.
  fixtureRules: [],
});
