/**
 * The project model (src/project/model.ts) on real projects: each folder
 * under test/fixtures/model/ is read from the work tree and from a commit of
 * a repository holding the same files, and what the model says (settings,
 * every node with its file, line, fqn and config, the unit tests, the DAG)
 * must equal the folder's `expected.json` both times. Rewrite with
 * SLP_UPDATE_FIXTURES=1, then read the diff.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Repository } from "../src/git/repository.ts";
import { lineAt } from "../src/project/files/lines.ts";
import { ParseStore, Project, type Node } from "../src/project/model.ts";
import { CommitTree, WorkTree, type FileSource } from "../src/project/files/source.ts";
import { expectGolden, FIXTURES } from "./support/fixtures.ts";
import { commitAll, initRepo } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";

const ROOT = join(FIXTURES, "model");
const cases = readdirSync(ROOT)
  .filter((name) => statSync(join(ROOT, name)).isDirectory())
  .sort();

/** The configs a rule may read, in a fixed order. */
const CONFIG_KEYS = [
  "enabled",
  "materialized",
  "tags",
  "meta",
  "schema",
  "alias",
  "severity",
  "where",
  "unique_key",
  "column_types",
  "strategy",
];

function configOf(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(CONFIG_KEYS.filter((key) => Object.hasOwn(config, key)).map((key) => [key, config[key]]));
}

function nodeOf(node: Node) {
  return {
    id: node.uniqueId,
    file: node.file,
    line: node.line,
    yml: node.ymlFile === null ? null : `${node.ymlFile}:${node.declaration?.line}`,
    fqn: node.fqn.join("."),
    enabled: node.enabled,
    config: configOf(node.config),
    ...(Object.keys(node.dynamicConfig).length > 0 ? { dynamic: node.dynamicConfig } : {}),
    ...("materialized" in node
      ? { materialized: node.materialized, identifier: node.identifier, language: node.language, latest: node.latest }
      : {}),
    columns: node.columns.map((column) => `${column.name}:${column.line}${column.dataType ? ` ${column.dataType}` : ""}`),
    tests: node.tests.map((dataTest) => `${dataTest.name}${dataTest.column ? ` on ${dataTest.column}` : ""}:${dataTest.line}`),
  };
}

async function summary(project: Project) {
  const settings = await project.settings();
  const nodes = await project.nodes();
  const graph = await project.graph();
  const packages = await project.packages();
  return {
    settings: { file: settings.file, name: settings.name, paths: settings.paths, packagesInstallPath: settings.packagesInstallPath },
    nodes: [
      ...nodes.models,
      ...nodes.seeds,
      ...nodes.snapshots,
      ...nodes.sources,
      ...nodes.analyses,
      ...nodes.singularTests,
      ...nodes.genericTests,
    ].map(nodeOf),
    dataTests: nodes.dataTests.map((dataTest) => ({
      on: dataTest.on,
      test: `${dataTest.name}${dataTest.column ? ` on ${dataTest.column}` : ""}`,
      at: `${dataTest.file}:${dataTest.line}`,
      fqn: dataTest.fqn.join("."),
      config: configOf(dataTest.config),
    })),
    unitTests: nodes.unitTests.map((unit) => ({
      id: unit.uniqueId,
      at: `${unit.file}:${unit.line}`,
      fqn: unit.fqn.join("."),
      enabled: unit.enabled,
      config: configOf(unit.config),
    })),
    macros: nodes.macroFiles.map((file) => `${file.file}: ${file.macros.map((macro) => `${macro.name}:${macro.line}`).join(", ")}`),
    fixtures: Object.fromEntries(nodes.fixtures),
    packages: await Promise.all(packages.map(async (pkg) => ({ prefix: pkg.prefix, models: (await pkg.nodes()).models.map(nodeOf) }))),
    parents: Object.fromEntries(
      [...graph.parents].map(([id, edges]) => [id, edges.map((edge) => `${edge.text} -> ${edge.to ?? "?"} (line ${edge.line})`)]),
    ),
    children: Object.fromEntries(graph.children),
    unresolved: graph.unresolved.map((edge) => `${edge.from}: ${edge.text}`),
  };
}

/** The same files committed to a fresh repository, read back at that commit. */
function committed(dir: string, run: (source: FileSource) => Promise<void>) {
  return async () => {
    using repo = tempDir("slp-model-");
    initRepo(repo.path);
    cpSync(dir, repo.path, { recursive: true });
    const commit = commitAll(repo.path, "the project");
    await run(new CommitTree(Repository.open(repo.path), commit, "", "HEAD"));
  };
}

describe("the project model, from the work tree and from a commit", () => {
  test("there are cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
  });

  for (const name of cases) {
    const dir = join(ROOT, name);
    const file = join(dir, "expected.json");
    test(`${name}: work tree`, async () => {
      const actual = await summary(new Project(new WorkTree(dir)));
      expectGolden(file, `${JSON.stringify(actual, null, 2)}\n`);
    });
    test(
      `${name}: a commit`,
      committed(dir, async (source) => {
        expect(await summary(new Project(source, { store: new ParseStore() }))).toEqual(JSON.parse(readFileSync(file, "utf8")));
      }),
    );
  }
});

describe("content ids", () => {
  test("a work tree file's id is the blob id git gives it, so a yml parsed in the work tree is a cache hit at any commit", async () => {
    using dir = tempDir();
    const texts = ["", "a: 1\n", "name: é ü → 😀\n", "no final newline"];
    for (const [i, text] of texts.entries()) writeFileSync(join(dir.path, `f${i}.yml`), text);
    const tree = new WorkTree(dir.path);
    for (let i = 0; i < texts.length; i++) {
      const git = Bun.spawnSync(["git", "hash-object", `f${i}.yml`], { cwd: dir.path });
      expect((await tree.read({ path: `f${i}.yml` })).id).toBe(git.stdout.toString().trim());
    }
  });
});

describe("graph walks", () => {
  test("downstream and upstream follow the edges, past a package's model", async () => {
    const graph = await new Project(new WorkTree(join(ROOT, "dag"))).graph();
    expect(graph.downstream(["source.shop.erp.orders"])).toEqual([
      "model.shop.fct_orders",
      "model.shop.int_orders",
      "model.shop.stg_orders",
    ]);
    expect(graph.upstream(["model.shop.fct_orders"])).toEqual([
      "model.shop.dim_customers.v1",
      "model.shop.dim_customers.v2",
      "model.shop.int_orders",
      "model.shop.stg_orders",
      "model.utils.calendar",
      "source.shop.erp.orders",
    ]);
    expect(graph.downstream(["model.shop.fct_orders"])).toEqual([]);
  });

  test("a ref with a keyword of its own reads the model it names where dbt's ref ignores the keyword; where a project's ref macro reads it, the macro decides and the edge stays unresolved", async () => {
    // custom_ref_kwargs has its own ref macro (label='raw' names another model): what ref('model_a', label=...) names is the macro's to say.
    const withMacro = await new Project(new WorkTree(join(FIXTURES, "unit", "custom_ref_kwargs"))).graph();
    expect(withMacro.upstream(["model.test.model_c"])).toEqual([]);
    expect(withMacro.unresolved.map((edge) => edge.text)).toEqual(["ref('model_a', label='staging')", "ref('model_a', label='raw')"]);
    using plain = tempDir("slp-model-");
    writeFileSync(join(plain.path, "dbt_project.yml"), "name: test\nversion: '1.0'\nprofile: test\n");
    mkdirSync(join(plain.path, "models"));
    writeFileSync(join(plain.path, "models", "model_a.sql"), "select 1 as id\n");
    writeFileSync(join(plain.path, "models", "model_b.sql"), "select * from {{ ref('model_a', label='staging') }}\n");
    const graph = await new Project(new WorkTree(plain.path)).graph();
    expect(graph.upstream(["model.test.model_b"])).toEqual(["model.test.model_a"]);
    const { relationCalls, parseRelationCall } = await import("../src/project/dbt/relations.ts");
    expect(relationCalls("select * from {{ ref('model_a', label=var('layer')) }}").map((found) => found.call)).toEqual([null]);
    expect(relationCalls("{{ ref('pkg', 'm', v=2, label=\"x\") }}").map((found) => found.call)).toEqual([
      { kind: "ref", package: "pkg", name: "m", version: "2" },
    ]);
    // A unit test's input is read as dbt's static parser reads it: a keyword of its own is not a plain call.
    expect(parseRelationCall("ref('model_a', label='staging')")).toBeNull();
    expect(parseRelationCall("ref('model_a', v=1)")).toEqual({ kind: "ref", package: null, name: "model_a", version: "1" });
  });
});

describe("lines", () => {
  test("every key and list item, also through flow collections, block scalars and a quoted key", async () => {
    const { parseYamlWithLines } = await import("../src/project/files/yaml.ts");
    const text =
      'version: 2\nmodels:\n  - name: a\n    description: |\n      two\n      lines\n    meta: {spec: {grain: x}}\n  - name: b\n    columns: [{name: c}, {name: d}]\n"quoted key": 1\n';
    const parsed = parseYamlWithLines(text, { file: "x.yml" });
    expect(lineAt(parsed, ["models", 0])).toBe(3);
    expect(lineAt(parsed, ["models", 0, "meta", "spec", "grain"])).toBe(7);
    expect(lineAt(parsed, ["models", 1])).toBe(8);
    expect(lineAt(parsed, ["models", 1, "columns", 1])).toBe(9);
    expect(lineAt(parsed, ["quoted key"])).toBe(10);
    // A step that is not there answers with the deepest line found.
    expect(lineAt(parsed, ["models", 1, "nothing"])).toBe(8);
    expect(lineAt(parsed, ["nothing"])).toBe(1);
  });

  test("asked again and in any order, each key keeps its line: where children start is remembered per container", async () => {
    const { parseYamlWithLines } = await import("../src/project/files/yaml.ts");
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
    const text = `top:\n${keys.map((key, i) => (i % 3 === 0 ? `  ${key}:\n    inner: [${i}, ${i}]\n` : `  ${key}: ${i}\n`)).join("")}`;
    const parsed = parseYamlWithLines(text, { file: "wide.yml" });
    const lines = text.split("\n");
    const lineOf = (key: string) => lines.findIndex((line) => line.startsWith(`  ${key}:`)) + 1;
    for (const key of [...keys].reverse()) expect(lineAt(parsed, ["top", key])).toBe(lineOf(key));
    for (const key of keys) expect(lineAt(parsed, ["top", key])).toBe(lineOf(key));
    expect(lineAt(parsed, ["top", "k297", "inner", 1])).toBe(lineOf("k297") + 1);
    expect(lineAt(parsed, ["top", "k299", "nothing"])).toBe(lineOf("k299"));
  });

  test("a merge key's keys take the line of the mapping that holds them", async () => {
    const { parseYamlWithLines } = await import("../src/project/files/yaml.ts");
    const parsed = parseYamlWithLines("base: &b {x: 1}\nchild:\n  <<: *b\n  y: 2\n", { file: "x.yml" });
    expect(parsed.value).toEqual({ base: { x: 1 }, child: { x: 1, y: 2 } });
    expect(lineAt(parsed, ["child", "y"])).toBe(4);
    expect(lineAt(parsed, ["child", "x"])).toBe(2);
  });
});

describe("disabled nodes, as dbt sets them aside", () => {
  const TWINS = join(FIXTURES, "unit", "disabled_twins");
  const kept = async (project: Project) => {
    const nodes = await project.nodes();
    return Object.fromEntries(nodes.models.map((node) => [node.name, `${node.file} ${node.enabled ? "enabled" : "disabled"}`]));
  };

  test("one enabled and one disabled model of a name: the enabled one is kept, whichever way the other is disabled", async () => {
    expect(await kept(new Project(new WorkTree(TWINS)))).toEqual({
      dim_flags: "models/flags/dim_flags.sql disabled",
      int_orders: "models/marts/int_orders.sql enabled",
      prod_audit: "models/flags/prod_audit.sql disabled",
      stg_customers: "models/staging_v2/stg_customers.sql enabled",
      stg_orders: "models/staging_v2/stg_orders.sql enabled",
    });
    const pkg = (await new Project(new WorkTree(TWINS)).packages())[0] as Project;
    expect(await kept(pkg)).toEqual({ calendar: "dbt_packages/pkg/models/current/calendar.sql enabled" });
  });

  test("--vars decide a config(enabled=var(...)) before dbt_project.yml's vars do", async () => {
    const project = new Project(new WorkTree(TWINS), { vars: { use_new_orders: true } });
    expect((await kept(project)).stg_customers).toBe("models/staging/stg_customers.sql enabled");
    const node = (await project.nodes()).models.find((model) => model.name === "stg_customers");
    expect(node?.enabledExpression).toEqual({ text: "var('use_new_orders', false)", value: true });
  });

  test("a ref to a disabled model finds nothing, and says which disabled node it names", async () => {
    const graph = await new Project(new WorkTree(join(FIXTURES, "unit", "disabled_ref"))).graph();
    const resolved = graph.index.ref({ kind: "ref", package: null, name: "stg_orders", version: null }, "shop");
    expect("missing" in resolved && resolved.disabled?.file).toBe("models/a/stg_orders.sql");
    const enabled = graph.index.ref({ kind: "ref", package: null, name: "fct_orders", version: null }, "shop");
    expect("node" in enabled).toBe(true);
  });

  test("two enabled models of one name are refused, naming both files", async () => {
    const reading = new Project(new WorkTree(join(FIXTURES, "unit", "disabled_twins_both_enabled"))).nodes();
    await expect(reading).rejects.toThrow("model stg_orders is defined twice: models/a/stg_orders.sql and models/b/stg_orders.sql");
  });

  test("a yml cannot enable one of several disabled models of a name (dbt cannot choose either)", async () => {
    using dir = tempDir("slp-model-");
    cpSync(join(FIXTURES, "unit", "disabled_twins"), dir.path, { recursive: true });
    writeFileSync(join(dir.path, "models", "legacy", "dim_flags.sql"), "select 2 as flag\n");
    writeFileSync(join(dir.path, "models", "flags", "flags.yml"), "models:\n  - name: dim_flags\n    config:\n      enabled: false\n");
    expect((await kept(new Project(new WorkTree(dir.path)))).dim_flags).toBe("models/flags/dim_flags.sql disabled");
    writeFileSync(join(dir.path, "models", "flags", "dim_flags.sql"), "{{ config(enabled=false) }}\nselect 1 as flag\n");
    writeFileSync(join(dir.path, "models", "flags", "flags.yml"), "models:\n  - name: dim_flags\n    config:\n      enabled: true\n");
    await expect(new Project(new WorkTree(dir.path)).nodes()).rejects.toThrow(
      "Found 2 matching disabled nodes for model 'dim_flags' (models/flags/dim_flags.sql, models/legacy/dim_flags.sql)",
    );
  });
});

describe("config(enabled=<Jinja>)", () => {
  const judge = async (text: string, vars: Record<string, unknown> = {}) => {
    const { judgeExpression } = await import("../src/project/dbt/config-expression.ts");
    return judgeExpression(text, { vars: [vars as never] });
  };
  test("what dbt renders at parse time is judged, by the Jinja interpreter", async () => {
    expect(await judge("var('x', false)")).toEqual({ value: false });
    expect(await judge("var('x', false)", { x: true })).toEqual({ value: true });
    expect(await judge("target.name == 'prod'")).toEqual({ value: false });
    expect(await judge("target.name in ['dev', 'ci'] and not var('off', False)")).toEqual({ value: true });
    expect(await judge("(var('n', 1) != 1) or var('m', none) == None")).toEqual({ value: true });
    // dbt's as_bool hands the value through when a model renders (only its native rendering of yml converts).
    expect(await judge("var('claims_enabled', False) | as_bool")).toEqual({ value: false });
    expect(await judge("var('claims_enabled', False) | as_bool", { claims_enabled: true })).toEqual({ value: true });
    // Jinja's filters and expressions, as Jinja evaluates them; a var written as Jinja is rendered first.
    expect(await judge("var('x') | lower == 'true'", { x: "TRUE" })).toEqual({ value: true });
    expect(await judge("['a'] + (['b'] if var('more', false) else [])", { more: true })).toEqual({ value: ["a", "b"] });
    expect(await judge("var('flag') == 'on'", { flag: "{{ 'o' ~ 'n' }}" })).toEqual({ value: true });
  });
  test("what only rendering answers is not guessed: the reason is named", async () => {
    expect(await judge("var('x')")).toEqual({ why: "var 'x' is set nowhere and has no default (dbt stops: Required var 'x' not found)" });
    expect(await judge("target.type == 'bigquery'")).toEqual({ why: "it reads target.type, which depends on the profile" });
    expect(await judge("['skip' if target.type in ['postgres'] else 'runnable']")).toEqual({
      why: "it reads target.type, which depends on the profile",
    });
    expect(await judge("env_var('X') == '1'")).toEqual({ why: "it reads env_var('X'), which depends on the environment dbt runs in" });
    expect(await judge("my_macro()")).toEqual({ why: "it calls or reads 'my_macro', which only rendering can answer" });
    expect(await judge("'a' + 1")).toEqual({ why: expect.stringContaining("rendering it fails") });
    expect(await judge("1) or (2")).toEqual({ why: expect.stringContaining("is not one Jinja expression") });
    expect(await judge("var('loop')", { loop: "{{ var('loop') }}" })).toEqual({
      why: "var 'loop' renders to a text that reads var('loop') again",
    });
  });
  test("a folder config of dbt_project.yml written as Jinja is rendered natively, var() seeing --vars only", async () => {
    const { judgeProjectValue } = await import("../src/project/dbt/config-expression.ts");
    expect(judgeProjectValue("{{ var('enable_dq', false) | as_bool }}", {})).toEqual({ value: false });
    expect(judgeProjectValue("{{ var('enable_dq', false) | as_bool }}", { enable_dq: "true" })).toEqual({
      why: "Could not convert value 'true' into type 'bool'",
    });
    expect(judgeProjectValue("{{ var('enable_dq', false) | as_bool }}", { enable_dq: true })).toEqual({ value: true });
    expect(judgeProjectValue("{{ target.name == 'dev' }}", {})).toEqual({ value: true });
    expect(judgeProjectValue("{{ 'x' }} y", {})).toEqual({ value: "x y" });
    expect(judgeProjectValue("{{ target.name in ['prod'] }}", {})).toEqual({ value: false });
    expect(judgeProjectValue("{{ target.type == 'x' }}", {})).toEqual({ why: "it reads target.type, which depends on the profile" });
  });
});
