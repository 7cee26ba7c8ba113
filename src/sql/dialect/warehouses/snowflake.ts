/** Snowflake: the constructs slp runs, with Snowflake's documented examples. */
import { SF, SF_ARITHMETIC, SNOWFLAKE_DIV0_SCALE, ex, refused, same, translated, type Construct, type Example } from "../construct.ts";
import { average, bareKeyword, guardedDivision, initcap, jsonPathText, nullWhenAnyNull, parenthesized, renamed, scaledRounding, sha256Only, snowflakeDatediff, snowflakeRegexpCount, snowflakeRegexpLike, snowflakeRegexpReplace, snowflakeRegexpSubstr, snowflakeToChar, snowflakeTrunc, strictConcat, strictConcatWs, toNumber } from "../rewrites.ts";
import { common, framedValues, semiStructured } from "../common.ts";
import { list, text, withinGroupListagg } from "../adapter-sql.ts";
import { rule } from "../arithmetic.ts";
import { defineDialect } from "../define.ts";
import { CONTROL_ESCAPES, type EscapeRules, QUOTE_ESCAPES } from "../lexical-rules.ts";
import type { FormatTable } from "../rewrites.ts";
import { DOUBLE, type JsonText, type Scalar } from "../type-names.ts";
import { arrayConstruct, arrayContains, arraySize, arrayToString, flatten, objectConstruct, objectKeys, parseJson, stripNullValue, tableOfFlatten, toJson, toVariant, tryParseJson, variantGet, variantIs, variantTypeof } from "../variant.ts";

/** IS_OBJECT's documented table of VARIANTs (its row 5 and 6, fractions, left out: slp does not tell DECIMAL from DOUBLE). */
const IS_OBJECT_ROWS = `(select parse_json(column1) as v from values ('null'), (null), ('true'), ('-17'), ('"Om ara pa ca na dhih"  '), ('[-1, 12, 289, 2188, false]'), ('{ "x" : "abc", "y" : false, "z": 10} '))`;

/** Snowflake's guide to querying semi-structured data (paths, subscripts, casts). */
const SF_SEMI_QUERY = "https://docs.snowflake.com/en/user-guide/querying-semistructured";
/** Snowpark's page on a function, whose examples run the SQL function. */
const SNOWPARK = (name: string) => `https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/snowflake.snowpark.functions.${name}`;

/**
 * VARIANT, OBJECT and ARRAY values, held as DuckDB JSON with an object's keys
 * sorted (src/sql/dialect/variant.ts). Snowflake's results print a VARIANT as
 * JSON across lines; the examples give the same value in JSON's compact form.
 */
const SEMI_STRUCTURED: Construct[] = [
  {
    name: "parse_json",
    how: "corrected",
    note: "a VARIANT with an object's keys sorted; NULL for NULL, an empty or blank text; text that is not JSON is an error; the duplicate-keys parameter is refused",
    rewrite: parseJson,
    macros: ["__slp_parse_json"],
    examples: [
      ex(`select to_json(parse_json('{"b":1,"a":2}'))`, ['{"a":2,"b":1}'], SF("parse_json")),
      ex(`select to_json(parse_json('{"b":1,"a":2}')) = '{"b":1,"a":2}'`, ["false"], SF("parse_json")),
      ex("select to_json(null), to_json('null'::variant), parse_json(null), parse_json('null')", [null, '"null"', null, "null"], SF("parse_json")),
      ex(`select parse_json('{"key": "1"}')`, ['{"key":"1"}'], SNOWPARK("parse_json")),
      ex("select parse_json('')", [null], SF("parse_json")),
    ],
  },
  {
    name: "try_parse_json",
    how: "corrected",
    note: "as parse_json, NULL where the text is not JSON",
    rewrite: tryParseJson,
    macros: ["__slp_try_parse_json"],
    examples: [
      ex(`select try_parse_json('{"key": "1"}'), try_parse_json('{"Open": "parenthesis"')`, ['{"key":"1"}', null], SNOWPARK("try_parse_json")),
      ex(`select json_extract_path_text(try_parse_json('{"level_1_key": "level_1_value"}'), 'level_1_key')`, ["level_1_value"], SF("try_parse_json")),
      ex("select json_extract_path_text(try_parse_json('{not json'), 'level_1_key')", [null], SF("try_parse_json")),
    ],
  },
  {
    name: "to_variant",
    how: "corrected",
    note: "text is a VARIANT string (never parsed), a number a number, a list an ARRAY; a time or timestamp is refused",
    rewrite: toVariant,
    macros: ["__slp_to_variant"],
    examples: [
      ex("select to_variant('Skiing is fun!'), to_variant(3.14)", ['"Skiing is fun!"', "3.14"], SF("to_variant")),
      ex(`select to_variant('{"a": 1}')`, ['"{\\"a\\": 1}"'], SF("to_variant")),
    ],
  },
  {
    name: "to_json",
    how: "corrected",
    note: "a VARIANT's JSON text: keys sorted, no blanks; a fraction anywhere in it is refused (Snowflake writes numbers its own way)",
    rewrite: toJson,
    macros: ["__slp_variant_json"],
    examples: [
      ex("select to_json(12::variant)", ["12"], SNOWPARK("to_json")),
      ex(`select to_json(parse_json('{"a":10,"b":20}')), to_json(parse_json('[1,23,456]'))`, ['{"a":10,"b":20}', "[1,23,456]"], SNOWPARK("to_json")),
    ],
  },
  {
    name: "object_construct",
    how: "corrected",
    note: "from key-value pairs; a pair whose key or value is NULL is left out; keys sorted; (*) is refused",
    rewrite: objectConstruct(false),
    macros: ["__slp_object_construct", "__slp_to_variant"],
    examples: [
      ex("select object_construct('a', 1, 'b', 'BBBB', 'c', null)", ['{"a":1,"b":"BBBB"}'], SF("object_construct")),
      ex("select object_construct()", ["{}"], SF("object_construct")),
    ],
  },
  {
    name: "object_construct_keep_null",
    how: "corrected",
    note: "as object_construct, a NULL value kept as a JSON null",
    rewrite: objectConstruct(true),
    macros: ["__slp_object_construct", "__slp_to_variant"],
    examples: [ex("select object_construct_keep_null('key_1', 'one', 'key_2', null)", ['{"key_1":"one","key_2":null}'], SF("object_construct_keep_null"))],
  },
  {
    name: "object_keys",
    how: "corrected",
    note: "the keys in order (an object's keys are sorted)",
    rewrite: objectKeys,
    macros: ["__slp_object_keys"],
    examples: [ex("select object_keys(object_construct('age', 21, 'zip', 21021, 'name', 'Joe'))", ['["age","name","zip"]'], SNOWPARK("object_keys"))],
  },
  {
    name: "array_construct",
    how: "corrected",
    note: "a NULL element (Snowflake's undefined) is an error",
    rewrite: arrayConstruct(false),
    macros: ["__slp_array_construct", "__slp_to_variant"],
    examples: [
      ex("select array_construct(10, 20, 30)", ["[10,20,30]"], SF("array_construct")),
      ex("select array_construct()", ["[]"], SF("array_construct")),
      ex("select array_construct('a', 1, true)", ['["a",1,true]'], SNOWPARK("array_construct")),
    ],
  },
  {
    name: "array_construct_compact",
    how: "corrected",
    note: "NULL elements left out",
    rewrite: arrayConstruct(true),
    macros: ["__slp_array_construct", "__slp_to_variant"],
    examples: [ex("select array_construct_compact(null, 'hello', 3::double, 4, 5)", ['["hello",3,4,5]'], SF("array_construct_compact"))],
  },
  {
    name: "array_contains",
    how: "corrected",
    note: "the value first; equal as VARIANTs (1 and 1.0 are equal, 1 and '1' are not)",
    rewrite: arrayContains,
    macros: ["__slp_array_contains"],
    examples: [
      ex("select array_contains('hello'::variant, array_construct('hello', 'hi'))", ["true"], SF("array_contains")),
      ex("select array_contains('hello'::variant, array_construct('hola', 'bonjour'))", ["false"], SF("array_contains")),
      ex("select array_contains(2, array_construct(1, 2))", ["true"], SNOWPARK("array_contains")),
    ],
  },
  {
    name: "array_to_string",
    how: "corrected",
    note: "each element's text (TO_VARCHAR), a NULL one empty; a fraction is refused",
    rewrite: arrayToString,
    macros: ["__slp_array_to_string"],
    examples: [
      ex("select array_to_string(parse_json('[1, 2]'), ', '), array_to_string(parse_json('[]'), ', '), array_to_string(null, ', ')", ["1, 2", "", null], SF("array_to_string")),
      ex("select array_to_string(array_construct(1, true, 's'), ',')", ["1,true,s"], SNOWPARK("array_to_string")),
      ex("select array_to_string(parse_json('[\"a\", null, \"b\"]'), '-')", ["a--b"], SF("array_to_string")),
    ],
  },
  {
    name: "get",
    how: "corrected",
    note: "a literal key of an object or index (from 0) of an array; NULL where there is none",
    rewrite: variantGet,
    macros: ["__slp_variant_get"],
    examples: [
      ex("select get(object_construct('Ukraine', 'Kyiv'::variant, 'France', 'Paris'::variant), 'France')", ['"Paris"'], SF("get")),
      ex("select get(array_construct(2.71, 3.14), 1)", ["3.14"], SF("get")),
      ex("select get(array_construct(2.71, 3.14), 2)", [null], SF("get")),
    ],
  },
  {
    name: "get_path",
    how: "corrected",
    note: "a literal path (a.b[0], a['b'])",
    rewrite: variantGet,
    macros: ["__slp_variant_get"],
    examples: [ex(`select get_path(parse_json('{"aa": {"dd": 4}, "bb": 2, "cc": 3}'), 'aa.dd')`, ["4"], SNOWPARK("get_path"))],
  },
  {
    name: "strip_null_value",
    how: "corrected",
    note: "a JSON null as SQL NULL",
    rewrite: stripNullValue,
    macros: ["__slp_strip_null_value"],
    examples: [ex(`select strip_null_value(parse_json('{"a": "1", "c": null}'):c), strip_null_value(parse_json('{"c": "3"}'):c)`, [null, '"3"'], SF("strip_null_value"))],
  },
  {
    name: "typeof",
    how: "corrected",
    note: "of a VARIANT: INTEGER, VARCHAR, BOOLEAN, NULL_VALUE, OBJECT, ARRAY; a fraction (DECIMAL or DOUBLE by how it was written) is refused",
    rewrite: variantTypeof,
    macros: ["__slp_variant_typeof"],
    examples: [
      ex("select typeof(parse_json('null')), typeof(parse_json(null)), typeof(parse_json('true')), typeof(parse_json('-17'))", ["NULL_VALUE", null, "BOOLEAN", "INTEGER"], SF("is_object")),
      ex(`select typeof(parse_json('"Om ara pa ca na dhih"  ')), typeof(parse_json('[-1, 12, 289, 2188, false]')), typeof(parse_json('{ "x" : "abc", "y" : false, "z": 10} '))`, ["VARCHAR", "ARRAY", "OBJECT"], SF("is_object")),
    ],
  },
  ...(
    [
      ["is_object", "OBJECT"],
      ["is_array", "ARRAY"],
      ["is_boolean", "BOOLEAN"],
      ["is_varchar", "VARCHAR"],
      ["is_char", "VARCHAR"],
      ["is_null_value", "NULL"],
    ] as const
  ).map(
    ([name, kind]): Construct => ({
      name,
      how: "corrected",
      note: `whether the VARIANT holds ${kind === "NULL" ? "a JSON null" : `${kind === "OBJECT" || kind === "ARRAY" ? "an" : "a"} ${kind}`}; NULL for NULL`,
      rewrite: variantIs(kind),
      macros: ["__slp_variant_is"],
      // The rows of IS_OBJECT's documented example table (one of each kind and a SQL NULL), counted.
      examples: [ex(`select count_if(${name}(v)), count(*) - count(${name}(v)) from ${IS_OBJECT_ROWS}`, ["1", "1"], SF(name === "is_array" ? name : "is_object"))],
    }),
  ),
  {
    name: ":",
    how: "corrected",
    note: "v:a.b[0] reads the value at the path (a VARIANT: a string keeps its quotes until cast to text); compared (=, <>, IN) with a literal of its own kind as VARIANTs (text with a number or a JSON null is an error: slp has not verified Snowflake's coercion); a quoted key with other characters than letters, digits, _ and $ is refused",
    examples: [
      ex(`select parse_json('{"salesperson": {"name": "Frank Beasley"}}'):salesperson.name`, ['"Frank Beasley"'], SF_SEMI_QUERY),
      ex(`select parse_json('{"salesperson": {"name": "Frank Beasley"}}'):salesperson.name::string`, ["Frank Beasley"], SF_SEMI_QUERY),
      ex(`select parse_json('{"vehicle": [{"make": "Honda", "price": "20275"}]}'):vehicle[0].price::number`, ["20275"], SF_SEMI_QUERY),
      ex(`select parse_json('{"a": null}'):a::string, parse_json('{"a": null}'):b`, [null, null], SF_SEMI_QUERY),
      ex(`select count(*) from (select parse_json('{"salesperson": {"name": "Frank Beasley", "id": 55}}') as src) as t where src:salesperson.name = 'Frank Beasley' and src:salesperson.id = 55`, ["1"], SF_SEMI_QUERY),
    ],
  },
];

export const SNOWFLAKE: Construct[] = [
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
  translated("iff", [ex("select iff(true, 'true', 'false')", ["true"], SF("iff")), ex("select iff(false, 'true', 'false')", ["false"], SF("iff")), ex("select iff(null, 'true', 'false')", ["false"], SF("iff"))]),
  translated("nvl", [ex("select nvl(null, 'x')", ["x"], SF("nvl"))]),
  translated("nvl2", [ex("select nvl2(null, 1, 2)", ["2"], SF("nvl2")), ex("select nvl2(0, 1, 2)", ["1"], SF("nvl2"))]),
  translated("ifnull", [ex("select ifnull(null, 3)", ["3"], SF("ifnull"))]),
  translated("zeroifnull", [ex("select zeroifnull(null)", ["0"], SF("zeroifnull")), ex("select zeroifnull(1.5)", ["1.5"], SF("zeroifnull"))]),
  translated("nullifzero", [ex("select nullifzero(0)", [null], SF("nullifzero"))]),
  translated("equal_null", [ex("select equal_null(null, null)", ["true"], SF("equal_null"))]),
  translated("decode", [ex("select decode(2, 1, 'one', 2, 'two', 'other')", ["two"], SF("decode")), ex("select decode(null, 1, 'one', null, 'null', 'other')", ["null"], SF("decode")), ex("select decode(3, 1, 'one', 2, 'two')", [null], SF("decode"))], "a NULL matches a NULL search value"),
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
  {
    name: "datediff",
    how: "corrected",
    note: "counts boundaries crossed, as Snowflake does; a part below a day on the timestamps (the transpiler cast them to DATE); nanoseconds are refused",
    rewrite: snowflakeDatediff("datediff"),
    macros: ["__slp_time_diff"],
    examples: [
      ex("select datediff(month, '2024-01-31'::date, '2024-02-01'::date)", ["1"], SF("datediff")),
      ex("select datediff(day, '2024-01-01'::date, '2024-03-05'::date)", ["64"], SF("datediff")),
      ex("select datediff(hour, '2024-01-01 08:30:00'::timestamp, '2024-01-01 10:00:00'::timestamp)", ["2"], SF("datediff")),
      ex("select datediff(minutes, '2024-01-01 10:00:59'::timestamp, '2024-01-01 10:01:00'::timestamp)", ["1"], SF("datediff")),
      ex("select datediff('second', '2024-01-01 10:00:00'::timestamp, '2024-01-01 10:02:00'::timestamp)", ["120"], SF("datediff")),
    ],
  },
  translated("date_trunc", [ex("select date_trunc('month', '2024-03-05'::date)", ["2024-03-01"], SF("date_trunc"))]),
  translated("add_months", [ex("select add_months('2016-02-29'::date, 1)", ["2016-03-31"], SF("add_months")), ex("select add_months('2016-05-15'::date, 1)", ["2016-06-15"], SF("add_months"))], "month-end stays month-end"),
  translated("last_day", [ex("select last_day('2024-02-05'::date)", ["2024-02-29"], SF("last_day"))]),
  translated("to_date", [ex("select to_date('2024-03-05')", ["2024-03-05"], SF("to_date")), ex("select to_date('2024.05.10', 'YYYY.MM.DD')", ["2024-05-10"], SF("to_date")), ex("select to_date('05-Dec-2000', 'DD-MON-YYYY')", ["2000-12-05"], SF("to_date"))]),
  {
    name: "to_timestamp",
    how: "corrected",
    note: "text with or without a format; an epoch number is seconds, milliseconds, microseconds or nanoseconds by its size",
    rewrite: (call) => {
      const literal = call.args.length === 1 ? call.literal(0) : null;
      return literal !== null && /^-?\d+(\.\d+)?$/.test(literal) && !/^\s*'/.test(call.args[0] as string) ? `__slp_snowflake_epoch(${call.args[0]})` : `to_timestamp(${call.args.join(", ")})`;
    },
    macros: ["__slp_snowflake_epoch"],
    examples: [
      ex("select to_timestamp('2013-04-05 01:02:03')", ["2013-04-05 01:02:03"], SF("to_timestamp")),
      ex("select to_timestamp('04/05/2013 01:02:03', 'mm/dd/yyyy hh24:mi:ss')", ["2013-04-05 01:02:03"], SF("to_timestamp")),
      ex("select to_timestamp(31536000)", ["1971-01-01 00:00:00"], SF("to_timestamp")),
      ex("select to_timestamp(31536000000)", ["1971-01-01 00:00:00"], SF("to_timestamp")),
      ex("select to_timestamp(31536000000000)", ["1971-01-01 00:00:00"], SF("to_timestamp")),
    ],
  },
  translated("try_to_timestamp", [ex("select try_to_timestamp('2013-04-05 01:02:03')", ["2013-04-05 01:02:03"], SF("try_to_timestamp")), ex("select try_to_timestamp('invalid')", [null], SF("try_to_timestamp"))]),
  translated("try_to_date", [ex("select try_to_date('2024-03-05')", ["2024-03-05"], SF("try_to_date")), ex("select try_to_date('Invalid')", [null], SF("try_to_date"))]),
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
    note: "matches the whole text, as Snowflake anchors it (the transpiler made it a partial match); parameters c, i, m, s",
    rewrite: snowflakeRegexpLike,
    examples: [ex("select regexp_like('San Jose', 'san.*', 'i')", ["true"], SF("regexp_like")), ex("select regexp_like('San Jose', 'Jose')", ["false"], SF("regexp_like")), ex("select regexp_like('a\\nb', 'a.b', 's'), regexp_like('a\\nb', 'a[^x]b', 'm')", ["true", "true"], SF("regexp_like"))],
  },
  { name: "rlike", how: "corrected", note: "as regexp_like", rewrite: snowflakeRegexpLike, examples: [ex("select rlike('800-456-7891', '[2-9]\\\\d{2}-\\\\d{3}-\\\\d{4}')", ["true"], SF("rlike")), ex("select rlike('abc', 'b')", ["false"], SF("rlike"))] },
  {
    name: "regexp_replace",
    how: "corrected",
    note: "every match (occurrence 0, the default) or the first (1), from position 1; parameters c, i, m, s (the transpiler dropped the occurrence and replaced the first match only)",
    rewrite: snowflakeRegexpReplace,
    macros: ["__slp_regexp_replace_all", "__slp_regexp_replace_first"],
    examples: [
      ex("select regexp_replace('It was the best of times', 'times', 'days')", ["It was the best of days"], SF("regexp_replace")),
      ex("select regexp_replace('aXbX', 'X', '-')", ["a-b-"], SF("regexp_replace")),
      ex("select regexp_replace('It was the best of times, it was the worst of times', '( ){1,}', '')", ["Itwasthebestoftimes,itwastheworstoftimes"], SF("regexp_replace")),
      ex("select regexp_replace('firstname middlename lastname', '(.*) (.*) (.*)', '\\\\3, \\\\1 \\\\2')", ["lastname, firstname middlename"], SF("regexp_replace")),
      ex("select regexp_replace('abcABC', 'abc', 'x', 1, 0, 'i'), regexp_replace('abcabc', 'b', 'x', 1, 1)", ["xx", "axcabc"], SF("regexp_replace")),
    ],
  },
  {
    name: "regexp_substr",
    how: "corrected",
    note: "the occurrence-th match (or, with e or a group number, its group), NULL when there is none, from position 1; parameters c, i, m, e, s (the transpiler dropped the occurrence and the parameters)",
    rewrite: snowflakeRegexpSubstr,
    macros: ["__slp_whole_index"],
    examples: [
      ex("select regexp_substr('It was the best of times', 'the\\\\W+\\\\w+')", ["the best"], SF("regexp_substr")),
      ex("select regexp_substr('It was the best of times, it was the worst of times', 'the\\\\W+\\\\w+', 1, 2)", ["the worst"], SF("regexp_substr")),
      ex("select regexp_substr('It was the best of times, it was the worst of times', 'the\\\\W+(\\\\w+)', 1, 2, 'e', 1)", ["worst"], SF("regexp_substr")),
      ex("select regexp_substr('abc ABC', 'abc', 1, 2, 'i'), regexp_substr('abc', 'x')", ["ABC", null], SF("regexp_substr")),
    ],
  },
  {
    name: "split_part",
    how: "corrected",
    note: "part 0 is 1, a negative part counts from the end, past the end is ''; a NUMBER part (a column of NUMBER(38, 0)) as a whole BIGINT, as DuckDB's split_part takes it",
    rewrite: (call) => (call.args.length === 3 ? `split_part(${call.args[0]}, ${call.args[1]}, __slp_whole_index(${call.args[2]}))` : { refuse: "split_part takes a string, a delimiter and a part number" }),
    macros: ["__slp_whole_index"],
    examples: [ex("select split_part('aaa--bbb-BBB--ccc', '--', 2::number)", ["bbb-BBB"], SF("split_part")), ex("select split_part(s, '.', n) from (select '11.22.33' as s, 3::number(38, 0) as n)", ["33"], SF("split_part")), ex("select split_part('11.22.33', '.', 1)", ["11"], SF("split_part")), ex("select split_part('11.22.33', '.', -1)", ["33"], SF("split_part")), ex("select split_part('11.22.33', '.', 0)", ["11"], SF("split_part")), ex("select split_part('11.22.33', '.', 4)", [""], SF("split_part")), ex("select split_part('|a|b|c|', '|', 1)", [""], SF("split_part")), ex("select split_part('|a|b|c|', '|', 2)", ["a"], SF("split_part")), ex("select split_part('aaa--bbb-BBB--ccc', '--', 2)", ["bbb-BBB"], SF("split_part"))],
  },
  translated("split", [ex("select split('127.0.0.1', '.')[0]", ["127"], SF("split"))]),
  {
    name: "[]",
    how: "corrected",
    note: "an index counts from 0, on a list (SPLIT, ARRAY_AGG) as on a VARIANT array; a key reads an object's field",
    examples: [
      ex("select split('a,b,c', ',')[1]", ["b"], SF("split")),
      ex(`select parse_json('{"vehicle": [{"make": "Honda"}]}')['vehicle'][0]['make']::string`, ["Honda"], SF_SEMI_QUERY),
      ex("select array_construct(10, 20, 30)[0]", ["10"], SF_SEMI_QUERY),
    ],
  },
  translated("listagg", [ex("select listagg(x, ', ') within group (order by x) from (select 'b' as x union all select 'a')", ["a, b"], SF("listagg")), ex("select listagg(x, ',') within group (order by x) from (select column1 as x from values ('a'), (null), ('b'))", ["a,b"], SF("listagg")), ex("select listagg(distinct x, '|') within group (order by x) from (select column1 as x from values ('a'), ('a'), ('b'))", ["a|b"], SF("listagg"))], "NULLs are omitted"),
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
  {
    name: "array_size",
    how: "corrected",
    note: "of a list or a VARIANT array; NULL for a VARIANT that is not an array",
    rewrite: arraySize,
    macros: ["__slp_array_size"],
    examples: [
      ex("select array_size(split('a,b', ','))", ["2"], SF("array_size")),
      ex("select array_size(array_construct(1, 2, 3))", ["3"], SF("array_size")),
      ex(`select array_size(parse_json('{"a": 1}'))`, [null], SNOWPARK("array_size")),
    ],
  },
  {
    name: "array_distinct",
    how: "corrected",
    note: "the first of each element, in order, and one NULL (DuckDB's list_distinct drops NULLs and reorders); Snowflake does not promise an order, its documented examples keep this one",
    rewrite: (call) => (call.args.length === 1 ? `__slp_array_distinct(${call.args[0]})` : { refuse: "array_distinct takes one array" }),
    macros: ["__slp_array_distinct"],
    examples: [
      ex("select array_distinct(['A', 'A', 'B', null, null])", ["[A, B, NULL]"], SF("array_distinct")),
      ex("select array_distinct([1, 1, 1, 2, 3, 2, 2])", ["[1, 2, 3]"], "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/snowflake.snowpark.functions.array_distinct"),
    ],
  },
  {
    name: "array_cat",
    how: "corrected",
    note: "NULL when either array is NULL (DuckDB's list_concat skips a NULL list)",
    rewrite: nullWhenAnyNull("list_concat", 2),
    examples: [ex("select array_cat([1, 2], [3, 4])", ["[1, 2, 3, 4]"], SF("array_cat")), ex("select array_cat([1, 2], null)", [null], SF("array_cat"))],
  },
  {
    name: "json_extract_path_text",
    how: "corrected",
    note: "a literal path (a.b[0], a[\"b c\"], a:b) as DuckDB's JSONPath; NULL where it leads nowhere or to a JSON null; an object, an array or a fraction there is an error (Snowflake's text of them is its own)",
    rewrite: jsonPathText,
    macros: ["__slp_json_path_text"],
    examples: [
      ex(`select json_extract_path_text('{"level_1_key": "level_1_value"}', 'level_1_key')`, ["level_1_value"], SF("json_extract_path_text")),
      ex(`select json_extract_path_text('{"level_1_key": {"level_2_key": "level_2_value"}}', 'level_1_key.level_2_key')`, ["level_2_value"], SF("json_extract_path_text")),
      ex(`select json_extract_path_text('{"level_1_key": {"level_2_key": ["zero", "one", "two"]}}', 'level_1_key.level_2_key[1]')`, ["one"], SF("json_extract_path_text")),
      ex(`select json_extract_path_text('{"level_1_key": "level_1_value"}', 'level_1_key.level_2_key')`, [null], SF("json_extract_path_text")),
      ex(`select json_extract_path_text('{"level_1_key": {"level_2_key": "level_2_value"}}', 'level_1_key["level_2_key"]')`, ["level_2_value"], SF("get_path")),
      ex(`select json_extract_path_text('{"a": null}', 'a')`, [null], "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/snowflake.snowpark.functions.json_extract_path_text"),
      ex(`select json_extract_path_text('{"a": "foo"}', 'b')`, [null], "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/snowflake.snowpark.functions.json_extract_path_text"),
    ],
  },
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
  { name: "ceil", how: "corrected", note: "to a scale on the exact digits (the transpiler multiplied by a DOUBLE power of ten)", rewrite: scaledRounding, macros: ["__slp_ceil_scale"], examples: [ex("select ceil(1.2)", ["2"], SF("ceil")), ex("select ceil(-975.975, -1)", ["-970"], SF("ceil")), ex("select ceil(-975.975, 0)", ["-975"], SF("ceil")), ex("select ceil(-975.975, 2)", ["-975.97"], SF("ceil")), ex("select ceil(135.135, -2)", ["200"], SF("ceil")), ex("select ceil(135.135, 0)", ["136"], SF("ceil")), ex("select ceil(135.135, 1)", ["135.2"], SF("ceil")), ex("select ceil(135.135, 3)", ["135.135"], SF("ceil")), ex("select ceil(135.135, 50)", ["135.135"], SF("ceil")), ex("select ceil(135.135, null)", [null], SF("ceil"))] },
  { name: "floor", how: "corrected", note: "to a scale on the exact digits (FLOOR(1.13, 2) is 1.13, where the transpiler's DOUBLE arithmetic gave 1.12)", rewrite: scaledRounding, macros: ["__slp_floor_scale"], examples: [ex("select floor(-1.2)", ["-2"], SF("floor")), ex("select floor(-975.975, -1)", ["-980"], SF("floor")), ex("select floor(-975.975, 0)", ["-976"], SF("floor")), ex("select floor(-975.975, 2)", ["-975.98"], SF("floor")), ex("select floor(135.135, -2)", ["100"], SF("floor")), ex("select floor(135.135, 0)", ["135"], SF("floor")), ex("select floor(135.135, 1)", ["135.1"], SF("floor")), ex("select floor(135.135, 3)", ["135.135"], SF("floor")), ex("select floor(135.135, 50)", ["135.135"], SF("floor")), ex("select floor(1.13, 2)", ["1.13"], SF("floor")), ex("select floor(135.135, null)", [null], SF("floor"))] },
  same("round", [ex("select round(2.5)", ["3"], SF("round")), ex("select round(-2.5)", ["-3"], SF("round")), ex("select round(1.2345, 2)", ["1.23"], SF("round")), ex("select round(-975.975, -1)", ["-980"], SF("round")), ex("select round(-975.975, 2)", ["-975.98"], SF("round"))], "half away from zero"),
  {
    name: "trunc",
    how: "corrected",
    note: "TRUNC(date, 'part') is DATE_TRUNC; TRUNC(number[, scale]) truncates toward zero",
    rewrite: snowflakeTrunc,
    examples: [ex("select trunc(2.7)", ["2"], SF("trunc")), ex("select trunc(-975.975, -1)", ["-970"], SF("trunc")), ex("select trunc(-975.975, 2)", ["-975.97"], SF("trunc")), ex("select trunc('2024-03-05'::date, 'month')", ["2024-03-01"], SF("trunc"))],
  },
  translated("mod", [ex("select mod(-5, 3)", ["-2"], SF("mod"))]),
  translated("md5", [ex("select md5('Snowflake')", ["edf1439075a83a447fb8b630ddc9c8de"], SF("md5"))]),
  translated("qualify", [ex("select x from (select 1 as x union all select 2) qualify row_number() over (order by x desc) = 1", ["2"], "https://docs.snowflake.com/en/sql-reference/constructs/qualify")]),
  translated("current_date", [ex("select current_date() is not null", ["true"], SF("current_date"))]),
  { name: "current_timestamp", how: "corrected", note: "without a precision (the transpiler wrote a CURRENT_TIMESTAMP() DuckDB rejects)", rewrite: bareKeyword("cast(get_current_timestamp() as timestamp)"), examples: [ex("select current_timestamp() is not null", ["true"], SF("current_timestamp")), ex("select current_timestamp()::date = current_date()", ["true"], SF("current_timestamp"))] },
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
    note: "date and time formats (YYYY, YY, MM, MON, MMMM, DD, DY, HH24, HH12, MI, SS, FF3, FF6, FF9 in any case; AM, PM), quoted text; a timestamp without a format as YYYY-MM-DD HH24:MI:SS.FF3; number formats are refused",
    rewrite: (call) => snowflakeToChar(SNOWFLAKE_FORMAT)(call),
    macros: ["__slp_strftime"],
    examples: [
      ex("select to_char('2024-03-05'::date, 'YYYY-MM')", ["2024-03"], SF("to_char")),
      ex("select to_char('2024-03-05 13:04:05'::timestamp, 'DD/MM/YYYY HH24:MI:SS')", ["05/03/2024 13:04:05"], SF("to_char")),
      ex("select to_varchar('2013-04-05'::date, 'mon dd, yyyy')", ["Apr 05, 2013"], SF("to_char")),
      ex("select to_varchar('2013-04-05 01:02:03'::timestamp), to_varchar('2013-04-05'::date)", ["2013-04-05 01:02:03.000", "2013-04-05"], SF("to_char")),
    ],
  },
  { name: "to_varchar", how: "corrected", note: "as to_char", rewrite: (call) => snowflakeToChar(SNOWFLAKE_FORMAT)(call), macros: ["__slp_strftime"], examples: [ex("select to_varchar('2024-03-05'::date, 'MON DD, YYYY')", ["Mar 05, 2024"], SF("to_char"))] },
  {
    name: "initcap",
    how: "corrected",
    note: "words start after whitespace or ! ? @ \" ^ # $ & ~ _ , . : ; + - * % / | \\ [ ] ( ) { } < >, Snowflake's default delimiters; a delimiters argument is refused",
    rewrite: initcap("delimiters"),
    macros: ["__slp_initcap"],
    examples: [ex("select initcap('the sky is blue')", ["The Sky Is Blue"], SF("initcap")), ex("select initcap('WE CAN HANDLE THIS')", ["We Can Handle This"], SF("initcap")), ex("select initcap('ÄäÖößÜü')", ["Ääöößüü"], SF("initcap")), ex("select initcap(null)", [null], SF("initcap")), ex("select initcap('hello-world.foo_bar')", ["Hello-World.Foo_Bar"], SF("initcap"))],
  },
  {
    name: "concat_ws",
    how: "corrected",
    note: "NULL when any argument is NULL (DuckDB's skips NULLs)",
    rewrite: strictConcatWs,
    examples: [ex("select concat_ws(',', 'one', 'two', 'three')", ["one,two,three"], SF("concat_ws")), ex("select concat_ws(',', 'one', null, 'two')", [null], SF("concat_ws"))],
  },
  translated("contains", [ex("select count_if(contains(s, 'te')) from (select column1 as s from values ('coffee'), ('ice tea'), ('latte'), ('tea'), (null))", ["3"], SF("contains"))]),
  { name: "startswith", how: "corrected", note: "DuckDB's prefix() (the transpiler wrote a STARTSWITH DuckDB lacks)", rewrite: renamed("prefix"), examples: [ex("select count_if(startswith(s, 'te')) from (select column1 as s from values ('coffee'), ('ice tea'), ('latte'), ('tea'), (null))", ["1"], SF("startswith"))] },
  translated("endswith", [ex("select count_if(endswith(s, 'te')) from (select column1 as s from values ('coffee'), ('ice tea'), ('latte'), ('tea'), (null))", ["1"], SF("endswith"))]),
  {
    name: "regexp_count",
    how: "corrected",
    note: "non-overlapping matches from the first character; parameters c, i, m, s; another position is refused",
    rewrite: snowflakeRegexpCount,
    macros: ["__slp_regexp_count"],
    examples: [ex("select regexp_count('It was the best of times, it was the worst of times', '\\\\bwas\\\\b', 1)", ["2"], SF("regexp_count")), ex("select regexp_count('abcABC', 'abc', 1, 'i')", ["2"], SF("regexp_count"))],
  },

  translated("reverse", [ex("select reverse('Hello, world!')", ["!dlrow ,olleH"], SF("reverse"))]),
  translated("repeat", [ex("select repeat('xy', 5)", ["xyxyxyxyxy"], SF("repeat"))]),
  same("rpad", [ex("select rpad('123.50', 19, '*')", ["123.50*************"], SF("rpad")), ex("select rpad('abcdef', 3, '*')", ["abc"], SF("rpad"))]),
  translated("ltrim", [ex("select ltrim('#000000123', '0#')", ["123"], SF("ltrim")), ex("select ltrim('  a ')", ["a "], SF("ltrim"))]),
  translated("rtrim", [ex("select rtrim('$125.00', '0.')", ["$125"], SF("rtrim")), ex("select rtrim(' a  ')", [" a"], SF("rtrim"))]),
  translated("position", [ex("select position('an', 'banana', 1)", ["2"], SF("position")), ex("select position('an', 'banana', 3)", ["4"], SF("position"))]),
  { name: "dayname", how: "corrected", note: "the three-letter name (DuckDB's is spelled out)", rewrite: (call) => (call.args.length === 1 ? `__slp_strftime(${call.args[0]}, '%a')` : { refuse: "dayname takes one date" }), macros: ["__slp_strftime"], examples: [ex("select dayname('2015-05-01'::date)", ["Fri"], SF("dayname"))] },
  { name: "monthname", how: "corrected", note: "the three-letter name (DuckDB's is spelled out)", rewrite: (call) => (call.args.length === 1 ? `__slp_strftime(${call.args[0]}, '%b')` : { refuse: "monthname takes one date" }), macros: ["__slp_strftime"], examples: [ex("select monthname('2015-05-01'::date)", ["May"], SF("monthname")), ex("select monthname('2015-12-01'::date)", ["Dec"], SF("monthname"))] },
  {
    name: "months_between",
    how: "corrected",
    note: "whole months when the days match or both are month-ends, else the difference of the days and times of day over 31, to 6 decimals",
    rewrite: (call) => (call.args.length === 2 ? `cast(round(__slp_months_between(${call.args[0]}, ${call.args[1]}), 6) as decimal(38, 6))` : { refuse: "months_between takes two dates" }),
    macros: ["__slp_months_between"],
    examples: [
      ex("select months_between('2019-03-15'::date, '2019-02-15'::date)", ["1.000000"], SF("months_between")),
      ex("select months_between('2019-03-31'::date, '2019-02-28'::date)", ["1.000000"], SF("months_between")),
      ex("select months_between('2019-03-28'::date, '2019-02-28'::date)", ["1.000000"], SF("months_between")),
      ex("select months_between('2020-02-01'::date, '2020-01-01'::date)", ["1.000000"], "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/1.2.0/api/snowflake.snowpark.functions.months_between"),
      ex("select months_between('2020-05-01 13:11:20'::timestamp, '2020-08-21 01:30:05'::timestamp)", ["-3.629452"], "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/1.11.1/api/snowflake.snowpark.functions.months_between"),
    ],
  },
  {
    name: "timestampdiff",
    how: "corrected",
    note: "as datediff",
    rewrite: snowflakeDatediff("timestampdiff"),
    macros: ["__slp_time_diff"],
    examples: [
      ex("select timestampdiff(month, '2021-01-01'::date, '2021-02-28'::date)", ["1"], SF("datediff")),
      ex("select timestampdiff(minute, '2024-01-01 10:00:00'::timestamp, '2024-01-01 11:30:00'::timestamp)", ["90"], SF("datediff")),
    ],
  },
  translated("dayofweek", [ex("select dayofweek('2016-01-02'::date)", ["6"], "https://docs.snowflake.com/en/sql-reference/functions-date-time#label-calendar-weeks-weekdays"), ex("select dayofweek('2016-01-03'::date)", ["0"], "https://docs.snowflake.com/en/sql-reference/functions-date-time#label-calendar-weeks-weekdays")], "0 (Sunday) to 6 with the default WEEK_START"),
  translated("dayofweekiso", [ex("select dayofweekiso('2016-01-03'::date)", ["7"], "https://docs.snowflake.com/en/sql-reference/functions-date-time#label-calendar-weeks-weekdays")]),
  translated("quarter", [ex("select quarter('2024-08-05'::date)", ["3"], SF("year"))]),
  translated("hour", [ex("select hour('2024-03-05 13:04:05'::timestamp)", ["13"], SF("hour-minute-second"))]),
  translated("minute", [ex("select minute('2024-03-05 13:04:05'::timestamp)", ["4"], SF("hour-minute-second"))]),
  translated("second", [ex("select second('2024-03-05 13:04:05'::timestamp)", ["5"], SF("hour-minute-second"))]),
  {
    name: "sha2",
    how: "corrected",
    note: "the 256-bit digest as lower-case hex; other digest sizes are refused",
    rewrite: sha256Only(true),
    examples: [ex("select sha2('Snowflake')", ["1dbd59f661d68b90724f21084396b865497173e4d2714f4d91cf05fa5fc5e18d"], SF("sha2")), ex("select sha2('Snowflake', 256)", ["1dbd59f661d68b90724f21084396b865497173e4d2714f4d91cf05fa5fc5e18d"], SF("sha2"))],
  },
  translated("median", [ex("select median(x) from (select column1 as x from values (1), (3), (10), (1), (3))", ["3.000"], "https://docs.snowflake.com/developer-guide/snowpark/reference/python/api/snowflake.snowpark.functions.median"), ex("select median(x) from (select column1 as x from values (1), (null))", ["1.000"], SF("median"))], "NULLs are ignored"),
  translated("percentile_cont", [0, 1, 2, 3, 4].map((k) => ex("select percentile_cont(0.25) within group (order by v) from (select column1 as k, column2 as v from values (0, 0), (0, 10), (0, 20), (0, 30), (0, 40), (1, 10), (1, 20), (2, 10), (2, 20), (2, 25), (2, 30), (3, 60), (4, null)) where k = " + k, [["10.000", "12.500", "17.500", "60.000", null][k] ?? null], "https://docs.snowflake.com/developer-guide/snowpark/reference/python/api/snowflake.snowpark.functions.percentile_cont"))),
  translated("percentile_disc", [0, 1, 2, 3].map((k) => ex("select percentile_disc(0.25) within group (order by v) from (select column1 as k, column2 as v from values (0, 0), (0, 10), (0, 20), (0, 30), (0, 40), (1, 10), (1, 20), (2, 10), (2, 20), (2, 25), (2, 30), (3, 60), (4, null)) where k = " + k, [["10", "10", "10", "60"][k] ?? null], SF("percentile_disc")))),
  translated("min_by", [ex("select min_by(employee_id, salary) from (select column1 as employee_id, column2 as salary from values (1001, 10000), (1020, 9000), (1030, 8000))", ["1030"], SF("min_by"))]),
  translated("max_by", [ex("select max_by(employee_id, salary) from (select column1 as employee_id, column2 as salary from values (1001, 10000), (1020, 9000), (1030, 8000))", ["1001"], SF("max_by"))]),
  translated("any_value", [ex("select any_value(x) from (select 1 as x union all select 1)", ["1"], SF("any_value"))]),
  ...framedValues([SF("first_value"), SF("last_value"), SF("nth_value")], { strict: true, ignoreNulls: (call) => `${call} ignore nulls` }),
  ...semiStructured("check_json"),
  ...SEMI_STRUCTURED,
  {
    name: "strtok",
    how: "corrected",
    note: "any delimiter character splits, empty tokens are skipped, NULL past the last token",
    rewrite: (call) => (call.args.length >= 1 && call.args.length <= 3 ? `__slp_strtok(${call.args[0]}, ${call.args[1] ?? "' '"}, ${call.args[2] ?? "1"})` : { refuse: "strtok takes a string, delimiters and a part number" }),
    macros: ["__slp_strtok"],
    examples: [ex("select strtok('a.b.c', '.', 1)", ["a"], SF("strtok")), ex("select strtok('user@snowflake.com', '@.', 1)", ["user"], SF("strtok")), ex("select strtok('user@snowflake.com', '@.', 3)", ["com"], SF("strtok")), ex("select strtok('user@snowflake.com', '@.', 4)", [null], SF("strtok")), ex("select strtok('a..b', '.', 2)", ["b"], SF("strtok"))],
  },
  translated("date_from_parts", [ex("select date_from_parts(1977, 8, 7)", ["1977-08-07"], SF("date_from_parts"))], "a month or day out of range (which Snowflake carries over) is DuckDB's error"),
  {
    name: "flatten",
    how: "corrected",
    note: "INPUT (and OUTER) of an array or object: KEY, PATH, INDEX, VALUE, THIS; SEQ is left out; PATH, RECURSIVE and MODE are refused; a scalar input is an error",
    rewrite: flatten,
    macros: ["__slp_flatten"],
    examples: [
      ex("select count(*), sum(f.value::number), min(f.index), max(f.index) from (select parse_json('[1, 77]') as v) as t, lateral flatten(input => t.v) as f", ["2", "78", "0", "1"], SF("flatten")),
      ex(`select f.key, f.path, f.value::number, f.index from (select parse_json('{"a": 1}') as v) as t, lateral flatten(input => t.v) as f`, ["a", "a", "1", null], SF("flatten")),
      ex("select f.path, f.this from (select parse_json('[1, 77]') as v) as t, lateral flatten(input => t.v) as f where f.index = 1", ["[1]", "[1,77]"], SF("flatten")),
      ex("select count(*), max(f.value) from (select parse_json('[]') as v) as t, lateral flatten(input => t.v, outer => true) as f", ["1", null], SF("flatten")),
      ex("select count(*) from (select parse_json('[]') as v) as t, lateral flatten(input => t.v) as f", ["0"], SF("flatten")),
      ex("select count(*) from (select split('a,b', ',') as v) as t, table(flatten(input => t.v)) as f", ["2"], SF("flatten")),
    ],
  },
  {
    name: "lateral",
    how: "translated",
    note: "a subquery that reads the tables before it, or FLATTEN",
    examples: [
      ex("select count(*) from (select 1 as d union all select 2) as t, lateral (select t.d * 10 as e) as s where s.e > 10", ["1"], "https://docs.snowflake.com/en/sql-reference/constructs/join-lateral"),
    ],
  },
  { name: "table", how: "corrected", note: "TABLE(FLATTEN(...)) only, as LATERAL FLATTEN", rewrite: tableOfFlatten, macros: ["__slp_flatten"], examples: [ex("select count(*) from (select parse_json('[1, 2, 3]') as v) as t, table(flatten(input => t.v)) as f", ["3"], SF("flatten"))] },
  refused("hash", "Snowflake's HASH is its own 64-bit function; DuckDB's hash() gives other numbers"),
  refused("uuid_string", "a random value cannot be compared with an expected one"),
  refused("approx_count_distinct", "an estimate: DuckDB's algorithm gives other numbers than Snowflake's"),
  average("snowflake", "a NUMBER averages with division's scale (1, 2, 2 average to 1.666667); FLOAT to FLOAT", [
    ex("select avg(x) from (select 1 as x union all select 2 union all select 2)", ["1.666667"], "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/snowflake.snowpark.functions.avg"),
    ex("select avg(x) from (select 1 as x union all select 2)", ["1.5"], SF("avg")),
    ex("select avg(x) over (order by x rows between unbounded preceding and current row) from (select 1 as x union all select 2) qualify x = 2", ["1.5"], SF("avg")),
  ]),
  {
    name: "like",
    how: "corrected",
    note: "no default escape character, as in DuckDB; LIKE ANY / ALL as ORs / ANDs",
    examples: [
      ex("select 'SOMETHING%' like '%\\\\%%' escape '\\\\'", ["true"], SF("like")),
      ex("select 'a_b' like 'a\\\\_b', 'a\\\\_b' like 'a\\\\_b'", ["false", "true"], SF("like")),
      ex("select 'John Dddoe' like any ('%Jo%oe%', 'T%e'), 'Joe Doe' like all ('%Jo%oe%', 'T%e')", ["true", "false"], SF("like_any")),
    ],
  },
];

/** Snowflake's date and time format elements: https://docs.snowflake.com/en/sql-reference/functions-conversion#date-and-time-formats-in-conversion-functions */
const SNOWFLAKE_FORMAT: FormatTable = [
  ["YYYY", "%Y"],
  ["MMMM", "%B"],
  ["HH24", "%H"],
  ["HH12", "%I"],
  ["FF9", "%n"],
  ["FF6", "%f"],
  ["FF3", "%g"],
  ["MON", "%b"],
  ["YY", "%y"],
  ["MM", "%m"],
  ["DD", "%d"],
  ["DY", "%a"],
  ["HH", "%H"],
  ["MI", "%M"],
  ["SS", "%S"],
  ["AM", "%p"],
  ["PM", "%p"],
];

const NUMBER_38: Scalar = { decimal: [38, 0] };

// https://docs.snowflake.com/en/sql-reference/operators-arithmetic (division: S = max(S1, min(S1 + 6, 12))); AVG divides the same way (AVG of 1, 2, 2 is 1.666667).
const QUOTIENT = rule((ta) => `greatest(__slp_scale(${ta}), least(__slp_scale(${ta}) + 6, 12))`, "fixed");

/** dbt-snowflake's safe_cast writes try_cast('<text>' as OBJECT) for text: a reading slp has not verified. */
function containerText(type: string): JsonText {
  return { kind: "refused", pythonContainers: true, why: `it is text, for which dbt-snowflake writes try_cast('<text>' as ${type}), a reading slp has not verified` };
}

// --- lexical rules (lexer.ts reads them) ---
const SNOWFLAKE_TEXT = "https://docs.snowflake.com/en/sql-reference/data-types-text#escape-sequences-in-single-quoted-string-constants";
const SNOWFLAKE_STRING_CONSTANTS = "https://docs.snowflake.com/en/sql-reference/data-types-text#single-quoted-string-constants";
const SNOWFLAKE_DOLLAR = "https://docs.snowflake.com/en/sql-reference/data-types-text#dollar-quoted-string-constants";
const SNOWFLAKE_COMMENTS = "https://community.snowflake.com/s/article/how-to-comment-or-uncomment-multiple-lines-in-the-sql-worksheet";
/** Snowflake ends a block comment at the first * / (as Oracle; Teradata and SQL Server nest them). */
const SNOWFLAKE_BLOCK_COMMENTS =
  "https://docs.snowflake.com/en/migrations/snowconvert-docs/general/getting-started/running-snowconvert/validation/ambiguous-comments-validations";

/** Snowflake: \' \" \\ \b \f \n \r \t \0, \ooo, \xhh, \uhhhh; a backslash before any other character is that character. */
const SNOWFLAKE_ESCAPES: EscapeRules = {
  named: { ...CONTROL_ESCAPES, ...QUOTE_ESCAPES, "0": "\0" },
  kept: [],
  octal: "three",
  hex: "two",
  unicode: { long: false },
  other: "itself",
};

const SNOWFLAKE_EXAMPLES: Example[] = [
  ex("select 'Today''s sales projections', '-''''-'", ["Today's sales projections", "-''-"], SNOWFLAKE_STRING_CONSTANTS),
  ex("select $$Today's sales projections$$, $$-'''-$$", ["Today's sales projections", "-'''-"], SNOWFLAKE_DOLLAR),
  ex(
    String.raw`select 'Hello\tWorld', 'C:\\user', '-\041-', '-\x21-', '-\u26c4-', '\z'`,
    ["Hello\tWorld", String.raw`C:\user`, "-!-", "-!-", "-\u26c4-", "z"],
    SNOWFLAKE_TEXT,
  ),
  ex(String.raw`select 'a\nb\101', 'it\'s', 'say \"hi\"'`, ["a\nbA", "it's", 'say "hi"'], SNOWFLAKE_TEXT),
  ex("select 1 -- a comment\n, 2 // another\n, /* a block */ 3", ["1", "2", "3"], SNOWFLAKE_COMMENTS),
  ex("select /* a /* b */ 1", ["1"], SNOWFLAKE_BLOCK_COMMENTS),
];

export default defineDialect({
  name: "snowflake",
  transpiler: "snowflake",
  adapterInherits: [],
  lexical: {
    likeEscape: null,
    identifierQuote: '"',
    identifierEscapes: false,
    singleQuoted: SNOWFLAKE_ESCAPES,
    doubledQuote: true,
    doubleQuoted: "identifier",
    raw: null,
    tripleQuoted: false,
    newlineEndsString: false,
    bytes: false,
    escapeStrings: null,
    unicodeStrings: false,
    dollarQuoted: "plain",
    adjacentStringsNeedNewline: false,
    lineComments: ["//"],
    nestedComments: false,
    unquotedCase: "upper",
    sources: [SNOWFLAKE_TEXT, SNOWFLAKE_COMMENTS, SNOWFLAKE_BLOCK_COMMENTS, "https://docs.snowflake.com/en/sql-reference/functions/like"],
    examples: SNOWFLAKE_EXAMPLES,
  },
  // DEFAULT_NULL_ORDERING is LAST: NULLs sort as the largest values.
  nullOrder: "nulls_last_on_asc_first_on_desc",
  integerDivision: false,
  // https://docs.snowflake.com/en/sql-reference-data-types: integers are NUMBER(38,0); FLOAT is 64-bit.
  types: {
    number: NUMBER_38,
    decimal: NUMBER_38,
    numeric: NUMBER_38,
    int: NUMBER_38,
    integer: NUMBER_38,
    bigint: NUMBER_38,
    smallint: NUMBER_38,
    tinyint: NUMBER_38,
    byteint: NUMBER_38,
    float: DOUBLE,
    float4: DOUBLE,
    float8: DOUBLE,
    real: DOUBLE,
    datetime: { duckdb: "TIMESTAMP" },
    timestamp_ntz: { duckdb: "TIMESTAMP" },
    timestamp_ltz: { duckdb: "TIMESTAMPTZ" },
    timestamp_tz: { duckdb: "TIMESTAMPTZ" },
    binary: { duckdb: "BLOB" },
    varbinary: { duckdb: "BLOB" },
    // https://docs.snowflake.com/en/sql-reference/data-types-semistructured: held as DuckDB JSON, an object's keys sorted.
    variant: { json: { kind: "string", pythonContainers: true } },
    object: { json: containerText("OBJECT") },
    array: { json: containerText("ARRAY") },
    vector: { refuse: "VECTOR has no DuckDB type with the same operations" },
  },
  constructs: SNOWFLAKE,
  crossDbMacros: {
    current_timestamp: () => "current_timestamp()",
    type_string: () => "varchar",
    type_int: () => "int",
    type_bigint: () => "bigint",
    type_float: () => "float",
    type_numeric: () => "numeric(28,6)",
    type_timestamp: () => "timestamp_ntz",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) => `dateadd(${text(part)}, ${text(interval)}, ${text(from)})`,
    datediff: (first, second, part) => `datediff(${text(part)}, ${text(first)}, ${text(second)})`,
    date_trunc: (part, date) => `date_trunc('${text(part)}', ${text(date)})`,
    safe_cast: (field, type) => `try_cast(${text(field)} as ${text(type)})`,
    concat: (fields) => `concat(${list(fields).join(", ")})`,
    hash: (field) => `md5(cast(${text(field)} as varchar))`,
    split_part: (string, delimiter, part) => `split_part(${text(string)}, ${text(delimiter)}, ${text(part)})`,
    listagg: (measure, delimiter, orderBy, limit) => withinGroupListagg(measure, delimiter, orderBy, limit),
  },
  formats: { datetime: SNOWFLAKE_FORMAT },
  division: {
    quotient: QUOTIENT,
    average: QUOTIENT,
    // https://docs.snowflake.com/en/sql-reference/operators-arithmetic (multiplication: S = min(S1 + S2, max(S1, S2, 12)))
    product: {
      scale: (ta, tb) => `least(__slp_scale(${ta}) + __slp_scale(${tb}), greatest(__slp_scale(${ta}), __slp_scale(${tb}), 12))`,
      integers: "fixed",
    },
    byZero: "error",
  },
  // dbt-snowflake dispatches validate_fixture_rows to the default, which checks nothing.
  fixtureRules: [],
});
