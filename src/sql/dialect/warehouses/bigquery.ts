/** BigQuery (GoogleSQL): the constructs slp runs, with BigQuery's documented examples. */
import { BQ, type Call, ex, refused, same, translated, type Construct, type Example } from "../construct.ts";
import { average, bareKeyword, bigqueryDateTrunc, bigqueryFormat, guardedDivision, halfAwayCast, initcap, refuseWeek, refuseWeekNamed, renamed, strictConcat } from "../rewrites.ts";
import { bigqueryNested } from "../nested.ts";
import { bigqueryExtract, bigqueryExtractArray, jsonFunction } from "../json.ts";
import { framedValues } from "../common.ts";
import { common } from "../common.ts";
import { list, stringAggListagg, text } from "../adapter-sql.ts";
import { rule } from "../arithmetic.ts";
import { defineDialect } from "../define.ts";
import { CONTROL_ESCAPES, type EscapeRules, QUOTE_ESCAPES } from "../lexical-rules.ts";
import { DOUBLE } from "../type-names.ts";

export const BIGQUERY: Construct[] = [
  ...common((name, kind) => BQ(name === "%" ? "mod" : name, { aggregate: "aggregate_functions", statistical: "statistical_aggregate_functions", window: name === "lag" || name === "lead" ? "navigation_functions" : "numbering_functions", math: "mathematical_functions", string: "string_functions", conditional: "conditional_expressions", conversion: "conversion_functions", operator: "operators" }[kind])),
  {
    name: "safe_divide",
    how: "corrected",
    note: "NULL when the divisor is 0, else `/`",
    rewrite: guardedDivision("null", "= 0"),
    examples: [ex("select safe_divide(20, 4)", ["5"], BQ("safe_divide", "mathematical_functions")), ex("select safe_divide(0, 20)", ["0"], BQ("safe_divide", "mathematical_functions")), ex("select safe_divide(20, 0)", [null], BQ("safe_divide", "mathematical_functions"))],
  },
  translated("div", [ex("select div(20, 4)", ["5"], BQ("div", "mathematical_functions")), ex("select div(12, -7)", ["-1"], BQ("div", "mathematical_functions"))]),
  {
    name: "cast",
    how: "corrected",
    note: "a floating-point value cast to an integer type rounds half away from zero (DuckDB rounds half to even)",
    rewrite: halfAwayCast,
    macros: ["__slp_integral_half_away"],
    examples: [
      ex("select cast(1.5 as int64), cast(-1.5 as int64), cast(2.5 as int64), cast(-0.5 as int64)", ["2", "-2", "3", "-1"], BQ("cast_as_integer", "conversion_functions")),
      ex("select cast('12' as int64), cast(true as int64)", ["12", "1"], BQ("cast_as_integer", "conversion_functions")),
      ex("select cast(12.5 as string)", ["12.5"], BQ("cast_as_string", "conversion_functions")),
    ],
  },
  {
    name: "safe_cast",
    how: "corrected",
    note: "NULL for a value it cannot convert; rounds as CAST does",
    rewrite: halfAwayCast,
    macros: ["__slp_integral_half_away"],
    examples: [ex("select safe_cast('apple' as int64)", [null], BQ("safe_casting", "conversion_functions")), ex("select safe_cast(2.5 as int64)", ["3"], BQ("safe_casting", "conversion_functions"))],
  },
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
    // Written as || (BigQuery's operator for it): the transpiler left the arguments of a long CONCAT untranslated (SAFE_CAST).
    rewrite: (call) => (call.args.length < 2 ? strictConcat(call) : `(case when ${call.args.map((arg) => `(${arg}) is null`).join(" or ")} then null else ${call.args.map((arg) => `(${arg})`).join(" || ")} end)`),
    examples: [ex("select concat('The sun ', 'is ', 'shining')", ["The sun is shining"], BQ("concat", "string_functions")), ex("select concat('a', null)", [null], BQ("concat", "string_functions"))],
  },
  same("||", [ex("select 'a' || 'b'", ["ab"], BQ("concatenation_operator", "operators"))]),
  {
    name: "date_trunc",
    how: "corrected",
    note: "WEEK starts on Sunday, WEEK(<day>) on the day named, ISOWEEK on Monday (DuckDB's weeks start on Monday)",
    rewrite: bigqueryDateTrunc,
    macros: ["__slp_week_start"],
    examples: [
      ex("select date_trunc(date '2008-12-25', month)", ["2008-12-01"], BQ("date_trunc", "date_functions")),
      ex("select date_trunc(date '2017-11-05', week(monday))", ["2017-10-30"], BQ("date_trunc", "date_functions")),
      ex("select date_trunc(date '2017-11-05', week)", ["2017-11-05"], BQ("date_trunc", "date_functions")),
      ex("select date_trunc(date '2017-11-08', week)", ["2017-11-05"], BQ("date_trunc", "date_functions")),
      ex("select date_trunc(date '2017-11-05', isoweek)", ["2017-10-30"], BQ("date_trunc", "date_functions")),
      ex("select date_trunc(date '2015-06-15', isoyear)", ["2014-12-29"], BQ("date_trunc", "date_functions")),
    ],
  },
  { name: "date_diff", how: "corrected", note: "boundaries crossed; WEEK counts Sundays (WEEK(<day>) and ISOWEEK are refused)", rewrite: refuseWeekNamed("date_diff", 2), examples: [ex("select date_diff(date '2017-10-15', date '2017-10-14', week)", ["1"], BQ("date_diff", "date_functions")), ex("select date_diff(date '2017-10-15', date '2017-10-14', day)", ["1"], BQ("date_diff", "date_functions")), ex("select date_diff(date '2010-07-07', date '2008-12-25', day)", ["559"], BQ("date_diff", "date_functions")), ex("select date_diff(date '2017-12-30', date '2014-12-30', year)", ["3"], BQ("date_diff", "date_functions"))] },
  translated("current_date", [ex("select current_date() is not null", ["true"], BQ("current_date", "date_functions"))]),
  { name: "current_timestamp", how: "corrected", note: "without a precision", rewrite: bareKeyword("current_timestamp"), examples: [ex("select current_timestamp() is not null", ["true"], BQ("current_timestamp", "timestamp_functions"))] },
  translated("to_hex", [ex("select to_hex(md5('abc'))", ["900150983cd24fb0d6963f7d28e17f72"], BQ("to_hex", "string_functions"))]),
  translated("md5", [ex("select to_hex(md5('abc'))", ["900150983cd24fb0d6963f7d28e17f72"], BQ("md5", "hash_functions"))], "as to_hex(md5(x)), which dbt's hash() writes"),
  translated("date_add", [ex("select date_add(date '2008-12-25', interval 5 day)", ["2008-12-30"], BQ("date_add", "date_functions"))]),
  translated("date_sub", [ex("select date_sub(date '2008-12-25', interval 5 day)", ["2008-12-20"], BQ("date_sub", "date_functions")), ex("select date_sub(date '2008-12-25', interval -5 day)", ["2008-12-30"], BQ("date_sub", "date_functions"))]),
  translated("datetime_add", [ex("select datetime_add(datetime '2008-12-25 15:30:00', interval 10 minute)", ["2008-12-25 15:40:00"], BQ("datetime_add", "datetime_functions"))]),
  {
    name: "datetime_diff",
    how: "corrected",
    note: "boundaries crossed; WEEK counts Sundays (WEEK(<day>) and ISOWEEK are refused)",
    rewrite: refuseWeekNamed("datetime_diff", 2),
    examples: [
      ex("select datetime_diff(datetime '2010-07-07 10:20:00', datetime '2008-12-25 15:30:00', day)", ["559"], BQ("datetime_diff", "datetime_functions")),
      ex("select datetime_diff(datetime '2017-10-15 00:00:00', datetime '2017-10-14 00:00:00', week)", ["1"], BQ("datetime_diff", "datetime_functions")),
      ex("select datetime_diff(datetime '2017-12-30 00:00:00', datetime '2014-12-30 00:00:00', year)", ["3"], BQ("datetime_diff", "datetime_functions")),
    ],
  },
  { name: "timestamp_trunc", how: "corrected", note: "WEEK is refused", rewrite: refuseWeek("timestamp_trunc", 1), examples: [ex("select timestamp_trunc(timestamp '2008-12-25 15:30:00+00', day)", ["2008-12-25 00:00:00+00"], BQ("timestamp_trunc", "timestamp_functions"))] },
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
  { name: "last_day", how: "corrected", note: "WEEK is refused", rewrite: refuseWeek("last_day", 1), examples: [ex("select last_day(date '2008-11-25', month)", ["2008-11-30"], BQ("last_day", "date_functions")), ex("select last_day(date '2008-11-25')", ["2008-11-30"], BQ("last_day", "date_functions"))] },
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
  translated(
    "timestamp",
    [
      ex("select timestamp('2008-12-25 15:30:00+00')", ["2008-12-25 15:30:00+00"], BQ("timestamp", "timestamp_functions")),
      ex("select timestamp('2008-12-25 15:30:00', 'America/Los_Angeles')", ["2008-12-25 23:30:00+00"], BQ("timestamp", "timestamp_functions")),
      ex("select timestamp('2008-12-25 15:30:00 UTC')", ["2008-12-25 15:30:00+00"], BQ("timestamp", "timestamp_functions")),
      ex("select timestamp(datetime '2008-12-25 15:30:00')", ["2008-12-25 15:30:00+00"], BQ("timestamp", "timestamp_functions")),
      ex("select timestamp(date '2008-12-25')", ["2008-12-25 00:00:00+00"], BQ("timestamp", "timestamp_functions")),
    ],
    "a value without a time zone is read in UTC, or in the zone given",
  ),
  translated(
    "datetime",
    [
      ex("select datetime(2008, 12, 25, 05, 30, 00)", ["2008-12-25 05:30:00"], BQ("datetime", "datetime_functions")),
      ex("select datetime(timestamp '2008-12-25 05:30:00+00', 'America/Los_Angeles')", ["2008-12-24 21:30:00"], BQ("datetime", "datetime_functions")),
      ex("select datetime(date '2008-12-25')", ["2008-12-25 00:00:00"], BQ("datetime", "datetime_functions")),
    ],
  ),
  translated("date", [ex("select date(2016, 12, 25)", ["2016-12-25"], BQ("date", "date_functions"))]),
  {
    name: "array_agg",
    how: "corrected",
    note: "[DISTINCT] x [IGNORE NULLS | RESPECT NULLS] [ORDER BY ...] [LIMIT n]: IGNORE NULLS as a filter (the transpiler dropped it inside other calls), LIMIT n keeping the first n after the ORDER BY (dbt_utils.deduplicate)",
    rewrite: (call) => {
      // BigQuery's ARRAY_AGG takes one value: a comma here separates ORDER BY keys.
      const written = call.args.join(", ");
      const parts = /^(distinct\s+)?([\s\S]+?)(\s+(ignore|respect)\s+nulls)?(\s+order\s+by\s+([\s\S]+?))?(\s+limit\s+(\S+))?\s*$/i.exec(written);
      if (!parts) return { refuse: "slp translates array_agg([distinct] x [ignore nulls] [order by ...] [limit n])" };
      const [, distinct = "", value = "", , nulls, , order, , limit] = parts;
      if (/\b(ignore|respect)\s+nulls\b|\blimit\b/i.test(value)) return { refuse: "slp translates array_agg([distinct] x [ignore nulls] [order by ...] [limit n])" };
      if (limit !== undefined && !/^\d+$/.test(limit)) return { refuse: "slp translates array_agg(... limit n) with n an integer literal" };
      const ignored = nulls?.toLowerCase() === "ignore";
      const aggregate = `array_agg(${distinct}${value}${order ? ` order by ${order}` : ""})${ignored ? ` filter (where (${value}) is not null)` : ""}`;
      return limit !== undefined ? `__slp_list_head(${aggregate}, ${limit})` : aggregate;
    },
    macros: ["__slp_list_head"],
    examples: [ex("select array_length(array_agg(x ignore nulls)) from unnest([1, null, 2]) as x", ["2"], BQ("array_agg", "aggregate_functions")), ex("select array_length(array_agg(x)) from unnest([1, 2]) as x", ["2"], BQ("array_agg", "aggregate_functions")), ex("select array_to_string(array_agg(x order by x desc limit 2), ',') from unnest(['a', 'c', 'b']) as x", ["c,b"], BQ("array_agg", "aggregate_functions")), ex("select array_agg(x limit 5) from unnest([2, 1, -2, 3, -2, 1, 2]) as x", ["[2, 1, -2, 3, -2]"], BQ("array_agg", "aggregate_functions")), ex("select array_agg(x order by abs(x) limit 3)[offset(0)] from unnest([2, 1, -3, 3, -2]) as x", ["1"], BQ("array_agg", "aggregate_functions"))],
  },
  {
    name: "array",
    how: "corrected",
    note: "ARRAY(subquery) of one column: its rows in the subquery's order, [] for none; SELECT AS STRUCT / AS VALUE refused",
    // ARRAY takes one subquery: a comma here is the subquery's own (a select list, BigQuery's trailing comma).
    rewrite: (call) => {
      const subquery = call.args.join(", ");
      return /^\s*\(?\s*(select|with)\b/i.test(subquery) && !/^\s*\(?\s*select\s+(distinct\s+)?as\s+(struct|value)\b/i.test(subquery)
        ? `array((${subquery}))` // in its own parentheses: the transpiler made ARRAY(SELECT ... UNION ALL ...) a LIST_VALUE
        : { refuse: "slp runs ARRAY(subquery) of one column, without SELECT AS STRUCT or AS VALUE" };
    },
    examples: [
      ex("select array(select 1 as x union all select 2 union all select 3 order by x)", ["[1, 2, 3]"], BQ("array", "array_functions")),
      ex("select array(select x from unnest([3, 1, 2]) as x order by x desc)", ["[3, 2, 1]"], BQ("array", "array_functions")),
      ex("select array(select x from unnest([1]) as x where x > 5)", ["[]"], BQ("array", "array_functions")),
    ],
  },
  {
    name: "code_points_to_string",
    how: "corrected",
    note: "each code point its character (DuckDB's chr); NULL if the array or an element is NULL",
    rewrite: (call) => `__slp_code_points_to_string(${call.args.join(", ")})`,
    macros: ["__slp_code_points_to_string"],
    examples: [
      ex("select code_points_to_string([65, 255, 513, 1024])", ["AÿȁЀ"], BQ("code_points_to_string", "string_functions")),
      ex("select code_points_to_string([65, 255, null, 1024])", [null], BQ("code_points_to_string", "string_functions")),
    ],
  },
  {
    name: "struct",
    how: "corrected",
    note: "STRUCT(expr [AS name], ...): a field is named by its alias or, for a column, by the column's name (DuckDB's struct); STRUCT<name T, ...>(values) cast to slp's type; an anonymous field, and STRUCT(), refused",
    rewrite: (call) => {
      if (call.args.length === 0) return { refuse: "slp has no DuckDB struct for STRUCT() (DuckDB's structs have fields)" };
      const anonymous = call.args.find((arg) => structFieldName(arg) === null);
      if (anonymous !== undefined)
        return { refuse: `the field ${anonymous.trim()} is anonymous in BigQuery (DuckDB would name it _0, _1, ...): name it with AS` };
      return `struct(${call.args.join(", ")})`;
    },
    examples: [
      ex("select struct(1 as a, 'abc' as b).b, struct(str_col as abc).abc from (select 'x' as str_col)", ["abc", "x"], BQ("typeless_struct_syntax", "data-types")),
      ex("select s.a, s.str_col from (select struct(1 as a, t.str_col) as s from (select 'x' as str_col) as t)", ["1", "x"], BQ("typeless_struct_syntax", "data-types")),
      ex("select s.x, s.y from (select struct<x int64, y string>(1, t.str_col) as s from (select 'abc' as str_col) as t)", ["1", "abc"], BQ("typed_struct_syntax", "data-types")),
    ],
  },
  translated(
    "generate_date_array",
    [
      ex("select generate_date_array('2016-10-05', '2016-10-08')", ["[2016-10-05, 2016-10-06, 2016-10-07, 2016-10-08]"], BQ("generate_date_array", "array_functions")),
      ex("select generate_date_array('2016-10-05', '2016-10-09', interval 2 day)", ["[2016-10-05, 2016-10-07, 2016-10-09]"], BQ("generate_date_array", "array_functions")),
      ex("select generate_date_array('2016-10-05', '2016-10-01', interval -3 day)", ["[2016-10-05, 2016-10-02]"], BQ("generate_date_array", "array_functions")),
      ex("select generate_date_array('2016-10-05', '2016-10-05')", ["[2016-10-05]"], BQ("generate_date_array", "array_functions")),
      ex("select generate_date_array('2016-10-05', '2016-10-01', interval 1 day)", ["[]"], BQ("generate_date_array", "array_functions")),
      ex("select generate_date_array('2016-10-05', null)", [null], BQ("generate_date_array", "array_functions")),
      ex("select generate_date_array('2016-01-01', '2016-12-31', interval 2 month)", ["[2016-01-01, 2016-03-01, 2016-05-01, 2016-07-01, 2016-09-01, 2016-11-01]"], BQ("generate_date_array", "array_functions")),
    ],
    "the end included; a negative step counts down",
  ),
  translated("to_base64", [ex("select to_base64(b'abc'), to_base64(cast('a' as bytes))", ["YWJj", "YQ=="], BQ("to_base64", "string_functions"))], "standard base64 with padding (a bytes literal with escapes is not read)"),
  translated("array_length", [ex("select array_length([1, 2, 3])", ["3"], BQ("array_length", "array_functions"))]),
  translated("string_agg", [ex("select string_agg(fruit, ' & ' order by fruit) from unnest(['apple', 'pear', 'banana']) as fruit", ["apple & banana & pear"], BQ("string_agg", "aggregate_functions")), ex("select string_agg(fruit, ' & ' order by length(fruit)) from unnest(['apple', null, 'pear', 'banana', 'pear']) as fruit", ["pear & pear & apple & banana"], BQ("string_agg", "aggregate_functions")), ex("select string_agg(fruit) from unnest(['apple', null]) as fruit", ["apple"], BQ("string_agg", "aggregate_functions"))], "NULLs are skipped"),
  translated("split", [ex("select split('a,b,c', ',')[offset(1)]", ["b"], BQ("split", "string_functions"))]),
  translated("offset", [ex("select ['coffee', 'tea', 'milk'][offset(0)]", ["coffee"], BQ("array_subscript_operator", "operators"))]),
  translated("safe_offset", [ex("select ['coffee', 'tea'][safe_offset(5)]", [null], BQ("array_subscript_operator", "operators"))]),
  {
    name: "ordinal",
    how: "corrected",
    note: "the subscripts run as slp's macro: an array's index 1-based in DuckDB, a JSON value's 0-based; past the end an error",
    examples: [ex("select ['coffee', 'tea', 'milk'][ordinal(1)]", ["coffee"], BQ("array_subscript_operator", "operators"))],
  },
  { name: "safe_ordinal", how: "corrected", note: "NULL past the end", examples: [ex("select ['coffee', 'tea', 'milk'][safe_ordinal(4)], ['coffee', 'tea', 'milk'][safe_ordinal(3)]", [null, "milk"], BQ("array_subscript_operator", "operators"))] },
  translated("[]", [ex("select ['coffee', 'tea', 'milk'][1]", ["tea"], BQ("array_subscript_operator", "operators"))], "a bare index is an OFFSET (0-based)"),
  translated("unnest", [ex("select count(*) from unnest([1, 2, 3]) as x", ["3"], BQ("unnest_operator", "query-syntax"))]),
  translated("starts_with", [ex("select starts_with('bar', 'b')", ["true"], BQ("starts_with", "string_functions"))]),
  translated("ends_with", [ex("select ends_with('apple', 'e')", ["true"], BQ("ends_with", "string_functions"))]),
  translated("strpos", [ex("select strpos('foo@example.com', '@')", ["4"], BQ("strpos", "string_functions"))]),
  translated("length", [ex("select length('абвгд')", ["5"], BQ("length", "string_functions"))]),
  ...["substr", "substring"].map(
    (name): Construct => ({
      name,
      how: "corrected",
      note: `${name === "substring" ? "an alias of SUBSTR: " : ""}a position of 0 or before the start is 1 (DuckDB counts characters before the string), a negative length is an error`,
      rewrite: (call) =>
        call.args.length === 2 || call.args.length === 3
          ? `__slp_bigquery_substr(${call.args[0]}, ${call.args[1]}, ${call.args[2] ?? "null"}, ${call.args.length === 3})`
          : { refuse: `${name} takes a value, a position and a length` },
      macros: ["__slp_bigquery_substr"],
      examples: [
        ex(`select ${name}('apple', 2)`, ["pple"], BQ("substr", "string_functions")),
        ex(`select ${name}('apple', 2, 2)`, ["pp"], BQ("substr", "string_functions")),
        ex(`select ${name}('apple', -2)`, ["le"], BQ("substr", "string_functions")),
        ex(`select ${name}('apple', 1, 123)`, ["apple"], BQ("substr", "string_functions")),
        ex(`select ${name}('apple', 123)`, [""], BQ("substr", "string_functions")),
        ex(`select ${name}('apple', 123, 5)`, [""], BQ("substr", "string_functions")),
        ex(`select ${name}('apple', 0, 2)`, ["ap"], BQ("substr", "string_functions")),
        ex(`select ${name}('apple', -7, 2)`, ["ap"], BQ("substr", "string_functions")),
      ],
    }),
  ),
  same("lpad", [ex("select lpad('c', 3, 'a')", ["aac"], BQ("lpad", "string_functions"))]),
  same("round", [ex("select round(2.5)", ["3"], BQ("round", "mathematical_functions")), ex("select round(-2.5)", ["-3"], BQ("round", "mathematical_functions"))], "half away from zero"),
  translated("mod", [ex("select mod(-25, 12)", ["-1"], BQ("mod", "mathematical_functions"))]),
  translated("logical_or", [ex("select logical_or(x) from unnest([true, false]) as x", ["true"], BQ("logical_or", "aggregate_functions"))]),
  translated("logical_and", [ex("select logical_and(x) from unnest([true, false]) as x", ["false"], BQ("logical_and", "aggregate_functions"))]),
  translated("qualify", [ex("select x from unnest([1, 2]) as x qualify row_number() over (order by x desc) = 1", ["2"], BQ("qualify_clause", "query-syntax"))]),
  translated("* replace", [
    ex(`with orders as (select 5 as order_id, "sprocket" as item_name, 200 as quantity) select * replace ("widget" as item_name) from orders`, ["5", "widget", "200"], BQ("select_replace", "query-syntax")),
    ex(`with orders as (select 5 as order_id, "sprocket" as item_name, 200 as quantity) select * replace (quantity / 2 as quantity) from orders`, ["5", "sprocket", "100"], BQ("select_replace", "query-syntax")),
  ]),
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
  {
    name: "regexp_replace",
    how: "corrected",
    note: "replaces every match (DuckDB replaces the first unless told)",
    rewrite: (call) => (call.args.length === 3 ? `__slp_regexp_replace_all(${call.args.join(", ")})` : { refuse: "regexp_replace takes a value, a pattern and a replacement" }),
    macros: ["__slp_regexp_replace_all"],
    examples: [ex("select regexp_replace('# Heading', r'^# ([a-zA-Z0-9\\s]+$)', '<h1>\\\\1</h1>')", ["<h1>Heading</h1>"], BQ("regexp_replace", "string_functions")), ex("select regexp_replace('abab', 'b', 'x')", ["axax"], BQ("regexp_replace", "string_functions"))],
  },
  same("trim", [ex("select trim('***apple***', '*')", ["apple"], BQ("trim", "string_functions")), ex("select trim('xzxapplexxy', 'xyz')", ["apple"], BQ("trim", "string_functions")), ex("select trim('   apple   ')", ["apple"], BQ("trim", "string_functions"))]),
  translated("ltrim", [ex("select ltrim('***apple***', '*')", ["apple***"], BQ("ltrim", "string_functions"))]),
  translated("rtrim", [ex("select rtrim('***apple***', '*')", ["***apple"], BQ("rtrim", "string_functions"))]),
  {
    name: "initcap",
    how: "corrected",
    note: "words start after whitespace or [ ] ( ) { } / | \\ < > ! ? @ \" ^ # $ & ~ _ , . : ; * % + -, BigQuery's default delimiters; a delimiters argument is refused",
    rewrite: initcap("delimiters"),
    macros: ["__slp_initcap"],
    examples: [ex("select initcap('Hello World-everyone!')", ["Hello World-Everyone!"], BQ("initcap", "string_functions")), ex("select initcap('PYTHON-jython')", ["Python-Jython"], BQ("initcap", "string_functions")), ex("select initcap('Apples1oranges2pears')", ["Apples1oranges2pears"], BQ("initcap", "string_functions"))],
  },
  translated("reverse", [ex("select reverse('foo')", ["oof"], BQ("reverse", "string_functions")), ex("select reverse('абвгд')", ["дгвба"], BQ("reverse", "string_functions"))]),
  translated("repeat", [ex("select repeat('abc', 3)", ["abcabcabc"], BQ("repeat", "string_functions")), ex("select repeat('abc', 0)", [""], BQ("repeat", "string_functions")), ex("select repeat('abc', null)", [null], BQ("repeat", "string_functions"))]),
  translated("rpad", [ex("select rpad('b', 5, 'a')", ["baaaa"], BQ("rpad", "string_functions")), ex("select rpad('abc', 10, 'ghd')", ["abcghdghdg"], BQ("rpad", "string_functions")), ex("select rpad('abc', 2, 'd')", ["ab"], BQ("rpad", "string_functions"))]),
  same("left", [ex("select left('apple', 3)", ["app"], BQ("left", "string_functions"))]),
  same("right", [ex("select right('apple', 3)", ["ple"], BQ("right", "string_functions"))]),
  {
    name: "instr",
    how: "corrected",
    note: "the n-th occurrence (overlapping) from a position, backward from the end when it is negative; 0 when there is none",
    rewrite: (call) => (call.args.length >= 2 && call.args.length <= 4 ? `__slp_instr(${call.args[0]}, ${call.args[1]}, ${call.args[2] ?? "1"}, ${call.args[3] ?? "1"})` : { refuse: "instr takes a value, a search value, a position and an occurrence" }),
    macros: ["__slp_instr"],
    examples: [
      ex("select instr('abc', 'bc')", ["2"], BQ("instr", "string_functions")),
      ex("select instr('abcabc', 'bc', 3)", ["5"], BQ("instr", "string_functions")),
      ex("select instr('abcabc', 'bc', -1, 1)", ["5"], BQ("instr", "string_functions")),
      ex("select instr('abcabc', 'bc', -1, 2)", ["2"], BQ("instr", "string_functions")),
      ex("select instr('banana', 'an', 1, 2)", ["4"], BQ("instr", "string_functions")),
      ex("select instr('banana', 'an', 1, 3)", ["0"], BQ("instr", "string_functions")),
      ex("select instr('helloooo', 'oo', 1, 2)", ["6"], BQ("instr", "string_functions")),
      ex("select instr('banana', null)", [null], BQ("instr", "string_functions")),
    ],
  },
  translated("timestamp_add", [ex("select timestamp_add(timestamp '2008-12-25 15:30:00+00', interval 10 minute)", ["2008-12-25 15:40:00+00"], BQ("timestamp_add", "timestamp_functions"))]),
  translated("timestamp_sub", [ex("select timestamp_sub(timestamp '2008-12-25 15:30:00+00', interval 10 minute)", ["2008-12-25 15:20:00+00"], BQ("timestamp_sub", "timestamp_functions"))]),
  translated("datetime_sub", [ex("select datetime_sub(datetime '2008-12-25 15:30:00', interval 10 minute)", ["2008-12-25 15:20:00"], BQ("datetime_sub", "datetime_functions"))]),
  { name: "datetime_trunc", how: "corrected", note: "WEEK is refused", rewrite: refuseWeek("datetime_trunc", 1), examples: [ex("select datetime_trunc(datetime '2008-12-25 15:30:00', day)", ["2008-12-25 00:00:00"], BQ("datetime_trunc", "datetime_functions"))] },
  {
    name: "timestamp_diff",
    how: "corrected",
    note: "whole units elapsed (the transpiler counted boundaries crossed)",
    rewrite: (call) => {
      const part = call.args[2]?.trim().toLowerCase() ?? "";
      return call.args.length === 3 && /^(microsecond|millisecond|second|minute|hour|day)$/.test(part) ? `__slp_elapsed('${part}', ${call.args[1]}, ${call.args[0]})` : { refuse: "slp translates timestamp_diff(a, b, part) with part one of MICROSECOND to DAY" };
    },
    macros: ["__slp_elapsed"],
    examples: [ex("select timestamp_diff(timestamp '2010-07-07 10:20:00+00', timestamp '2008-12-25 15:30:00+00', hour)", ["13410"], BQ("timestamp_diff", "timestamp_functions")), ex("select timestamp_diff(timestamp '2001-02-01 01:00:00', timestamp '2001-02-01 00:00:01', hour)", ["0"], BQ("timestamp_diff", "timestamp_functions"))],
  },
  translated("parse_timestamp", [ex("select parse_timestamp('%c', 'Thu Dec 25 07:30:00 2008')", ["2008-12-25 07:30:00+00"], BQ("parse_timestamp", "timestamp_functions"))]),
  translated("parse_datetime", [ex("select parse_datetime('%Y-%m-%d %H:%M:%S', '1998-10-18 13:45:55')", ["1998-10-18 13:45:55"], BQ("parse_datetime", "datetime_functions"))]),
  translated("unix_date", [ex("select unix_date(date '2008-12-25')", ["14238"], BQ("unix_date", "date_functions"))]),
  { name: "date_from_unix_date", how: "corrected", note: "days after 1970-01-01", rewrite: (call) => `__slp_date_from_unix_date(${call.args.join(", ")})`, macros: ["__slp_date_from_unix_date"], examples: [ex("select date_from_unix_date(14238)", ["2008-12-25"], BQ("date_from_unix_date", "date_functions"))] },
  translated("unix_seconds", [ex("select unix_seconds(timestamp '2008-12-25 15:30:00+00')", ["1230219000"], BQ("unix_seconds", "timestamp_functions"))]),
  translated("timestamp_seconds", [ex("select timestamp_seconds(1230219000)", ["2008-12-25 15:30:00+00"], BQ("timestamp_seconds", "timestamp_functions"))]),
  translated("array_to_string", [ex("select array_to_string(['cake', 'pie', null], '--')", ["cake--pie"], BQ("array_to_string", "array_functions"))], "NULL elements are skipped; a NULL text argument is refused"),
  translated("array_reverse", [ex("select array_reverse([1, 2, 3])", ["[3, 2, 1]"], BQ("array_reverse", "array_functions"))]),
  translated("any_value", [ex("select any_value(fruit) from unnest(['apple']) as fruit", ["apple"], BQ("any_value", "aggregate_functions"))]),
  translated("trunc", [ex("select trunc(2.7), trunc(-2.7)", ["2", "-2"], BQ("trunc", "mathematical_functions"))]),
  same("sign", [ex("select sign(-25), sign(0), sign(25)", ["-1", "0", "1"], BQ("sign", "mathematical_functions"))]),
  translated("pow", [ex("select pow(2, 3)", ["8"], BQ("pow", "mathematical_functions"))]),
  same("sqrt", [ex("select sqrt(25)", ["5"], BQ("sqrt", "mathematical_functions"))]),
  ...framedValues([BQ("first_value", "navigation_functions"), BQ("last_value", "navigation_functions"), BQ("nth_value", "navigation_functions")], { strict: false, ignoreNulls: (call) => call.replace(/\)$/, " ignore nulls)") }),
  // WEEK(<day>) is a date part, not a call: each function taking a date part above reads it (or refuses it).
  same("week", [ex("select date_trunc(date '2017-11-08', week(wednesday))", ["2017-11-08"], BQ("date_trunc", "date_functions"))], "as the date part WEEK(<day>)"),
  refused("farm_fingerprint", "BigQuery's own hash: DuckDB gives other numbers"),
  refused("approx_count_distinct", "an estimate: DuckDB's algorithm gives other numbers than BigQuery's"),
  average("bigquery", "INT64 averages to FLOAT64, NUMERIC to NUMERIC (9 decimals)", [
    ex("select avg(x) as avg from unnest([0, 2, 4, 4, 5]) as x", ["3"], BQ("avg", "aggregate_functions")),
    ex("select avg(x) from unnest([numeric '1', numeric '2', numeric '2']) as x", ["1.666666667"], BQ("avg", "aggregate_functions")),
  ]),
  ...bigqueryNested(),
  {
    name: "with offset",
    how: "corrected",
    note: "UNNEST(array) AS x WITH OFFSET [AS o]: a row per element and its position from 0 (offset when unnamed); an UNNEST without an element alias is refused",
    examples: [
      ex("select string_agg(concat(x, ':', cast(o as string)), ',' order by o) from unnest(['a', 'b', 'c']) as x with offset as o", ["a:0,b:1,c:2"], BQ("unnest_operator", "query-syntax")),
      ex("select sum(pos), sum(v) from unnest([10, 20, 30]) v with offset pos", ["3", "60"], BQ("unnest_operator", "query-syntax")),
      ex("select count(*), max(o) from (select [1, 2] as arr union all select []) as t left join unnest(t.arr) as x with offset o", ["3", "1"], BQ("unnest_operator", "query-syntax")),
    ],
  },
  // JSON values are held as BigQuery prints them (compact, keys sorted), JSON text as written; slp's JSON functions
  // (src/engine/json-values.ts) read both. A JSONPath is a literal. `j.a` and `j['a']` are DuckDB's own JSON field access.
  {
    name: "parse_json",
    how: "corrected",
    note: "held compact with its keys sorted; a number past 18 digits (wide_number_mode) is an error; a duplicate key is refused",
    rewrite: (call) => (call.args.length === 1 ? `__slp_as_json(__slp_jsonf_print(${call.args[0]}, 'bigquery'))` : { refuse: "slp translates parse_json of one text (its wide_number_mode is not verified)" }),
    macros: ["__slp_as_json"],
    examples: [ex(`select to_json_string(parse_json('{"coordinates": [10, 20], "id": 1}'))`, ['{"coordinates":[10,20],"id":1}'], BQ("parse_json", "json_functions"))],
  },
  {
    name: "to_json_string",
    how: "corrected",
    note: "BigQuery's JSON encodings of a SQL value (slp's function over its DuckDB type, src/engine/bigquery-json.ts); pretty_print a literal; a JSON value inside a struct or array, a struct with unnamed or repeated fields, -0.0, an INTERVAL are errors",
    rewrite: bigqueryToJsonString,
    examples: [
      ex(`select to_json_string(json '{"id": 1, "coordinates": [10, 20]}')`, ['{"coordinates":[10,20],"id":1}'], BQ("to_json_string", "json_functions")),
      ex("select to_json_string(struct(1 as id, [10,20] as coordinates))", ['{"id":1,"coordinates":[10,20]}'], BQ("to_json_string", "json_functions")),
      ex("select to_json_string(struct(1 as id, [10,20] as coordinates), true)", ['{\n  "id": 1,\n  "coordinates": [\n    10,\n    20\n  ]\n}'], BQ("to_json_string", "json_functions")),
      ex("select to_json_string(9007199254740992), to_json_string(9007199254740993)", ["9007199254740992", '"9007199254740993"'], BQ("json_encodings", "json_functions")),
      ex("select to_json_string(cast(-1 as numeric)), to_json_string(cast(0 as numeric)), to_json_string(cast(9007199254740993 as numeric)), to_json_string(cast('123.56' as numeric))", ["-1", "0", '"9007199254740993"', '"123.56"'], BQ("json_encodings", "json_functions")),
      ex("select to_json_string(1.0), to_json_string(cast('+inf' as float64)), to_json_string(cast('-inf' as float64)), to_json_string(cast('NaN' as float64))", ["1", '"Infinity"', '"-Infinity"', '"NaN"'], BQ("json_encodings", "json_functions")),
      ex(`select to_json_string("abc"), to_json_string("\\"abc\\""), to_json_string(b"Google")`, ['"abc"', '"\\"abc\\""', '"R29vZ2xl"'], BQ("json_encodings", "json_functions")),
      ex("select to_json_string(date '2017-03-06'), to_json_string(timestamp '2017-03-06 12:34:56.789012'), to_json_string(datetime '2017-03-06 12:34:56.789012'), to_json_string(time '12:34:56.789012')", ['"2017-03-06"', '"2017-03-06T12:34:56.789012Z"', '"2017-03-06T12:34:56.789012"', '"12:34:56.789012"'], BQ("json_encodings", "json_functions")),
      ex(`select to_json_string(["red", "blue", "green"]), to_json_string([1, 2, 3]), to_json_string(struct(12 as purchases, true as inStock)), to_json_string(null)`, ['["red","blue","green"]', "[1,2,3]", '{"purchases":12,"inStock":true}', "null"], BQ("json_encodings", "json_functions")),
    ],
  },
  {
    name: "json_value",
    how: "corrected",
    note: "a literal JSONPath; a string's characters, an integer's digits, NULL for an object, an array or null; a fraction is refused",
    rewrite: bigqueryExtract("bigquery_value", false),
    examples: [
      ex(`select json_value(json '{"name": "Jakob", "age": "6" }', '$.age')`, ["6"], BQ("json_value", "json_functions")),
      ex(`select json_value('{"name": "Jakob", "age": "6" }', '$.age')`, ["6"], BQ("json_value", "json_functions")),
      ex(`select json_value('{"fruits": ["apple", "banana"]}', '$.fruits')`, [null], BQ("json_value", "json_functions")),
      ex(`select json_value('{"a.b": {"c": "world"}}', '$."a.b".c')`, ["world"], BQ("json_value", "json_functions")),
    ],
  },
  {
    name: "json_extract_scalar",
    how: "corrected",
    note: "as json_value, keys quoted ['a.b']",
    rewrite: bigqueryExtract("bigquery_value", true),
    examples: [
      ex(`select json_extract_scalar('{"name": "Jakob", "age": "6" }', '$.age')`, ["6"], BQ("json_extract_scalar", "json_functions")),
      ex(`select json_extract_scalar('{"a.b": {"c": "world"}}', "$['a.b'].c")`, ["world"], BQ("json_extract_scalar", "json_functions")),
    ],
  },
  {
    name: "json_query",
    how: "corrected",
    note: "a literal JSONPath; the value's compact text (a fraction is refused)",
    rewrite: bigqueryExtract("bigquery_query", false),
    examples: [
      ex(`select json_query('{"class": {"students": [{"name": "Jane"}]}}', '$')`, ['{"class":{"students":[{"name":"Jane"}]}}'], BQ("json_query", "json_functions")),
      ex(`select json_query('{"class": {"students": [{"name": "Jane"}]}}', '$.class.students[0]')`, ['{"name":"Jane"}'], BQ("json_query", "json_functions")),
      ex(`select json_query('{"class": {"students": [{"name": "Jane"}]}}', '$.class.students[1].name')`, [null], BQ("json_query", "json_functions")),
      ex(`select json_query('{"a.b": {"c": "world"}}', '$."a.b"')`, ['{"c":"world"}'], BQ("json_query", "json_functions")),
    ],
  },
  {
    name: "json_extract",
    how: "corrected",
    note: "as json_query, keys quoted ['a.b']",
    rewrite: bigqueryExtract("bigquery_query", true),
    examples: [
      ex(`select json_extract('{"class": {"students": [{"name": "Jane"}]}}', '$.class')`, ['{"students":[{"name":"Jane"}]}'], BQ("json_extract", "json_functions")),
      ex(`select json_extract('{"a.b": {"c": "world"}}', "$['a.b']")`, ['{"c":"world"}'], BQ("json_extract", "json_functions")),
    ],
  },
  ...(
    [
      ["json_query_array", "bigquery_query", false],
      ["json_extract_array", "bigquery_query", true],
      ["json_value_array", "bigquery_value", false],
      ["json_extract_string_array", "bigquery_value", true],
    ] as const
  ).map(
    ([name, reader, legacy]): Construct => ({
      name,
      how: "corrected",
      note: reader === "bigquery_query" ? "each element's compact JSON text" : "each element's text; an array holding an object, an array or null is refused",
      rewrite: bigqueryExtractArray(reader, legacy),
      macros: ["__slp_text_list"],
      examples: [ex(`select ${name}('[1,2,3]')`, ["[1, 2, 3]"], BQ(name, "json_functions"))],
    }),
  ),
  {
    name: "json_type",
    how: "corrected",
    note: "object, array, string, number, boolean or null",
    rewrite: jsonFunction("__slp_jsonf_type", 1),
    examples: [
      ex(`select json_type(json '"apple"'), json_type(json '10'), json_type(json 'null')`, ["string", "number", "null"], BQ("json_type", "json_functions")),
      ex(`select json_type(json '{"city": "New York", "State": "NY"}'), json_type(json '["apple", "banana"]'), json_type(json 'false')`, ["object", "array", "boolean"], BQ("json_type", "json_functions")),
    ],
  },
  ...(
    [
      ["bool", "BOOL", [ex("select bool(json 'true')", ["true"], BQ("bool_for_json", "json_functions")), ex(`select bool(json_query(json '{"hotel class": "5-star", "vacancy": true}', "$.vacancy"))`, ["true"], BQ("bool_for_json", "json_functions"))]],
      ["int64", "INT64", [ex("select int64(json '2005')", ["2005"], BQ("int64_for_json", "json_functions")), ex(`select int64(json_query(json '{"gate": "A4", "flight_number": 2005}', "$.flight_number"))`, ["2005"], BQ("int64_for_json", "json_functions"))]],
      ["float64", "FLOAT64", [ex("select float64(json '9.8')", ["9.8"], BQ("float64_for_json", "json_functions"))]],
    ] as const
  ).map(
    ([name, type, examples]): Construct => ({
      name,
      how: "corrected",
      note: `a JSON ${name === "bool" ? "boolean" : "number"} as ${type}; another JSON type is an error${name === "int64" ? "; a fraction is refused" : ""}`,
      rewrite: (call) => (call.args.length === 1 ? `cast(__slp_jsonf_scalar(${call.args[0]}, '${name}') as ${name})` : { refuse: `slp translates ${name}() of one JSON value` }),
      examples: [...examples],
    }),
  ),
  {
    name: "string",
    how: "corrected",
    note: "of a JSON string its characters (another JSON type an error); of a timestamp refused",
    rewrite: (call) => (call.args.length === 1 ? `__slp_json_string(${call.args[0]}, __slp_jsonf_scalar(${call.args[0]}, 'string'))` : { refuse: "slp translates string() of one JSON value" }),
    macros: ["__slp_json_string"],
    examples: [ex(`select string(json '"purple"')`, ["purple"], BQ("string_for_json", "json_functions")), ex(`select string(json_query(json '{"name": "sky", "color": "blue"}', "$.color"))`, ["blue"], BQ("string_for_json", "json_functions"))],
  },
  ...["lax_bool", "lax_int64", "lax_float64", "lax_string"].map((name) => refused(name, "its lenient conversions (text to numbers, numbers to booleans, rounding) are not verified against DuckDB")),
  ...["to_json", "json_object", "json_array", "json_set", "json_remove", "json_strip_nulls", "json_array_append", "json_array_insert", "json_keys", "json_flatten"].map((name) =>
    refused(name, "slp has not verified this JSON function (how it prints SQL values, orders keys, or changes a JSON value) against DuckDB"),
  ),
  refused("with offset", "UNNEST ... WITH OFFSET has no faithful DuckDB form in slp (WITH ORDINALITY counts from 1 and binds its alias differently)"),
  refused("generate_uuid", "a random value cannot be compared with an expected one"),
  {
    name: "like",
    how: "corrected",
    note: "the backslash escapes \\, _ and % (ESCAPE '\\' in DuckDB); a pattern escaping another character or ending in a backslash is refused (checked when it runs if computed); LIKE ANY / ALL as ORs / ANDs",
    examples: [
      ex("select 'a_c' like 'a\\\\_c', 'abc' like 'a\\\\_c', 'a%' like 'a\\\\%', 'a\\\\b' like 'a\\\\\\\\b'", ["true", "false", "true", "true"], BQ("like_operator", "operators")),
      ex("select 'apple' like any ('a%', 'x'), 'apple' like all ('a%', '%x')", ["true", "false"], BQ("like_operator_quantified", "operators")),
    ],
  },
  {
    name: "pivot",
    how: "corrected",
    note: "FOR one column IN string literals or aliased values; one aggregate without an alias, or each aliased (columns alias_value, renamed from DuckDB's value_alias)",
    examples: [
      ex("select * from (select product, sales, quarter from (select 'Kale' as product, 51 as sales, 'Q1' as quarter union all select 'Kale', 70, 'Q1' union all select 'Kale', 23, 'Q2' union all select 'Kale', 85, 'Q2')) pivot(sum(sales) as total_sales, count(*) as num_records for quarter in ('Q1', 'Q2'))", ["Kale", "121", "2", "108", "2"], BQ("pivot_operator", "query-syntax")),
      ex("select product, Q1, Q2, Q4 from (select product, sales, quarter from (select 'Kale' as product, 51 as sales, 'Q1' as quarter union all select 'Kale', 23, 'Q2' union all select 'Kale', 45, 'Q3')) pivot(sum(sales) for quarter in ('Q1', 'Q2', 'Q3', 'Q4'))", ["Kale", "51", "23", null], BQ("pivot_operator", "query-syntax")),
    ],
  },
  {
    name: "unpivot",
    how: "corrected",
    note: "one value column, the names plain or aliased by a string; NULL values left out unless INCLUDE NULLS; several value columns with INCLUDE NULLS (an unaliased set named col1_col2); under a SELECT that names its columns (DuckDB orders the name column first)",
    examples: [
      ex("select count(*), sum(sales), min(quarter) from (select product, sales, quarter from (select 'Kale' as product, 51 as q1, 23 as q2, cast(null as int64) as q3) unpivot(sales for quarter in (q1, q2, q3)))", ["2", "74", "q1"], BQ("unpivot_operator", "query-syntax")),
      ex("select count(*), max(quarter) from (select product, sales, quarter from (select 'Kale' as product, 51 as q1, cast(null as int64) as q2) unpivot include nulls (sales for quarter in (q1 as 'first', q2 as 'second')))", ["2", "second"], BQ("unpivot_operator", "query-syntax")),
      ex("select product, first_half_sales, second_half_sales, semesters from (select 'Kale' as product, 51 as Q1, 23 as Q2, 45 as Q3, 3 as Q4 union all select 'Apple', 77, 0, 25, 2) unpivot include nulls ((first_half_sales, second_half_sales) for semesters in ((Q1, Q2) as 'semester_1', (Q3, Q4) as 'semester_2')) where product = 'Apple' and semesters = 'semester_2'", ["Apple", "25", "2", "semester_2"], BQ("unpivot_operator", "query-syntax")),
      ex("select count(*), string_agg(semesters, ',' order by semesters) from (select product, first_half_sales, second_half_sales, semesters from (select 'Kale' as product, 51 as Q1, 23 as Q2, 45 as Q3, 3 as Q4 union all select 'Apple', 77, 0, 25, 2) unpivot include nulls ((first_half_sales, second_half_sales) for semesters in ((Q1, Q2), (Q3, Q4))))", ["4", "Q1_Q2,Q1_Q2,Q3_Q4,Q3_Q4"], BQ("unpivot_operator", "query-syntax")),
    ],
  },
];

/** The name BigQuery gives a typeless STRUCT's field: its alias, or a column's name (t.col is col); null for an anonymous one. */
function structFieldName(arg: string): string | null {
  const name = "(?:`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)";
  const aliased = new RegExp(`\\sas\\s+(${name})\\s*$`, "i").exec(arg);
  if (aliased) return aliased[1] as string;
  const column = new RegExp(`^\\s*(?:${name}\\s*\\.\\s*)*(${name})\\s*$`).exec(arg);
  // A bare word that is a literal or a niladic function is a value, not a column.
  if (!column || /^(true|false|null|current_date|current_datetime|current_time|current_timestamp)$/i.test(column[1] as string)) return null;
  return column[1] as string;
}

// https://cloud.google.com/bigquery/docs/reference/standard-sql/operators#arithmetic_operators: INT64 / INT64 is FLOAT64; NUMERIC has 9 decimals (AVG too).
const QUOTIENT = rule(() => "9", "float");

// --- lexical rules (lexer.ts reads them) ---
const BIGQUERY_LEXICAL = "https://cloud.google.com/bigquery/docs/reference/standard-sql/lexical";
const BIGQUERY_LIKE = "https://cloud.google.com/bigquery/docs/reference/standard-sql/operators#like_operator";

/** BigQuery: \a \b \f \n \r \t \v \\ \? \" \' \`, \ooo, \xhh / \Xhh, \uhhhh, \Uhhhhhhhh; any other escape is an error. */
const BIGQUERY_ESCAPES: EscapeRules = {
  named: { ...CONTROL_ESCAPES, ...QUOTE_ESCAPES, a: "\x07", v: "\v", "?": "?", "`": "`" },
  kept: [],
  octal: "three",
  hex: "two",
  upperX: true,
  unicode: { long: true },
  other: "error",
};

const BIGQUERY_EXAMPLES: Example[] = [
  ex(
    String.raw`select "abc", "it's", 'it\'s', 'Title: "Boy"'`,
    ["abc", "it's", "it's", 'Title: "Boy"'],
    `${BIGQUERY_LEXICAL}#string_and_bytes_literals`,
  ),
  ex(
    "select \"\"\"abc\"\"\", '''it's''', '''Title:\"Boy\"''', '''two\nlines''', '''why\\?'''",
    ["abc", "it's", 'Title:"Boy"', "two\nlines", "why?"],
    `${BIGQUERY_LEXICAL}#string_and_bytes_literals`,
  ),
  ex(
    String.raw`select r"abc+", r'''abc+''', r"""abc+""", r'f\(abc,(.*),def\)'`,
    ["abc+", "abc+", "abc+", String.raw`f\(abc,(.*),def\)`],
    `${BIGQUERY_LEXICAL}#string_and_bytes_literals`,
  ),
  ex(
    String.raw`select '\a\b\f\n\r\t\v', '\\ \? \" \'', '\101\x41\X41\u0041\U00000041'`,
    ["\x07\b\f\n\r\t\v", String.raw`\ ? " '`, "AAAAA"],
    `${BIGQUERY_LEXICAL}#escape_sequences`,
  ),
  ex("select b'abc' = cast('abc' as bytes)", ["true"], `${BIGQUERY_LEXICAL}#string_and_bytes_literals`),
  ex("select 1 # a comment\n, 2 -- another\n, /* a block */ 3", ["1", "2", "3"], `${BIGQUERY_LEXICAL}#comments`),
  ex(String.raw`select 'a_c' like 'a\\_c', 'abc' like 'a\\_c', 'a%c' like r'a\%c'`, ["true", "false", "true"], BIGQUERY_LIKE),
];

export default defineDialect({
  name: "bigquery",
  transpiler: "bigquery",
  adapterInherits: [],
  lexical: {
    likeEscape: "unverified",
    identifierQuote: "`",
    identifierEscapes: true,
    singleQuoted: BIGQUERY_ESCAPES,
    doubledQuote: "BigQuery documents no such escape (two literals must be separated by whitespace)",
    doubleQuoted: "string",
    raw: "pairs",
    tripleQuoted: true,
    newlineEndsString: true,
    bytes: true,
    escapeStrings: null,
    unicodeStrings: false,
    dollarQuoted: null,
    adjacentStringsNeedNewline: false,
    lineComments: ["#"],
    nestedComments: "unverified",
    unquotedCase: "insensitive",
    sources: [BIGQUERY_LEXICAL, BIGQUERY_LIKE],
    examples: BIGQUERY_EXAMPLES,
  },
  // "NULLs sort first if sort order is ASC and last if DESC".
  nullOrder: "nulls_first_on_asc_last_on_desc",
  integerDivision: false,
  // https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types
  types: {
    int64: { duckdb: "BIGINT" },
    int: { duckdb: "BIGINT" },
    integer: { duckdb: "BIGINT" },
    smallint: { duckdb: "BIGINT" },
    tinyint: { duckdb: "BIGINT" },
    byteint: { duckdb: "BIGINT" },
    float64: DOUBLE,
    numeric: { decimal: [38, 9] },
    decimal: { decimal: [38, 9] },
    bignumeric: { refuse: "BIGNUMERIC has 76 digits of precision; DuckDB's DECIMAL has at most 38" },
    bigdecimal: { refuse: "BIGDECIMAL has 76 digits of precision; DuckDB's DECIMAL has at most 38" },
    bytes: { duckdb: "BLOB" },
    datetime: { duckdb: "TIMESTAMP" },
    // An absolute instant; slp's DuckDB runs in UTC, as BigQuery's functions do by default.
    timestamp: { duckdb: "TIMESTAMPTZ" },
    interval: { duckdb: "INTERVAL" },
    // Held compact with its keys sorted, as BigQuery prints a JSON value (json.ts). dbt-bigquery writes a mapping as
    // safe_cast(json '<its JSON>' as json); anything else as safe_cast(<value> as json), a reading slp has not verified.
    json: {
      json: {
        kind: "refused",
        why: "it is text, for which dbt-bigquery writes safe_cast('<text>' as json), a reading slp has not verified",
        unread: {
          kinds: ["list", "number", "boolean"],
          why: "dbt-bigquery writes safe_cast(<value> as json) for anything but a mapping, a reading slp has not verified",
          fix: "give a YAML mapping, or write the rows with format: sql (parse_json('...'), json '...')",
        },
      },
    },
    range: { refuse: "RANGE has no DuckDB type" },
  },
  constructs: BIGQUERY,
  crossDbMacros: {
    current_timestamp: () => "current_timestamp()",
    type_string: () => "string",
    type_int: () => "int64",
    type_bigint: () => "int64",
    type_float: () => "float64",
    type_numeric: () => "numeric",
    type_timestamp: () => "timestamp",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) => `datetime_add(cast(${text(from)} as datetime), interval ${text(interval)} ${text(part)})`,
    datediff: (first, second, part) => `datetime_diff(cast(${text(second)} as datetime), cast(${text(first)} as datetime), ${text(part)})`,
    date_trunc: (part, date) => `timestamp_trunc(cast(${text(date)} as timestamp), ${text(part)})`,
    safe_cast: (field, type) => `safe_cast(${text(field)} as ${text(type)})`,
    concat: (fields) => `concat(${list(fields).join(", ")})`,
    hash: (field) => `to_hex(md5(cast(${text(field)} as string)))`,
    split_part: (string, delimiter, part) => `split(${text(string)}, ${text(delimiter)})[safe_offset(${text(part)} - 1)]`,
    listagg: (measure, delimiter, orderBy, limit) => stringAggListagg(measure, delimiter, orderBy, limit),
    // dbt-bigquery: BigQuery's set operators need their DISTINCT written out.
    intersect: () => "intersect distinct",
    except: () => "except distinct",
  },
  formats: {},
  division: {
    quotient: QUOTIENT,
    average: QUOTIENT,
    // https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types#decimal_types: NUMERIC has 9 decimals; INT64 * INT64 is INT64
    product: { scale: () => "9", integers: "native" },
    byZero: "error",
  },
  // dbt-bigquery dispatches validate_fixture_rows to the default, which checks nothing.
  fixtureRules: [],
});

/**
 * BigQuery's TO_JSON_STRING(value[, pretty_print]): a JSON value its text (held as BigQuery prints it), any other
 * value slp's function over its DuckDB type (src/engine/bigquery-json.ts), NULL `null`. DuckDB hands a JSON member
 * of a struct or array over as text, so a value holding one is an error; pretty_print must be a literal.
 */
function bigqueryToJsonString(call: Call): string | { refuse: string } {
  const [value, prettyArg] = call.args;
  if (value === undefined || call.args.length > 2) return { refuse: "slp translates to_json_string(value[, pretty_print])" };
  const pretty = prettyArg === undefined ? false : /^\s*(true|false)\s*$/i.test(prettyArg) ? /true/i.test(prettyArg) : null;
  if (pretty === null) return { refuse: "slp translates to_json_string's pretty_print only as the literal TRUE or FALSE" };
  const type = `typeof(${value})`;
  const json = pretty
    ? `error('TO_JSON_STRING of a JSON value with pretty_print: slp has not verified how BigQuery lays it out')`
    : `cast(${value} as varchar)`;
  const printed = `coalesce(__slp_nested_bq_json_string${pretty ? "_pretty" : ""}(${value}), 'null')`;
  return `(case when ${type} = 'JSON' then ${json} when regexp_matches(${type}, '[ (,\\[]JSON([ ),\\[]|$)') then error('TO_JSON_STRING of a ' || ${type} || ': slp has not verified how BigQuery prints a JSON value inside it') else ${printed} end)`;
}
