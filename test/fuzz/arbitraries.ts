/**
 * The inputs the fuzz suite generates, as a hostile or careless agent would
 * write them: dbt properties yml, dbt_project.yml, slp.yml, CODEOWNERS,
 * diff.json, diff-from-row rows, model SQL with Jinja, and git histories.
 * Each starts from something close to valid (so the deep paths run) and is
 * then bent: odd scalars, wrong types, dangerous names, links, size and
 * nesting, and text edits. Breakers are edits any strict reader rejects
 * (PyYAML's rules for YAML, JSON's grammar): a case carrying one must not
 * exit 0.
 */
import fc from "fast-check";
import { CANARY, type CaseFile, type FuzzCase } from "./harness.ts";

/** Names a template or a yml might use, the ones JavaScript treats specially among them. */
const NAME = fc.oneof(
  fc.constantFrom(
    "fct",
    "stg",
    "id",
    "amount",
    "x",
    "constructor",
    "__proto__",
    "prototype",
    "toString",
    "valueOf",
    "call",
    "apply",
    "caller",
    "_private",
    "items",
    "get",
  ),
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/),
);

/** Scalars as YAML text: the forms PyYAML resolves specially, Jinja, numbers at the edges of precision. */
const YAML_SCALAR = fc.oneof(
  fc.constantFrom(
    "yes",
    "no",
    "on",
    "off",
    "~",
    "null",
    ".nan",
    ".NaN",
    ".inf",
    "-.inf",
    "1e3",
    "1.0e+3",
    "0x1F",
    "0777",
    "0b101",
    "12:30:00",
    "2024-01-31",
    "2024-01-31T08:00:00Z",
    "9007199254740993",
    "-0",
    "1_000",
    "''",
    "'x'",
    '"y"',
    "'{{ var(\"x\") }}'",
    "'{{ range.constructor(\"return 1\")() }}'",
    "true",
    "True",
    "FALSE",
    "[]",
    "{}",
    "[1, 2]",
    "{a: 1}",
  ),
  fc.integer().map(String),
  fc.double({ noNaN: false }).map(String),
  fc.string({ maxLength: 16 }).map((text) => JSON.stringify(text)),
);

/** A JSON-shaped value whose leaves are raw YAML scalars. */
type Node = { raw: string } | Node[] | { [key: string]: Node };

const nodeTree: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    YAML_SCALAR.map((raw) => ({ raw })),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(NAME, tie("node"), { maxKeys: 4 }),
  ),
})).node;

/** A value emitted as YAML flow style (JSON-like, raw scalars unquoted). */
function flow(node: Node): string {
  if ("raw" in node && typeof (node as { raw: unknown }).raw === "string" && !Array.isArray(node)) return (node as { raw: string }).raw;
  if (Array.isArray(node)) return `[${node.map(flow).join(", ")}]`;
  return `{${Object.entries(node)
    .map(([key, value]) => `${JSON.stringify(key)}: ${flow(value)}`)
    .join(", ")}}`;
}

/** Sometimes the right thing, sometimes anything. */
const either = (good: fc.Arbitrary<string>) => fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: nodeTree.map(flow) });

const interval = fc.record({ min: YAML_SCALAR, max: YAML_SCALAR }).map(({ min, max }) => `{min: ${min}, max: ${max}}`);

const spec = fc
  .record(
    {
      grain: either(fc.constant("one row per id")),
      primary_key: either(fc.constantFrom("[id]", "[id, amount]", "[]")),
      tier: either(fc.constantFrom("standard", "critical", "critcal")),
      metrics: either(fc.constantFrom("{amount: sum of amount}", "{}")),
      known_edges: either(fc.constantFrom("[an id is kept]", "[]", "[a, a]")),
      sensitive_columns: either(fc.constantFrom("[]", "[amount]")),
    },
    { requiredKeys: [] },
  )
  .map(
    (fields) =>
      `{${Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ")}}`,
  );

const preRegistration = fc
  .record(
    {
      type: either(fc.constantFrom("data_change", "refactoring")),
      reason: either(fc.constant("a reason")),
      row_delta: either(interval),
      removed_pks: either(YAML_SCALAR.map((max) => `{max: ${max}}`)),
      altered_columns: either(fc.constantFrom("[]", "[amount]")),
      metrics: either(interval.map((i) => `{amount: {delta_pct: ${i}}}`)),
    },
    { requiredKeys: [] },
  )
  .map(
    (fields) =>
      `{${Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ")}}`,
  );

/** A dbt properties yml: models and unit tests, in block style, bent. */
export const propertiesYml = fc
  .record({
    name: either(fc.constantFrom("fct", "stg", "fct_other")),
    spec: fc.option(spec),
    pre: fc.option(preRegistration),
    tests: fc.option(
      either(fc.constantFrom("[unique, not_null]", "[{unique: {where: '1 = 0'}}]", "[{accepted_values: {values: [a, b]}}]")),
    ),
    unitName: either(fc.constant("keeps_ids")),
    enabled: fc.option(YAML_SCALAR),
    edge: fc.option(either(fc.constant("an id is kept"))),
    given: either(fc.constantFrom("[{input: \"ref('stg')\", rows: [{id: 1, amount: 10}]}]", "[{input: this, rows: []}]", "[]")),
    expect: either(
      fc.constantFrom("{rows: [{id: 1, amount: 10}]}", "{format: csv, rows: 'id\\n1'}", "{format: sql, rows: 'select 1 as id'}"),
    ),
    extra: fc.option(nodeTree.map(flow)),
  })
  .map((parts) =>
    [
      "version: 2",
      "models:",
      `  - name: ${parts.name}`,
      "    meta:",
      ...(parts.spec ? [`      spec: ${parts.spec}`] : []),
      ...(parts.pre ? [`      pre_registration: ${parts.pre}`] : []),
      "    columns:",
      "      - name: id",
      ...(parts.tests ? [`        data_tests: ${parts.tests}`] : []),
      "unit_tests:",
      `  - name: ${parts.unitName}`,
      "    model: fct",
      `    config: {${parts.enabled !== null ? `enabled: ${parts.enabled}, ` : ""}meta: {edge: ${parts.edge ?? "null"}}}`,
      `    given: ${parts.given}`,
      `    expect: ${parts.expect}`,
      ...(parts.extra ? [`x-extra: ${parts.extra}`] : []),
      "",
    ].join("\n"),
  );

/** Edits any YAML 1.1 reader (PyYAML included) refuses, each with what it is. */
const YAML_BREAKERS: [string, string][] = [
  ["\nx-broken: [a, b\n", "an unclosed flow sequence"],
  ['\nx-broken: "abc\n', "an unclosed quote"],
  ["\nx-broken:\n\t- a\n", "a tab used as indentation"],
  ["\nx-broken: a: b\n", "a mapping value where none is allowed"],
  ["\nx-broken: *nowhere\n", "an alias to no anchor"],
  ["\n]\n", "a closing bracket with no opening one"],
  ["\n---\nx-second: 1\n", "a second document (dbt reads one)"],
];

/** Text edits: none, a cut, a doubled line, stray punctuation, or a breaker. */
export function bent(text: fc.Arbitrary<string>): fc.Arbitrary<{ text: string; breaker?: string }> {
  return fc
    .tuple(text, fc.nat({ max: 9 }), fc.nat(), fc.nat(), fc.string({ unit: fc.constantFrom(..."{}[]%#:&*!|>'\"\\-?,\n\t "), maxLength: 6 }))
    .map(([body, how, a, b, junk]) => {
      const at = body.length === 0 ? 0 : a % body.length;
      if (how <= 3) return { text: body };
      if (how === 4) return { text: body.slice(0, at) + body.slice(at + (b % 20)) };
      if (how === 5) {
        const lines = body.split("\n");
        lines.splice(at % lines.length, 0, lines[at % lines.length] ?? "");
        return { text: lines.join("\n") };
      }
      if (how === 6) return { text: body.slice(0, at) + junk + body.slice(at) };
      const [breaker, what] = YAML_BREAKERS[b % YAML_BREAKERS.length] as [string, string];
      return { text: body + breaker, breaker: what };
    });
}

/** The size and nesting attacks, sometimes. */
const yamlAttack = fc.constantFrom(
  `x-deep: ${"[".repeat(300)}${"]".repeat(300)}\n`,
  `${[
    "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]",
    ..."bcdefg".split("").map((c, i) => `${c}: &${c} [${Array(10).fill(`*${"abcdefg"[i]}`).join(", ")}]`),
  ].join("\n")}\n`,
  `x-long: ${"y".repeat(5000)}\n`,
);

// --- Jinja and SQL ---

const ATTRIBUTE = fc.constantFrom(
  "constructor",
  "__proto__",
  "prototype",
  "call",
  "apply",
  "bind",
  "name",
  "length",
  "toString",
  "valueOf",
  "items",
  "get",
  "upper",
  "identifier",
  "include",
  "_x",
  "0",
);

const jinjaExpression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(
      "1",
      "'s'",
      "[1, 2]",
      "{'k': 1}",
      "none",
      "true",
      "range",
      "ref",
      "ref('stg')",
      "this",
      "config",
      "var",
      "adapter",
      "dbt",
      "target",
      "loop",
      "caller",
      "x",
      "cycler",
      "modules",
      "zip",
      "run_started_at",
    ),
    fc.tuple(tie("expr"), ATTRIBUTE).map(([target, attribute]) => `${target}.${attribute}`),
    fc.tuple(tie("expr"), ATTRIBUTE).map(([target, attribute]) => `${target}[${JSON.stringify(attribute)}]`),
    fc.tuple(tie("expr"), fc.array(tie("expr"), { maxLength: 2 })).map(([fn, args]) => `${fn}(${args.join(", ")})`),
    fc
      .tuple(
        tie("expr"),
        fc.constantFrom(
          "upper",
          "join",
          "length",
          "attr('constructor')",
          "map(attribute='constructor')",
          "groupby('constructor')",
          "sort(attribute='x')",
          "default('d')",
          "tojson",
          "list",
          "first",
          "valueOf",
          "center(9999999999)",
          "indent(99999999999)",
          "slice(99999999999)",
        ),
      )
      .map(([value, filter]) => `(${value})|${filter}`),
    fc.tuple(tie("expr"), fc.constantFrom("+", "~", "*", "%", "==", "in", "and"), tie("expr")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.constantFrom(
      `env_var('SLP_FUZZ_SECRET')`,
      `env_var('HOME')`,
      `var('x', 1)`,
      `range(1000000)`,
      `'x' * 100000000`,
      `fromjson('{"__proto__": {"a": 1}}')`,
    ),
  ),
})).expr;

const jinjaTemplate: fc.Arbitrary<string> = fc.letrec<{ body: string }>((tie) => ({
  body: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(
      "select 1 as id",
      "select id, amount from {{ ref('stg') }}",
      " where id > 0",
      ", ",
      "\n",
      "-- a comment\n",
      "{# a Jinja comment #}",
    ),
    jinjaExpression.map((expr) => `{{ ${expr} }}`),
    fc.tuple(NAME, jinjaExpression).map(([name, expr]) => `{% set ${name} = ${expr} %}`),
    fc.tuple(jinjaExpression, tie("body")).map(([cond, inner]) => `{% if ${cond} %}${inner}{% endif %}`),
    fc.tuple(jinjaExpression, tie("body")).map(([items, inner]) => `{% for item in ${items} %}${inner}{% endfor %}`),
    fc.tuple(tie("body")).map(([inner]) => `{% macro m(a) %}${inner}{{ m(a) }}{% endmacro %}{{ m(1) }}`),
    fc.array(tie("body"), { maxLength: 3 }).map((parts) => parts.join("")),
    fc.string({ unit: fc.constantFrom(..."{}%#()[]'\"|.~+-*/<>=!;,` \n"), maxLength: 8 }),
    fc.constantFrom(
      `select content as id from read_text('${CANARY}')`,
      `select * from read_csv('${CANARY}')`,
      `select 1 as id) as x; copy (select 1) to '${CANARY}.copy'; select * from (select 1 as id`,
      "select 1 as id; attach 'x.db'",
      "{% include 'x' %}",
      `{% set a"^Function\`1\`\`\`^" = 1 %}`,
      `${"{% if true %}".repeat(3000)}1${"{% endif %}".repeat(3000)}`,
    ),
  ),
})).body;

// --- the other inputs ---

const dbtProjectYml = fc
  .record({
    name: either(fc.constant("fuzz")),
    modelPaths: either(fc.constantFrom("[models]", "[models, nope]", "models")),
    vars: fc.option(nodeTree.map(flow)),
    dispatch: fc.option(nodeTree.map(flow)),
  })
  .map(({ name, modelPaths, vars, dispatch }) =>
    [
      `name: ${name}`,
      "version: '1.0'",
      "profile: fuzz",
      `model-paths: ${modelPaths}`,
      ...(vars ? [`vars: ${vars}`] : []),
      ...(dispatch ? [`dispatch: ${dispatch}`] : []),
      "",
    ].join("\n"),
  );

const slpYml = fc
  .record({
    marts: fc.option(either(fc.constantFrom("[models/marts]", "[models]", "[]"))),
    protected: fc.option(either(fc.constant("[docs/]"))),
    limits: fc.option(
      fc.dictionary(
        fc.constantFrom("file_mb", "yaml_values", "nesting_depth", "template_steps", "unit_query_seconds", "unknown_limit"),
        YAML_SCALAR,
        { maxKeys: 3 },
      ),
    ),
    extra: fc.option(nodeTree.map(flow)),
  })
  .map(({ marts, protected: paths, limits, extra }) =>
    [
      ...(marts ? [`marts_paths: ${marts}`] : []),
      ...(paths ? [`protected_paths: ${paths}`] : []),
      ...(limits
        ? [
            `limits: {${Object.entries(limits)
              .map(([k, v]) => `${k}: ${v}`)
              .join(", ")}}`,
          ]
        : []),
      ...(extra ? [`x: ${extra}`] : []),
      "",
    ].join("\n"),
  );

const codeowners = fc
  .array(
    fc.oneof(
      fc.constantFrom("/models/marts/ @data", "* @all", "*.sql @sql", "models/** @m", "/models/marts/fct.sql", "# a comment", ""),
      fc
        .tuple(fc.string({ unit: fc.constantFrom(..."ab*?/.[]!#\\ "), maxLength: 30 }), fc.constantFrom("", " @x"))
        .map(([pattern, owner]) => pattern + owner),
      fc.nat({ max: 60 }).map((n) => `${"*a".repeat(n)}*b @x`),
    ),
    { maxLength: 8 },
  )
  .map((lines) => `${lines.join("\n")}\n`);

const NUMBER_TEXT = fc.oneof(
  fc.constantFrom(
    "0",
    "1",
    "-1",
    "8400.0",
    "0.5",
    "NaN",
    "Infinity",
    "-Infinity",
    "9007199254740993",
    "1e400",
    "-0",
    "null",
    '"3"',
    "true",
    "1.5e308",
  ),
  fc.integer().map(String),
  fc.double().map((n) => (Number.isFinite(n) ? String(n) : "0")),
);

const diffJson = fc
  .record({
    model: either(fc.constant('"fct"')),
    row_delta: NUMBER_TEXT,
    removed_pks: NUMBER_TEXT,
    altered_columns: fc.constantFrom("[]", '["amount"]', '["a", "a"]', "{}"),
    metrics: fc.oneof(
      fc.constant("{}"),
      NUMBER_TEXT.map((n) => `{"amount": {"delta_pct": ${n}}}`),
    ),
    reconciliation: fc.option(fc.tuple(NUMBER_TEXT, NUMBER_TEXT).map(([a, b]) => `{"model_value": ${a}, "external_value": ${b}}`)),
    extra: fc.option(fc.constantFrom(`{"x": ${"[".repeat(600)}${"]".repeat(600)}}`, '{"__proto__": {"polluted": 1}}', "{}")),
  })
  .map(({ extra, reconciliation, ...fields }) => {
    const entries = Object.entries(fields).map(([k, v]) => `"${k}": ${v}`);
    if (reconciliation) entries.push(`"reconciliation": ${reconciliation}`);
    if (extra) entries.push(`"extra": ${extra}`);
    return `{${entries.join(", ")}}`;
  });

/** Text edits that JSON's grammar refuses, as Python's json does. */
const JSON_BREAKERS = ["{", "}", ",", "'", "// c", "[1,]", '"\\x"', "\u0001"];

const diffRow = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(
            "row_delta",
            "removed_pks",
            "amount_delta_pct",
            "amount_value",
            "amount_changed",
            "reconciliation_model_value",
            "reconciliation_external_value",
            "window_start",
          ),
          NAME,
        ),
        NUMBER_TEXT,
      ),
      { maxLength: 8 },
    )
    .map((cells) => `${cells.map(([name]) => name).join(",")}\n${cells.map(([, value]) => value).join(",")}\n`),
  fc.dictionary(fc.constantFrom("row_delta", "removed_pks", "amount_delta_pct", "x_changed", "__proto__"), NUMBER_TEXT, { maxKeys: 6 }).map(
    (row) =>
      `{${Object.entries(row)
        .map(([k, v]) => `"${k}": ${v}`)
        .join(", ")}}`,
  ),
  fc.string({ maxLength: 40 }),
);

/** A file's path or a link somewhere: the entries a walk meets. */
const link = fc.constantFrom<CaseFile>(
  { link: "." },
  { link: ".." },
  { link: "/" },
  { link: CANARY },
  { link: "/dev/zero" },
  { link: "missing.yml" },
  { link: "../models" },
);

// --- the cases ---

const YML = "models/marts/fct.yml";

export const cases: Record<string, fc.Arbitrary<FuzzCase>> = {
  "properties yml (check)": fc.tuple(bent(propertiesYml), fc.option(yamlAttack)).map(([{ text, breaker }, attack]) => ({
    kind: "properties yml (check)",
    files: { [YML]: text + (attack ?? "") },
    argv: ["check"],
    mustRefuse: breaker,
  })),
  "properties yml and SQL (unit)": fc.tuple(bent(propertiesYml), jinjaTemplate).map(([{ text, breaker }, sql]) => ({
    kind: "properties yml and SQL (unit)",
    files: { [YML]: text, "models/marts/fct.sql": sql },
    argv: ["unit"],
    mustRefuse: breaker,
    env: { SLP_FUZZ_SECRET: "FUZZ-CANARY-7f3a", SLP_LIMIT_UNIT_QUERY_SECONDS: "5", SLP_LIMIT_TEMPLATE_STEPS: "200000" },
  })),
  "model SQL and Jinja (unit)": jinjaTemplate.map((sql) => ({
    kind: "model SQL and Jinja (unit)",
    files: { "models/marts/fct.sql": sql },
    argv: ["unit", "--format", "json"],
    env: { SLP_FUZZ_SECRET: "FUZZ-CANARY-7f3a", SLP_LIMIT_UNIT_QUERY_SECONDS: "5", SLP_LIMIT_TEMPLATE_STEPS: "200000" },
  })),
  "dbt_project.yml (check, unit)": fc.tuple(bent(dbtProjectYml), fc.constantFrom("check", "unit")).map(([{ text, breaker }, task]) => ({
    kind: "dbt_project.yml (check, unit)",
    files: { "dbt_project.yml": text },
    argv: [task],
    mustRefuse: breaker,
  })),
  "slp.yml (check)": bent(slpYml).map(({ text, breaker }) => ({
    kind: "slp.yml (check)",
    files: { "slp.yml": text },
    argv: ["check"],
    mustRefuse: breaker,
  })),
  "CODEOWNERS and links (check)": fc
    .tuple(
      codeowners,
      fc.option(fc.tuple(fc.constantFrom("CODEOWNERS", "models/marts/linked.yml", "models/self", "models/marts/fct.sql"), link)),
    )
    .map(([text, linked]) => ({
      kind: "CODEOWNERS and links (check)",
      files: { CODEOWNERS: text, ...(linked ? { [linked[0]]: linked[1] } : {}) },
      argv: ["check"],
    })),
  "diff.json (compare)": fc
    .tuple(diffJson, fc.nat({ max: 5 }), fc.nat(), fc.constantFrom(...JSON_BREAKERS))
    .map(([json, how, at, breaker]) => {
      const broken = how === 0 ? json.slice(0, at % (json.length + 1)) + breaker + json.slice(at % (json.length + 1)) : json;
      let strictJson = true;
      try {
        JSON.parse(broken.replace(/-?Infinity|NaN/g, "0"));
      } catch {
        strictJson = false;
      }
      return {
        kind: "diff.json (compare)",
        files: { "diff/fct.json": broken },
        argv: ["compare", "diff/fct.json"],
        mustRefuse: strictJson ? undefined : "text JSON's grammar refuses",
      };
    }),
  "diff-from-row (row)": fc.tuple(diffRow, fc.boolean()).map(([row, piped]) => ({
    kind: "diff-from-row (row)",
    files: (piped ? {} : { "row.txt": row }) as Record<string, CaseFile>,
    argv: ["diff-from-row", "--model", "fct", ...(piped ? ["-"] : ["row.txt"])],
    stdin: piped ? row : undefined,
  })),
  "git history (gate)": fc
    .array(
      fc.record({
        yml: fc.option(bent(propertiesYml)),
        sql: fc.option(jinjaTemplate),
        owners: fc.option(codeowners),
        linked: fc.option(link),
      }),
      { minLength: 1, maxLength: 2 },
    )
    .map((steps) => ({
      kind: "git history (gate)",
      files: {},
      commits: steps.map((step) => ({
        ...(step.yml ? { [YML]: step.yml.text } : {}),
        ...(step.sql ? { "models/marts/fct.sql": step.sql } : {}),
        ...(step.owners ? { CODEOWNERS: step.owners } : {}),
        ...(step.linked ? { "models/marts/linked.yml": step.linked } : {}),
      })),
      argv: ["gate", "--base", "main"],
      mustRefuse: steps[steps.length - 1]?.yml?.breaker,
    })),
};
