/** Amazon Redshift: the constructs slp runs, with Redshift's documented examples. */
import { RS, ex, refused, same, translated, type Construct, type Example } from "../construct.ts";
import { postgresParse, postgresToChar, postgresToNumber } from "../format-models.ts";
import { POSIX_FUNCTIONS } from "../posix-regex.ts";
import { atMostTwoArguments, average, initcap, macroCall, parenthesized, redshiftConvertTimezone, renamed, sha256Only, strictConcat } from "../rewrites.ts";
import { jsonFunction, redshiftArrayElementText, redshiftPathText } from "../json.ts";
import { common, framedValues, REDSHIFT_POSTGRES_COMMON, semiStructured } from "../common.ts";
import { text, withinGroupListagg } from "../adapter-sql.ts";
import { rule } from "../arithmetic.ts";
import { defineDialect } from "../define.ts";
import { REDSHIFT_ROW_FREE_OF_NULLS } from "../fixture-rules.ts";
import { CONTROL_ESCAPES, type EscapeRules, QUOTE_ESCAPES } from "../lexical-rules.ts";
import { TEXT } from "../type-names.ts";
import postgres from "./postgres.ts";

export const REDSHIFT: Construct[] = [
  ...common((name, kind) => RS(kind === "window" ? `r_WF_${name.toUpperCase()}` : name === "%" ? "r_MOD" : `r_${name.toUpperCase()}`)),
  ...REDSHIFT_POSTGRES_COMMON(
    (name) => RS(name === "/" || name === "||" || name === "::" || name === "~" || name === "ilike" ? "r_operators" : `r_${name.toUpperCase()}`),
    // DECIMAL(8,2) / DECIMAL(8,2) is DECIMAL(17,9): scale max(4, s1 + p2 - s2 + 1).
    [ex("select cast(10 as decimal(8,2)) / cast(3 as decimal(8,2))", ["3.333333333"], RS("r_numeric_computations201")), ex("select cast(2 as decimal(8,2)) / cast(3 as decimal(8,2))", ["0.666666667"], RS("r_numeric_computations201"))],
  ),
  { name: "!~", how: "corrected", note: "as ~, negated", examples: [ex("select 'abc' !~ 'b', 'abc' !~ '^b'", ["false", "true"], RS("pattern-matching-conditions-posix"))] },
  {
    name: "to_char",
    how: "corrected",
    note: "datetime format strings (CC, YYYY, Y,YYY, IYYY, Q, MONTH, MON, MM, RM, W, WW, IW, DAY, DY, DDD, IDDD, DD, D, ID, J, HH24, HH12, MI, SS, MS, US, AM, AD, with FM and TH) and numeric ones (9, 0, . or D, ',', FM, S, MI and PR at the end); TZ, OF, L, G, PL, SG, RN and V are refused by name",
    rewrite: postgresToChar("redshift"),
    macros: ["__slp_kind"],
    examples: [
      ex("select to_char(date '2024-03-05', 'MONTH'), to_char(date '2024-03-05', 'Month'), to_char(date '2024-03-05', 'DAY'), to_char(date '2024-03-05', 'Dy')", ["MARCH    ", "March    ", "TUESDAY  ", "Tue"], RS("r_FORMAT_strings")),
      ex("select to_char(date '2024-03-03', 'D'), to_char(date '2024-03-03', 'ID'), to_char(date '2024-03-03', 'Y,YYY'), to_char(date '2024-03-03', 'rm'), to_char(timestamp '2024-03-03 21:05:00', 'HH12 AM')", ["1", "7", "2,024", "iii ", "09 PM"], RS("r_FORMAT_strings")),
      ex("select to_char(-125.8, '999D99S'), to_char(125.8, '999D99S'), to_char(-125.8, '999D99PR'), to_char(1234.5, '9,999.00')", ["125.80-", "125.80+", "<125.80>", " 1,234.50"], RS("r_Numeric_formating")),
    ],
  },
  translated("nvl", [ex("select nvl(null, 'x')", ["x"], RS("r_NVL_function"))]),
  translated("nvl2", [ex("select nvl2(null, 1, 2)", ["2"], RS("r_NVL2"))]),
  translated("decode", [ex("select decode(2, 1, 'one', 2, 'two', 'other')", ["two"], RS("r_DECODE_expression"))]),
  translated("len", [ex("select len('français')", ["8"], RS("r_LEN"))]),
  translated("charindex", [ex("select charindex('dog', 'fish')", ["0"], RS("r_CHARINDEX")), ex("select charindex('fish', 'dogfish')", ["4"], RS("r_CHARINDEX"))]),
  { name: "dateadd", how: "corrected", note: "a negative amount is parenthesized (the transpiler's INTERVAL -1 DAY is rejected by DuckDB)", rewrite: parenthesized(1), examples: [ex("select dateadd(month, 1, '2008-01-31'::date)", ["2008-02-29"], RS("r_DATEADD_function")), ex("select dateadd(day, 30, '2008-02-28'::date)", ["2008-03-29"], RS("r_DATEADD_function")), ex("select dateadd(day, -1, '2008-03-01'::date)", ["2008-02-29"], RS("r_DATEADD_function"))] },
  translated("datediff", [ex("select datediff(week,'2009-01-01','2009-12-31')", ["52"], RS("r_DATEDIFF_function")), ex("select datediff(year, '2008-12-31'::date, '2009-01-01'::date)", ["1"], RS("r_DATEDIFF_function")), ex("select datediff(hour, '2009-01-01 08:30:00'::timestamp, '2009-01-01 10:00:00'::timestamp)", ["2"], RS("r_DATEDIFF_function")), ex("select datediff(day, '2008-01-01'::date, '2008-03-05'::date)", ["64"], RS("r_DATEDIFF_function")), ex("select datediff(month, '2008-01-31'::date, '2008-02-01'::date)", ["1"], RS("r_DATEDIFF_function"))], "counts boundaries crossed"),
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
    examples: [ex("select concat('December 25, ', '2008')", ["December 25, 2008"], RS("r_CONCAT")), ex("select concat('Thursday, ', concat('December 25, ', '2008'))", ["Thursday, December 25, 2008"], RS("r_CONCAT")), ex("select concat('a', null)", [null], RS("r_CONCAT"))],
  },
  translated("getdate", [ex("select getdate() is not null", ["true"], RS("r_GETDATE"))]),
  {
    name: "initcap",
    how: "corrected",
    note: "every character that is not a letter or digit separates words",
    rewrite: initcap("alphanumeric"),
    macros: ["__slp_initcap"],
    examples: [ex("select initcap('All non-musical theatre')", ["All Non-Musical Theatre"], RS("r_INITCAP")), ex("select initcap('MLB')", ["Mlb"], RS("r_INITCAP")), ex("select initcap('urna.Ut@egetdictumplacerat.edu')", ["Urna.Ut@Egetdictumplacerat.Edu"], RS("r_INITCAP"))],
  },
  { name: "btrim", how: "corrected", note: "DuckDB's trim(string, characters)", rewrite: renamed("trim"), examples: [ex("select btrim('     abc    ')", ["abc"], RS("r_BTRIM")), ex("select btrim('xyzaxyzbxyzcxyz', 'xyz')", ["axyzbxyzc"], RS("r_BTRIM"))] },
  translated("ltrim", [ex("select ltrim('2008-01-24 06:43:29', '2008-')", ["1-24 06:43:29"], RS("r_LTRIM")), ex("select ltrim('2008-08-15 02:08:13', '2008-')", ["15 02:08:13"], RS("r_LTRIM"))]),
  same("trim", [ex("select trim('\"' FROM '\"dog\"')", ["dog"], RS("r_TRIM")), ex("select trim('Citizens Bank Park', 'CDG')", ["itizens Bank Park"], RS("r_LTRIM"))]),
  {
    name: "months_between",
    how: "corrected",
    note: "of dates: whole months when the days match or both are month-ends, else the day difference over 31; of timestamps refused",
    rewrite: (call) => (call.args.length === 2 ? `__slp_months_between(__slp_date_only(${call.args[0]}, 'months_between'), __slp_date_only(${call.args[1]}, 'months_between'))` : { refuse: "months_between takes two dates" }),
    macros: ["__slp_months_between", "__slp_date_only"],
    examples: [ex("select months_between('1969-01-18', '1969-03-18')", ["-2"], RS("r_MONTHS_BETWEEN_function"))],
  },
  ...framedValues([RS("r_WF_first_value"), RS("r_WF_last_value"), RS("r_WF_NTH")], { strict: true, ignoreNulls: (call) => call.replace(/\)$/, " ignore nulls)") }),
  // JSON text and SUPER values (held as their compact JSON text), read and printed by slp's JSON functions (src/engine/json-values.ts).
  {
    name: "json_parse",
    how: "corrected",
    note: "a SUPER held as its compact JSON text; a fraction or exponent (whose text SUPER keeps its own way), a duplicate key, or an object's keys out of ascending order (SUPER values compare as their text in slp) is an error",
    rewrite: (call) => (call.args.length === 1 ? `__slp_as_json(__slp_jsonf_print(${call.args[0]}, 'super'))` : { refuse: "json_parse takes one JSON text" }),
    macros: ["__slp_as_json"],
    examples: [
      ex(`select json_parse('[10001,10002,"abc"]')`, ['[10001,10002,"abc"]'], RS("JSON_PARSE")),
      ex(`select json_typeof(json_parse('[10001,10002,"abc"]'))`, ["array"], RS("JSON_PARSE")),
    ],
  },
  {
    name: "json_serialize",
    how: "corrected",
    note: "the compact JSON text; of NULL the text 'null'",
    rewrite: (call) => (call.args.length === 1 ? `coalesce(__slp_jsonf_print(${call.args[0]}, 'super'), 'null')` : { refuse: "json_serialize takes one SUPER value" }),
    examples: [
      ex(`select json_serialize(json_parse('[10001,10002,"abc"]'))`, ['[10001,10002,"abc"]'], RS("JSON_SERIALIZE")),
      ex("select json_serialize(null)", ["null"], RS("JSON_SERIALIZE")),
    ],
  },
  { name: "json_typeof", how: "corrected", note: "object, array, string, number, boolean or null", rewrite: jsonFunction("__slp_jsonf_type", 1), examples: [ex(`select json_typeof(json_parse('[10001,10002,"abc"]'))`, ["array"], RS("r_json_typeof"))] },
  {
    name: "json_extract_path_text",
    how: "corrected",
    note: "keys written as literals; a string's characters, other values as written; a JSON null is refused; null_if_invalid",
    rewrite: redshiftPathText,
    examples: [
      ex(`select json_extract_path_text('{"f2":{"f3":1},"f4":{"f5":99,"f6":"star"}}','f4', 'f6')`, ["star"], RS("JSON_EXTRACT_PATH_TEXT")),
      ex(`select json_extract_path_text('{"f2":{"f3":1},"f4":{"f5":99,"f6":"star"}','f4', 'f6',true)`, [null], RS("JSON_EXTRACT_PATH_TEXT")),
    ],
  },
  {
    name: "json_extract_array_element_text",
    how: "corrected",
    note: "a position written as a whole number from 0; NULL past the end; null_if_invalid",
    rewrite: redshiftArrayElementText,
    examples: [
      ex("select json_extract_array_element_text('[111,112,113]', 2)", ["113"], RS("JSON_EXTRACT_ARRAY_ELEMENT_TEXT")),
      ex(`select json_extract_array_element_text('["a",["b",1,["c",2,3,null,]]]',1,true)`, [null], RS("JSON_EXTRACT_ARRAY_ELEMENT_TEXT")),
    ],
  },
  {
    name: "json_array_length",
    how: "corrected",
    note: "of a JSON array's text; anything else is an error; null_if_invalid",
    rewrite: (call) =>
      call.args.length === 1
        ? `__slp_jsonf_array_length(${call.args[0]}, 'JSON_ARRAY_LENGTH')`
        : call.args.length === 2 && /^(true|t)$/i.test(call.written[1]?.trim() ?? "")
          ? `__slp_jsonf_array_length(${call.args[0]}, 'JSON_ARRAY_LENGTH?')`
          : { refuse: "json_array_length takes a JSON array text and null_if_invalid" },
    examples: [
      ex(`select json_array_length('[11,12,13,{"f1":21,"f2":[25,26]},14]')`, ["5"], RS("JSON_ARRAY_LENGTH")),
      ex(`select json_array_length('[11,12,13,{"f1":21,"f2":[25,26]},14',true)`, [null], RS("JSON_ARRAY_LENGTH")),
    ],
  },
  {
    name: "is_valid_json",
    how: "corrected",
    note: "true for a JSON object's text; false for malformed text or an array; a JSON scalar is refused (undocumented)",
    rewrite: jsonFunction("__slp_jsonf_valid", 1, "object"),
    examples: [
      ex(`select is_valid_json('{"a":2}'), is_valid_json('{"a":{"b":{"c":1}}}'), is_valid_json('{"a": [1,2,"b"]}')`, ["true", "true", "true"], RS("IS_VALID_JSON")),
      ex(`select is_valid_json('{{}}'), is_valid_json('{1:"a"}'), is_valid_json('[1,2,3]')`, ["false", "false", "false"], RS("IS_VALID_JSON")),
    ],
  },
  {
    name: "is_valid_json_array",
    how: "corrected",
    note: "true for a JSON array's text; false for malformed text or an object; a JSON scalar is refused (undocumented)",
    rewrite: jsonFunction("__slp_jsonf_valid", 1, "array"),
    examples: [
      ex(`select is_valid_json_array('[]'), is_valid_json_array('["a","b"]'), is_valid_json_array('["a",["b",1,["c",2,3,null]]]')`, ["true", "true", "true"], RS("IS_VALID_JSON_ARRAY")),
      ex(`select is_valid_json_array('{"a":1}'), is_valid_json_array('a'), is_valid_json_array('[1,2,]')`, ["false", "false", "false"], RS("IS_VALID_JSON_ARRAY")),
    ],
  },
  refused("[]", "PartiQL navigation into SUPER (c.a.b, c[0]) reads attribute names case-insensitively unless enable_case_sensitive_super_attribute is set, and gives NULL where a step leads nowhere (lax mode): slp has not verified either on DuckDB"),
  refused("json_size", "the size in bytes of SUPER's serialized form, which slp does not hold"),
  {
    name: "regexp_replace",
    how: "corrected",
    note: "replaces every occurrence (the transpiler replaced the first and dropped the i parameter); PCRE (p) is refused",
    rewrite: POSIX_FUNCTIONS.redshiftReplace,
    macros: ["__slp_posix_text"],
    examples: [
      ex("select regexp_replace('Etiam.laoreet.libero@sodalesMaurisblandit.edu', '@.*\\\\.(org|gov|com|edu|ca)$')", ["Etiam.laoreet.libero"], RS("REGEXP_REPLACE")),
      ex("select regexp_replace('sed@lacusUtnec.ca', '@.*\\\\.[[:alpha:]]{2,3}', '@internal.company.com')", ["sed@internal.company.com"], RS("REGEXP_REPLACE")),
      ex("select regexp_replace('the fox', 'FOX', 'quick brown fox', 1, 'i')", ["the quick brown fox"], RS("REGEXP_REPLACE")),
      ex("select regexp_replace('abab', 'b', 'x')", ["axax"], RS("REGEXP_REPLACE")),
    ],
  },
  {
    name: "regexp_instr",
    how: "corrected",
    note: "where the N-th match starts (end option 1: after it ends), 0 when none; the pattern (a literal) read as RE2 (posix-regex.ts); a pattern matching empty text is an error when it runs; parameters c and i; PCRE (p) and e are refused",
    rewrite: POSIX_FUNCTIONS.instr("redshift"),
    macros: ["__slp_whole_index", "__slp_posix_text"],
    examples: [ex("select regexp_instr('the fox', 'FOX', 1, 1, 0, 'i')", ["5"], RS("REGEXP_INSTR"))],
  },
  {
    name: "regexp_substr",
    how: "corrected",
    note: "the N-th match (or its group), NULL when none; the pattern (a literal) read as RE2 (posix-regex.ts); parameters c, i and e; PCRE (p) is refused",
    rewrite: POSIX_FUNCTIONS.substr("redshift"),
    macros: ["__slp_whole_index", "__slp_posix_text"],
    examples: [ex("select regexp_substr('the fox', 'FOX', 1, 1, 'i')", ["fox"], RS("REGEXP_SUBSTR"))],
  },
  { name: "regexp_count", how: "corrected", note: "from the first character", rewrite: POSIX_FUNCTIONS.count("redshift"), macros: ["__slp_regexp_count", "__slp_posix_text"], examples: [ex("select regexp_count('abcdefghijklmnopqrstuvwxyz', '[a-z]{3}')", ["8"], RS("REGEXP_COUNT")), ex("select regexp_count('euismod@turpis.org', '@[^.]*\\\\.(org|edu)')", ["1"], RS("REGEXP_COUNT")), ex("select regexp_count('lorem.ipsum@Vestibulumante.com', '@[^.]*\\\\.(org|edu)')", ["0"], RS("REGEXP_COUNT"))] },
  {
    name: "to_date",
    how: "corrected",
    note: "YYYY, MM, DD, DDD, Mon, Month (any case), HH24, HH12 with AM, MI, SS, MS, US and FM, read by strptime; an out-of-range date (June 31), which Redshift rolls over unless is_strict, and another separator are DuckDB's error; two-digit years, ISO, Julian and week fields and time zones are refused",
    rewrite: postgresParse("date", "redshift"),
    macros: ["__slp_strptime"],
    examples: [ex("select to_date('02 Oct 2001', 'DD Mon YYYY')", ["2001-10-02"], RS("r_TO_DATE_function"))],
  },
  {
    name: "to_number",
    how: "corrected",
    note: "9, 0, . or D, ',' or G, FM, a leading S or a trailing S, MI or PR; L is refused; text the format's digits do not hold is an error",
    rewrite: postgresToNumber("redshift"),
    examples: [ex("select to_number('12,454.8-', '99G999D9S')", ["-12454.8"], RS("r_TO_NUMBER"))],
  },
  {
    name: "to_timestamp",
    how: "corrected",
    note: "as to_date, a TIMESTAMPTZ (in UTC)",
    rewrite: postgresParse("timestamp", "redshift"),
    macros: ["__slp_strptime"],
    examples: [ex("select to_timestamp('2017','YYYY')", ["2017-01-01 00:00:00+00"], RS("r_TO_TIMESTAMP")), ex("select to_timestamp('2021-04-05 19:27:53', 'YYYY-MM-DD HH24:MI:SS')", ["2021-04-05 19:27:53+00"], RS("r_TO_TIMESTAMP"))],
  },
  { name: "lag", how: "corrected", note: "a default value is refused (Redshift has none)", rewrite: atMostTwoArguments, examples: [ex("select max(p) from (select lag(q, 1) over (order by t) as p from (select 1 as q, 1 as t union all select 2, 2) as s) as w", ["1"], RS("r_WF_LAG"))] },
  { name: "lead", how: "corrected", note: "a default value is refused (Redshift has none)", rewrite: atMostTwoArguments, examples: [ex("select max(p) from (select lead(q, 1) over (order by t) as p from (select 1 as q, 1 as t union all select 2, 2) as s) as w", ["2"], RS("r_WF_LEAD"))] },
  {
    name: "convert_timezone",
    how: "corrected",
    note: "time zone names (Region/City) and UTC; abbreviations (PST, fixed offsets there) and POSIX offsets (GMT+2, hours west there) are refused",
    rewrite: redshiftConvertTimezone,
    examples: [
      ex("select convert_timezone('America/New_York', '2013-02-01 08:00:00')", ["2013-02-01 03:00:00"], RS("CONVERT_TIMEZONE")),
      ex("select convert_timezone('America/New_York', '2013-06-01 08:00:00')", ["2013-06-01 04:00:00"], RS("CONVERT_TIMEZONE")),
      ex("select convert_timezone('US/Pacific', timestamp '2008-08-24 09:36:12')", ["2008-08-24 02:36:12"], RS("CONVERT_TIMEZONE")),
    ],
  },
  { name: "sha2", how: "corrected", note: "the 256-bit digest as hex; other bit lengths are refused", rewrite: sha256Only(false), examples: [ex("select sha2('Amazon Redshift', 256)", ["15013dc10bc5b293f1f66ea28d818387f191cafeb26f89639fae0b4acf9c8772"], RS("SHA2"))] },
  translated("any_value", [ex("select any_value(x) from (select 1 as x union all select 1) as t", ["1"], RS("r_ANY_VALUE"))]),
  refused("median", "Redshift's MEDIAN of an even count differs by type from DuckDB's"),
  average("redshift", "integers average to a BIGINT (truncated); the average of a DECIMAL is refused", [
    ex("select avg(x) from (select 1 as x union all select 2) as t", ["1"], RS("r_AVG")),
    ex("select avg(x) from (select 1.5::float8 as x union all select 2) as t", ["1.75"], RS("r_AVG")),
  ]),
  {
    name: "like",
    how: "corrected",
    note: "the backslash is the default escape, written '\\\\' in a literal (ESCAPE '\\' in DuckDB)",
    examples: [ex("select 'start_time' like 'start\\\\_%', 'startxtime' like 'start\\\\_%'", ["true", "false"], RS("r_patternmatching_condition_like"))],
  },
];

// --- lexical rules (lexer.ts reads them) ---
const REDSHIFT_LIKE = "https://docs.aws.amazon.com/redshift/latest/dg/r_patternmatching_condition_like.html";
const REDSHIFT_QUOTE_LITERAL = "https://docs.aws.amazon.com/redshift/latest/dg/r_QUOTE_LITERAL.html";

/**
 * Redshift reads backslash escapes in '...' (its LIKE escape is written '\\\\',
 * QUOTE_LITERAL doubles backslashes): \b \f \n \r \t, a backslash before any
 * other character is that character; octal and hex escapes are not documented.
 */
const REDSHIFT_ESCAPES: EscapeRules = {
  named: { ...CONTROL_ESCAPES, ...QUOTE_ESCAPES },
  kept: [],
  octal: null,
  hex: null,
  unicode: null,
  other: "itself",
  unverified: "0123456789xuU",
};

const REDSHIFT_EXAMPLES: Example[] = [
  ex("select '''CAT'''", ["'CAT'"], REDSHIFT_QUOTE_LITERAL),
  ex(String.raw`select 'start_x' like 'start\\_%', 'startx' like 'start\\_%', 'a\\b'`, ["true", "false", String.raw`a\b`], REDSHIFT_LIKE),
];

export default defineDialect({
  name: "redshift",
  // Redshift reads its text, sorts NULLs and divides integers as Postgres does, names its types as Postgres but for those below, and dbt-redshift writes dbt-postgres's macros but these.
  extends: postgres,
  // A Postgres function is not Redshift's until Redshift's documentation says so.
  notInherited: ["constructs"],
  transpiler: "redshift",
  adapterInherits: ["postgres"],
  lexical: {
    singleQuoted: REDSHIFT_ESCAPES,
    escapeStrings: null,
    unicodeStrings: false,
    dollarQuoted: null,
    nestedComments: "unverified",
    sources: [REDSHIFT_LIKE, REDSHIFT_QUOTE_LITERAL],
    examples: REDSHIFT_EXAMPLES,
  },
  // https://docs.aws.amazon.com/redshift/latest/dg/c_Supported_data_types.html: Postgres's names, but these.
  types: {
    nchar: TEXT,
    nvarchar: TEXT,
    varbyte: { duckdb: "BLOB" },
    // SUPER's objects and arrays as their compact JSON text (JSON_SERIALIZE's); dbt writes cast(<value> as super): text is a
    // SUPER string (json_parse parses text), a mapping or list (Python's text) is not SQL. A cast to SUPER in a model is refused (translate.ts).
    super: {
      json: {
        kind: "string",
        unread: {
          kinds: ["mapping", "list"],
          why: "dbt writes cast(<value> as super) with a mapping or list as Python prints it ({'k': 1}), which Redshift cannot read (the test errors in dbt)",
          fix: "write the rows with format: sql and json_parse('...') (text given for a SUPER column is a SUPER string)",
        },
      },
    },
    hllsketch: { refuse: "HLLSKETCH has no DuckDB type" },
    // DECIMAL without a precision is DECIMAL(18, 0) (https://docs.aws.amazon.com/redshift/latest/dg/r_Numeric_types201.html).
    numeric: { decimal: [18, 0] },
    decimal: { decimal: [18, 0] },
    // Postgres types Redshift does not have, or slp has not verified there.
    "time with time zone": null,
    "time without time zone": null,
    bytea: null,
    uuid: null,
    interval: null,
    json: null,
    jsonb: null,
    money: null,
  },
  constructs: REDSHIFT,
  crossDbMacros: {
    current_timestamp: () => "getdate()",
    dateadd: (part, interval, from) => `dateadd(${text(part)}, ${text(interval)}, ${text(from)})`,
    datediff: (first, second, part) => `datediff(${text(part)}, ${text(first)}, ${text(second)})`,
    listagg: (measure, delimiter, orderBy, limit) => withinGroupListagg(measure, delimiter, orderBy, limit),
  },
  division: {
    // https://docs.aws.amazon.com/redshift/latest/dg/r_numeric_computations201.html (division: scale = max(4, s1 + p2 - s2 + 1), at most 38)
    // A HUGEINT divisor is DuckDB's SUM of integers, which Redshift types BIGINT (https://docs.aws.amazon.com/redshift/latest/dg/r_SUM.html):
    // 19 digits, not 38 (100.0 * count / sum(count) has 21 decimals in Redshift; with 38 none of its 3 integer digits would fit).
    quotient: rule(
      (ta, tb) =>
        `least(38, greatest(4, __slp_scale(${ta}) + __slp_precision(replace(${tb}, 'HUGEINT', 'BIGINT')) - __slp_scale(${tb}) + 1))`,
      "integer",
    ),
    // https://docs.aws.amazon.com/redshift/latest/dg/r_AVG.html: BIGINT for integer arguments; a DECIMAL keeps its scale, rounded in a way slp has not verified.
    average: rule({ refuse: "SLP_CANNOT_AVERAGE_A_DECIMAL_IN_REDSHIFT" }, "integer"),
  },
  // dbt-redshift's redshift__validate_fixture_rows: a dict or csv fixture needs a row free of nulls.
  fixtureRules: [REDSHIFT_ROW_FREE_OF_NULLS],
});
