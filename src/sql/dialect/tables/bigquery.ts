/** BigQuery (GoogleSQL): the constructs slp runs, with BigQuery's documented examples. */
import { BQ, ex, refused, same, translated, type Construct } from "../construct.ts";
import { average, bareKeyword, bigqueryFormat, guardedDivision, refuseWeek, strictConcat } from "../rewrites.ts";
import { common } from "./common.ts";

export const BIGQUERY: Construct[] = [
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
