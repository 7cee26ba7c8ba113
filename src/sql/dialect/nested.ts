/**
 * Databricks/Spark nested values (arrays, maps, structs) on DuckDB: the
 * constructors, accessors, generators and aggregates, each with Spark's NULL,
 * bounds and ordering rules, as table entries (constructs.ts) and the DuckDB
 * macros they call. What DuckDB cannot tell from the SQL text (is `x` an array
 * or a map?) the macros read from the value's type at run time (`typeof`), and
 * Spark's text of a nested value is slp's own function (src/engine/spark-text.ts).
 * Databricks SQL runs in ANSI mode (an index out of bounds is an error); Spark
 * (dbt-spark, 3.x defaults) without it (NULL).
 */
import { BQ, DBX, ex, refused, translated, type Call, type Construct } from "./construct.ts";
import { type JsonSchema, jsonPath, SparkJsonError, schemaOfJson } from "../../core/spark-json.ts";
import type { MacroDefinition } from "./arithmetic.ts";

const SPARK = (name: string) => `https://spark.apache.org/docs/latest/api/sql/index.html#${name}`;
/** Databricks' page on the cast of a value to STRING: an array `[e1, e2]`, a map `{k -> v}`, a struct `{v1, v2}`, a NULL member `null`. */
const DBX_CAST = DBX("cast");

/** CAST(x AS STRING) of an array, a map and a struct, as the cast page writes them. */
export const NESTED_CAST_EXAMPLES = [
  ex("select cast(array(1, null, 3) as string)", ["[1, null, 3]"], DBX_CAST),
  ex("select cast(map('a', 1, 'b', cast(null as int)) as string)", ["{a -> 1, b -> null}"], DBX_CAST),
  ex("select cast(named_struct('a', 1, 'b', 'hello') as string)", ["{1, hello}"], DBX_CAST),
];

/** A nested type as DuckDB's typeof() names it: a list, a fixed array, a map or a struct. */
const NESTED_TYPE = "'^(MAP|STRUCT)\\(|\\]$'";

export const NESTED_MACROS: Record<string, MacroDefinition> = {
  // CAST(x AS STRING): Spark's text of an array, map or struct (slp's function); any other value as DuckDB casts it.
  __slp_nested_spark_string: {
    sql: `create macro __slp_nested_spark_string(x) as case when regexp_matches(typeof(x), ${NESTED_TYPE}) then __slp_nested_string(x) else cast(x as varchar) end`,
  },
  // MAP(k1, v1, ...) and MAP_FROM_ARRAYS: a duplicate or NULL key is an error in both (Spark's mapKeyDedupPolicy EXCEPTION).
  __slp_spark_map: { sql: "create macro __slp_spark_map(k, v) as map(k, v)" },
  // ELEMENT_AT(array, i): 1-based, negative from the end; 0 is an error; past the end an error in ANSI mode, else NULL.
  // ELEMENT_AT(map, key): the value, NULL for a key it has not.
  __slp_nested_element_at: {
    sql: "create macro __slp_nested_element_at(c, i, ansi) as case when c is null or i is null then null when typeof(c) like 'MAP(%' then c[i] when try_cast(i as bigint) = 0 then error('[INVALID_INDEX_OF_ZERO] element_at counts from 1 (or from -1 at the end)') when abs(try_cast(i as bigint)) > __slp_nested_size(c) then case when ansi then error('[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index ' || cast(i as varchar) || ' is out of bounds. The array has ' || cast(__slp_nested_size(c) as varchar) || ' elements.') end else c[i] end",
  },
  // array[i]: 0-based, out of bounds (negative too) an error in ANSI mode, else NULL; map[key]: the value or NULL.
  __slp_nested_subscript: {
    sql: "create macro __slp_nested_subscript(c, i, ansi) as case when c is null or i is null then null when typeof(c) like 'MAP(%' then c[i] when try_cast(i as bigint) < 0 or try_cast(i as bigint) >= __slp_nested_size(c) then case when ansi then error('[INVALID_ARRAY_INDEX] The index ' || cast(i as varchar) || ' is out of bounds. The array has ' || cast(__slp_nested_size(c) as varchar) || ' elements.') end else c[i + 1] end",
  },
  // ARRAY_CONTAINS: NULL for a NULL value, and for a value not found in an array that has a NULL.
  __slp_spark_array_contains: {
    sql: "create macro __slp_spark_array_contains(a, v) as case when a is null or v is null then null when list_contains(a, v) then true when list_bool_or(list_transform(a, lambda e: e is null)) then null else false end",
  },
  // FLATTEN: NULL when any inner array is NULL (DuckDB's flatten skips it).
  __slp_spark_flatten: {
    sql: "create macro __slp_spark_flatten(a) as case when list_bool_or(list_transform(a, lambda e: e is null)) then null else flatten(a) end",
  },
  // BigQuery's ARRAY_CONCAT: NULL when any argument is NULL (DuckDB's list_concat reads a NULL as an empty list).
  __slp_bigquery_array_concat: {
    sql: "create macro __slp_bigquery_array_concat(a, b) as case when a is null or b is null then null else list_concat(a, b) end",
  },
  // BigQuery's GENERATE_ARRAY: a step of 0 is an error (DuckDB's generate_series gives an empty list).
  __slp_nonzero_step: {
    sql: "create macro __slp_nonzero_step(s) as case when s = 0 then error('GENERATE_ARRAY: the step must not be 0') else s end",
  },
  // CONCAT_WS: NULL for a NULL separator (DuckDB's array_to_string joins with a comma), NULL arguments and elements skipped.
  __slp_spark_concat_ws: {
    sql: "create macro __slp_spark_concat_ws(sep, parts) as case when sep is null then null else array_to_string(parts, sep) end",
  },
  // ARRAY_DISTINCT: the first of each value in its order, one NULL kept (DuckDB's list_distinct drops it and reorders).
  __slp_spark_array_distinct: { sql: "create macro __slp_spark_array_distinct(a) as list_filter(a, lambda x, i: list_position(a, x) = i)" },
  // ARRAY_POSITION: 1-based, 0 when absent, NULL when the array or the value is NULL.
  __slp_spark_array_position: {
    sql: "create macro __slp_spark_array_position(a, v) as case when a is null or v is null then null else coalesce(list_position(a, v), 0) end",
  },
  // ARRAY_REMOVE: every element equal to the value dropped, NULL elements kept; NULL for a NULL value.
  __slp_spark_array_remove: {
    sql: "create macro __slp_spark_array_remove(a, v) as case when v is null then null else list_filter(a, lambda x: x is null or x <> v) end",
  },
  // SLICE(a, start, length): start 1-based or from the end when negative (0 an error), a negative length an error, [] before the start.
  __slp_spark_slice: {
    sql: "create macro __slp_spark_slice(a, s, n) as case when s = 0 then error('[INVALID_PARAMETER_VALUE.START] slice() counts from 1 (or from -1 at the end)') when n < 0 then error('[INVALID_PARAMETER_VALUE.LENGTH] slice() takes a length of 0 or more') when (case when s > 0 then s else len(a) + s + 1 end) < 1 then list_slice(a, 1, 0) else list_slice(a, case when s > 0 then s else len(a) + s + 1 end, (case when s > 0 then s else len(a) + s + 1 end) + n - 1) end",
  },
  // SEQUENCE(start, stop): both ends included, the step 1 or -1 by their order.
  __slp_spark_sequence: {
    sql: "create macro __slp_spark_sequence(a, b, step) as case when step = 0 then error('sequence() takes a step other than 0') when (b - a) * step < 0 then error('sequence(): the step ' || cast(step as varchar) || ' does not lead from ' || cast(a as varchar) || ' to ' || cast(b as varchar)) else generate_series(a, b, step) end",
  },
};

/** The subscript's macro for a dialect: Databricks (ANSI mode) or Spark (without it). */
export const subscriptOf = (ansi: boolean) => (container: string, index: string) =>
  `__slp_nested_subscript(${container}, ${index}, ${ansi})`;

/** `map(k1, v1, k2, v2, ...)` as the map of its keys' and values' arrays. */
function sparkMap(call: Call): string | { refuse: string } {
  if (call.args.length % 2 !== 0) return { refuse: "map() takes pairs of a key and a value" };
  const keys = call.args.filter((_, i) => i % 2 === 0);
  const values = call.args.filter((_, i) => i % 2 === 1);
  return `__slp_spark_map(list_value(${keys.join(", ")}), list_value(${values.join(", ")}))`;
}

/**
 * `struct(a, t.b, 1 + 1 as c, 2)`: a field is named by its alias, a column by
 * its name, anything else colN (its position): Spark's CreateStruct.
 */
function sparkStruct(call: Call): string | { refuse: string } {
  const fields: string[] = [];
  for (let i = 0; i < call.args.length; i++) {
    const written = (call.written[i] as string).trim();
    const value = (call.args[i] as string).trim();
    const aliased = /^([\s\S]+?)\s+as\s+(`[^`]+`|[A-Za-z_]\w*)$/i.exec(value);
    const column = /^(?:(?:`[^`]+`|[A-Za-z_]\w*)\.)*(`[^`]+`|[A-Za-z_]\w*)$/.exec(written);
    if (aliased) fields.push(field((aliased[2] as string).replace(/`/g, ""), aliased[1] as string));
    else if (column && !/^(null|true|false)$/i.test(written)) fields.push(field((column[1] as string).replace(/`/g, ""), value));
    else fields.push(field(`col${i + 1}`, value));
  }
  if (fields.length === 0) return { refuse: "struct() needs at least one field (DuckDB's structs have fields)" };
  return `struct_pack(${fields.join(", ")})`;
}

/** One field of DuckDB's struct_pack: its name quoted (the transpiler writes the backticks as DuckDB's quotes). */
function field(name: string, value: string): string {
  return `\`${name.replace(/`/g, "``")}\` := ${value}`;
}

/** `named_struct('a', 1, 'b', x)`: the names string literals. */
function namedStruct(call: Call): string | { refuse: string } {
  if (call.args.length === 0 || call.args.length % 2 !== 0) return { refuse: "named_struct() takes pairs of a name and a value" };
  const fields: string[] = [];
  for (let i = 0; i < call.args.length; i += 2) {
    const name = call.literal(i);
    if (name === null || !/^'/.test((call.written[i] as string).trim()))
      return { refuse: "named_struct() takes each field's name as a string literal" };
    fields.push(field(name, call.args[i + 1] as string));
  }
  return `struct_pack(${fields.join(", ")})`;
}

/** `sort_array(a [, ascending])`: NULLs first ascending, last descending; the order a literal. */
function sortArray(call: Call): string | { refuse: string } {
  const ascending = call.args.length < 2 ? "true" : (call.args[1] as string).trim().toLowerCase();
  if (call.args.length > 2 || !["true", "false"].includes(ascending))
    return { refuse: "slp translates sort_array(array [, true|false]) with a literal order" };
  return ascending === "true" ? `list_sort(${call.args[0]}, 'ASC', 'NULLS FIRST')` : `list_sort(${call.args[0]}, 'DESC', 'NULLS LAST')`;
}

/** COLLECT_LIST / COLLECT_SET: NULLs skipped, an empty array (not NULL) for a group with none; its window kept. */
function collect(distinct: boolean) {
  return (call: Call): string | { refuse: string } => {
    if (call.args.length !== 1) return { refuse: `${call.name}() takes one value` };
    const value = (call.args[0] as string).replace(/^\s*distinct\s+/i, "");
    const keyword = distinct || /^\s*distinct\s/i.test(call.args[0] as string) ? "distinct " : "";
    // The call's own FILTER (WHERE ...) joins the one that skips NULLs (DuckDB takes one FILTER clause).
    const filter = /^\s*filter\s*\(\s*where\s+([\s\S]*?)\)\s*(over\b[\s\S]*)?$/i.exec(call.window);
    const condition = filter ? ` and (${filter[1]})` : "";
    const window = filter ? ` ${filter[2] ?? ""}` : call.window;
    return `coalesce(array_agg(${keyword}${value}) filter (where (${value}) is not null${condition})${window.trimEnd()}, [])`;
  };
}

/** The generators in a select list (explode and kin): DuckDB's UNNEST, named as Spark names the column (col). */
function explode(outer: boolean) {
  return (call: Call): string | { refuse: string } => {
    if (call.args.length !== 1) return { refuse: `${call.name}() takes one array` };
    // `LATERAL VIEW [OUTER] explode(x)`: the transpiler writes the join of its UNNEST itself.
    if (call.before !== null && /(lateral view|view outer)$/.test(call.before)) return `${call.name}(${call.args[0]})`;
    const array = outer ? `(case when len(${call.args[0]}) > 0 then ${call.args[0]} else [null] end)` : call.args[0];
    // An alias after the call names the column; without one Spark names it col.
    const named =
      call.next !== null &&
      /^[A-Za-z_`]/.test(call.next) &&
      !/^(from|where|group|having|order|limit|union|intersect|except|window|qualify)$/.test(call.next);
    return `unnest(${array})${named ? "" : " as col"}`;
  };
}

export function sparkNested(ansi: boolean): Construct[] {
  const page = (name: string) => (ansi ? DBX(name) : SPARK(name));
  return [
    {
      name: "map",
      how: "corrected",
      note: "a MAP of the key and value pairs; a duplicate or NULL key is an error",
      rewrite: sparkMap,
      macros: ["__slp_spark_map"],
      examples: [
        ex("select cast(map(1.0, '2', 3.0, '4') as string)", ["{1.0 -> 2, 3.0 -> 4}"], DBX("map")),
        ex("select element_at(map(1, 'a', 2, 'b'), 2)", ["b"], DBX("element_at")),
        ex("select m[1] from values (map(1, 'Hello', 2, 'World')) as t(m)", ["Hello"], DBX("bracketsign")),
      ],
    },
    {
      name: "map_from_arrays",
      how: "corrected",
      note: "a MAP of the two arrays; a duplicate or NULL key, or arrays of unequal size, is an error",
      rewrite: (call) =>
        call.args.length === 2
          ? `__slp_spark_map(${call.args.join(", ")})`
          : { refuse: "map_from_arrays takes an array of keys and one of values" },
      macros: ["__slp_spark_map"],
      examples: [
        ex("select cast(map_from_arrays(array(1.0, 3.0), array('2', '4')) as string)", ["{1.0 -> 2, 3.0 -> 4}"], DBX("map_from_arrays")),
      ],
    },
    translated("map_keys", [ex("select map_keys(map(1, 'a', 2, 'b'))", ["[1, 2]"], DBX("map_keys"))]),
    translated("map_values", [ex("select map_values(map(1, 'a', 2, 'b'))", ["[a, b]"], DBX("map_values"))]),
    {
      name: "named_struct",
      how: "corrected",
      note: "field names are string literals (the transpiler left a struct followed by .field uncalled)",
      rewrite: namedStruct,
      examples: [
        ex("select to_json(named_struct('a', 1, 'b', 2, 'c', 3))", ['{"a":1,"b":2,"c":3}'], DBX("named_struct")),
        ex("select named_struct('a', 1, 'b', 'x').b", ["x"], DBX("named_struct")),
      ],
    },
    {
      name: "array",
      how: "corrected",
      note: "a list of the values (the transpiler left array(...) uncalled inside VALUES and some calls)",
      rewrite: (call) => `list_value(${call.args.join(", ")})`,
      examples: [
        ex("select size(array(1, 2, 3))", ["3"], DBX("array")),
        ex("select array(1, 2, 3)", ["[1, 2, 3]"], DBX("array")),
        ex("select max(a[1]) from values (array(10, 20)) as t(a)", ["20"], DBX("array")),
      ],
    },
    translated(
      "->",
      [ex("select transform(array(1, 2, 3), x -> x + 1)", ["[2, 3, 4]"], DBX("transform"))],
      "a lambda, in the functions that take one (transform, filter)",
    ),
    {
      name: "struct",
      how: "corrected",
      note: "a field is named by its alias, a column by its name, any other value colN (the transpiler left those unnamed)",
      rewrite: sparkStruct,
      examples: [
        ex("select to_json(struct(1, 'Hello'))", ['{"col1":1,"col2":"Hello"}'], DBX("struct")),
        ex("select to_json(struct(c1, 2 as x)) from values (5) as t(c1)", ['{"c1":5,"x":2}'], DBX("struct")),
      ],
    },
    {
      name: "to_json",
      how: "corrected",
      note: "Spark's JSON of a struct, array or map (a NULL field left out); an options argument, and a float, timestamp or binary member, are refused",
      rewrite: (call) =>
        call.args.length === 1 ? `__slp_nested_json(${call.args[0]})` : { refuse: "slp translates to_json(expr) without options" },
      examples: [
        ex("select to_json(named_struct('a', 1, 'b', 2))", ['{"a":1,"b":2}'], DBX("to_json")),
        ex("select to_json(array(named_struct('a', 1, 'b', 2)))", ['[{"a":1,"b":2}]'], DBX("to_json")),
        ex("select to_json(map('a', named_struct('b', 1)))", ['{"a":{"b":1}}'], DBX("to_json")),
        ex("select to_json(map('a', 1))", ['{"a":1}'], DBX("to_json")),
        ex("select to_json(array((map('a', 1))))", ['[{"a":1}]'], DBX("to_json")),
      ],
    },
    {
      name: "element_at",
      how: "corrected",
      note: ansi
        ? "1-based, negative from the end; index 0, and an index past the end, are errors (ANSI mode); a map's missing key is NULL"
        : "1-based, negative from the end; index 0 is an error, past the end NULL (ANSI mode off); a map's missing key is NULL",
      rewrite: (call) =>
        call.args.length === 2
          ? `__slp_nested_element_at(${call.args.join(", ")}, ${ansi})`
          : { refuse: "element_at takes an array or map and an index or key" },
      macros: ["__slp_nested_element_at"],
      examples: [
        ex("select element_at(array(1, 2, 3), 2)", ["2"], page("element_at")),
        ex("select element_at(array(1, 2, 3), -1)", ["3"], page("element_at")),
        ex("select element_at(map(1, 'a', 2, 'b'), 2)", ["b"], page("element_at")),
        ex("select element_at(map(1, 'a', 2, 'b'), 3)", [null], page("element_at")),
        ...(ansi ? [] : [ex("select element_at(array(1, 2, 3), 5)", [null], SPARK("element_at"))]),
      ],
    },
    {
      name: "try_element_at",
      how: "corrected",
      note: "as element_at, NULL past the end",
      rewrite: (call) =>
        call.args.length === 2
          ? `__slp_nested_element_at(${call.args.join(", ")}, false)`
          : { refuse: "try_element_at takes an array or map and an index or key" },
      macros: ["__slp_nested_element_at"],
      examples: [
        ex("select try_element_at(array(1, 2, 3), 5)", [null], DBX("try_element_at")),
        ex("select try_element_at(map(1, 'a', 2, 'b'), 3)", [null], DBX("try_element_at")),
      ],
    },
    {
      name: "[]",
      how: "corrected",
      note: ansi
        ? "an array's index is 0-based, out of bounds an error (ANSI mode); a map's missing key is NULL"
        : "an array's index is 0-based, out of bounds NULL (ANSI mode off); a map's missing key is NULL",
      subscript: "zero-based",
      macros: ["__slp_nested_subscript"],
      examples: [
        ex("select a[2] from values (array(10, 20, 30)) as t(a)", ["30"], page("bracketsign")),
        ex("select m[1] from values (map(1, 'Hello', 2, 'World')) as t(m)", ["Hello"], page("bracketsign")),
        ex("select m['k'] from values (map('k', 'v')) as t(m)", ["v"], page("bracketsign")),
        ...(ansi ? [] : [ex("select array(1, 2, 3)[5]", [null], "https://spark.apache.org/docs/latest/sql-ref-ansi-compliance.html")]),
      ],
    },
    ...(["size", "cardinality"] as const).map(
      (name): Construct => ({
        name,
        how: "corrected",
        note: ansi
          ? "the elements of an array or entries of a map; NULL for NULL (ANSI mode)"
          : "the elements of an array or entries of a map; -1 for NULL (spark.sql.legacy.sizeOfNull, on without ANSI mode)",
        rewrite: (call) =>
          call.args.length === 1
            ? ansi
              ? `__slp_nested_size(${call.args[0]})`
              : `coalesce(__slp_nested_size(${call.args[0]}), -1)`
            : { refuse: `${name} takes one array or map` },
        examples: [
          ex(`select ${name}(array('b', 'd', 'c', 'a'))`, ["4"], page(name)),
          ex(`select ${name}(map('a', 1, 'b', 2))`, ["2"], page(name)),
          ex(`select ${name}(cast(null as array<int>))`, [ansi ? null : "-1"], page(name)),
        ],
      }),
    ),
    {
      name: "array_contains",
      how: "corrected",
      note: "NULL for a NULL value, and for a value not found in an array holding a NULL (DuckDB says false)",
      rewrite: (call) =>
        call.args.length === 2
          ? `__slp_spark_array_contains(${call.args.join(", ")})`
          : { refuse: "array_contains takes an array and a value" },
      macros: ["__slp_spark_array_contains"],
      examples: [
        ex("select array_contains(array(1, 2, 3), 2)", ["true"], DBX("array_contains")),
        ex("select array_contains(array(1, null, 3), 2)", [null], DBX("array_contains")),
        ex("select array_contains(array(1, 2, 3), cast(null as int))", [null], DBX("array_contains")),
        ex("select array_contains(array(1, 2, null, 3), cast(null as int))", [null], DBX("array_contains")),
      ],
    },
    {
      name: "collect_list",
      how: "corrected",
      note: "NULLs skipped; an empty array for a group without a value (DuckDB gives NULL)",
      rewrite: collect(false),
      window: true,
      examples: [
        ex("select collect_list(col) from values (1), (2), (null), (1) as tab(col)", ["[1, 2, 1]"], DBX("collect_list")),
        ex("select size(collect_list(col)) from values (cast(null as int)) as tab(col)", ["0"], DBX("collect_list")),
      ],
    },
    {
      name: "collect_set",
      how: "corrected",
      note: "the distinct values, NULLs skipped, an empty array for a group without one; the order of the elements is unspecified in both",
      rewrite: collect(true),
      window: true,
      examples: [
        ex("select sort_array(collect_set(col)) from values (1), (2), (null), (1) as tab(col)", ["[1, 2]"], DBX("collect_set")),
        ex(
          "select size(collect_set(col1) filter (where col2 = 10)) from values (1, 10), (2, 10), (null, 10), (1, 10), (3, 12) as tab(col1, col2)",
          ["2"],
          DBX("collect_set"),
        ),
      ],
    },
    {
      name: "sort_array",
      how: "corrected",
      note: "NULLs first ascending, last descending (the transpiler kept DuckDB's NULLS LAST)",
      rewrite: sortArray,
      examples: [
        ex("select sort_array(array('b', 'd', null, 'c', 'a'), true)", ["[NULL, a, b, c, d]"], DBX("sort_array")),
        ex("select sort_array(array('b', null, 'a'), false)", ["[b, a, NULL]"], DBX("sort_array")),
      ],
    },
    {
      name: "array_sort",
      how: "corrected",
      note: "ascending, NULLs last; a comparator lambda is refused",
      rewrite: (call) =>
        call.args.length === 1
          ? `list_sort(${call.args[0]}, 'ASC', 'NULLS LAST')`
          : { refuse: "slp translates array_sort(array) without a comparator" },
      examples: [ex("select array_sort(array('b', 'd', null, 'c', 'a'))", ["[a, b, c, d, NULL]"], DBX("array_sort"))],
    },
    {
      name: "flatten",
      how: "corrected",
      note: "NULL when an inner array is NULL (the transpiler wrote UNNEST)",
      rewrite: (call) =>
        call.args.length === 1 ? `__slp_spark_flatten(${call.args[0]})` : { refuse: "flatten takes one array of arrays" },
      macros: ["__slp_spark_flatten"],
      examples: [
        ex("select flatten(array(array(1, 2), array(3, 4)))", ["[1, 2, 3, 4]"], DBX("flatten")),
        ex("select flatten(array(array(1, 2), null))", [null], SPARK("flatten")),
      ],
    },
    {
      name: "sequence",
      how: "corrected",
      note: "integers from start to stop, both included, the step 1 or -1 by their order; a date or timestamp sequence (an interval step) is refused",
      rewrite: (call) => {
        if (call.args.length < 2 || call.args.length > 3 || /\binterval\b|\bdate\b|\btimestamp\b/i.test(call.written.join(" ")))
          return { refuse: "slp translates sequence(start, stop [, step]) of integers" };
        const [a, b] = call.args as [string, string];
        const step = call.args[2] ?? `(case when (${a}) <= (${b}) then 1 else -1 end)`;
        return `__slp_spark_sequence(${a}, ${b}, ${step})`;
      },
      macros: ["__slp_spark_sequence"],
      examples: [
        ex("select sequence(1, 5)", ["[1, 2, 3, 4, 5]"], DBX("sequence")),
        ex("select sequence(5, 1)", ["[5, 4, 3, 2, 1]"], DBX("sequence")),
        ex("select sequence(1, 9, 3)", ["[1, 4, 7]"], SPARK("sequence")),
      ],
    },
    {
      name: "explode",
      how: "corrected",
      note: "in a select list, a row per element, named col; an empty or NULL array gives no row; a map (key, value) is refused by DuckDB's UNNEST",
      rewrite: explode(false),
      examples: [
        ex("select explode(array(10, 20)) order by 1 limit 1", ["10"], DBX("explode")),
        ex("select count(*) from (select explode(array(10, 20)))", ["2"], DBX("explode")),
        ex("select max(col) from (select explode(array(10, 20)))", ["20"], DBX("explode")),
      ],
    },
    {
      name: "explode_outer",
      how: "corrected",
      note: "as explode, but an empty or NULL array gives one row of NULL",
      rewrite: explode(true),
      examples: [
        ex("select count(*) from (select explode_outer(array(10, 20)))", ["2"], DBX("explode_outer")),
        ex("select count(*), count(col) from (select explode_outer(cast(array() as array<int>)))", ["1", "0"], DBX("explode_outer")),
      ],
    },
    {
      name: "posexplode",
      how: "corrected",
      note: "in a select list, a row per element: its position from 0 (pos) and the element (col); an alias list is refused (LATERAL VIEW posexplode names them)",
      rewrite: (call) => {
        if (call.before !== null && /(lateral view|view outer)$/.test(call.before)) return `posexplode(${call.args[0]})`;
        if (call.args.length !== 1 || (call.next !== null && /^[A-Za-z_`]/.test(call.next) && call.next !== "from"))
          return {
            refuse:
              "slp translates posexplode(array) in a select list without an alias (LATERAL VIEW posexplode(...) t AS pos, x names them)",
          };
        return `unnest(range(len(${call.args[0]}))) as pos, unnest(${call.args[0]}) as col`;
      },
      examples: [
        ex("select max(pos), max(col) from (select posexplode(array(10, 20)))", ["1", "20"], DBX("posexplode")),
        ex(
          "select max(p), max(x) from values (1) as t(c1) lateral view posexplode(array(10, 20)) e as p, x",
          ["1", "20"],
          DBX("posexplode"),
        ),
      ],
    },
    translated(
      "lateral view",
      [
        ex(
          "select count(*), sum(c1) from values (1), (2) as t(c1) lateral view explode(array(10, 20)) e as x",
          ["4", "6"],
          "https://docs.databricks.com/en/sql/language-manual/sql-ref-syntax-qry-select-lateral-view.html",
        ),
        ex(
          "select count(*) from values (1) as t(c1) lateral view outer explode(cast(array() as array<int>)) e as x",
          ["1"],
          "https://docs.databricks.com/en/sql/language-manual/sql-ref-syntax-qry-select-lateral-view.html",
        ),
      ],
      "LATERAL VIEW [OUTER] explode(...) as a (left) join of its UNNEST",
    ),
    {
      name: "transform",
      how: "corrected",
      note: "transform(array, x -> expr) as DuckDB's list_transform; a lambda with an index argument is refused (Spark's index is 0-based, DuckDB's 1-based)",
      rewrite: (call) =>
        call.args.length === 2 && /^\s*\(?\s*[A-Za-z_]\w*\s*\)?\s*->/.test(call.written[1] as string)
          ? `list_transform(${call.args.join(", ")})`
          : { refuse: "slp translates transform(array, x -> expr) with one lambda argument" },
      examples: [ex("select transform(array(1, 2, 3), x -> x + 1)", ["[2, 3, 4]"], DBX("transform"))],
    },
    {
      name: "filter",
      how: "corrected",
      note: "filter(array, x -> cond) as DuckDB's list_filter (a NULL condition drops the element); a lambda with an index argument is refused",
      rewrite: (call) =>
        call.args.length === 2 && /^\s*\(?\s*[A-Za-z_]\w*\s*\)?\s*->/.test(call.written[1] as string)
          ? `list_filter(${call.args.join(", ")})`
          : { refuse: "slp translates filter(array, x -> cond) with one lambda argument" },
      examples: [ex("select filter(array(1, 2, 3), x -> x % 2 = 1)", ["[1, 3]"], DBX("filter"))],
    },
    {
      name: "array_position",
      how: "corrected",
      note: "1-based, 0 when absent (DuckDB gives NULL)",
      rewrite: (call) =>
        call.args.length === 2
          ? `__slp_spark_array_position(${call.args.join(", ")})`
          : { refuse: "array_position takes an array and a value" },
      macros: ["__slp_spark_array_position"],
      examples: [
        ex("select array_position(array(3, 2, 1), 1)", ["3"], DBX("array_position")),
        ex("select array_position(array(3, 2, 1), 4)", ["0"], DBX("array_position")),
      ],
    },
    {
      name: "array_remove",
      how: "corrected",
      note: "every element equal to the value dropped, NULL elements kept",
      rewrite: (call) =>
        call.args.length === 2
          ? `__slp_spark_array_remove(${call.args.join(", ")})`
          : { refuse: "array_remove takes an array and a value" },
      macros: ["__slp_spark_array_remove"],
      examples: [ex("select array_remove(array(1, 2, 3, null, 3), 3)", ["[1, 2, NULL]"], DBX("array_remove"))],
    },
    {
      name: "slice",
      how: "corrected",
      note: "start 1-based or from the end when negative, start 0 and a negative length errors",
      rewrite: (call) =>
        call.args.length === 3 ? `__slp_spark_slice(${call.args.join(", ")})` : { refuse: "slice takes an array, a start and a length" },
      macros: ["__slp_spark_slice"],
      examples: [
        ex("select slice(array(1, 2, 3, 4), 2, 2)", ["[2, 3]"], DBX("slice")),
        ex("select slice(array(1, 2, 3, 4), -2, 2)", ["[3, 4]"], DBX("slice")),
        ex("select slice(array(1, 2, 3, 4), -9, 2)", ["[]"], SPARK("slice")),
      ],
    },
    {
      name: "array_distinct",
      how: "corrected",
      note: "the first of each value, in order, one NULL kept (DuckDB's list_distinct drops it and reorders)",
      rewrite: (call) =>
        call.args.length === 1 ? `__slp_spark_array_distinct(${call.args[0]})` : { refuse: "array_distinct takes one array" },
      macros: ["__slp_spark_array_distinct"],
      examples: [ex("select array_distinct(array(1, 2, 3, null, 3))", ["[1, 2, 3, NULL]"], DBX("array_distinct"))],
    },
    {
      name: "concat_ws",
      how: "corrected",
      note: "strings and arrays of strings joined (an array's elements each a part); NULL arguments and elements skipped; NULL for a NULL separator",
      rewrite: (call) => {
        if (call.args.length === 0) return { refuse: "concat_ws takes a separator" };
        const parts = call.args.slice(1).map((arg) => `__slp_nested_texts(${arg})`);
        return `__slp_spark_concat_ws(${call.args[0]}, ${parts.length === 0 ? "list_value()" : parts.length === 1 ? parts[0] : `list_concat(${parts.join(", ")})`})`;
      },
      macros: ["__slp_spark_concat_ws"],
      examples: [
        ex("select concat_ws(' ', 'Spark', 'SQL')", ["Spark SQL"], DBX("concat_ws")),
        ex("select concat_ws('s')", [""], DBX("concat_ws")),
        ex("select concat_ws(',', 'Spark', array('S', 'Q', null, 'L'), null)", ["Spark,S,Q,L"], DBX("concat_ws")),
        ex("select concat_ws('s', 'a', null, 'b')", ["asb"], DBX("concat_ws")),
        ex("select concat_ws(null, 'a', 'b')", [null], DBX("concat_ws")),
      ],
    },
    {
      name: "array_join",
      how: "corrected",
      note: "NULL elements skipped, or replaced by a string literal given third; NULL for a NULL separator",
      rewrite: (call) => {
        const [array, separator, replacement] = call.args as [string, string, string | undefined];
        if (call.args.length === 2) return `__slp_spark_concat_ws(${separator}, ${array})`;
        if (call.args.length === 3 && /^'/.test((call.written[2] as string).trim()))
          return `__slp_spark_concat_ws(${separator}, list_transform(${array}, e -> coalesce(e, ${replacement})))`;
        return { refuse: "slp translates array_join(array, delimiter [, 'replacement'])" };
      },
      macros: ["__slp_spark_concat_ws"],
      examples: [
        ex("select array_join(array('hello', 'world'), ' ')", ["hello world"], DBX("array_join")),
        ex("select array_join(array('hello', null ,'world'), ' ')", ["hello world"], DBX("array_join")),
        ex("select array_join(array('hello', null ,'world'), ' ', ',')", ["hello , world"], DBX("array_join")),
      ],
    },
    {
      name: "from_json",
      how: "corrected",
      note: "with a schema string (DDL, STRUCT<...>, ARRAY<...>, MAP<STRING, ...>) or schema_of_json of a literal: each value read by Spark's rules for its type (strings, booleans, integers in range, numbers, decimals that fit); a value Spark's PERMISSIVE mode would turn to NULL, malformed text, options, and date or timestamp fields are errors or refusals",
      rewrite: fromJsonCall,
      examples: [
        ex(`select to_json(from_json('{"a":1, "b":0.8}', 'a INT, b DOUBLE'))`, ['{"a":1,"b":0.8}'], DBX("from_json")),
        ex(
          `select to_json(from_json('{"teacher": "Alice", "student": [{"name": "Bob", "rank": 1}, {"name": "Charlie", "rank": 2}]}', 'STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>'))`,
          ['{"teacher":"Alice","student":[{"name":"Bob","rank":1},{"name":"Charlie","rank":2}]}'],
          DBX("from_json"),
        ),
        ex(`select from_json('{"a":1}', 'a INT, b STRING').b is null`, ["true"], DBX("from_json")),
        ex(`select cast(from_json('{"k":1, "j":null}', 'MAP<STRING, INT>') as string)`, ["{k -> 1, j -> null}"], DBX("from_json")),
      ],
    },
    {
      name: "schema_of_json",
      how: "corrected",
      note: "of a string literal, inside from_json: fields sorted by name, integers BIGINT, other numbers DOUBLE, NULL and empty arrays STRING",
      within: ["from_json"],
      withinArgument: 1,
      // from_json's rewrite reads it (schemaOfJson) and writes the schema in its place.
      rewrite: () => "null",
      examples: [
        ex(
          `select cast(from_json('{"b":[1, 2.5], "a":"x"}', schema_of_json('{"b":[1, 2.5], "a":"x"}')) as string)`,
          ["{x, [1.0, 2.5]}"],
          DBX("schema_of_json"),
        ),
      ],
    },
    {
      name: "get_json_object",
      how: "corrected",
      note: "the value at a path of $, .field, ['field'] and [n]: a string unquoted, anything else as Jackson writes it (numbers as Java writes them), NULL where the path leads nowhere; a wildcard path, and text that is not JSON, are refused or errors",
      rewrite: (call) => {
        if (call.args.length !== 2) return { refuse: "get_json_object takes a JSON text and a path" };
        const path = call.literal(1);
        if (path !== null && /^'/.test((call.written[1] as string).trim()) && jsonPath(path) === null)
          return { refuse: `slp reads get_json_object paths of $ followed by .field, ['field'] and [n] only, not ${path}` };
        return `__slp_nested_get_json_object(${call.args.join(", ")})`;
      },
      examples: [
        ex(`select get_json_object('{"a":"b"}', '$.a')`, ["b"], DBX("get_json_object")),
        ex(`select get_json_object('{"a":{"b":[1, 2.50, {"c":true}]}}', '$.a.b')`, ['[1,2.5,{"c":true}]'], DBX("get_json_object")),
        ex(
          `select get_json_object('{"a":{"b":[1, 2.50, {"c":true}]}}', '$.a.b[2].c'), get_json_object('{"a":1}', '$.x')`,
          ["true", null],
          DBX("get_json_object"),
        ),
      ],
    },
  ];
}

/** Spatial functions: DuckDB has no built-in GEOGRAPHY type and slp loads no extensions. */
const SPATIAL = (
  "st_angle st_area st_asbinary st_asgeojson st_astext st_azimuth st_boundary st_buffer st_bufferwithtolerance st_centroid st_centroid_agg " +
  "st_closestpoint st_clusterdbscan st_contains st_convexhull st_coveredby st_covers st_difference st_dimension st_disjoint st_distance " +
  "st_dump st_dwithin st_endpoint st_equals st_extent st_exteriorring st_geogfrom st_geogfromgeojson st_geogfromtext st_geogfromwkb " +
  "st_geogpoint st_geogpointfromgeohash st_geohash st_geometrytype st_interiorrings st_intersection st_intersects st_intersectsbox " +
  "st_isclosed st_iscollection st_isempty st_isring st_length st_lineinterpolatepoint st_linelocatepoint st_linesubstring st_makeline " +
  "st_makepolygon st_makepolygonoriented st_maxdistance st_npoints st_numgeometries st_numpoints st_perimeter st_pointn st_simplify " +
  "st_snaptogrid st_startpoint st_touches st_union st_union_agg st_within st_x st_y"
).split(" ");

/**
 * BigQuery's ST_ functions, refused by name. A GEOGRAPHY fixture column stays
 * refused too (types.ts): BigQuery normalizes the value it is given (its WKT
 * text is not the text written), so even a model that only passes it through
 * would not return the text a fixture holds.
 */
export const spatialRefusals = (): Construct[] =>
  SPATIAL.map((name) =>
    refused(name, "GEOGRAPHY has no DuckDB type in slp (DuckDB has no built-in spatial type and slp loads no extensions)"),
  );

/** BigQuery's arrays where DuckDB's NULL and step rules differ, and its spatial functions. */
export function bigqueryNested(): Construct[] {
  return [
    {
      name: "array_concat",
      how: "corrected",
      note: "NULL when any argument is NULL (DuckDB's list_concat skips it)",
      rewrite: (call) => {
        if (call.args.length === 0) return { refuse: "array_concat takes at least one array" };
        return call.args
          .slice(1)
          .reduce((joined, next) => `__slp_bigquery_array_concat(${joined}, ${next})`, `__slp_bigquery_array_concat(${call.args[0]}, [])`);
      },
      macros: ["__slp_bigquery_array_concat"],
      examples: [
        ex("select array_concat([1, 2], [3, 4], [5, 6])", ["[1, 2, 3, 4, 5, 6]"], BQ("array_concat", "array_functions")),
        ex("select array_concat([1, 2], null)", [null], BQ("array_concat", "array_functions")),
      ],
    },
    {
      name: "generate_array",
      how: "corrected",
      note: "both ends included; a step of 0 is an error (DuckDB gives an empty list)",
      rewrite: (call) =>
        call.args.length === 2
          ? `generate_array(${call.args.join(", ")})`
          : call.args.length === 3
            ? `generate_array(${call.args[0]}, ${call.args[1]}, __slp_nonzero_step(${call.args[2]}))`
            : { refuse: "generate_array takes a start, an end and an optional step" },
      macros: ["__slp_nonzero_step"],
      examples: [
        ex("select generate_array(1, 5)", ["[1, 2, 3, 4, 5]"], BQ("generate_array", "array_functions")),
        ex("select generate_array(0, 10, 3)", ["[0, 3, 6, 9]"], BQ("generate_array", "array_functions")),
        ex("select generate_array(10, 0, -3)", ["[10, 7, 4, 1]"], BQ("generate_array", "array_functions")),
        ex("select generate_array(4, 4)", ["[4]"], BQ("generate_array", "array_functions")),
        ex("select generate_array(10, 0, 3)", ["[]"], BQ("generate_array", "array_functions")),
        ex("select generate_array(5, null, 1)", [null], BQ("generate_array", "array_functions")),
      ],
    },
    ...spatialRefusals(),
  ];
}

/** `from_json(text, schema)`: slp's function reads the text by Spark's rules, DuckDB's json_transform types it. */
function fromJsonCall(call: Call): string | { refuse: string } {
  if (call.args.length !== 2) return { refuse: "slp translates from_json(text, schema) without options" };
  const written = (call.written[1] as string).trim();
  let spark: string;
  const inferred = /^schema_of_json\s*\(\s*'([^'\\]*)'\s*\)$/is.exec(written);
  if (inferred) {
    try {
      spark = schemaOfJson(inferred[1] as string);
    } catch (error) {
      if (error instanceof SparkJsonError) return { refuse: error.message };
      throw error;
    }
  } else if (/^'[^'\\]*'$/.test(written)) spark = written.slice(1, -1);
  else return { refuse: "slp translates from_json with a schema string literal, or schema_of_json of a string literal" };
  const type = /^\s*(struct|array|map)\s*</i.test(spark) ? spark : `struct<${spark}>`;
  const mapped = call.mapType(type);
  if (!mapped.ok) return { refuse: `the schema '${spark}': ${mapped.why}` };
  const schema = jsonSchemaOf(mapped.type);
  if ("refuse" in schema) return schema;
  return `json_transform(__slp_nested_from_json(${call.args[0]}, ${call.quote(JSON.stringify(schema.schema))}), ${call.quote(JSON.stringify(schema.structure))})`;
}

/** A DuckDB type (as types.ts writes it) as from_json's schema and json_transform's structure; other types refused. */
function jsonSchemaOf(type: string): { schema: JsonSchema; structure: unknown } | { refuse: string } {
  const text = type.trim();
  if (text.endsWith("[]")) {
    const element = jsonSchemaOf(text.slice(0, -2));
    return "refuse" in element ? element : { schema: { kind: "array", element: element.schema }, structure: [element.structure] };
  }
  const inner = /^(STRUCT|MAP)\(([\s\S]*)\)$/.exec(text);
  if (inner?.[1] === "STRUCT") {
    const fields: [string, JsonSchema][] = [];
    const structure: Record<string, unknown> = {};
    for (const field of splitTopLevel(inner[2] as string)) {
      const match = /^"((?:[^"]|"")*)"\s+([\s\S]+)$/.exec(field);
      const name = match ? (match[1] as string).replace(/""/g, '"') : "";
      if (!match || !/^[A-Za-z_][\w ]*$/.test(name))
        return { refuse: `slp reads from_json's struct fields named by letters, digits and _ only (not '${name}')` };
      const typed = jsonSchemaOf(match[2] as string);
      if ("refuse" in typed) return typed;
      fields.push([name, typed.schema]);
      structure[name] = typed.structure;
    }
    return { schema: { kind: "struct", fields }, structure };
  }
  if (inner?.[1] === "MAP") {
    const [key, value] = splitTopLevel(inner[2] as string);
    if (key !== "VARCHAR" || value === undefined) return { refuse: "slp reads from_json's MAP<STRING, ...> only" };
    const typed = jsonSchemaOf(value);
    if ("refuse" in typed) return typed;
    if (typeof typed.structure !== "string") return { refuse: "slp reads from_json's MAP<STRING, T> with T a scalar type" };
    return { schema: { kind: "map", value: typed.schema }, structure: `MAP(VARCHAR, ${typed.structure})` };
  }
  const integers: Record<string, 8 | 16 | 32 | 64> = { TINYINT: 8, SMALLINT: 16, INTEGER: 32, BIGINT: 64 };
  if (text in integers) return { schema: { kind: "integer", bits: integers[text] as 8 | 16 | 32 | 64 }, structure: text };
  if (text === "VARCHAR") return { schema: { kind: "string" }, structure: text };
  if (text === "BOOLEAN") return { schema: { kind: "boolean" }, structure: text };
  if (text === "DOUBLE" || text === "FLOAT") return { schema: { kind: "double" }, structure: text };
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(text);
  if (decimal) return { schema: { kind: "decimal", precision: Number(decimal[1]), scale: Number(decimal[2]) }, structure: text };
  return { refuse: `slp has not verified how Spark's from_json reads a ${text} field` };
}

/** Splits on commas outside parentheses and double quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (!quoted && char === "(") depth++;
    if (!quoted && char === ")") depth--;
    if (!quoted && depth === 0 && char === ",") {
      parts.push(current.trim());
      current = "";
    } else current += char;
  }
  if (current.trim() !== "") parts.push(current.trim());
  return parts;
}
