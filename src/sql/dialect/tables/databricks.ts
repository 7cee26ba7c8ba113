/** Databricks SQL (ANSI mode) and Apache Spark (dbt-spark, ANSI mode off): the constructs slp runs, with their documented examples. */
import { DBX, ex, refused, same, translated, type Construct } from "../construct.ts";
import { average, guardedDivision, javaFormat, sparkCast, strictConcat } from "../rewrites.ts";
import { common } from "./common.ts";

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

/** Apache Spark (dbt-spark) runs with ANSI mode off, its 3.x default: what differs from Databricks SQL. */
export const SPARK_OWN: Construct[] = [
  ...sparkCasts(false),
  {
    name: "/",
    how: "corrected",
    note: "as Databricks, but division by zero is NULL (ANSI mode off)",
    examples: [ex("select 3 / 2", ["1.5"], "https://spark.apache.org/docs/latest/api/sql/index.html#_10"), ex("select 1 / 0", [null], "https://spark.apache.org/docs/latest/sql-ref-ansi-compliance.html")],
  },
];

/** CAST and TRY_CAST in Databricks (ANSI mode) or Spark (without it). */
export function sparkCasts(ansi: boolean): Construct[] {
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
