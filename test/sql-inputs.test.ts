/** The ref/source calls T3 reads from a model's SQL text (spec/rules.md §2.1 T3). */
import { describe, expect, test } from "bun:test";
import { sqlInputs } from "../src/project/dbt/sql-inputs.ts";

const inputs = (sql: string) => [...sqlInputs(sql)].sort();

describe("sqlInputs", () => {
  test("refs and sources, printed the one way", () => {
    expect(inputs('select * from {{ ref(\'a\') }} join {{ source("raw", "b") }}')).toEqual(["ref('a')", "source('raw', 'b')"]);
  });

  test("a ref is named by its last quoted string", () => {
    expect(inputs("{{ ref('pkg', 'm') }}")).toEqual(["ref('m')"]);
    expect(inputs("{{ ref('m', v=2) }}")).toEqual(["ref('m')"]);
    expect(inputs("{{ ref('m', version='2') }}")).toEqual(["ref('2')"]);
  });

  test("a source needs two quoted strings and keeps the first two", () => {
    expect(inputs("{{ source('raw', 'b', 'c') }}")).toEqual(["source('raw', 'b')"]);
    expect(inputs("{{ source('raw') }}")).toEqual([]);
  });

  test("quotes of either kind, even mismatched, delimit a name", () => {
    expect(inputs(`{{ ref("a') }} {{ ref('b") }}`)).toEqual(["ref('a')", "ref('b')"]);
  });

  test("not calls: a space before (, another case, a longer word, names built from variables, arguments with parentheses", () => {
    expect(
      inputs("{{ ref ('a') }} {{ REF('b') }} {{ my_ref('c') }} {{ refs('d') }} {{ ref(var('e')) }} {{ source(env_var('X'), 'f') }}"),
    ).toEqual([]);
  });

  test("a call after a non-word character counts", () => {
    expect(inputs("x.ref('a') (source('s','t'))")).toEqual(["ref('a')", "source('s', 't')"]);
  });

  test("comments are removed first: {# #} and /* */ across lines, then -- to the end of the line", () => {
    const sql = "{# ref('a')\n ref('b') #}\n/* source('s',\n't') */ -- ref('c')\nselect 1 from {{ ref('d') }}";
    expect(inputs(sql)).toEqual(["ref('d')"]);
  });

  test("comment removal is not greedy: text between two comments stays", () => {
    expect(inputs("/* a */ {{ ref('kept') }} /* b */")).toEqual(["ref('kept')"]);
  });

  test("a -- inside a string literal also cuts the line (no awareness of quotes)", () => {
    expect(inputs("select '--', {{ ref('cut') }}\nfrom {{ ref('kept') }}")).toEqual(["ref('kept')"]);
  });

  test("a call spanning lines counts", () => {
    expect(inputs("{{ ref(\n  'a'\n) }}")).toEqual(["ref('a')"]);
  });

  test("calls without quoted names are invisible", () => {
    expect(inputs("{{ ref(model_name) }}")).toEqual([]);
  });
});
