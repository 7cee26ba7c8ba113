/** PostgreSQL: the constructs slp runs, with PostgreSQL's documented examples. */
import { PG, ex, refused, same, translated, type Construct, type Example } from "../construct.ts";
import { postgresParse, postgresToChar, postgresToNumber } from "../format-models.ts";
import { POSIX_FUNCTIONS } from "../posix-regex.ts";
import { average, dateTruncPart, initcap, macroCall, oneArgument, renamed } from "../rewrites.ts";
import { jsonFunction, postgresExtractPath } from "../json.ts";
import { common, framedValues, REDSHIFT_POSTGRES_COMMON } from "../common.ts";
import { list, stringAggListagg, text } from "../adapter-sql.ts";
import { rule } from "../arithmetic.ts";
import { defineDialect } from "../define.ts";
import { CONTROL_ESCAPES, type EscapeRules, QUOTE_ESCAPES } from "../lexical-rules.ts";
import { DOUBLE, type JsonText, TEXT } from "../type-names.ts";

/** What dbt-postgres's cast of a fixture value to json or jsonb cannot read. */
const POSTGRES_UNREAD: NonNullable<JsonText["unread"]> = {
  kinds: ["mapping", "list", "number", "boolean"],
  why: "dbt writes cast(<value> as jsonb) with a mapping or list as Python prints it ({'k': 1}), which Postgres cannot read, and Postgres casts no number or boolean to json (the test errors in dbt)",
  fix: "give the JSON as text ('{\"k\": 1}'), which Postgres parses",
};

export const POSTGRES: Construct[] = [
  ...common((_name, kind) => PG({ aggregate: "functions-aggregate", statistical: "functions-aggregate", window: "functions-window", math: "functions-math", string: "functions-string", conditional: "functions-conditional", conversion: "sql-expressions", operator: "functions-math" }[kind])),
  ...REDSHIFT_POSTGRES_COMMON(
    (name) => PG(name === "/" || name === "mod" || name === "round" ? "functions-math" : name === "date_trunc" || name === "date_part" || name === "extract" ? "functions-datetime" : name === "to_char" ? "functions-formatting" : name === "~" || name === "ilike" ? "functions-matching" : name.startsWith("bool") || name === "greatest" || name === "least" ? "functions-aggregate" : "functions-string"),
    // Table 9.4: numeric division keeps at least 16 significant digits.
    [ex("select 5.0 / 2", ["2.5000000000000000"], PG("functions-math")), ex("select 5 / 2", ["2"], PG("functions-math")), ex("select (-5) / 2", ["-2"], PG("functions-math")), ex("select 1.0 / 3", ["0.33333333333333333333"], PG("functions-math"))],
  ),
  {
    name: "::numeric",
    how: "corrected",
    note: "a cast to unconstrained numeric keeps the value at its own scale (DECIMAL(38, s)); past 38 digits, or from a float or text (whose scale depends on the value), an error naming it",
    macros: ["__slp_typed", "__slp_pg_numeric_value", "__slp_pg_numeric_type"],
    examples: [
      // The round-half-away-from-zero table of the numeric page, round(x::numeric).
      ex("select round(x::numeric) from (values (-2.5)) as t(x)", ["-3"], PG("datatype-numeric")),
      ex("select round(x::numeric) from (values (0.5)) as t(x)", ["1"], PG("datatype-numeric")),
      ex("select round(x::numeric) from (values (3.5)) as t(x)", ["4"], PG("datatype-numeric")),
      ex("select round(42.4382::numeric, 2)", ["42.44"], PG("functions-math")),
      ex("select 5.0::numeric / 2", ["2.5000000000000000"], PG("functions-math")),
      ex("select 1.0::numeric / 3", ["0.33333333333333333333"], PG("functions-math")),
    ],
  },
  same("concat", [ex("select concat('abcde', 2, null, 22)", ["abcde222"], PG("functions-string"))], "skips NULLs, as DuckDB's does"),
  same("concat_ws", [ex("select concat_ws(',', 'abcde', 2, null, 22)", ["abcde,2,22"], PG("functions-string"))]),
  translated("string_agg", [ex("select string_agg(x, ',' order by x) from (values ('b'), ('a')) as t(x)", ["a,b"], PG("functions-aggregate")), ex("select string_agg(x, ',') from (values ('a'), (null)) as t(x)", ["a"], PG("functions-aggregate"))], "NULLs are skipped"),
  translated("array_agg", [ex("select array_length(array_agg(x), 1) from (values (1), (2)) as t(x)", ["2"], PG("functions-aggregate")), ex("select array_length(array_agg(x), 1) from (values (1), (null)) as t(x)", ["2"], PG("functions-aggregate"))], "NULLs are kept"),
  translated("array_length", [ex("select array_length(array[1, 2, 3], 1)", ["3"], PG("functions-array"))]),
  same("[]", [ex("select (array[1, 2, 3])[1]", ["1"], PG("arrays"))], "1-based, as DuckDB's"),
  { name: "initcap", how: "corrected", note: "words are runs of letters and digits", rewrite: initcap("alphanumeric"), macros: ["__slp_initcap"], examples: [ex("select initcap('hi THOMAS')", ["Hi Thomas"], PG("functions-string"))] },
  { name: "btrim", how: "corrected", note: "DuckDB's trim(string, characters)", rewrite: renamed("trim"), examples: [ex("select btrim('xyxtrimyyx', 'xyz')", ["trim"], PG("functions-string"))] },
  translated("ltrim", [ex("select ltrim('zzzytest', 'xyz')", ["test"], PG("functions-string"))]),
  translated("rtrim", [ex("select rtrim('testxxzx', 'xyz')", ["test"], PG("functions-string"))]),
  same("trim", [ex("select trim(both 'xyz' from 'yxTomxx')", ["Tom"], PG("functions-string")), ex("select trim('  a  ')", ["a"], PG("functions-string"))]),
  {
    name: "substring",
    how: "corrected",
    note: "by position (from, for), or from a POSIX pattern (a literal, read as RE2): the first parenthesized part, or the whole match; the SIMILAR form is refused",
    rewrite: (call) => POSIX_FUNCTIONS.postgresSubstring(call) ?? `substring(${call.args.join(", ")})`,
    macros: ["__slp_regexp_extract", "__slp_posix_text"],
    examples: [
      ex("select substring('Thomas' from 2 for 3)", ["hom"], PG("functions-string")),
      ex("select substring('Thomas' from 3)", ["omas"], PG("functions-string")),
      ex("select substring('Thomas' for 2)", ["Th"], PG("functions-string")),
      ex("select substring('Thomas' from '...$'), substring('Thomas' from 'o.a'), substring('Thomas' from 'x')", ["mas", "oma", null], PG("functions-matching")),
      ex("select substring('foobar' from 'o(.)b')", ["o"], PG("functions-matching")),
    ],
  },
  same("rpad", [ex("select rpad('hi', 5, 'xy')", ["hixyx"], PG("functions-string"))]),
  translated("reverse", [ex("select reverse('abcde')", ["edcba"], PG("functions-string"))]),
  translated("repeat", [ex("select repeat('Pg', 4)", ["PgPgPgPg"], PG("functions-string"))]),
  translated("substr", [ex("select substr('alphabet', 3)", ["phabet"], PG("functions-string")), ex("select substr('alphabet', 3, 2)", ["ph"], PG("functions-string"))]),
  same("replace", [ex("select replace('abcdefabcdef', 'cd', 'XX')", ["abXXefabXXef"], PG("functions-string"))]),
  {
    name: "regexp_split_to_array",
    how: "corrected",
    note: "the pattern (a literal) read as RE2 (posix-regex.ts); flags are refused",
    rewrite: POSIX_FUNCTIONS.splitToArray,
    macros: ["__slp_posix_text"],
    examples: [ex("select regexp_split_to_array('hello world', '\\s+')", ["[hello, world]"], PG("functions-string"))],
  },
  {
    name: "string_to_array",
    how: "corrected",
    note: "with a literal delimiter that is not empty (a NULL or empty delimiter, or a null string, is refused)",
    rewrite: (call) => (call.args.length === 2 && (call.literal(1) ?? "") !== "" ? `string_split(${call.args.join(", ")})` : { refuse: "slp translates string_to_array(string, 'delimiter') only" }),
    examples: [ex("select string_to_array('xx~~yy~~zz', '~~')", ["[xx, yy, zz]"], PG("functions-string"))],
  },
  translated("starts_with", [ex("select starts_with('alphabet', 'alph')", ["true"], PG("functions-string"))]),
  same("translate", [ex("select translate('12345', '143', 'ax')", ["a2x5"], PG("functions-string"))]),
  translated("char_length", [ex("select char_length('josé')", ["4"], PG("functions-string"))]),
  same("left", [ex("select left('abcde', 2)", ["ab"], PG("functions-string")), ex("select left('abcde', -2)", ["abc"], PG("functions-string"))]),
  same("right", [ex("select right('abcde', 2)", ["de"], PG("functions-string")), ex("select right('abcde', -2)", ["cde"], PG("functions-string"))]),
  same("split_part", [ex("select split_part('abc~@~def~@~ghi', '~@~', 2)", ["def"], PG("functions-string")), ex("select split_part('abc,def,ghi,jkl', ',', -2)", ["ghi"], PG("functions-string"))]),
  {
    name: "regexp_instr",
    how: "corrected",
    note: "where the N-th match starts (end option 1: after it ends), 0 when none; the pattern (a literal) read as RE2 (posix-regex.ts); a pattern matching empty text is an error when it runs; flags i and c; the position of a group (subexpr) is refused",
    rewrite: POSIX_FUNCTIONS.instr("postgres"),
    macros: ["__slp_whole_index", "__slp_posix_text"],
    examples: [ex("select regexp_instr('number of your street, town zip, FR', '[^,]+', 1, 2)", ["23"], PG("functions-matching")), ex("select regexp_instr('ABCDEF', 'c(.)(..)', 1, 1, 0, 'i'), regexp_instr('ABCDEF', 'c(.)(..)', 1, 1, 1, 'i'), regexp_instr('ABCDEF', 'x')", ["3", "7", "0"], PG("functions-string"))],
  },
  {
    name: "regexp_substr",
    how: "corrected",
    note: "the N-th match (or its group), NULL when none; the pattern (a literal) read as RE2 (posix-regex.ts); flags i and c; a start other than 1 for a pattern without an anchor",
    rewrite: POSIX_FUNCTIONS.substr("postgres"),
    macros: ["__slp_whole_index", "__slp_posix_text"],
    examples: [ex("select regexp_substr('ABCDEF', 'c(.)(..)', 1, 1, 'i')", ["CDEF"], PG("functions-string")), ex("select regexp_substr('ABCDEF', 'c(.)(..)', 1, 1, 'i', 2)", ["EF"], PG("functions-string")), ex("select regexp_substr('ABCDEF', 'x'), regexp_substr('a1b22c333', '[0-9]+', 1, 3), regexp_substr('a1b22c333', '[0-9]+', 4)", [null, "333", "22"], PG("functions-matching"))],
  },
  {
    name: "regexp_count",
    how: "corrected",
    note: "from a start position; the pattern (a literal) read as RE2; flags are refused",
    rewrite: POSIX_FUNCTIONS.count("postgres"),
    macros: ["__slp_regexp_count", "__slp_posix_text"],
    examples: [ex("select regexp_count('ABCABCAXYaxy', 'A.')", ["3"], PG("functions-matching")), ex("select regexp_count('123456789012', '\\d\\d\\d', 2)", ["3"], PG("functions-string"))],
  },

  {
    name: "regexp_like",
    how: "corrected",
    note: "a partial match; the pattern (a literal) read as RE2; the flags i and c",
    rewrite: POSIX_FUNCTIONS.regexpLike("postgres"),
    macros: ["__slp_regexp_contains", "__slp_posix_text"],
    examples: [ex("select regexp_like('Hello World', 'world$', 'i')", ["true"], PG("functions-string")), ex("select regexp_like('Hello World', 'world$')", ["false"], PG("functions-string"))],
  },
  same("ascii", [ex("select ascii('x')", ["120"], PG("functions-string"))]),
  same("chr", [ex("select chr(65)", ["A"], PG("functions-string"))]),
  translated("trunc", [ex("select trunc(42.8)", ["42"], PG("functions-math")), ex("select trunc(42.4382, 2)", ["42.43"], PG("functions-math")), ex("select trunc(-42.8)", ["-42"], PG("functions-math"))]),
  same("round", [ex("select round(42.4382, 2)", ["42.44"], PG("functions-math")), ex("select round(1234.56, -1)", ["1230"], PG("functions-math")), ex("select round(2.5)", ["3"], PG("functions-math")), ex("select round(-2.5)", ["-3"], PG("functions-math"))], "numeric rounds half away from zero"),
  { name: "ceil", how: "corrected", note: "of one number", rewrite: oneArgument, examples: [ex("select ceil(42.2)", ["43"], PG("functions-math")), ex("select ceil(-42.8)", ["-42"], PG("functions-math"))] },
  { name: "floor", how: "corrected", note: "of one number", rewrite: oneArgument, examples: [ex("select floor(42.8)", ["42"], PG("functions-math")), ex("select floor(-42.8)", ["-43"], PG("functions-math"))] },
  same("power", [ex("select power(9, 3)", ["729"], PG("functions-math"))]),
  same("sign", [ex("select sign(-8.4)", ["-1"], PG("functions-math"))]),
  same("abs", [ex("select abs(-17.4)", ["17.4"], PG("functions-math"))]),
  translated("now", [ex("select now() is not null", ["true"], PG("functions-datetime"))]),
  translated("percentile_cont", [ex("select percentile_cont(0.5) within group (order by x) from (values (1), (2), (3), (4)) as t(x)", ["2.5"], PG("functions-aggregate"))]),
  translated("percentile_disc", [ex("select percentile_disc(0.5) within group (order by x) from (values (1), (2), (3), (4)) as t(x)", ["2"], PG("functions-aggregate"))]),
  translated("mode", [ex("select mode() within group (order by x) from (values (1), (2), (2)) as t(x)", ["2"], PG("functions-aggregate"))]),
  ...framedValues([PG("functions-window"), PG("functions-window"), PG("functions-window")], { strict: false, ignoreNulls: null }),
  // json holds its text as written, jsonb its own text (keys sorted by length then bytes, ": " and ", ", numbers as numeric prints them):
  // slp's JSON functions (src/engine/json-values.ts) read both and print what Postgres prints. Keys and paths are literals (json.ts).
  {
    name: "::jsonb",
    how: "corrected",
    note: "jsonb's own text: keys sorted (shorter first), the last of duplicate keys, numbers without exponent; ::json keeps the text as written",
    examples: [
      ex(`select '{"bar": "baz", "balance": 7.77, "active":false}'::jsonb::text`, ['{"bar": "baz", "active": false, "balance": 7.77}'], PG("datatype-json")),
      ex(`select '{"bar": "baz", "balance": 7.77, "active":false}'::json::text`, ['{"bar": "baz", "balance": 7.77, "active":false}'], PG("datatype-json")),
      ex(`select '{"reading": 1.230e-5}'::json::text, '{"reading": 1.230e-5}'::jsonb::text`, ['{"reading": 1.230e-5}', '{"reading": 0.00001230}'], PG("datatype-json")),
    ],
  },
  {
    name: "->",
    how: "corrected",
    note: "a key or index written as a literal (negative from the end); the value's text as held",
    examples: [
      ex(`select '[{"a":"foo"},{"b":"bar"},{"c":"baz"}]'::json -> 2`, ['{"c":"baz"}'], PG("functions-json")),
      ex(`select '[{"a":"foo"},{"b":"bar"},{"c":"baz"}]'::json -> -3`, ['{"a":"foo"}'], PG("functions-json")),
      ex(`select '{"a": {"b":"foo"}}'::json -> 'a'`, ['{"b":"foo"}'], PG("functions-json")),
    ],
  },
  {
    name: "->>",
    how: "corrected",
    note: "a key or index written as a literal; a string's characters, JSON null as NULL",
    examples: [ex(`select '[1,2,3]'::json ->> 2`, ["3"], PG("functions-json")), ex(`select '{"a":1,"b":2}'::json ->> 'b'`, ["2"], PG("functions-json"))],
  },
  { name: "#>", how: "corrected", note: "a path written as a literal text array", examples: [ex(`select '{"a": {"b": ["foo","bar"]}}'::json #> '{a,b,1}'`, ['"bar"'], PG("functions-json"))] },
  { name: "#>>", how: "corrected", note: "a path written as a literal text array", examples: [ex(`select '{"a": {"b": ["foo","bar"]}}'::json #>> '{a,b,1}'`, ["bar"], PG("functions-json"))] },
  {
    name: "@>",
    how: "corrected",
    note: "jsonb containment where an operand is jsonb or both are text literals; array containment of ARRAY[...]; anything else is refused",
    examples: [ex(`select '{"a":1, "b":2}'::jsonb @> '{"b":2}'::jsonb`, ["true"], PG("functions-json")), ex(`select '["foo", "bar"]'::jsonb @> '"foo"'::jsonb, '{"a":{"b":1}}'::jsonb @> '{"b":1}'`, ["true", "false"], PG("datatype-json"))],
  },
  { name: "<@", how: "corrected", note: "as @>, its operands swapped", examples: [ex(`select '{"b":2}'::jsonb <@ '{"a":1, "b":2}'::jsonb`, ["true"], PG("functions-json"))] },
  {
    name: "?",
    how: "corrected",
    note: "a key of the object, a string element of the array",
    examples: [ex(`select '{"a":1, "b":2}'::jsonb ? 'b'`, ["true"], PG("functions-json")), ex(`select '["a", "b", "c"]'::jsonb ? 'b'`, ["true"], PG("functions-json"))],
  },
  { name: "?|", how: "corrected", note: "any of the keys", examples: [ex(`select '{"a":1, "b":2, "c":3}'::jsonb ?| array['b', 'd']`, ["true"], PG("functions-json"))] },
  { name: "?&", how: "corrected", note: "all of the keys", examples: [ex(`select '["a", "b", "c"]'::jsonb ?& array['a', 'b']`, ["true"], PG("functions-json"))] },
  {
    name: "||",
    how: "corrected",
    note: "text concatenation; of two jsonb values (or jsonb and a text literal) jsonb's: objects merged, else arrays concatenated; jsonb with an expression slp cannot type is refused",
    examples: [
      ex("select 'a' || 'b'", ["ab"], PG("functions-string")),
      ex("select 'a' || null", [null], PG("functions-string")),
      ex(`select '["a", "b"]'::jsonb || '["a", "d"]'::jsonb`, ['["a", "b", "a", "d"]'], PG("functions-json")),
      ex(`select '{"a": "b"}'::jsonb || '{"c": "d"}'::jsonb`, ['{"a": "b", "c": "d"}'], PG("functions-json")),
      ex(`select '[1, 2]'::jsonb || '3'::jsonb`, ["[1, 2, 3]"], PG("functions-json")),
      ex(`select '{"a": "b"}'::jsonb || '42'::jsonb`, ['[{"a": "b"}, 42]'], PG("functions-json")),
    ],
  },
  ...(["json_extract_path_text", "jsonb_extract_path_text"] as const).map(
    (name): Construct => ({
      name,
      how: "corrected",
      note: "path elements written as literals; a string's characters, JSON null as NULL",
      rewrite: postgresExtractPath("pg_text"),
      examples: [ex(`select ${name}('{"f2":{"f3":1},"f4":{"f5":99,"f6":"foo"}}', 'f4', 'f6')`, ["foo"], PG("functions-json"))],
    }),
  ),
  ...(["json_extract_path", "jsonb_extract_path"] as const).map(
    (name): Construct => ({
      name,
      how: "corrected",
      note: "path elements written as literals",
      rewrite: postgresExtractPath("pg"),
      macros: ["__slp_as_json"],
      examples: [ex(`select ${name}('{"f2":{"f3":1},"f4":{"f5":99,"f6":"foo"}}', 'f4', 'f6')`, ['"foo"'], PG("functions-json"))],
    }),
  ),
  { name: "json_array_length", how: "corrected", note: "of an array; anything else is an error", rewrite: jsonFunction("__slp_jsonf_array_length", 1, "json_array_length"), examples: [ex(`select json_array_length('[1,2,3,{"f1":1,"f2":[5,6]},4]')`, ["5"], PG("functions-json"))] },
  { name: "jsonb_array_length", how: "corrected", note: "of an array; anything else is an error", rewrite: jsonFunction("__slp_jsonf_array_length", 1, "jsonb_array_length"), examples: [ex("select jsonb_array_length('[]')", ["0"], PG("functions-json"))] },
  ...(["json_typeof", "jsonb_typeof"] as const).map(
    (name): Construct => ({
      name,
      how: "corrected",
      note: "object, array, string, number, boolean or null",
      rewrite: jsonFunction("__slp_jsonf_type", 1),
      examples: [ex(`select ${name}('-123.4'), ${name}('null'::json), ${name}(NULL::json) is null`, ["number", "null", "true"], PG("functions-json"))],
    }),
  ),
  ...["to_json", "to_jsonb", "json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "row_to_json"].map((name) =>
    refused(name, "builds JSON from SQL values, whose JSON text (numbers, timestamps, records, the json functions' spacing) slp does not reproduce"),
  ),
  ...["json_array_elements", "jsonb_array_elements", "json_array_elements_text", "jsonb_array_elements_text", "json_each", "jsonb_each", "json_each_text", "jsonb_each_text", "json_object_keys", "jsonb_object_keys"].map((name) =>
    refused(name, "a set-returning function: in the select list it multiplies rows in a way slp has not verified on DuckDB"),
  ),
  ...["jsonb_set", "jsonb_insert", "jsonb_strip_nulls", "json_strip_nulls", "jsonb_pretty", "jsonb_path_query", "jsonb_path_exists", "jsonb_path_query_first", "jsonb_path_match"].map((name) =>
    refused(name, "slp has not verified this JSON function against DuckDB"),
  ),
  refused("~*", "the transpiler writes it as REGEXP_ILIKE, which DuckDB cannot parse: write regexp_like(x, p, 'i') or lower() with ~"),
  refused("!~*", "the transpiler writes it as REGEXP_ILIKE, which DuckDB cannot parse"),
  translated("!~", [ex("select 'thomas' !~ 't.*max'", ["true"], PG("functions-matching"))]),
  {
    name: "to_char",
    how: "corrected",
    note: "date and time patterns (YYYY, MM, DD, HH24, HH12, MI, SS, MS, US, FF1-FF6, AM, Mon, Month, Dy, Day, Q, WW, IW, J, RM, ... with FM and TH) and number patterns (9, 0, ., ',', FM, S, MI and PR at the end); time zones, FX, TM, SP, the locale's D, G and L, V, EEEE, RN, PL and SG are refused by name",
    rewrite: postgresToChar("postgres"),
    macros: ["__slp_kind"],
    examples: [
      ex("select to_char(timestamp '2002-04-20 17:31:12.66', 'HH12:MI:SS')", ["05:31:12"], PG("functions-formatting")),
      ex("select to_char(timestamp '2024-03-05 05:39:18', 'Day, DD  HH12:MI:SS'), to_char(timestamp '2024-03-05 05:39:18', 'FMDay, FMDD  HH12:MI:SS')", ["Tuesday  , 05  05:39:18", "Tuesday, 5  05:39:18"], PG("functions-formatting")),
      ex("select to_char(-0.1, '99.99'), to_char(-0.1, 'FM9.99'), to_char(-0.1, 'FM90.99'), to_char(0.1, '0.9'), to_char(12, '9990999.9'), to_char(12, 'FM9990999.9')", ["  -.10", "-.1", "-0.1", " 0.1", "    0012.0", "0012."], PG("functions-formatting")),
      ex("select to_char(485, '999'), to_char(-485, '999'), to_char(485, '9 9 9'), to_char(1485, '9,999'), to_char(148.5, '999.999'), to_char(148.5, 'FM999.999'), to_char(148.5, 'FM999.990')", [" 485", "-485", " 4 8 5", " 1,485", " 148.500", "148.5", "148.500"], PG("functions-formatting")),
      ex("select to_char(-485, '999S'), to_char(-485, '999MI'), to_char(485, '999MI'), to_char(485, 'FM999MI'), to_char(-485, '999PR')", ["485-", "485-", "485 ", "485", "<485>"], PG("functions-formatting")),
      ex(`select to_char(485, '"Good number:"999'), to_char(485.8, '"Pre:"999" Post:" .999')`, ["Good number: 485", "Pre: 485 Post: .800"], PG("functions-formatting")),
      ex("select to_char(date '2024-03-01', 'DDth Month YYYY'), to_char(date '2024-03-22', 'FMDDth FMMonth Q WW IW D ID RM'), to_char(date '2024-03-22', 'J')", ["01st March     2024", "22nd March 1 12 12 6 5 III ", "2460392"], PG("functions-formatting")),
    ],
  },
  {
    name: "~",
    how: "corrected",
    note: "a partial POSIX match, the pattern (a literal) read as RE2: `.` matches a newline, \\y is \\b, \\Z is \\z; backreferences, lookaround, \\m, \\M and [[:<:]] are refused; text beyond ASCII read by a class is an error (the locale decides it) (posix-regex.ts)",
    examples: [
      ex("select 'thomas' ~ 't.*ma'", ["true"], PG("functions-matching")),
      ex("select 'abcd' ~ 'bc', 'abcd' ~ 'a.c', 'abcd' ~ 'a.*d', 'abcd' ~ '(b|x)', 'abcd' ~ '^a', 'abcd' ~ '^(b|c)'", ["true", "true", "true", "true", "true", "false"], PG("functions-matching")),
      ex("select 'a' || chr(10) || 'b' ~ 'a.b', 'foo bar' ~ '\\yba', 'foobar' ~ '\\yba', 'ab' ~ 'b\\Z'", ["true", "true", "false", "true"], PG("functions-matching")),
    ],
  },
  {
    name: "~*",
    how: "corrected",
    note: "a case-insensitive POSIX match, the pattern read as RE2 (posix-regex.ts: backreferences, lookaround and \\m \\M are refused); text beyond ASCII is an error (the locale folds it)",
    examples: [ex("select 'thomas' ~* 'T.*ma'", ["true"], PG("functions-matching")), ex("select 'thomas' ~* 'T.*MAX'", ["false"], PG("functions-matching"))],
  },
  {
    name: "!~*",
    how: "corrected",
    note: "as ~*, negated",
    examples: [ex("select 'thomas' !~* 'T.*ma'", ["false"], PG("functions-matching")), ex("select 'thomas' !~* 'T.*max'", ["true"], PG("functions-matching"))],
  },
  {
    name: "!~",
    how: "corrected",
    note: "as ~, negated",
    examples: [ex("select 'thomas' !~ 't.*max'", ["true"], PG("functions-matching")), ex("select 'thomas' !~ 't.*ma'", ["false"], PG("functions-matching"))],
  },
  {
    name: "similar to",
    how: "corrected",
    note: "the whole text matches; % and _ are .* and ., |, *, +, ?, {m,n}, ( ) and [ ] as in a regular expression (DuckDB's SIMILAR TO reads the pattern as a regular expression); regular-expression escapes in it are refused",
    examples: [
      ex("select 'abc' similar to 'abc', 'abc' similar to 'a'", ["true", "false"], PG("functions-matching")),
      ex("select 'abc' similar to '%(b|d)%', 'abc' similar to '(b|c)%'", ["true", "false"], PG("functions-matching")),
      ex("select 'abc' not similar to 'a_c', 'a.c' similar to 'a.c', 'abc' similar to 'a.c'", ["false", "true", "false"], PG("functions-matching")),
    ],
  },
  {
    name: "regexp_replace",
    how: "corrected",
    note: "the first match unless the g flag is given (and i); the pattern and the replacement (\\1 to \\9, \\&) written as literals; an alternation or a non-greedy quantifier, where POSIX's longest match can differ, is refused unless the pattern ends in $; a start position or an N-th match is refused",
    rewrite: POSIX_FUNCTIONS.postgresReplace,
    macros: ["__slp_posix_text"],
    examples: [
      ex("select regexp_replace('Thomas', '.[mN]a.', 'M')", ["ThM"], PG("functions-matching")),
      ex("select regexp_replace('abab', 'b', 'x', 'g')", ["axax"], PG("functions-matching")),
      ex("select regexp_replace('aBab', 'b', 'x', 'gi')", ["axax"], PG("functions-matching")),
      ex("select regexp_replace('foobarbaz', 'b(..)', 'X\\1Y', 'g')", ["fooXarYXazY"], PG("functions-matching")),
    ],
  },

  translated("make_date", [ex("select make_date(2013, 7, 15)", ["2013-07-15"], PG("functions-datetime"))]),
  {
    name: "to_date",
    how: "corrected",
    note: "YYYY, MM, DD, DDD, Mon, Month (any case), HH24, HH12 with AM, MI, SS, MS, US and FM, read by strptime (where Postgres is more lenient, e.g. another separator, it is DuckDB's error); two-digit years, ISO, Julian and week fields, time zones and FX are refused",
    rewrite: postgresParse("date", "postgres"),
    macros: ["__slp_strptime"],
    examples: [ex("select to_date('05 Dec 2000', 'DD Mon YYYY')", ["2000-12-05"], PG("functions-formatting")), ex("select to_date('2024-3-5', 'YYYY-MM-DD'), to_date('March 5, 2024', 'FMMonth FMDD, YYYY')", ["2024-03-05", "2024-03-05"], PG("functions-formatting"))],
  },
  {
    name: "to_number",
    how: "corrected",
    note: "9, 0, ., ',', FM, a leading S or a trailing S, MI or PR; D, G and L (the locale's) are refused; text the format's digits do not hold is an error",
    rewrite: postgresToNumber("postgres"),
    // The documented to_number('12,454.8-', '99G999D9S') in a locale whose G is ',' and D is '.'.
    examples: [ex("select to_number('12,454.8-', '99,999.9S'), to_number('<125.80>', '999.99PR'), to_number('-42', '999')", ["-12454.8", "-125.80", "-42"], PG("functions-formatting"))],
  },
  {
    name: "to_timestamp",
    how: "corrected",
    note: "as to_date, a timestamp with time zone (in UTC); of a number, the Unix epoch",
    rewrite: postgresParse("timestamp", "postgres"),
    macros: ["__slp_strptime"],
    examples: [ex("select to_timestamp('05 Dec 2000', 'DD Mon YYYY')", ["2000-12-05 00:00:00+00"], PG("functions-formatting")), ex("select to_timestamp(1284352323)", ["2010-09-13 04:32:03+00"], PG("functions-datetime")), ex("select to_timestamp('2024-03-05 01:04:05 PM', 'YYYY-MM-DD HH12:MI:SS AM')", ["2024-03-05 13:04:05+00"], PG("functions-formatting"))],
  },
  translated("div", [ex("select div(9, 4)", ["2"], PG("functions-math"))]),
  {
    name: "date_trunc",
    how: "corrected",
    note: "a century or millennium starts in year 1 there (2001-01-01), in year 0 in DuckDB: refused",
    rewrite: dateTruncPart,
    examples: [ex("select date_trunc('hour', timestamp '2001-02-16 20:38:40')", ["2001-02-16 20:00:00"], PG("functions-datetime")), ex("select date_trunc('year', timestamp '2001-02-16 20:38:40')", ["2001-01-01 00:00:00"], PG("functions-datetime")), ex("select date_trunc('month', date '2024-03-05')", ["2024-03-01"], PG("functions-datetime"))],
  },
  translated("date_part", [ex("select date_part('hour', timestamp '2001-02-16 20:38:40')", ["20"], PG("functions-datetime")), ex("select date_part('month', interval '2 years 3 months')", ["3"], PG("functions-datetime")), ex("select date_part('dow', date '2024-03-05')", ["2"], PG("functions-datetime"))], "dow is 0 (Sunday) to 6"),
  translated("extract", [ex("select extract(hour from timestamp '2001-02-16 20:38:40')", ["20"], PG("functions-datetime")), ex("select extract(day from timestamp '2001-02-16 20:38:40')", ["16"], PG("functions-datetime")), ex("select extract(isodow from date '2024-03-03')", ["7"], PG("functions-datetime"))]),
  same("+", [ex("select date '2001-09-28' + 7", ["2001-10-05"], PG("functions-datetime")), ex("select date '2001-09-28' + interval '1 hour'", ["2001-09-28 01:00:00"], PG("functions-datetime"))]),
  same("-", [ex("select date '2001-10-01' - date '2001-09-28'", ["3"], PG("functions-datetime")), ex("select date '2001-10-01' - 7", ["2001-09-24"], PG("functions-datetime"))]),
  refused("age", "Postgres's age() counts months and days differently from DuckDB's"),
  refused("generate_series", "a set-returning function in the select list has no faithful DuckDB form in slp"),
  average("postgres", "integers and numerics average to numeric (16 significant digits); floats to double precision", [
    ex("select avg(x) from (values (1), (2), (2)) as t(x)", ["1.6666666666666667"], PG("functions-aggregate")),
    ex("select avg(x) from (values (1), (2)) as t(x)", ["1.5000000000000000"], PG("functions-aggregate")),
  ]),
  {
    name: "like",
    how: "corrected",
    note: "the backslash is the default escape (ESCAPE '\\' in DuckDB); LIKE ANY (ARRAY[...]) as ORs",
    examples: [
      ex("select 'abc' like 'abc', 'abc' like 'a%', 'abc' like '_b_', 'abc' like 'c'", ["true", "true", "true", "false"], PG("functions-matching")),
      ex("select 'a_c' like 'a\\_c', 'abc' like 'a\\_c', 'a\\c' like 'a\\\\c'", ["true", "false", "true"], PG("functions-matching")),
    ],
  },
];

/** dbt-postgres's datediff: calendar parts counted from date_part differences. */
function postgresDatediff(first: string, second: string, part: string): string {
  const years = `(date_part('year', (${second})::date) - date_part('year', (${first})::date))`;
  const days = `((${second})::date - (${first})::date)`;
  switch (part) {
    case "year":
      return years;
    case "quarter":
      return `(${years} * 4 + date_part('quarter', (${second})::date) - date_part('quarter', (${first})::date))`;
    case "month":
      return `(${years} * 12 + date_part('month', (${second})::date) - date_part('month', (${first})::date))`;
    case "day":
      return days;
    case "hour":
      return `(${days} * 24 + date_part('hour', (${second})::timestamp) - date_part('hour', (${first})::timestamp))`;
    default:
      return `datediff_${part}_is_not_translated(${first}, ${second})`;
  }
}

/** The decimals slp's DuckDB type for a Postgres numeric quotient holds (its scale depends on the values). */
const PG_TYPE_SCALE = (ta: string, tb: string) => `least(38, greatest(24, __slp_scale(${ta}), __slp_scale(${tb})))`;

// --- lexical rules (lexer.ts reads them) ---
const POSTGRES_LEXICAL = "https://www.postgresql.org/docs/current/sql-syntax-lexical.html";
const POSTGRES_LIKE = "https://www.postgresql.org/docs/current/functions-matching.html#FUNCTIONS-LIKE";

/** Postgres E'...': \b \f \n \r \t, \o..\ooo, \xh..\xhh, \uXXXX, \UXXXXXXXX; any other character is itself. */
const POSTGRES_ESCAPES: EscapeRules = {
  named: { ...CONTROL_ESCAPES, ...QUOTE_ESCAPES },
  kept: [],
  octal: "one-to-three",
  hex: "one-or-two",
  unicode: { long: true },
  other: "itself",
};

const POSTGRES_EXAMPLES: Example[] = [
  ex(
    "select 'Dianne''s horse', $$Dianne's horse$$, $SomeTag$Dianne's horse$SomeTag$",
    ["Dianne's horse", "Dianne's horse", "Dianne's horse"],
    `${POSTGRES_LEXICAL}#SQL-SYNTAX-DOLLAR-QUOTING`,
  ),
  ex("select 'foo'\n'bar'", ["foobar"], `${POSTGRES_LEXICAL}#SQL-SYNTAX-STRINGS`),
  ex(
    String.raw`select 'a\b', E'a\\b', E'it\'s', E'\x41\101\u0041\U00000041', E'\n'`,
    [String.raw`a\b`, String.raw`a\b`, "it's", "AAAA", "\n"],
    `${POSTGRES_LEXICAL}#SQL-SYNTAX-STRINGS-ESCAPE`,
  ),
  ex(String.raw`select U&'d\0061t\+000061', U&'\0441\043B\043E\043D'`, ["data", "слон"], `${POSTGRES_LEXICAL}#SQL-SYNTAX-STRINGS-UESCAPE`),
  ex("select /* multiline comment\n * with nesting: /* nested block comment */\n */ 1", ["1"], `${POSTGRES_LEXICAL}#SQL-SYNTAX-COMMENTS`),
  ex(String.raw`select 'a_c' like 'a\_c', 'abc' like 'a\_c'`, ["true", "false"], POSTGRES_LIKE),
];

export default defineDialect({
  name: "postgres",
  transpiler: "postgresql",
  adapterInherits: [],
  lexical: {
    likeEscape: "itself",
    identifierQuote: '"',
    identifierEscapes: false,
    // standard_conforming_strings is on (Postgres' default since 9.1): a backslash in '...' is itself.
    singleQuoted: "standard",
    doubledQuote: true,
    doubleQuoted: "identifier",
    raw: null,
    tripleQuoted: false,
    newlineEndsString: false,
    bytes: false,
    escapeStrings: POSTGRES_ESCAPES,
    unicodeStrings: true,
    dollarQuoted: "tagged",
    adjacentStringsNeedNewline: true,
    lineComments: [],
    nestedComments: true,
    unquotedCase: "lower",
    sources: [POSTGRES_LEXICAL, POSTGRES_LIKE],
    examples: POSTGRES_EXAMPLES,
  },
  // NULLs sort as the largest values.
  nullOrder: "nulls_last_on_asc_first_on_desc",
  integerDivision: true,
  // https://www.postgresql.org/docs/current/datatype.html
  types: {
    int2: { duckdb: "SMALLINT" },
    int4: { duckdb: "INTEGER" },
    int8: { duckdb: "BIGINT" },
    float4: { duckdb: "FLOAT" },
    float8: DOUBLE,
    float: DOUBLE,
    bpchar: TEXT,
    timestamptz: { duckdb: "TIMESTAMPTZ" },
    "timestamp with time zone": { duckdb: "TIMESTAMPTZ" },
    "timestamp without time zone": { duckdb: "TIMESTAMP" },
    timetz: { duckdb: "TIMETZ" },
    "time with time zone": { duckdb: "TIMETZ" },
    "time without time zone": { duckdb: "TIME" },
    bytea: { duckdb: "BLOB" },
    uuid: { duckdb: "UUID" },
    interval: { duckdb: "INTERVAL" },
    // Unconstrained numeric holds any precision and each value its own scale; no one DuckDB DECIMAL does. NUMERIC(p) has scale 0,
    // NUMERIC(p, s) is exact (PostgreSQL's datatype-numeric page). A model's cast to it keeps each value's scale (the `::numeric`
    // construct, translate.ts); a column of it (a fixture's type) has no one scale to hold.
    numeric: {
      refuse: "an unconstrained NUMERIC column holds any number of digits at each value's own scale; DuckDB's DECIMAL holds at most 38 at one scale (write numeric(p, s))",
      unlessSized: true,
    },
    decimal: {
      refuse: "an unconstrained DECIMAL column holds any number of digits at each value's own scale; DuckDB's DECIMAL holds at most 38 at one scale (write decimal(p, s))",
      unlessSized: true,
    },
    // json keeps its text as written; jsonb is held as its own text (keys sorted, ": " and ", "), which a cast to jsonb prints
    // (json.ts). dbt writes cast(<value> as jsonb): text parses; a mapping or list (Python's text) or a number does not.
    json: { json: { kind: "parsed", held: "as written", unread: POSTGRES_UNREAD } },
    jsonb: { json: { kind: "parsed", held: "jsonb", unread: POSTGRES_UNREAD } },
    money: { refuse: "MONEY depends on the server's locale" },
  },
  constructs: POSTGRES,
  crossDbMacros: {
    current_timestamp: () => "now()",
    type_string: () => "varchar",
    type_int: () => "integer",
    type_bigint: () => "bigint",
    type_float: () => "float",
    type_numeric: () => "numeric(28,6)",
    type_timestamp: () => "timestamp",
    type_boolean: () => "boolean",
    dateadd: (part, interval, from) => `${text(from)} + ((interval '1 ${text(part)}') * (${text(interval)}))`,
    datediff: (first, second, part) => postgresDatediff(text(first), text(second), text(part).toLowerCase()),
    date_trunc: (part, date) => `date_trunc('${text(part)}', ${text(date)})`,
    safe_cast: (field, type) => `cast(${text(field)} as ${text(type)})`,
    concat: (fields) => list(fields).join(" || "),
    hash: (field) => `md5(cast(${text(field)} as varchar))`,
    split_part: (string, delimiter, part) => `split_part(${text(string)}, ${text(delimiter)}, ${text(part)})`,
    listagg: (measure, delimiter, orderBy, limit) => stringAggListagg(measure, delimiter, orderBy, limit),
  },
  // TO_CHAR's patterns are read element by element (format-models.ts), not by one strftime table.
  formats: {},
  division: {
    // https://www.postgresql.org/docs/current/functions-math.html (5.0 / 2 = 2.5000000000000000)
    quotient: rule((ta, tb) => PG_TYPE_SCALE(ta, tb), "integer", "__slp_pg_exact_quotient"),
    // AVG of integers is numeric.
    average: rule((ta, tb) => PG_TYPE_SCALE(ta, tb), "fixed", "__slp_pg_exact_quotient"),
    byZero: "error",
  },
  // dbt-postgres dispatches validate_fixture_rows to the default, which checks nothing.
  fixtureRules: [],
});
