/** slp's DuckDB macros the translated SQL calls, and the statements that create them. */
import { divisionMacroDefinitions, type MacroDefinition } from "./arithmetic.ts";
import { NESTED_MACROS } from "./nested.ts";
import type { Warehouse } from "./dialects.ts";
import { WAREHOUSES, warehouse } from "./warehouses/index.ts";

/**
 * Snowflake's VARIANT, OBJECT and ARRAY values as DuckDB JSON (src/sql/dialect/variant.ts). `__slp_variant` (the
 * form slp holds them in: an object's keys sorted, as Snowflake keeps them; OBJECT_CONSTRUCT(*) over (province,
 * created_date) lists CREATED_DATE first) and `__slp_json_canon` (the text a unit test compares) are slp's DuckDB
 * functions (src/engine/json-text.ts), not macros: they are in the catalog before any of these is created.
 */
const JSON_MACROS: Record<string, MacroDefinition> = {
  // PARSE_JSON: NULL for NULL, an empty or blank text (Snowflake's usage notes); text that is not JSON is an error.
  __slp_parse_json: {
    sql: "create macro __slp_parse_json(x) as list_transform([cast(x as varchar)], lambda s: case when s is null or regexp_full_match(s, '\\s*') then null else __slp_variant(s) end)[1]",
  },
  __slp_try_parse_json: {
    sql: "create macro __slp_try_parse_json(x) as list_transform([cast(x as varchar)], lambda s: case when s is null or regexp_full_match(s, '\\s*') or not json_valid(s) then null else __slp_variant(s) end)[1]",
  },
  // TO_VARIANT (and ::VARIANT): a VARIANT stays; text is a string, a number a number, a list an array, a struct or
  // map an object; a whole DOUBLE a whole number (ARRAY_CONSTRUCT_COMPACT(..., 3::DOUBLE) shows 3). A time or a
  // timestamp is refused: Snowflake writes their text its own way.
  __slp_to_variant: {
    sql: "create macro __slp_to_variant(v) as list_transform([v], lambda x: case when typeof(x) = 'JSON' then cast(x as json) when x is null then null when typeof(x) like 'TIME%' or typeof(x) like 'INTERVAL%' or typeof(x) = 'BLOB' then error('a ' || typeof(x) || ' as a VARIANT: slp does not reproduce Snowflake''s text of it') else __slp_variant(case when typeof(x) in ('DOUBLE', 'FLOAT') then list_transform([cast(x as double)], lambda d: case when d = trunc(d) and abs(d) < 1e15 then to_json(cast(d as bigint)) else to_json(d) end)[1] else to_json(x) end) end)[1]",
  },
  __slp_to_object: {
    sql: "create macro __slp_to_object(x) as list_transform([__slp_to_variant(x)], lambda v: case when v is null then null when json_type(v) = 'OBJECT' then v else error('Failed to cast variant value ' || v || ' to OBJECT') end)[1]",
    needs: ["__slp_to_variant"],
  },
  __slp_to_array: {
    sql: "create macro __slp_to_array(x) as list_transform([__slp_to_variant(x)], lambda v: case when v is null then null when json_type(v) = 'ARRAY' then v else error('Failed to cast variant value ' || v || ' to ARRAY') end)[1]",
    needs: ["__slp_to_variant"],
  },
  // A VARIANT's text (::STRING, TO_VARCHAR): a string without its quotes, a JSON null as NULL, an object or an
  // array as its JSON (keys sorted, no blanks). A fraction is refused: Snowflake writes numbers its own way.
  __slp_variant_text: {
    sql: "create macro __slp_variant_text(x) as list_transform([cast(x as json)], lambda j: case when j is null or json_type(j) = 'NULL' then null when json_type(j) = 'VARCHAR' then json_extract_string(j, '$') when json_type(j) = 'DOUBLE' or (json_type(j) in ('OBJECT', 'ARRAY') and regexp_matches(cast(json_structure(j) as varchar), '[:\\[,]\"DOUBLE\"[,\\]}]')) then error('the text of a VARIANT holding a fraction: slp does not reproduce how Snowflake writes its numbers') else cast(j as varchar) end)[1]",
  },
  // A cast to text: of a VARIANT its text, of anything else DuckDB's cast.
  __slp_sf_text: {
    sql: "create macro __slp_sf_text(v) as list_transform([v], lambda x: case when typeof(x) = 'JSON' then __slp_variant_text(x) else cast(x as varchar) end)[1]",
    needs: ["__slp_variant_text"],
  },
  // TO_JSON: a VARIANT's JSON text (a string keeps its quotes).
  __slp_variant_json: {
    sql: "create macro __slp_variant_json(x) as list_transform([__slp_to_variant(x)], lambda j: case when j is null then null when json_type(j) = 'DOUBLE' or (json_type(j) in ('OBJECT', 'ARRAY') and regexp_matches(cast(json_structure(j) as varchar), '[:\\[,]\"DOUBLE\"[,\\]}]')) then error('the JSON text of a VARIANT holding a fraction: slp does not reproduce how Snowflake writes its numbers') else cast(j as varchar) end)[1]",
    needs: ["__slp_to_variant"],
  },
  // v:a.b, GET, GET_PATH: the value at a JSON path (a JSON null there stays a JSON null; nothing there is NULL).
  __slp_variant_get: {
    sql: "create macro __slp_variant_get(v, path) as list_transform([v], lambda x: case when typeof(x) = 'JSON' then json_extract(cast(x as json), path) when x is null then null else error('a path into a ' || typeof(x) || ' value: slp reads paths of VARIANT, OBJECT and ARRAY values') end)[1]",
  },
  // x[i]: an ARRAY (JSON) counts from 0, a list slp holds as DuckDB's from 1.
  __slp_sf_element: {
    sql: "create macro __slp_sf_element(v, n) as list_transform([struct_pack(x := v, i := n)], lambda p: case when typeof(p.x) = 'JSON' then case when p.i >= 0 then p.x[p.i] end else p.x[p.i + 1] end)[1]",
  },
  // OBJECT_CONSTRUCT(_KEEP_NULL): keys and VARIANT values side by side; a NULL key, or (not keep_null) a NULL value, leaves its pair out.
  __slp_object_construct: {
    sql: "create macro __slp_object_construct(keep_null, ks, vs) as __slp_variant(to_json(map_from_entries(list_filter(list_transform(range(1, len(ks) + 1), lambda i: struct_pack(k := cast(ks[i] as varchar), v := cast(vs[i] as json))), lambda e: e.k is not null and (keep_null or e.v is not null)))))",
  },
  // ARRAY_CONSTRUCT: a NULL element is Snowflake's `undefined`, which JSON has no form for: an error. _COMPACT leaves NULLs out.
  __slp_array_construct: {
    sql: "create macro __slp_array_construct(es, compact) as case when compact then to_json(list_filter(es, lambda e: e is not null)) when list_bool_or(list_transform(es, lambda e: e is null)) then error('ARRAY_CONSTRUCT of a NULL: Snowflake holds it as undefined, which slp does not') else to_json(es) end",
  },
  __slp_array_size: {
    sql: "create macro __slp_array_size(v) as list_transform([v], lambda x: case when typeof(x) = 'JSON' then case when json_type(cast(x as json)) = 'ARRAY' then json_array_length(cast(x as json)) end else len(x) end)[1]",
  },
  // ARRAY_CONTAINS(value, array): whether a VARIANT equal to the value (by canonical JSON) is an element.
  __slp_array_contains: {
    sql: "create macro __slp_array_contains(v, a) as list_transform([struct_pack(v := __slp_to_variant(v), a := __slp_to_array(a))], lambda p: case when p.v is null or p.a is null then null else list_contains(list_transform(json_extract(p.a, '$[*]'), lambda e: __slp_json_canon(e)), __slp_json_canon(p.v)) end)[1]",
    needs: ["__slp_to_variant", "__slp_to_array"],
  },
  // ARRAY_TO_STRING: each element's text, a NULL (or JSON null) one empty.
  __slp_array_to_string: {
    sql: "create macro __slp_array_to_string(a, sep) as list_transform([__slp_to_array(a)], lambda j: case when j is null or sep is null then null else array_to_string(list_transform(json_extract(j, '$[*]'), lambda e: coalesce(__slp_variant_text(e), '')), sep) end)[1]",
    needs: ["__slp_to_array", "__slp_variant_text"],
  },
  __slp_strip_null_value: {
    sql: "create macro __slp_strip_null_value(x) as list_transform([__slp_to_variant(x)], lambda v: case when json_type(v) = 'NULL' then null else v end)[1]",
    needs: ["__slp_to_variant"],
  },
  // FLATTEN's rows of one value: an array's elements (PATH [i], INDEX i), an object's fields in key order (KEY and
  // PATH the key, ['key'] for one with other characters than letters, digits, _ and $); none for NULL; a scalar is an
  // error (slp has not verified what Snowflake makes of one).
  __slp_flatten_rows: {
    sql: "create macro __slp_flatten_rows(x) as list_transform([__slp_to_variant(x)], lambda j: case when j is null then [] when json_type(j) = 'ARRAY' then list_transform(range(cast(json_array_length(j) as bigint)), lambda i: struct_pack(k := cast(null as varchar), p := '[' || i || ']', i := i, v := json_extract(j, '$[' || i || ']'))) when json_type(j) = 'OBJECT' then list_transform(list_sort(json_keys(j)), lambda k: struct_pack(k := k, p := case when regexp_full_match(k, '[A-Za-z_$][A-Za-z0-9_$]*') then k else '[''' || k || ''']' end, i := cast(null as bigint), v := json_extract(j, '$.' || to_json(k)))) else error('FLATTEN of a VARIANT ' || lower(json_type(j)) || ': slp flattens arrays and objects') end)[1]",
    needs: ["__slp_to_variant"],
  },
  // LATERAL FLATTEN(INPUT => x[, OUTER => b]) as a table: KEY, PATH, INDEX, VALUE, THIS (SEQ, an arbitrary number, is
  // left out: a query that reads it is DuckDB's error); OUTER gives one row of NULLs for an input with none.
  __slp_flatten: {
    sql: "create macro __slp_flatten(x, outer_rows) as table select r.k as key, r.p as path, r.i as index, r.v as value, __slp_to_variant(x) as this from (select unnest(case when outer_rows and len(__slp_flatten_rows(x)) = 0 then [struct_pack(k := cast(null as varchar), p := cast(null as varchar), i := cast(null as bigint), v := cast(null as json))] else __slp_flatten_rows(x) end) as r)",
    needs: ["__slp_flatten_rows", "__slp_to_variant"],
  },
  // TYPEOF of a VARIANT: its JSON kind in Snowflake's words. A fraction is refused: Snowflake says DECIMAL or DOUBLE
  // by how the number was written (123.12, 1.912e2), which slp's held form does not keep.
  __slp_variant_typeof: {
    sql: "create macro __slp_variant_typeof(x) as list_transform([__slp_to_variant(x)], lambda j: case when j is null then null when json_type(j) in ('BIGINT', 'UBIGINT', 'HUGEINT') then 'INTEGER' when json_type(j) = 'NULL' then 'NULL_VALUE' when json_type(j) in ('VARCHAR', 'BOOLEAN', 'OBJECT', 'ARRAY') then json_type(j) else error('TYPEOF of a VARIANT ' || lower(json_type(j)) || ': slp does not keep whether Snowflake reads it as a DECIMAL or a DOUBLE') end)[1]",
    needs: ["__slp_to_variant"],
  },
  // IS_ARRAY, IS_OBJECT, IS_BOOLEAN, IS_VARCHAR (IS_CHAR), IS_NULL_VALUE: whether the VARIANT holds that kind; NULL for NULL.
  __slp_variant_is: {
    sql: "create macro __slp_variant_is(x, kind) as list_transform([__slp_to_variant(x)], lambda j: case when j is null then null else json_type(j) = kind end)[1]",
    needs: ["__slp_to_variant"],
  },
  // A VARIANT compared with a literal (v:kind = 'click'). Snowflake's coercion direction is not one slp has verified,
  // and it decides the answer only when the kinds differ (the number 55 and the text '55'; a JSON null and any text):
  // equal kinds (or two numbers) compare as VARIANTs, by canonical JSON (5.0 = 5); other kinds are an error.
  __slp_variant_eq: {
    sql: "create macro __slp_variant_eq(v, lit) as list_transform([struct_pack(j := __slp_to_variant(v), l := __slp_to_variant(lit))], lambda p: case when p.j is null or p.l is null then null when json_type(p.j) = json_type(p.l) or (json_type(p.j) in ('BIGINT', 'UBIGINT', 'HUGEINT', 'DOUBLE') and json_type(p.l) in ('BIGINT', 'UBIGINT', 'HUGEINT', 'DOUBLE')) then __slp_json_canon(p.j) = __slp_json_canon(p.l) else error('comparing a VARIANT ' || lower(json_type(p.j)) || ' with a ' || lower(json_type(p.l)) || ': slp has not verified which way Snowflake coerces them (cast the VARIANT, e.g. v:a::string)') end)[1]",
    needs: ["__slp_to_variant"],
  },
  __slp_variant_in: {
    sql: "create macro __slp_variant_in(v, lits) as case when v is null then null else list_bool_or(list_transform(lits, lambda l: __slp_variant_eq(v, l))) end",
    needs: ["__slp_variant_eq"],
  },
  __slp_object_keys: {
    sql: "create macro __slp_object_keys(x) as list_transform([__slp_to_object(x)], lambda o: case when o is null then null else to_json(list_sort(json_keys(o))) end)[1]",
    needs: ["__slp_to_object"],
  },
};

/** slp's DuckDB macros every dialect shares. */
const SHARED_MACROS: Record<string, MacroDefinition> = {
  ...JSON_MACROS,
  ...NESTED_MACROS,
  // JSON text slp's JSON functions printed, typed JSON for what reads it (a fixture column, a set operation with one).
  __slp_as_json: { sql: "create macro __slp_as_json(x) as cast(x as json)" },
  // BigQuery's STRING(json): a JSON string's characters (`text`, slp's JSON function of x, only read for a JSON value,
  // which JSON_QUERY gives as text in slp);
  // STRING(timestamp) is another function, which slp has not verified. (A macro cannot name a function registered later.)
  __slp_json_string: {
    sql: "create macro __slp_json_string(x, text) as case when typeof(x) in ('JSON', 'VARCHAR') then text else error('STRING of a ' || typeof(x) || ': slp runs STRING of a JSON value only') end",
  },
  // Postgres's and Redshift's || of two values slp could not type when it translated: two JSON values (jsonb, which
  // merge as jsonb; SUPER) are refused here; anything else concatenates as DuckDB's || does.
  __slp_pg_concat: {
    sql: "create macro __slp_pg_concat(a, b) as case when typeof(a) = 'JSON' and typeof(b) = 'JSON' then error('|| of two JSON values (Postgres jsonb, Redshift SUPER): slp cannot tell their concatenation from text concatenation where it translated it; cast both operands (::jsonb) in Postgres') else a || b end",
  },
  // A list of text slp's JSON functions give as the JSON text of it.
  __slp_text_list: { sql: "create macro __slp_text_list(x) as from_json(x, '[\"VARCHAR\"]')" },
  // BigQuery's x[OFFSET(i)] (base 0) or x[ORDINAL(i)] (base 1): of a JSON value DuckDB's 0-based index (NULL out of
  // range, as BigQuery's JSON subscript is), of an array its 1-based one; past either end an error unless SAFE_.
  __slp_bq_index: {
    sql: "create macro __slp_bq_index(x, i, base, strict) as case when typeof(x) = 'JSON' then case when i - base >= 0 then x[i - base] end when i - base < 0 or i - base >= len(x) then case when strict then error('Array index ' || i || ' is out of bounds (BigQuery raises this error; SAFE_OFFSET and SAFE_ORDINAL give NULL)') end else x[i - base + 1] end",
  },
  __slp_regexp_contains: { sql: "create macro __slp_regexp_contains(value, pattern) as regexp_matches(value, pattern)" },
  __slp_regexp_full_match: { sql: "create macro __slp_regexp_full_match(value, pattern) as regexp_full_match(value, pattern)" },
  // A text a Postgres pattern reads with a class or case folding that follows the database's locale beyond ASCII
  // (posix-regex.ts): ASCII text reads the same in every locale; any other is an error naming it, never a guess.
  __slp_posix_text: {
    sql: "create macro __slp_posix_text(value) as case when regexp_matches(value, '[^\\x00-\\x7F]') then error('the text ' || value || ' has characters beyond ASCII, where this pattern''s classes or case folding follow the database''s locale: slp has not verified them') else value end",
  },
  __slp_regexp_extract: {
    sql: "create macro __slp_regexp_extract(value, pattern, grp) as case when regexp_matches(value, pattern) then regexp_extract(value, pattern, grp) end",
  },
  __slp_add_months_eom: {
    sql: "create macro __slp_add_months_eom(d, n) as case when last_day(d) = cast(d as date) then cast(last_day(d + to_months(cast(n as integer))) as timestamp) else cast(d as timestamp) + to_months(cast(n as integer)) end",
  },
  // A LIKE pattern computed at run time, checked as the warehouse checks it with the backslash as its escape
  // (like.ts): the last character must not be an unpaired escape (Postgres: "LIKE pattern must not end with escape
  // character"); before any character but _, % and itself an escape is that character (itself), an error (error,
  // Databricks), or undocumented (unverified, BigQuery). DuckDB would read a trailing escape as no match.
  __slp_like_pattern: {
    sql: "create macro __slp_like_pattern(p, other) as case when regexp_matches(regexp_replace(p, '\\\\[\\s\\S]', '', 'g'), '\\\\') then error('LIKE pattern ' || p || ' ends with the escape character \\') when other <> 'itself' and regexp_matches(regexp_replace(p, '\\\\[\\\\_%]', '', 'g'), '\\\\') then error('LIKE pattern ' || p || ' escapes a character other than \\, _ or %: ' || case when other = 'error' then 'an error in Databricks' else 'BigQuery documents escaping \\, _ and % only' end) else p end",
  },
  // BigQuery's ARRAY_AGG(... LIMIT n): the first n elements, after its ORDER BY (DuckDB's aggregates take no LIMIT).
  __slp_list_head: { sql: "create macro __slp_list_head(l, n) as list_slice(l, 1, n)" },
  // BigQuery's CODE_POINTS_TO_STRING: each code point its character, NULL if the array or any element is NULL.
  __slp_code_points_to_string: {
    sql: "create macro __slp_code_points_to_string(a) as case when list_bool_or(list_transform(a, lambda x: x is null)) then null else array_to_string(list_transform(a, lambda x: chr(cast(x as integer))), '') end",
  },
  __slp_strftime: { sql: "create macro __slp_strftime(value, format) as strftime(value, format)" },
  // Text read by a strptime format (Postgres and Redshift to_date / to_timestamp, format-models.ts): its letters in any case.
  __slp_strptime: { sql: "create macro __slp_strptime(value, format) as strptime(value, format)" },
  // Databricks in ANSI mode: a value CAST cannot convert is an error, not NULL.
  __slp_ansi_cast: {
    sql: "create macro __slp_ansi_cast(value, cast_value) as case when cast_value is null and value is not null then error('[CAST_INVALID_INPUT] ' || cast(value as varchar) || ' cannot be cast (Databricks runs CAST in ANSI mode)') else cast_value end",
  },
  // Spark's text of a value cast to an integer type: a fraction is truncated (DuckDB rounds); text must be an integer (or, without ANSI mode, a decimal, truncated).
  __slp_spark_integral_text: {
    sql: "create macro __slp_spark_integral_text(x, lenient) as list_transform([struct_pack(k := __slp_kind(typeof(x)), bool := typeof(x) = 'BOOLEAN', t := trim(cast(x as varchar)))], lambda c: case when c.bool then case when c.t = 'true' then '1' when c.t = 'false' then '0' end when c.k in ('float', 'decimal') then regexp_extract(c.t, '^(-?[0-9]+)', 1) when c.k = 'integer' then c.t when regexp_full_match(c.t, '[+-]?[0-9]+') then c.t when lenient and regexp_full_match(c.t, '[+-]?[0-9]*[.][0-9]*') then regexp_extract(c.t, '^([+-]?[0-9]*)', 1) end)[1]",
    needs: ["__slp_kind"],
  },
  // A part number Snowflake reads as NUMBER (a column of NUMBER(38, 0), or a literal): a BIGINT for DuckDB's split_part, which
  // takes no DECIMAL; a fraction is an error slp names (Snowflake's reading of one is not documented).
  __slp_whole_index: {
    sql: "create macro __slp_whole_index(n) as case when n <> trunc(n) then error('a part number with a fraction (' || cast(n as varchar) || '): slp has not verified how the warehouse reads it') else cast(n as bigint) end",
  },
  __slp_part_index: {
    sql: "create macro __slp_part_index(n) as case when n = 0 then error('[INVALID_INDEX_OF_ZERO] split_part counts parts from 1 (or -1)') else n end",
  },
  // INITCAP: a letter after a separator (or first) upper case, every other letter lower case. The separators are
  // the warehouse's (`kind`), held here in DuckDB's own string syntax so no dialect's escapes touch them:
  // alphanumeric (Postgres, Redshift): any character not a letter or digit; whitespace (Databricks, Spark);
  // delimiters (Snowflake's and BigQuery's defaults, the same set): whitespace and ! ? @ " ^ # $ & ~ _ , . : ; + - * % / | \ [ ] ( ) { } < >.
  __slp_initcap: {
    sql: "create macro __slp_initcap(s, kind) as list_transform([struct_pack(chars := string_split(s, ''), separator := case kind when 'alphanumeric' then '[^\\p{L}\\p{N}]' when 'whitespace' then '\\s' else '[\\s!?@\"^#$&~_,.:;+*%/|\\\\\\[\\](){}<>-]' end)], lambda w: array_to_string(list_transform(w.chars, lambda c, i: case when i = 1 or regexp_full_match(w.chars[i - 1], w.separator) then upper(c) else lower(c) end), ''))[1]",
  },
  __slp_regexp_count: { sql: "create macro __slp_regexp_count(value, pattern) as len(regexp_extract_all(value, pattern))" },
  // MONTHS_BETWEEN (Snowflake, Redshift): whole months when the days match or both are month-ends, else the
  // difference of the days (with the time of day) over a 31-day month.
  __slp_months_between: {
    sql: "create macro __slp_months_between(a, b) as list_transform([struct_pack(a := cast(a as timestamp), b := cast(b as timestamp))], lambda d: (year(d.a) - year(d.b)) * 12 + month(d.a) - month(d.b) + case when day(d.a) = day(d.b) or (cast(d.a as date) = last_day(d.a) and cast(d.b as date) = last_day(d.b)) then 0 else (day(d.a) - day(d.b) + (epoch(d.a) - epoch(date_trunc('day', d.a)) - epoch(d.b) + epoch(date_trunc('day', d.b))) / 86400) / 31 end)[1]",
  },
  // A value that must be a DATE (slp has not verified the warehouse's reading of a time of day there).
  __slp_date_only: {
    sql: "create macro __slp_date_only(x, what) as case when typeof(x) in ('DATE', 'VARCHAR', '\"NULL\"') then x else error(what || ' of a ' || typeof(x) || ': slp verified it for dates only') end",
  },
  // A number cast to an integer type rounds half away from zero (BigQuery; DuckDB rounds a DOUBLE half to even): the value as text DuckDB's cast reads so.
  __slp_integral_half_away: {
    sql: "create macro __slp_integral_half_away(x) as case when __slp_kind(typeof(x)) = 'float' then cast(round(try_cast(x as double)) as varchar) when typeof(x) = 'BOOLEAN' then cast(cast(try_cast(x as boolean) as integer) as varchar) else cast(x as varchar) end",
    needs: ["__slp_kind"],
  },
  __slp_regexp_replace_first: {
    sql: "create macro __slp_regexp_replace_first(value, pattern, replacement) as regexp_replace(value, pattern, replacement)",
  },
  __slp_regexp_replace_all: {
    sql: "create macro __slp_regexp_replace_all(value, pattern, replacement) as regexp_replace(value, pattern, replacement, 'g')",
  },
  // Boundaries of a part below a day crossed from a to b, on the timestamps (Snowflake DATEDIFF(minute, ...)).
  __slp_time_diff: { sql: "create macro __slp_time_diff(part, a, b) as date_diff(part, cast(a as timestamp), cast(b as timestamp))" },
  // Whole units elapsed from a to b (BigQuery TIMESTAMP_DIFF), where DuckDB's date_diff counts boundaries.
  __slp_elapsed: { sql: "create macro __slp_elapsed(part, a, b) as date_sub(part, a, b)" },
  __slp_date_from_unix_date: { sql: "create macro __slp_date_from_unix_date(n) as cast('1970-01-01' as date) + cast(n as integer)" },
  // The start of d's week when weeks start on day k (0 Sunday ... 6 Saturday), as BigQuery's DATE_TRUNC(d, WEEK(<day>)).
  __slp_week_start: {
    sql: "create macro __slp_week_start(d, k) as cast(d as date) - cast((dayofweek(cast(d as date)) - k + 7) % 7 as integer)",
  },
  // A date part of a value Spark reads as a timestamp (text too, as Spark casts it).
  __slp_part: { sql: "create macro __slp_part(part, x) as date_part(part, cast(x as timestamp))" },
  // BigQuery INSTR: the position of the n-th (overlapping) occurrence, searching forward from p, or backward from the p-th character from the end when p < 0; 0 when there is none.
  __slp_instr: {
    sql: "create macro __slp_instr(s, t, p, n) as case when s is null or t is null or p is null or n is null then null when p = 0 then error('INSTR position 0 is an error in BigQuery') when n <= 0 then error('INSTR occurrence must be positive in BigQuery') else coalesce(list_transform([list_filter(range(1, length(s) + 1), lambda i: substr(s, i, length(t)) = t)], lambda m: case when p > 0 then list_filter(m, lambda i: i >= p)[n] else list_reverse(list_filter(m, lambda i: i <= length(s) + p + 1))[n] end)[1], 0) end",
  },
  // Snowflake reads an epoch number by its size: seconds below 31536000000, then milliseconds, microseconds, nanoseconds.
  __slp_snowflake_epoch: {
    sql: "create macro __slp_snowflake_epoch(n) as cast(to_timestamp(cast(n as double) / case when abs(n) < 31536000000 then 1 when abs(n) < 31536000000000 then 1000 when abs(n) < 31536000000000000 then 1000000 else 1000000000 end) as timestamp)",
  },
  // CEIL and FLOOR to a scale, on the exact digits (the transpiler multiplied by a DOUBLE power of ten: FLOOR(1.13, 2) came out 1.12).
  __slp_ceil_scale: {
    sql: "create macro __slp_ceil_scale(x, s) as case when s >= 38 then x when s >= 0 then ceil(x * __slp_pow10(s)) / __slp_pow10(s) else ceil(x / __slp_pow10(-s)) * __slp_pow10(-s) end",
    needs: ["__slp_pow10"],
  },
  __slp_floor_scale: {
    sql: "create macro __slp_floor_scale(x, s) as case when s >= 38 then x when s >= 0 then floor(x * __slp_pow10(s)) / __slp_pow10(s) else floor(x / __slp_pow10(-s)) * __slp_pow10(-s) end",
    needs: ["__slp_pow10"],
  },
  // The first match of the pattern (the whole match, not a group); NULL when nothing matches.
  __slp_regexp_substr: {
    sql: "create macro __slp_regexp_substr(value, pattern) as case when regexp_matches(value, pattern) then regexp_extract(value, pattern, 0) end",
  },
  // Snowflake STRTOK: the n-th token between any of the delimiter characters, empty tokens skipped; NULL past the last.
  __slp_strtok: {
    sql: "create macro __slp_strtok(s, delimiters, n) as list_filter(string_split(translate(s, delimiters, repeat(chr(1), length(delimiters))), chr(1)), lambda part: part <> '')[n]",
  },
  // Snowflake ARRAY_DISTINCT: the first of each element, in order; NULLs are equal to each other, so one stays.
  __slp_array_distinct: {
    sql: "create macro __slp_array_distinct(a) as list_filter(a, lambda x, i: list_position(a, x) = i)",
  },
  // Snowflake JSON_EXTRACT_PATH_TEXT: the text of a string, integer or boolean at the path; NULL where the path
  // leads nowhere or to a JSON null. Snowflake writes an object, an array or a fraction its own way (key order,
  // number format), which slp does not reproduce: an error naming it, never another text.
  __slp_json_path_text: {
    sql: "create macro __slp_json_path_text(j, p) as list_transform([json_extract(j, p)], lambda v: case when typeof(j) = 'JSON' and json_type(cast(j as json)) = 'VARCHAR' then error('JSON_EXTRACT_PATH_TEXT of a VARIANT string: slp has not verified how Snowflake reads its text') when v is null or json_type(v) = 'NULL' then null when json_type(v) = 'VARCHAR' then json_extract_string(v, '$') when json_type(v) in ('BIGINT', 'UBIGINT', 'BOOLEAN') then cast(v as varchar) else error('JSON_EXTRACT_PATH_TEXT of a JSON ' || lower(json_type(v)) || ' value: slp does not reproduce Snowflake''s text of an object, an array or a fraction') end)[1]",
  },
  // BigQuery SUBSTR: a position of 0, or before the start of the text, starts at 1; -1 is the last character; a
  // negative length is an error. DuckDB's substring counts the characters before the start against the length.
  __slp_bigquery_substr: {
    sql: "create macro __slp_bigquery_substr(s, p, n, has_length) as case when has_length and n < 0 then error('SUBSTR of a negative length is an error in BigQuery') else substring(s, case when p = 0 or p < -length(s) then 1 when p < 0 then length(s) + p + 1 else p end, case when has_length then n else greatest(length(s), 0) end) end",
  },
  // A count of units to add (Databricks TIMESTAMPADD): a whole number; a fraction is an error slp names.
  __slp_whole_count: {
    sql: "create macro __slp_whole_count(n) as case when n <> trunc(n) then error('a fraction of a unit (' || cast(n as varchar) || '): slp has not verified how the warehouse counts it') else cast(n as bigint) end",
  },
  // MAKE_DATE (Databricks, Spark): a date from fields in bounds; out of bounds NULL (lenient) or an error. The
  // bounds are checked on clamped fields, so no call of DuckDB's make_date sees a field it rejects.
  __slp_make_date: {
    sql: "create macro __slp_make_date(y, m, d, strict) as case when y is null or m is null or d is null then null when y between 1 and 9999 and m between 1 and 12 and d between 1 and day(last_day(make_date(cast(least(greatest(y, 1), 9999) as bigint), cast(least(greatest(m, 1), 12) as bigint), 1))) then make_date(cast(y as bigint), cast(m as bigint), cast(d as bigint)) when strict then error('[DATETIME_FIELD_OUT_OF_BOUNDS] make_date(' || y || ', ' || m || ', ' || d || '): Databricks SQL returns NULL, Databricks Runtime in ANSI mode raises this error; slp cannot tell which runs the model') end",
  },
  __slp_array_agg_ignore_nulls: {
    sql: "create macro __slp_array_agg_ignore_nulls(value) as array_agg(value) filter (where value is not null)",
  },
};

const macrosByDialect = new Map<Warehouse | "all", Record<string, MacroDefinition>>();

/**
 * slp's DuckDB macros a dialect's translated SQL may call, created in the
 * database only when a model calls one (after the macros each needs): the
 * shared ones and that warehouse's division macros, so a run reads no other
 * warehouse's file. Without a dialect, every warehouse's.
 */
export function dialectMacros(dialect?: Warehouse): Record<string, MacroDefinition> {
  const key = dialect ?? "all";
  let macros = macrosByDialect.get(key);
  if (!macros) {
    macros = { ...divisionMacroDefinitions(dialect ? [warehouse(dialect)] : Object.values(WAREHOUSES)), ...SHARED_MACROS };
    macrosByDialect.set(key, macros);
  }
  return macros;
}

/** The CREATE MACRO statements for `names` and every macro they need, each once, a macro after those it needs. */
export function macroStatements(
  names: Iterable<string>,
  created: Set<string> = new Set(),
  macros: Record<string, MacroDefinition> = dialectMacros(),
): string[] {
  const statements: string[] = [];
  const visit = (name: string) => {
    if (created.has(name)) return;
    created.add(name);
    const definition = macros[name];
    if (!definition) throw new Error(`slp has no macro ${name}`);
    for (const needed of definition.needs ?? []) visit(needed);
    statements.push(definition.sql);
  };
  for (const name of names) visit(name);
  return statements;
}
