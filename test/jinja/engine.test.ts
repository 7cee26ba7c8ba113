/**
 * slp's Jinja engine (src/sql/jinja/) against Jinja2: each expectation is
 * what Jinja2 3.x (as dbt configures it) renders for the same template, so
 * a case fails when the engine drifts from Jinja2's syntax or Python's
 * value semantics.
 */
import { describe, expect, test } from "bun:test";
import { JinjaTemplate, TEMPLATE_LOOKUP, TemplateFailure } from "../../src/sql/jinja.ts";
import { tokenize } from "../../src/sql/jinja/lexer.ts";

const render = (source: string, values: Record<string, unknown> = {}) =>
  new JinjaTemplate(source, "t.sql").render({ lookup: (name) => (Object.hasOwn(values, name) ? values[name] : undefined) });

function failure(source: string, values: Record<string, unknown> = {}): TemplateFailure {
  try {
    render(source, values);
  } catch (error) {
    if (error instanceof TemplateFailure) return error;
    throw error;
  }
  throw new Error(`rendered without an error: ${source}`);
}

describe("lexing and parsing as Jinja2 does", () => {
  test("adjacent string literals are one string, so a triple-quoted string is one too", () => {
    expect(render(`{{ "a" 'b' "c" }}`)).toBe("abc");
    expect(render(`{% macro m(x) %}[{{ x }}]{% endmacro %}{{ m("""select 1""") }}`)).toBe("[select 1]");
    expect(render(`{{ """two\nlines""" }}`)).toBe("two\nlines");
  });

  test("Python's escapes are decoded and unknown ones keep their backslash (regexes in dbt macros)", () => {
    expect(render(`{{ 'a\\tb' }}|{{ '\\d+' }}|{{ "it\\'s" }}|{{ '\\x41' }}`)).toBe("a\tb|\\d+|it's|A");
  });

  test("whitespace control strips what `-` touches, and one trailing newline is dropped", () => {
    expect(render("a  {%- if true %} b {% endif -%}  \n c\n")).toBe("a b c");
    expect(render("x {#- a comment -#} y")).toBe("xy");
    expect(render("{% if true %}\nline\n{% endif %}\n")).toBe("\nline\n");
  });

  test("`-%}` on a {% set %} block's tag trims the block's first line, as on any tag (nunjucks kept it)", () => {
    expect(render("{%- set x -%}\n  (select 1)\n{%- endset -%}\nwhere a between {{ x }} and 2")).toBe("where a between (select 1) and 2");
    expect(render("{% set x %}\n  a\n{% endset %}[{{ x }}]")).toBe("[\n  a\n]");
  });

  test("raw blocks print their text untouched", () => {
    expect(render("{% raw %}{{ not_rendered }}{% endraw %}")).toBe("{{ not_rendered }}");
    expect(render("a {%- raw -%} {{ x }} {%- endraw -%} b")).toBe("a{{ x }}b");
  });

  test("`}}` inside a dict literal does not end the expression", () => {
    expect(render("{{ {'a': {'b': 1}} }}")).toBe("{'a': {'b': 1}}");
  });

  test("a trailing comma in a call, a list and a dict is allowed", () => {
    expect(render("{% macro m(a, b) %}{{ a }}{{ b }}{% endmacro %}{{ m(1, 2,) }}{{ [1,] }}{{ {'a': 1,} }}")).toBe("12[1]{'a': 1}");
  });

  test("lines are counted through strings, comments and raw blocks", () => {
    const tokens = tokenize("{# one\ntwo #}{{ 'a\nb' }}\n{% raw %}\n{% endraw %}{{ x }}");
    expect(tokens.filter((token) => token.type === "name").map((token) => token.line)).toEqual([5]);
  });

  test("syntax errors name the line, as Jinja2's do", () => {
    const error = failure("select 1\n{% if x %}\nnever closed");
    expect(error.line).toBe(3);
    expect(error.message).toContain("unexpected end of template, expected 'elif' or 'else' or 'endif'");
    expect(failure("{{ 1 +* 2 }}").message).toContain("unexpected '*'");
    expect(failure("{% endif %}").message).toContain("unknown tag 'endif'");
  });
});

describe("Python's values", () => {
  test("integer and float arithmetic print as Python prints them", () => {
    expect(render("{{ 4 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 2 ** -1 }}")).toBe(
      "2.0 3 -4 1 2 1024 0.5",
    );
    expect(render("{{ 1.5 + 1 }} {{ 3.0 }} {{ 2 * 1.5 }} {{ 10 / 4 }} {{ 1e3 }} {{ 7.0 // 2 }} {{ 1_000 }}")).toBe(
      "2.5 3.0 3.0 2.5 1000.0 3.0 1000",
    );
    expect(render("{{ 1 == 1.0 }} {{ true + 1 }} {{ -(3) }} {{ 0.1 + 0.2 }}")).toBe("True 2 -3 0.30000000000000004");
    expect(failure("{{ 1 / 0 }}").message).toBe("division by zero");
    expect(failure("{{ 'a' + 1 }}").message).toBe("unsupported operand type(s) for +: 'str' and 'int'");
  });

  test("True, False, None, lists, tuples and dicts print as Python's str() prints them", () => {
    expect(render("{{ true }} {{ False }} {{ none }} {{ [1, 'a', none, 2.0] }} {{ (1, 'b') }} {{ (1,) }} {{ {'k': [1]} }}")).toBe(
      "True False None [1, 'a', None, 2.0] (1, 'b') (1,) {'k': [1]}",
    );
    expect(render("{{ {'a': 1}.items() | list }}")).toBe("[('a', 1)]");
  });

  test("truth, `in` and comparison chains are Python's", () => {
    expect(render("{{ [] or 'empty' }} {{ {} and 1 }} {{ '' or none }} {{ 0.0 or 'zero' }}")).toBe("empty {} None zero");
    expect(render("{{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [1] }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}")).toBe(
      "True True True True True False",
    );
    expect(render("{{ [1, 2] == [1, 2] }} {{ {'a': 1} == {'a': 1} }} {{ 'a' < 'b' }}")).toBe("True True True");
  });

  test("`%` formatting and str.format", () => {
    expect(
      render("{{ '%s-%d' % ('a', 3) }} {{ '%05.1f' % 3.14159 }} {{ '%(n)s!' % {'n': 'x'} }} {{ '%r' % 'q' }} {{ '100%%' % () }}"),
    ).toBe("a-3 003.1 x! 'q' 100%");
    expect(render("{{ '{}_{}'.format('a', 1) }} {{ '{0}{0}'.format('x') }} {{ '{name}'.format(name='n') }}")).toBe("a_1 xx n");
    // Format specs, a nested width as dbt_project_evaluator writes it.
    expect(
      render(
        "[{{ '{:{w}}'.format('ab', w=4) }}|{{ '{:^6}'.format('ab') }}|{{ '{:05d}'.format(42) }}|{{ '{:,}'.format(1234567) }}|{{ '{:.1%}'.format(0.256) }}|{{ '{:08.3f}'.format(-3.14159) }}]",
      ),
    ).toBe("[ab  |  ab  |00042|1,234,567|25.6%|-003.142]");
    expect(failure("{{ '{:d}'.format(1.5) }}").message).toBe("Unknown format code 'd' for object of type 'float'");
  });

  test("string methods dbt code calls", () => {
    expect(
      render(
        "{{ ' Ab '.strip() }}|{{ 'a,b,,c'.split(',') }}|{{ 'a b  c'.split() }}|{{ 'a.b.c'.rsplit('.', 1) }}|{{ 'abc'.replace('b', 'x') }}|{{ 'abc'.startswith(('x', 'a')) }}",
      ),
    ).toBe("Ab|['a', 'b', '', 'c']|['a', 'b', 'c']|['a.b', 'c']|axc|True");
    expect(
      render("{{ '-'.join(['a', 'b']) }}|{{ 'ab'.upper() }}|{{ 'hello world'.title() }}|{{ 'abc'.find('c') }}|{{ '7'.zfill(3) }}"),
    ).toBe("a-b|AB|Hello World|2|007");
    expect(failure("{{ '-'.join([1, 2]) }}").message).toBe("sequence item: expected str instance, int found");
  });

  test("lists mutate through `do` and methods, as dbt_utils does", () => {
    expect(render("{% set cols = [] %}{% for c in ['a', 'b'] %}{% do cols.append(c | upper) %}{% endfor %}{{ cols | join(', ') }}")).toBe(
      "A, B",
    );
    expect(
      render("{% set l = [3, 1] %}{% do l.extend([2]) %}{% do l.sort() %}{% do l.insert(0, 9) %}{{ l }} {{ l.pop() }} {{ l.index(1) }}"),
    ).toBe("[9, 1, 2, 3] 3 1");
    expect(
      render("{% set d = {} %}{% do d.update({'a': 1}) %}{% do d.setdefault('b', []).append(2) %}{{ d }} {{ d.pop('a') }} {{ d }}"),
    ).toBe("{'a': 1, 'b': [2]} 1 {'b': [2]}");
  });

  test("a key that is a whole number written as text keeps Python's order, or the mapping is not iterated", () => {
    // Inserted in ascending order, before any other key: JavaScript's order is Python's.
    expect(render("{% set d = {'1': 'a', '2': 'b', 'x': 'c'} %}{{ d }} {{ d | list }} {{ d['2'] }}")).toBe(
      "{'1': 'a', '2': 'b', 'x': 'c'} ['1', '2', 'x'] b",
    );
    // After another key (or a larger one), Python lists it where it was inserted and JavaScript first: refused, not reordered.
    const misordered = "{% set d = {'x': 'c', '2020': 'b'} %}";
    expect(render(`${misordered}{{ d['2020'] }} {{ d.get('x') }} {{ d | length }}`)).toBe("b c 2");
    expect(failure(`${misordered}{% for k in d %}{{ k }}{% endfor %}`).message).toContain("whole number written as text");
    expect(failure("{% set d = {'2': 1} %}{% do d.update({'1': 2}) %}{{ d }}").message).toContain("whole number written as text");
  });

  test("slicing and item access", () => {
    expect(
      render("{{ 'abcdef'[1:4] }} {{ [1, 2, 3, 4][::2] }} {{ [1, 2, 3][-1] }} {{ 'abc'[::-1] }} {{ {'a': 1}['a'] }} {{ [[1, 2]][0][1] }}"),
    ).toBe("bcd [1, 3] 3 cba 1 2");
    // A dict's key wins over its method with [ ], the method wins with a dot, as in Jinja's getitem/getattr.
    expect(render("{% set d = {'items': 'key'} %}{{ d['items'] }} {{ d.items() | list }}")).toBe("key [('items', 'key')]");
  });
});

describe("statements", () => {
  test("for: loop variables, else, filtering, unpacking, break and continue", () => {
    expect(
      render(
        "{% for x in [1, 2, 3] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}",
      ),
    ).toBe("103TrueFalse3;212FalseFalse3;321FalseTrue3;");
    expect(render("{% for x in [] %}x{% else %}empty{% endfor %}")).toBe("empty");
    expect(render("{% for x in range(6) if x is odd %}{{ x }}{{ loop.cycle('a', 'b') }}{% endfor %}")).toBe("1a3b5a");
    expect(render("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }} {% endfor %}")).toBe("a=1 b=2 ");
    expect(
      render("{% for x in range(5) %}{% if x == 1 %}{% continue %}{% endif %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}"),
    ).toBe("02");
  });

  test("set inside a loop does not leak out, nor into the next iteration; namespace() does (Jinja2 >= 2.9)", () => {
    expect(render("{% set n = 0 %}{% for i in [1, 2] %}{% set n = n + i %}{{ n }}{% endfor %}|{{ n }}")).toBe("12|0");
    expect(render("{% set ns = namespace(n=0) %}{% for i in [1, 2] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}")).toBe("3");
    expect(failure("{% set x = 1 %}{% set x.y = 2 %}").message).toBe("cannot assign attribute on non-namespace object");
  });

  test("set: tuples and blocks, with a filter", () => {
    expect(
      render("{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set t %} x {{ a }} {% endset %}[{{ t }}]{% set u | upper %}y{% endset %}{{ u }}"),
    ).toBe("12[ x 1 ]Y");
    expect(failure("{% set a, b = [1] %}").message).toBe("not enough values to unpack (expected 2, got 1)");
  });

  test("macros: defaults, keywords, varargs, kwargs, caller, and their errors", () => {
    const macros = "{% macro m(a, b='B') %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}{% endmacro %}";
    expect(render(`${macros}{{ m(1) }} {{ m(1, 2, 3) }} {{ m(b=2, a=1, c=3) }}`)).toBe("1B[]{} 12[3]{} 12[]{'c': 3}");
    expect(failure("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}").message).toBe("macro 'm' takes not more than 1 argument(s)");
    expect(failure("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=1) }}").message).toBe("macro 'm' takes no keyword argument 'b'");
    expect(render("{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}{% call wrap('b') %}body{% endcall %}")).toBe(
      "<b>body</b>",
    );
    expect(
      render(
        "{% macro each(items) %}{% for i in items %}{{ caller(i) }}{% endfor %}{% endmacro %}{% call(x) each([1, 2]) %}({{ x }}){% endcall %}",
      ),
    ).toBe("(1)(2)");
  });

  test("filter blocks, do, with, and calls with *args and **kwargs", () => {
    expect(render("{% filter upper %}abc{% endfilter %}{% with x = 2 %}{{ x }}{% endwith %}")).toBe("ABC2");
    expect(render("{% macro m(a, b, c) %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(*[1, 2], **{'c': 3}) }}")).toBe("123");
  });

  test("Jinja2's globals: joiner, cycler, namespace, dict, range", () => {
    expect(render("{% set pipe = joiner(' | ') %}{% for x in ['a', 'b', 'c'] %}{{ pipe() }}{{ x }}{% endfor %}")).toBe("a | b | c");
    expect(
      render(
        "{% set row = cycler('odd', 'even') %}{{ row.next() }} {{ row.next() }} {{ row.current }} {% do row.reset() %}{{ row.next() }}",
      ),
    ).toBe("odd even odd odd");
    expect(render("{{ dict(a=1) }} {{ range(1, 7, 2) | list }} {{ namespace(x=1).x }}")).toBe("{'a': 1} [1, 3, 5] 1");
  });

  test("a conditional expression without else prints nothing", () => {
    expect(render("[{{ 'x' if false }}]{{ 'a' if true else 'b' }}")).toBe("[]a");
  });
});

describe("filters and tests", () => {
  test("Jinja2's filters", () => {
    expect(
      render(
        "{{ none | default('d') }}|{{ missing | default('d') }}|{{ '' | default('d', true) }}|{{ [3, 1, 2] | sort | first }}|{{ [1, 2] | last }}",
      ),
    ).toBe("None|d|d|1|2");
    expect(
      render(
        "{{ ['b', 'a', 'b'] | unique | list }}|{{ [1, 2, 3] | sum }}|{{ [1, 5] | max }}|{{ 'x y z' | wordcount }}|{{ [1, 2] | reverse | list }}",
      ),
    ).toBe("['b', 'a']|6|5|3|[2, 1]");
    expect(render("{{ '3' | int + 1 }}|{{ 'x' | int }}|{{ '2.5' | float }}|{{ 2.567 | round(2) }}|{{ 2.5 | round }}|{{ -3 | abs }}")).toBe(
      "4|0|2.5|2.57|2.0|3",
    );
    expect(
      render(
        "{{ {'b': 1, 'a': 2} | tojson }}|{{ [1, 'a'] | tojson }}|{{ 'a-b' | replace('-', '_') }}|{{ '  x ' | trim }}|{{ 'ab' | capitalize }}",
      ),
    ).toBe('{"a": 2, "b": 1}|[1, "a"]|a_b|x|Ab');
    expect(
      render("{{ [1, 2, 3, 4, 5] | batch(2) | list }}|{{ 'a\nb' | indent(2) }}|{{ 'hello world' | title }}|{{ 'a' | center(3) }}"),
    ).toBe("[[1, 2], [3, 4], [5]]|a\n  b|Hello World| a ");
    expect(
      render("{{ [1, 2, 3, 4] | select('even') | list }}|{{ [1, 2, 3] | reject('odd') | list }}|{{ ['a', 'B'] | map('upper') | join }}"),
    ).toBe("[2, 4]|[2]|AB");
    expect(
      render("{{ rows | selectattr('on') | map(attribute='n') | list }}|{{ rows | rejectattr('n', 'gt', 1) | list | length }}", {
        rows: [
          { n: 1, on: true },
          { n: 2, on: false },
        ],
      }),
    ).toBe("[1]|1");
    expect(render("{{ '%s=%s' | format('a', 1) }}|{{ {'b': 1, 'a': 2} | dictsort }}|{{ 'abc' | length }}|{{ [1, 2] | count }}")).toBe(
      "a=1|[('a', 2), ('b', 1)]|3|2",
    );
    // Jinja's htmlsafe_json_dumps over Python's json.dumps (ensure_ascii): sorted keys, <>&' and non-ASCII escaped.
    expect(render(`{{ {'b': "<é>", 'a': "it's"} | tojson }}|{{ [1.0, none, true] | tojson }}`)).toBe(
      '{"a": "it\\u0027s", "b": "\\u003c\\u00e9\\u003e"}|[1.0, null, true]',
    );
    expect(failure("{{ 1 | nosuchfilter }}").message).toBe("filter not found: nosuchfilter");
  });

  test("Jinja2's tests", () => {
    expect(
      render(
        "{{ x is defined }}{{ x is undefined }}{{ none is none }}{{ 'a' is string }}{{ 1 is number }}{{ {} is mapping }}{{ [] is iterable }}",
      ),
    ).toBe("FalseTrueTrueTrueTrueTrueTrue");
    expect(
      render(
        "{{ 4 is divisibleby 2 }}{{ 3 is even }}{{ 3 is odd }}{{ 'ab' is lower }}{{ 1 is eq 1 }}{{ 1 is in [1] }}{{ x is not defined }}",
      ),
    ).toBe("TrueFalseTrueTrueTrueTrueTrue");
    expect(failure("{{ 1 is nosuchtest }}").message).toBe("test not found: nosuchtest");
  });
});

describe("undefined values and the context", () => {
  test("printing an undefined name or member is an error naming it; testing and defaulting it is not", () => {
    expect(failure("{{ nope }}").message).toContain("'nope' is undefined");
    expect(failure("{{ d.nope }}", { d: {} }).message).toContain("'dict object' has no attribute 'nope'");
    expect(failure("{{ nope.attr }}").message).toBe("'nope' is undefined");
    expect(failure("{{ nope() }}").message).toBe("'nope' is undefined");
    expect(render("{{ d.nope is defined }}{{ d.nope | default('x') }}{% for i in nope %}{% endfor %}", { d: {} })).toBe("Falsex");
  });

  test("context functions get keyword arguments as a last object, and floats as numbers", () => {
    const calls: unknown[][] = [];
    const f = (...args: unknown[]) => {
      calls.push(args);
      return "r";
    };
    expect(render("{{ f(1, 2.0, k='v') }}", { f })).toBe("r");
    expect(calls[0]?.slice(0, 2)).toEqual([1, 2]);
    expect({ ...(calls[0]?.[2] as object) }).toEqual({ __keywords: true, k: "v" });
  });

  test("an object with TEMPLATE_LOOKUP shows its listed members and prints through its own toString", () => {
    const relation = {
      identifier: "stg",
      toString: () => '"stg"',
      [TEMPLATE_LOOKUP]: (name: string) => (name === "identifier" ? "stg" : undefined),
    };
    expect(render("{{ r }} {{ r.identifier }} {{ r.identifier | upper }} {{ [r] | join(',') }}", { r: relation })).toBe(
      '"stg" stg STG "stg"',
    );
    expect(render("{{ r.schema is defined }}", { r: relation })).toBe("False");
  });

  test("an error names the line it happened on, inside a macro too", () => {
    const error = failure("{% macro m() %}\n\n{{ 1 / 0 }}{% endmacro %}\nselect\n{{ m() }}");
    expect(error.line).toBe(3);
    expect(failure("a\nb\n{{ nope }}").line).toBe(3);
  });
});
