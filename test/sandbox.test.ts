/**
 * The template sandbox: no path from a model's SQL, a macro or a unit test's
 * yml to a constructor, a prototype, a global or a function slp did not put
 * in the context. Every escapeThrough below runs through the real `slp unit` on a
 * project of one model per attempt; each attempt would create a canary file
 * (or set a global) if it got out, and each must end as that test's error.
 * The dbt constructs the sandbox rewrote keep working (the unit fixtures
 * cover the rest of dbt's context).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JinjaTemplate } from "../src/sql/jinja.ts";
import { runCli, runMain } from "./support/cli.ts";
import { tempDir, writeTree } from "./support/temp.ts";

const workspace = tempDir("slp-sandbox-");
afterAll(() => workspace[Symbol.dispose]());
const CANARY = join(workspace.path, "CANARY");
const escapeThrough = (via: string) =>
  `${via}("return globalThis.Bun.spawnSync(['sh','-c','touch ${CANARY}']) && (globalThis.SLP_SANDBOX_BROKEN = 1)")()`;

/** Each attempt is the body of `{{ ... }}`, or a whole template when it starts with `{{` or `{%`. */
const ATTEMPTS: Record<string, string> = {
  range_constructor: escapeThrough("range.constructor"),
  string_constructor: escapeThrough('"".constructor.constructor'),
  list_constructor: escapeThrough("[].constructor.constructor"),
  dict_constructor: escapeThrough("{}.constructor.constructor"),
  subscript_constructor: escapeThrough('range["constructor"]'),
  proto_chain: escapeThrough('{}["__proto__"]["constructor"]["constructor"]'),
  ref_function: escapeThrough("ref.constructor"),
  relation_object: escapeThrough("ref('stg').constructor.constructor"),
  relation_method: escapeThrough("ref('stg').include.constructor"),
  config_function: escapeThrough("config.get.constructor"),
  var_function: escapeThrough("var.constructor"),
  adapter_dispatch: escapeThrough("adapter.dispatch.constructor"),
  dbt_namespace: escapeThrough('dbt["constructor"]'),
  dbt_macro: escapeThrough("dbt.current_timestamp.constructor"),
  exceptions: escapeThrough("exceptions.raise_compiler_error.constructor"),
  run_started_at: escapeThrough("run_started_at.strftime.constructor"),
  target_proto: escapeThrough("target.__proto__.constructor"),
  string_method: escapeThrough('"x".upper.constructor'),
  safe_string_method: `{% macro m() %}x{% endmacro %}{{ ${escapeThrough("m().upper.constructor")} }}`,
  macro_value: `{% macro m() %}x{% endmacro %}{{ ${escapeThrough("m.constructor")} }}`,
  // Inside the macro a call block calls, where `caller` is defined (Jinja2 defines no `caller` in the block's own body).
  caller: `{% macro m() %}{{ ${escapeThrough("caller.constructor")} }}{% endmacro %}{% call m() %}x{% endcall %}`,
  loop_variable: `{% for i in [1] %}{{ ${escapeThrough("loop.constructor.constructor")} }}{% endfor %}`,
  set_variable: `{% set f = range %}{{ ${escapeThrough("f.constructor")} }}`,
  attr_filter: escapeThrough('(range|attr("constructor"))'),
  map_attribute: escapeThrough('([range]|map(attribute="constructor")|first)'),
  groupby_attribute: `{% for key, items in [range]|groupby("constructor") %}{{ ${escapeThrough("items[0].constructor")} }}{% endfor %}`,
  sort_attribute: escapeThrough('([range]|sort(attribute="constructor")|first).constructor'),
  valueof_filter: escapeThrough("(1|valueOf).env.constructor"),
  dict_literal_proto: `{% set d = {"__proto__": range} %}{{ ${escapeThrough("d.constructor")} }}`,
  dict_get_inherited: escapeThrough('{}.get("constructor").constructor'),
  function_call_method: escapeThrough("range.call.constructor"),
  jinja_global: escapeThrough("cycler.constructor"),
  lipsum: escapeThrough("lipsum.constructor"),
  modules: escapeThrough("modules.os.system"),
  name_code_injection: '{% set a"^Function`globalThis\\x2eSLP_SANDBOX_BROKEN\\x3d1```^" = 1 %}x',
  is_test_injection: '{{ 1 is "x\\")+Function`globalThis.SLP_SANDBOX_BROKEN=1```+(\\"" }}',
  call_name_injection: '{{ range["\\\\"]() }}',
  regex_literal: '{{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"|replace(r/(a+)+$/, "") }}',
  // `_` names: refused on what has Python attributes slp does not model, undefined on data (Jinja's getattr falls back to an item).
  relation_private: escapeThrough("ref('stg')._render_iterator"),
  relation_private_proto: escapeThrough("ref('stg')._x.constructor"),
  function_private: escapeThrough("ref._x"),
  macro_private: `{% macro m() %}x{% endmacro %}{{ ${escapeThrough("m._func")} }}`,
  list_private: escapeThrough("[]._x.constructor"),
  string_private: escapeThrough('"x"._x.constructor'),
  dict_private_proto: escapeThrough("{}._x.__proto__"),
  namespace_private: escapeThrough("dbt._x.constructor"),
  include: '{% include "/etc/passwd" %}',
  import: '{% import "/etc/passwd" as x %}',
  extends: '{% extends "/etc/passwd" %}',
};

/** One model per attempt, each with one unit test, plus a unit test whose yml value is an attempt. */
function sandboxProject(): string {
  const dir = join(workspace.path, "project");
  const files: Record<string, string> = {
    "dbt_project.yml": "name: sandbox\nversion: '1.0'\nprofile: sandbox\n",
    "models/stg.sql": "select 1 as id\n",
  };
  const tests: string[] = [];
  for (const [name, attempt] of Object.entries(ATTEMPTS)) {
    files[`models/${name}.sql`] = `select ${/^\{[{%]/.test(attempt) ? attempt : `{{ ${attempt} }}`} as x\n`;
    tests.push(
      `  - name: escapeThrough\n    model: ${name}\n    given:\n      - input: ref('stg')\n        rows: [{id: 1}]\n    expect:\n      rows: [{x: 1}]`,
    );
  }
  files["models/yml_value.sql"] = "select x from {{ ref('stg') }}\n";
  const value = escapeThrough("range.constructor").replace(/'/g, "''");
  tests.push(
    `  - name: escapeThrough\n    model: yml_value\n    given:\n      - input: ref('stg')\n        rows: [{id: 1, x: '{{ ${value} }}'}]\n    expect:\n      rows: [{x: 1}]`,
  );
  files["models/_unit.yml"] = `unit_tests:\n${tests.join("\n")}\n`;
  writeTree(dir, files);
  return dir;
}

describe("no escapeThrough from the template sandbox", () => {
  test("every attempt is that test's error, and nothing ran", async () => {
    const result = await runMain(["unit", "--format", "json"], sandboxProject());
    expect(existsSync(CANARY)).toBe(false);
    expect((globalThis as { SLP_SANDBOX_BROKEN?: unknown }).SLP_SANDBOX_BROKEN).toBeUndefined();
    expect(result.exitCode).toBe(2);
    const tests = JSON.parse(result.stdout).data.tests as { model: string; status: string; error: { message: string } | null }[];
    const byModel = new Map(tests.map((t) => [t.model, t]));
    for (const name of [...Object.keys(ATTEMPTS), "yml_value"]) {
      const verdict = byModel.get(name);
      expect({ name, status: verdict?.status }).toEqual({ name, status: "error" });
    }
    // The refusals say why; none is the engine crashing.
    const refused = (name: string) => byModel.get(name)?.error?.message ?? "";
    for (const name of [
      "range_constructor",
      "relation_object",
      "dbt_namespace",
      "target_proto",
      "caller",
      "attr_filter",
      "map_attribute",
      "dict_literal_proto",
      "yml_value",
      "relation_private",
      "function_private",
      "macro_private",
    ]) {
      expect(refused(name)).toContain("is refused: templates reach data and the dbt context only");
    }
    // Jinja2's own syntax errors: a name is a token of its own (nothing is pasted into generated code), and r/.../ is no literal.
    expect(refused("name_code_injection")).toContain("expected 'end of statement block', got a string");
    expect(refused("is_test_injection")).toContain("`is` must be followed by the name of a test");
    expect(refused("regex_literal")).toContain("the character '$' has no meaning in a Jinja expression");
    expect(refused("include")).toContain("template not found");
    expect(refused("valueof_filter")).toContain("filter not found: valueOf");
    for (const verdict of tests) expect(verdict.error?.message ?? "").not.toContain("unexpected");
  });

  test("a views/ folder in the working directory is never read by {% include %} (a loader's default folder)", async () => {
    const dir = join(workspace.path, "views-project");
    writeTree(dir, {
      "dbt_project.yml": "name: views\nversion: '1.0'\nprofile: views\n",
      "views/secret.sql": "TOP-SECRET",
      "models/m.sql": "select '{% include \"secret.sql\" %}' as x\n",
      "models/_unit.yml": "unit_tests:\n  - name: t\n    model: m\n    given: []\n    expect:\n      rows: [{x: TOP-SECRET}]\n",
    });
    // A template engine's default loader reads a folder of the working directory (nunjucks read ./views): run slp from the project.
    const result = runCli(["unit"], dir);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).not.toContain("PASS");
    expect(result.stdout).toContain("template not found");
  });
});

describe("bounded templates", () => {
  function unitOf(sql: string, env: Record<string, string> = {}) {
    const dir = join(workspace.path, `bounded-${Math.random().toString(36).slice(2)}`);
    writeTree(dir, {
      "dbt_project.yml": "name: bounded\nversion: '1.0'\nprofile: bounded\n",
      "models/m.sql": sql,
      "models/_unit.yml": "unit_tests:\n  - name: t\n    model: m\n    given: []\n    expect:\n      rows: [{x: 1}]\n",
    });
    return runMain(["unit"], dir, env);
  }

  test("infinite macro recursion stops at nesting_depth, as that test's error", async () => {
    const result = await unitOf("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}select {{ f(0) }} as x\n");
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain("macros call each other more than 256 levels deep (limit nesting_depth = 256 levels)");
    expect(result.stdout).toContain("SLP_LIMIT_NESTING_DEPTH");
  });

  test("3,000 nested {% if %} is a named limit, not a stack overflow", async () => {
    const result = await unitOf(`select ${"{% if true %}".repeat(3000)}1${"{% endif %}".repeat(3000)} as x\n`);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain("the template nests blocks or brackets more than 256 levels deep");
    expect(result.stdout + result.stderr).not.toContain("Maximum call stack");
  });

  test("loops that never end in practice stop at template_steps", async () => {
    const result = await unitOf("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}select 1 as x\n");
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain("(limit template_steps = 5,000,000 steps)");
  });

  test("output that doubles stops at template_output_mb", async () => {
    // A namespace carries the text from one iteration to the next (Jinja2 resets a plain {% set %} each iteration).
    const doubling = "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}";
    const result = await unitOf(`${doubling}select 1 as x\n`, {
      SLP_LIMIT_TEMPLATE_OUTPUT_MB: "1",
    });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain("the template writes more than 1 MiB of text (limit template_output_mb = 1 MiB)");
  });

  test("range() is capped at 100,000 items, as dbt's sandboxed Jinja caps it", async () => {
    const result = await unitOf("{% for i in range(1000000) %}{% endfor %}select 1 as x\n");
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain("range() of 1,000,000 items is larger than the 100,000 dbt's sandboxed Jinja allows");
  });

  test("a list that doubles itself is paid for item by item", async () => {
    const result = await unitOf("{% set l = [1] %}{% for i in range(60) %}{% do l.extend(l) %}{% endfor %}select 1 as x\n");
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain("limit template_steps");
  });
});

describe("Python's constructs the sandbox implements itself", () => {
  const render = (source: string, values: Record<string, unknown> = {}) =>
    new JinjaTemplate(source, "t.sql").render({ lookup: (name) => (Object.hasOwn(values, name) ? values[name] : undefined) });

  test("lists, mappings and strings", () => {
    expect(render("{{ [1, 2] + [3] }}")).toBe("[1, 2, 3]");
    expect(render("{{ '-' * 3 }}|{{ [0] * 2 }}|{{ 2 * 3 }}")).toBe("---|[0, 0]|6");
    expect(render("{{ 'abcdef'[1:4] }}|{{ [1, 2, 3, 4][::2] }}|{{ [1, 2, 3][-1] }}")).toBe("bcd|[1, 3]|3");
    // Python: 'abc'[5::-1] == 'cba', [1, 2][9:0:-1] == [2], and a zero step is an error, for strings as for lists.
    expect(render("{{ 'abc'[5::-1] }}|{{ [1, 2][9:0:-1] }}|{{ 'aé😀'[::-1] }}|{{ 'abcdef'[-2:] }}")).toBe("cba|[2]|😀éa|ef");
    expect(() => render("{{ 'abc'[::0] }}")).toThrow("slice step cannot be zero");
    expect(() => render("{{ [1, 2][::0] }}")).toThrow("slice step cannot be zero");
    expect(render("{% set d = {'a': 1} %}{{ d.get('a') }}|{{ d.get('b') }}|{{ d.get('b', 2) }}|{{ 'a' in d }}|{{ 'items' in d }}")).toBe(
      "1|None|2|True|False",
    );
    expect(render("{% set d = {'a': 1} %}{% do d.update({'b': 2}) %}{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}")).toBe(
      "a=1;b=2;",
    );
    expect(render("{% set l = [] %}{% do l.append(1) %}{% do l.extend([2, 3]) %}{{ l }}|{{ l.pop() }}|{{ l }}")).toBe("[1, 2, 3]|3|[1, 2]");
    expect(render("{{ 'ab'.center(5, '*') }}|{{ 'a_b'.split('_') }}|{{ ', '.join(['x', 'y']) }}")).toBe("**ab*|['a', 'b']|x, y");
    expect(render("{{ row.constructor }}", { row: { constructor: "a column named constructor" } })).toBe("a column named constructor");
  });

  test("a `_` name is an item of a mapping and undefined on data, as Jinja's sandboxed getattr falls back to getitem", () => {
    // dbt's package namespaces are dicts: `dbt_utils._is_relation` is found as a key.
    expect(render("{{ pkg._is_relation }}|{{ pkg['_is_relation'] }}", { pkg: { _is_relation: "macro" } })).toBe("macro|macro");
    expect(render("{{ {'a': 1}._b is defined }}|{{ 'x'._y is defined }}|{{ [1]._y is defined }}")).toBe("False|False|False");
    // A namespace()'s attribute is a Python attribute: one named `_x` is unsafe, as in Jinja's sandbox.
    expect(() => render("{% set ns = namespace(_x=1) %}{{ ns._x }}")).toThrow("access to '_x' is refused");
    expect(() => render("{{ f._x }}", { f: () => 1 })).toThrow("access to '_x' is refused");
    expect(() => render("{{ 'x'.__class__ }}")).toThrow("access to '__class__' is refused");
  });

  test("filters that read attributes, through the sandbox", () => {
    const rows = {
      rows: [
        { name: "b", n: 2, on: true },
        { name: "a", n: 1, on: false },
      ],
    };
    expect(render("{{ rows|map(attribute='name')|join(',') }}", rows)).toBe("b,a");
    expect(render("{{ rows|join(',', 'name') }}|{{ rows|sum('n') }}", rows)).toBe("b,a|3");
    expect(
      render("{{ rows|selectattr('on')|map(attribute='name')|list }}|{{ rows|rejectattr('on')|map(attribute='name')|list }}", rows),
    ).toBe("['b']|['a']");
    expect(render("{{ rows|sort(attribute='n')|map(attribute='name')|join }}", rows)).toBe("ab");
    // Jinja2's groupby sorts by the key (False before True), as itertools.groupby over sorted() does.
    expect(render("{% for key, group in rows|groupby('on') %}{{ key }}:{{ group|length }};{% endfor %}", rows)).toBe("False:1;True:1;");
    expect(render("{{ rows[0]|attr('name') }}|{{ 'ab'|center(4) }}|{{ 'a\nb'|indent(2) }}", rows)).toBe("b| ab |a\n  b");
  });

  test("str.format() and % read fields through the sandbox; what they cannot render is an error, never an empty text", () => {
    expect(
      render("{{ '{} {}'.format(1, 2) }}|{{ '{x[a]}-{0[1]}'.format([1, 2], x={'a': 5}) }}|{{ '{row.n}'.format(row=r) }}", { r: { n: 7 } }),
    ).toBe("1 2|5-2|7");
    expect(render("{{ '%s-%s'|format(1, 2) }}|{{ '%(a)s'|format(a=3) }}|{{ '%(a)s' % {'a': 4} }}")).toBe("1-2|3|4");
    expect(() => render("{{ '{0.constructor}'.format(range) }}", { range: () => [] })).toThrow("access to 'constructor' is refused");
    expect(() => render("{{ '%(constructor)s' % {} }}")).toThrow("access to 'constructor' is refused");
    expect(() => render("{{ '{}'.format() }}")).toThrow("'{}' names no argument given to format()");
    expect(() => render("{{ '{:%Y}'.format(1) }}")).toThrow("the format spec '%Y' is not one slp reads");
  });

  test("filters iterate a string's characters and a mapping's keys, as Python iterates them", () => {
    expect(render("{{ 'abc'|batch(2)|list }}|{{ 'abcd'|slice(2)|list }}|{{ {'a': 1, 'b': 2}|batch(1)|list }}")).toBe(
      "[['a', 'b'], ['c']]|[['a', 'b'], ['c', 'd']]|[['a'], ['b']]",
    );
  });

  test("a list that holds itself prints as Python prints it, and a function prints as one", () => {
    expect(render("{% set l = [1] %}{% do l.append(l) %}{{ l }}")).toBe("[1, [...]]");
    expect(render("{{ range }}", { range: () => [] })).toBe("<function>");
  });
});

// A file written by the escapeThrough would be the proof; make sure the canary path is where the test looks.
test("the canary is writable, so an escapeThrough would have left it", () => {
  writeFileSync(`${CANARY}.probe`, "");
  expect(existsSync(`${CANARY}.probe`)).toBe(true);
});

describe("env_var() hands models no secret of the machine", () => {
  async function renderedWith(call: string, env: Record<string, string>) {
    const dir = join(workspace.path, `env-${Math.random().toString(36).slice(2)}`);
    writeTree(dir, {
      "dbt_project.yml": "name: envs\nversion: '1.0'\nprofile: envs\n",
      "models/m.sql": `select '{{ ${call} }}' as x\n`,
      "models/_unit.yml": "unit_tests:\n  - name: t\n    model: m\n    given: []\n    expect:\n      rows: [{x: seen}]\n",
    });
    return runMain(["unit", "--format", "json"], dir, env);
  }

  test("a variable of the environment that is not DBT_* is refused when it is set, never printed", async () => {
    const result = await renderedWith("env_var('AWS_SECRET_ACCESS_KEY')", { AWS_SECRET_ACCESS_KEY: "TOP-SECRET-KEY" });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain(
      "env_var('AWS_SECRET_ACCESS_KEY') is set in the environment, and slp hands models only DBT_* variables",
    );
    expect(result.stdout + result.stderr).not.toContain("TOP-SECRET-KEY");
    const secret = await renderedWith("env_var('DBT_ENV_SECRET_TOKEN')", { DBT_ENV_SECRET_TOKEN: "TOP-SECRET-TOKEN" });
    expect(secret.exitCode).toBe(2);
    expect(secret.stdout + secret.stderr).not.toContain("TOP-SECRET-TOKEN");
  });

  test("DBT_* variables, a default for an unset name, and the test's overrides still work", async () => {
    expect((await renderedWith("env_var('DBT_WHO')", { DBT_WHO: "seen" })).exitCode).toBe(0);
    expect((await renderedWith("env_var('NOT_SET_ANYWHERE', 'seen')", {})).exitCode).toBe(0);
  });
});
