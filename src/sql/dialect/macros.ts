/** slp's DuckDB macros the translated SQL calls, and the statements that create them. */
import { divisionMacroDefinitions, type MacroDefinition } from "./arithmetic.ts";
import { WAREHOUSES } from "./warehouses/index.ts";

/** slp's DuckDB macros, created in the database only when a translated model calls one (after the macros each needs). */
export const MACROS: Record<string, MacroDefinition> = {
  ...divisionMacroDefinitions(Object.values(WAREHOUSES)),
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
    sql: "create macro __slp_json_path_text(j, p) as list_transform([json_extract(j, p)], lambda v: case when v is null or json_type(v) = 'NULL' then null when json_type(v) = 'VARCHAR' then json_extract_string(v, '$') when json_type(v) in ('BIGINT', 'UBIGINT', 'BOOLEAN') then cast(v as varchar) else error('JSON_EXTRACT_PATH_TEXT of a JSON ' || lower(json_type(v)) || ' value: slp does not reproduce Snowflake''s text of an object, an array or a fraction') end)[1]",
  },
  // TRY_PARSE_JSON read by JSON_EXTRACT_PATH_TEXT: the text when it is JSON, else NULL. A JSON string would reach
  // JSON_EXTRACT_PATH_TEXT as its bare value, which Snowflake parses again: an error naming it.
  __slp_try_parse_json_text: {
    sql: "create macro __slp_try_parse_json_text(x) as case when json_valid(x) then case when json_type(x) = 'VARCHAR' then error('TRY_PARSE_JSON of a JSON string read as JSON again: slp has not verified it') else x end end",
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
