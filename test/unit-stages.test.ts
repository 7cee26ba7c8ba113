/**
 * The unit runner's stages one at a time (src/unit/): SQL text, the static
 * render path against the Jinja engine's, fixtures from a schema, upstream schemas
 * read over a real DuckDB and from the cache, the plan's refusals, the
 * execute stage's reading of the model's output, and the compare stage's
 * expected rows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Mapping } from "../src/core/values.ts";
import { Database } from "../src/engine/duckdb.ts";
import { openWorkTree } from "../src/project/open.ts";
import { readUnitProject, type UnitProject } from "../src/project/dbt/unit-project.ts";
import { DbtRenderer, RenderRefusal } from "../src/sql/dbt-context.ts";
import { diffOf, expectedQuery } from "../src/unit/compare.ts";
import { executeTest, type DescribeCache } from "../src/unit/execute.ts";
import { buildFixture } from "../src/unit/fixtures.ts";
import { planTest, readTestSet } from "../src/unit/plan.ts";
import { parseSession } from "../src/unit/render.ts";
import { runUnitTests } from "../src/unit/run.ts";
import { duckdbSettings } from "../src/sql/dialect/settings.ts";
import { missingColumn, missingFrom, namesRelation, UpstreamSchemas, type RelationSchema } from "../src/unit/schemas.ts";
import { castLiteral, selectRows, trimStatement, typedLiteral } from "../src/unit/sql.ts";
import { candidateTypes, typedPlan } from "../src/unit/typings.ts";
import type { Fixture, TestPlan, UnitResult } from "../src/unit/types.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { tempDir, writeTree } from "./support/temp.ts";

const UNIT = join(FIXTURES, "unit");

async function project(name: string): Promise<UnitProject> {
  return readUnitProject(openWorkTree(join(UNIT, name), { SLP_NO_CACHE: "1" }), name);
}

function renderer(of: UnitProject): DbtRenderer {
  return new DbtRenderer(of, { cliVars: {}, env: {}, startedAt: new Date(0) });
}

describe("sql", () => {
  test("lists, structs and maps are written for the type they are cast to", () => {
    expect(typedLiteral([1, null, 3], "INTEGER[]")).toBe("[1, null, 3]");
    expect(typedLiteral({ city: "Oslo", zip: 150 }, 'STRUCT(city VARCHAR, "zip" INTEGER)')).toBe("{'city': 'Oslo', 'zip': 150}");
    expect(typedLiteral({ color: 3 }, "MAP(VARCHAR, INTEGER)")).toBe("MAP {'color': 3}");
    expect(typedLiteral([{ tags: ["a"] }], "STRUCT(tags VARCHAR[])[]")).toBe("[{'tags': ['a']}]");
    expect(castLiteral("it's", "VARCHAR")).toBe("cast('it''s' as VARCHAR)");
    expect(castLiteral(true, "BOOLEAN")).toBe("cast(True as BOOLEAN)");
  });
  test("a trailing semicolon or blank is not part of the SELECT; no rows is a typed empty relation", () => {
    expect(trimStatement("select 1;  \n ;\n")).toBe("select 1");
    expect(selectRows([{ name: "a", type: "INTEGER" }], [])).toBe('select cast(null as INTEGER) as "a" limit 0');
  });
});

describe("render", () => {
  let of: UnitProject;
  beforeAll(async () => {
    of = await project("upstream_inferred");
  });
  test("a template with only literal ref()/source() calls renders as the Jinja engine renders it", () => {
    const render = renderer(of);
    const session = {
      ...parseSession("t"),
      relation: (call: { kind: string; name?: string; table?: string }) => `"${call.kind === "ref" ? call.name : call.table}"`,
    };
    for (const text of [
      "select * from {{ ref('a') }} as x\n",
      'select a\nfrom {{- ref("a") -}}\nwhere 1 = 1',
      "select * from {{ source('s', 't') }} join {{ ref('p', 'm', v=2) }} using (id)",
      "no jinja at all",
    ]) {
      // A comment makes the same text a template only the Jinja engine can render.
      expect(render.renderText(text, "x.sql", session)).toBe(render.renderText(`${text}{# #}`, "x.sql", session));
    }
  });
  test("a call of a dbt macro slp provides, with literal arguments, renders as the Jinja engine renders it, in each adapter's words", () => {
    const session = parseSession("t");
    for (const adapter of ["duckdb", "snowflake", "bigquery"] as const) {
      const render = new DbtRenderer(of, { cliVars: {}, env: {}, startedAt: new Date(0), adapter });
      for (const text of [
        "select {{ dateadd('day', 30, 'l.ordered_at') }} as d",
        'select {{ datediff("a", "b", \'day\') }}, {{ dateadd(\'day\', -1, "x") }}',
        "select cast(x as {{ type_string() }})",
        "{{- dateadd('month', 1, 'd') -}} from t",
      ]) {
        expect(render.renderText(text, "x.sql", session)).toBe(render.renderText(`${text}{# #}`, "x.sql", session));
      }
    }
  });
  test("dbt's listagg places the caller's whole order_by_clause as each adapter does, and runs ordered on DuckDB; a limit_num is refused by name where it is not translated and kept on DuckDB", async () => {
    const session = parseSession("t");
    const { translateSql } = await import("../src/sql/dialect/translate.ts");
    const db = await Database.open();
    try {
      for (const adapter of ["snowflake", "bigquery", "postgres", "redshift"] as const) {
        const render = new DbtRenderer(of, { cliVars: {}, env: {}, startedAt: new Date(0), adapter });
        const sql = render.renderText(
          `select {{ listagg("x", "', '", "order by x desc") }} as xs from (select 'a' as x union all select 'b' as x) as t`,
          "x.sql",
          session,
        );
        expect(sql.match(/order by/g)?.length).toBe(1);
        const translated = await translateSql(sql, adapter);
        if (!translated.ok) throw new Error(`${adapter}: ${JSON.stringify(translated.untranslatable)}`);
        expect((await db.query(translated.translation.sql)).rows).toEqual([["b, a"]]);
        const limited = render.renderText(`select {{ listagg("x", "','", "order by x", 2) }} from t`, "x.sql", session);
        const refused = await translateSql(limited, adapter);
        expect(refused.ok ? "translated" : refused.untranslatable.construct).toBe("listagg_with_limit_num_is_not_translated()");
      }
      // DuckDB, as dbt-duckdb writes it: the order_by_clause once, and a limit_num keeps the first items.
      const duckdb = new DbtRenderer(of, { cliVars: {}, env: {}, startedAt: new Date(0) });
      const rows = "(select 'a' as x union all select 'b' as x union all select 'c' as x) as t";
      const ordered = duckdb.renderText(`select {{ listagg("x", "', '", "order by x desc") }} from ${rows}`, "x.sql", session);
      expect(ordered.match(/order by/g)?.length).toBe(1);
      expect((await db.query(ordered)).rows).toEqual([["c, b, a"]]);
      const limited = duckdb.renderText(`select {{ listagg("x", "'-'", "order by x desc", 2) }} from ${rows}`, "x.sql", session);
      expect((await db.query(limited)).rows).toEqual([["c-b"]]);
      const plain = duckdb.renderText(`select {{ listagg("x") }} from (select 'a' as x) as t`, "x.sql", session);
      expect((await db.query(plain)).rows).toEqual([["a"]]);
    } finally {
      db.close();
    }
  });
  test("run_started_at is an aware UTC datetime, as dbt gives it: printed, converted to UTC, formatted", () => {
    const session = parseSession("t");
    const at = (startedAt: Date, text: string) =>
      new DbtRenderer(of, { cliVars: {}, env: {}, startedAt }).renderText(text, "x.sql", session);
    const start = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    expect(at(start, "{{ run_started_at }}|{{ run_started_at.isoformat() }}")).toBe(
      "2026-01-02 03:04:05.678000+00:00|2026-01-02T03:04:05.678000+00:00",
    );
    expect(at(new Date(Date.UTC(2026, 0, 2)), "{{ run_started_at }}")).toBe("2026-01-02 00:00:00+00:00");
    expect(
      at(start, '{{ run_started_at.astimezone(modules.pytz.timezone("UTC")) }}|{{ run_started_at.strftime("%Y-%j %z %Z %%z") }}'),
    ).toBe("2026-01-02 03:04:05.678000+00:00|2026-002 +0000 UTC %z");
    // A datetime's members, as dbt_date's to_compile_datetime tests them (hour defined, tzinfo set).
    expect(
      at(
        start,
        "{{ run_started_at.year }}-{{ run_started_at.month }}-{{ run_started_at.day }} {{ run_started_at.hour }}h {{ run_started_at.hour is defined }} {{ run_started_at.tzinfo is none }} {{ run_started_at.tzinfo }} {{ run_started_at.weekday() }}",
      ),
    ).toBe("2026-1-2 3h True False UTC 4");
    expect(
      at(
        start,
        "{{ (run_started_at - modules.datetime.timedelta(days=2)).date() }}|{{ run_started_at > modules.datetime.datetime.fromisoformat('2026-01-02T03:04:05Z') }}",
      ),
    ).toBe("2025-12-31|True");
    expect(() => at(start, "{{ modules.pytz.utc.localize(run_started_at) }}")).toThrow("Not naive datetime");
    expect(() => at(start, "{{ run_started_at.astimezone(modules.pytz.timezone('America/New_York')) }}")).toThrow(
      "modules.pytz.timezone('America/New_York') is not provided by slp",
    );
  });
  test("a call that is not literal, or a name that is not slp's macro, is left to the Jinja engine", () => {
    const session = parseSession("t");
    const render = renderer(of);
    // An escape, an expression, a filter: the engine's own reading.
    expect(render.renderText("{{ dateadd('day', 1, 'it\\'s') }}", "x.sql", session)).toContain("it's");
    expect(render.renderText("{{ dateadd('day', 1 + 1, 'd') }}", "x.sql", session)).toContain("cast(2 as bigint)");
    expect(render.renderText("{{ type_string() | lower }}", "x.sql", session)).toBe("varchar");
    expect(() => render.renderText("{{ no_such_macro('a') }}", "x.sql", session)).toThrow();
  });
  test("a refusal in a static template names its line", () => {
    const session = {
      ...parseSession("t"),
      relation: () => {
        throw new RenderRefusal("not mocked", "mock it");
      },
    };
    expect(() => renderer(of).renderText("select 1\nfrom {{ ref('a') }}", "m.sql", session)).toThrow(
      expect.objectContaining({ line: 2, file: "m.sql" }),
    );
  });
});

describe("plan", () => {
  test("an input that is not a call, and a given without rows that is not a seed, are refused with dbt's words", async () => {
    const of = await project("dbt_seed_nonexistent");
    const set = readTestSet(of, (text) => text);
    const test = set.tests[0] as (typeof set.tests)[number];
    expect(planTest(test, of, of)).toEqual({
      error: expect.objectContaining({
        message: "Unable to find seed 'test.my_second_favorite_seed' for unit tests in directories: ['seeds']",
      }),
    });
    const notACall = { ...test, given: [{ input: "{{ ref('x') }}", format: "dict" as const, rows: [], fixture: null }] };
    expect(planTest(notACall, of, of)).toEqual({
      error: expect.objectContaining({
        message: "Unit test given inputs must be either a 'ref', 'source' or 'this' call. Got: '{{ ref('x') }}'",
      }),
    });
  });
});

describe("fixtures", () => {
  let of: UnitProject;
  beforeAll(async () => {
    of = await project("upstream_inferred");
  });
  const schema = (complete: boolean, columns: RelationSchema["columns"]): RelationSchema => ({
    columns,
    complete,
    gap: complete ? null : "the yml declares only id",
    fix: "declare {column}",
    file: "models/x.yml",
  });
  const input = (rows: Mapping[]) => {
    const set = readTestSet(of, (text) => text);
    const test = set.tests[0] as (typeof set.tests)[number];
    const node = of.refNodes.find((candidate) => candidate.name === "int_orders") as UnitProject["refNodes"][number];
    return {
      test,
      input: {
        given: { input: "ref('int_orders')", format: "dict" as const, rows, fixture: null },
        label: "ref('int_orders')",
        node,
        isThis: false,
        relation: "__dbt__cte__int_orders",
      },
    };
  };
  test("every column of a complete relation, omitted ones typed nulls; a key outside it is refused with the accepted columns", () => {
    const { test, input: given } = input([{ ID: 1 }]);
    const columns = [
      { name: "id", type: "INTEGER", from: "inferred" as const },
      { name: "note", type: "VARCHAR", from: "declared" as const },
    ];
    const fixture = buildFixture(given, schema(true, columns), test, of, renderer(of));
    expect(fixture.sql).toBe('select * from (values (cast(1 as INTEGER), cast(null as VARCHAR))) as __slp_rows("id", "note")');
    expect(fixture.open).toBeNull();
    const unknown = input([{ id: 1, nope: 2 }]);
    expect(() => buildFixture(unknown.input, schema(true, columns), unknown.test, of, renderer(of))).toThrow(
      "Accepted columns for ref('int_orders') are: ['id', 'note']",
    );
  });
  test("a relation known in part takes a key it lacks (typed by its values) and says why; a column nothing types stays out of the typed-only SELECT", () => {
    const { test, input: given } = input([{ id: 1, amount: 2.5 }]);
    const fixture = buildFixture(
      given,
      schema(false, [
        { name: "id", type: "INTEGER", from: "declared" },
        { name: "note", type: null, from: null },
      ]),
      test,
      of,
      renderer(of),
    );
    expect(fixture.columns.map((column) => `${column.name} ${column.type} ${column.from}`)).toEqual([
      "id INTEGER declared",
      "note VARCHAR values",
      "amount DOUBLE values",
    ]);
    expect(fixture.untyped).toEqual(["note"]);
    expect(fixture.typedOnlySql).toBe('select * from (values (cast(1 as INTEGER), cast(2.5 as DOUBLE))) as __slp_rows("id", "amount")');
    expect(fixture.open?.why).toBe("the yml declares only id");
  });
});

describe("schemas", () => {
  let database: Database;
  beforeAll(async () => {
    database = await Database.open();
  });
  afterAll(() => database.close());

  test("an upstream's columns come from its SQL bound over its inputs' empty relations, and a warm run binds nothing", async () => {
    using cache = tempDir("slp-schemas-");
    const of = await project("upstream_inferred");
    const node = of.refNodes.find((candidate) => candidate.name === "int_orders") as UnitProject["refNodes"][number];
    const sources = (db: Database) => ({
      root: of,
      renderer: renderer(of),
      database: db,
      dialect: "duckdb" as const,
      translate: null,
      env: {},
      cliVars: {},
      cache: UpstreamSchemas.cache(of.dir, { SLP_CACHE_DIR: cache.path }),
    });
    const cold = new UpstreamSchemas(sources(database));
    const schema = await cold.of(node);
    expect(schema.complete).toBe(true);
    expect(schema.columns.map((column) => `${column.name} ${column.type} ${column.from}`)).toEqual([
      "order_id INTEGER inferred",
      "customer_id INTEGER inferred",
      "amount_cents BIGINT inferred",
      "placed_at TIMESTAMP inferred",
      "placed_on DATE inferred",
      "is_large BOOLEAN inferred",
    ]);
    cold.save();
    const refusing = { describe: () => Promise.reject(new Error("a warm run must not bind")) } as unknown as Database;
    const warm = new UpstreamSchemas(sources(refusing));
    expect((await warm.of(node)).columns).toEqual(schema.columns);
  });

  test("a failed inference is cached with what it read: a warm run binds nothing, and declaring the missing column reads it again", async () => {
    using dir = tempDir("slp-schemas-project-");
    using cache = tempDir("slp-schemas-");
    const env = { SLP_CACHE_DIR: cache.path };
    // Two inputs known in part: slp cannot tell which of them has the column the SQL reads.
    const sourcesYml = (columns: string) =>
      `version: 2\nsources:\n  - name: shop\n    tables:\n      - name: orders\n        columns:\n${columns}      - name: customers\n        columns:\n          - {name: id, data_type: integer}\n`;
    writeTree(dir.path, {
      "dbt_project.yml": "name: fx\nversion: '1.0'\nprofile: fx\n",
      "models/_sources.yml": sourcesYml("          - {name: id, data_type: integer}\n"),
      "models/stg_orders.sql":
        "select o.id, note from {{ source('shop', 'orders') }} as o join {{ source('shop', 'customers') }} as c on o.id = c.id\n",
    });
    const open = async () => readUnitProject(openWorkTree(dir.path, env), "p");
    const schemasOf = async (db: Database) => {
      const of = await open();
      const schemas = new UpstreamSchemas({
        root: of,
        renderer: renderer(of),
        database: db,
        dialect: "duckdb",
        translate: null,
        env: {},
        cliVars: {},
        cache: UpstreamSchemas.cache(of.dir, env),
      });
      const node = of.refNodes.find((candidate) => candidate.name === "stg_orders") as UnitProject["refNodes"][number];
      return { schema: await schemas.of(node), schemas };
    };
    const cold = await schemasOf(database);
    expect(cold.schema.complete).toBe(false);
    expect(cold.schema.gap).toBe(
      "ref('stg_orders') reads column 'note' of source('shop', 'orders'), the yml of source('shop', 'orders') declares only id",
    );
    cold.schemas.save();
    const refusing = { describe: () => Promise.reject(new Error("a warm run must not bind")) } as unknown as Database;
    expect((await schemasOf(refusing)).schema).toEqual(cold.schema);
    writeTree(dir.path, {
      "models/_sources.yml": sourcesYml("          - {name: id, data_type: integer}\n          - {name: note, data_type: varchar}\n"),
    });
    const declared = (await schemasOf(database)).schema;
    expect(declared.complete).toBe(true);
    expect(declared.columns.map((column) => `${column.name} ${column.type}`)).toEqual(["id INTEGER", "note VARCHAR"]);
  });

  test("an env var an upstream reads keys its cached schema by a digest: the value never reaches the cache file", async () => {
    using dir = tempDir("slp-schemas-project-");
    using cache = tempDir("slp-schemas-");
    writeTree(dir.path, {
      "dbt_project.yml": "name: fx\nversion: '1.0'\nprofile: fx\n",
      "models/stg_region.sql": "select '{{ env_var('DBT_REGION') }}' as region, {{ env_var('DBT_WIDTH') }} as width\n",
    });
    const schemaWith = async (env: Record<string, string>) => {
      const of = await readUnitProject(openWorkTree(dir.path, { SLP_CACHE_DIR: cache.path }), "p");
      const render = new DbtRenderer(of, { cliVars: {}, env, startedAt: new Date(0) });
      const schemas = new UpstreamSchemas({
        root: of,
        renderer: render,
        database,
        dialect: "duckdb",
        translate: null,
        env,
        cliVars: {},
        cache: UpstreamSchemas.cache(of.dir, { SLP_CACHE_DIR: cache.path }),
      });
      const schema = await schemas.of(of.refNodes.find((candidate) => candidate.name === "stg_region") as UnitProject["refNodes"][number]);
      schemas.save();
      return schema.columns.map((column) => `${column.name} ${column.type}`);
    };
    expect(await schemaWith({ DBT_REGION: "eu-north-TOPSECRET", DBT_WIDTH: "1" })).toEqual(["region VARCHAR", "width INTEGER"]);
    const written = readdirSync(cache.path)
      .map((name) => readFileSync(join(cache.path, name), "utf8"))
      .join("");
    expect(written).toContain("DBT_REGION");
    expect(written).not.toContain("TOPSECRET");
    expect(await schemaWith({ DBT_REGION: "eu-north-TOPSECRET", DBT_WIDTH: "1.5" })).toEqual(["region VARCHAR", "width DECIMAL(2,1)"]);
  });

  test("DuckDB's three ways of saying a column the SQL reads is missing name it; other errors name none", () => {
    expect(missingColumn('Binder Error: Referenced column "note" not found in FROM clause!')).toBe("note");
    expect(missingColumn('Binder Error: Table "o" does not have a column named "note"')).toBe("note");
    expect(
      missingColumn(
        'Binder Error: Column "location_id" referenced that exists in the SELECT clause - but this column cannot be referenced before it is defined',
      ),
    ).toBe("location_id");
    expect(missingColumn("Binder Error: No function matches the given name and argument types 'upper(INTEGER)'")).toBeNull();
  });

  test("a missing column qualified by a table or alias names the input it is read from; an unqualified one names none", () => {
    expect(missingFrom('Binder Error: Table "u" does not have a column named "measure_standard"')).toBe("u");
    expect(missingFrom('Binder Error: Values list "wa" does not have a column named "units"')).toBe("wa");
    expect(missingFrom('Binder Error: Referenced column "note" not found in FROM clause!')).toBeNull();
    const sql = 'select u.x from "stg_a" as u join `stg_b` b on true join stg_c on true';
    expect(namesRelation(sql, "stg_a", "u")).toBe(true);
    expect(namesRelation(sql, "stg_b", "b")).toBe(true);
    expect(namesRelation(sql, "stg_c", "stg_c")).toBe(true);
    expect(namesRelation(sql, "stg_a", "b")).toBe(false);
    expect(namesRelation(sql, "stg_b", "bb")).toBe(false);
  });

  test("a source has what its yml declares, and says what it lacks", async () => {
    const of = await project("types_refused");
    const source = of.sources.find((candidate) => candidate.table === "refunds") as UnitProject["sources"][number];
    const schemas = new UpstreamSchemas({
      root: of,
      renderer: renderer(of),
      database,
      dialect: "duckdb",
      translate: null,
      env: {},
      cliVars: {},
      cache: UpstreamSchemas.cache(of.dir, { SLP_NO_CACHE: "1" }),
    });
    const schema = await schemas.of(source);
    expect(schema.complete).toBe(false);
    expect(schema.columns.map((column) => `${column.name} ${column.type}`)).toEqual(["id integer", "amount_cents null"]);
    expect(schema.gap).toBe("the yml of source('shop', 'refunds') declares only id, amount_cents");
  });
});

describe("compare", () => {
  const plan = (rows: object[]): TestPlan => ({
    test: {} as TestPlan["test"],
    projectDir: "",
    modelFile: "m.sql",
    modelSql: "select 1",
    fixtures: [],
    expectSql: null,
    expectRows: rows as TestPlan["expectRows"],
  });
  const output = [
    { name: "id", type: "INTEGER" },
    { name: "amount", type: "DECIMAL(10,2)" },
  ];
  test("expected rows are cast to the output types, on the first row's keys; no rows compares every column", () => {
    expect(expectedQuery(plan([{ AMOUNT: 1.5, id: 1 }]), output)).toEqual({
      columns: [output[1], output[0]],
      sql: 'select * from (values (cast(1.5 as DECIMAL(10,2)), cast(1 as INTEGER))) as __slp_expected_rows("amount", "id")',
    } as never);
    expect(expectedQuery(plan([]), output).columns).toEqual(output);
  });
  test("a key the model does not return, or rows with other keys, are refused", () => {
    expect(() => expectedQuery(plan([{ revenue: 1 }]), output)).toThrow("Accepted columns for expected output are: ['id', 'amount']");
    expect(() => expectedQuery(plan([{ id: 1 }, { amount: 2 }]), output)).toThrow("expected row 2 has the columns [amount]");
  });
  test("the rows only in one side are the diff; none is a pass", () => {
    expect(diffOf([], output)).toBeNull();
    expect(diffOf([["expected", "1", "2.00"]], output)).toEqual({
      columns: ["id", "amount"],
      rows: [{ side: "expected", values: ["1", "2.00"] }],
    });
  });
});

describe("execute", () => {
  let database: Database;
  beforeAll(async () => {
    database = await Database.open();
  });
  afterAll(() => database.close());
  const fixture = (sql: string): Fixture => ({
    fromSql: false,
    key: "model.t.a",
    input: "ref('a')",
    relation: "a",
    sql,
    columns: [{ name: "id", type: "INTEGER", from: "declared" }],
    typedOnlySql: null,
    untyped: [],
    untypedWhy: {},
    open: null,
    declaredIn: null,
  });
  const plan = (modelSql: string, rows: string, expectRows: object[]): TestPlan => ({
    test: { name: "t", model: "m", file: "models/m.yml" } as TestPlan["test"],
    projectDir: "",
    modelFile: "models/m.sql",
    modelSql,
    fixtures: [fixture(`select * from (values ${rows}) as __slp_rows("id")`)],
    expectSql: null,
    expectRows: expectRows as TestPlan["expectRows"],
  });
  const result = { status: "pass" } as UnitResult;
  const counting = () => {
    let described = 0;
    const db = new Proxy(database, {
      get(target, key) {
        if (key === "describe")
          return (...args: Parameters<Database["describe"]>) => {
            described++;
            return target.describe(...args);
          };
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return { db, count: () => described };
  };

  test("tests whose fixtures are typed alike share one reading of the model's output columns, and still get their own verdict", async () => {
    const { db, count } = counting();
    const described: DescribeCache = new Map();
    const context = { database: db, lane: 0, dialectRun: null, described };
    const sql = "select id * 2 as doubled from a";
    expect((await executeTest(plan(sql, "(cast(1 as INTEGER))", [{ doubled: 2 }]), result, context)).status).toBe("pass");
    const failing = await executeTest(plan(sql, "(cast(2 as INTEGER))", [{ doubled: 2 }]), result, context);
    expect(failing.status).toBe("fail");
    expect(failing.diff?.rows).toEqual([
      { side: "expected", values: ["2"] },
      { side: "actual", values: ["4"] },
    ]);
    expect(count()).toBe(1);
    await executeTest(plan("select id + 1 as doubled from a", "(cast(1 as INTEGER))", [{ doubled: 2 }]), result, context);
    expect(count()).toBe(2);
  });

  test("an invalid constant in the model's SQL is the model's refusal, not the data's error; a failed reading is not kept", async () => {
    const { db, count } = counting();
    const described: DescribeCache = new Map();
    const context = { database: db, lane: 0, dialectRun: null, described };
    const badPattern = plan("select regexp_matches('a', '(') as hit from a", "(cast(1 as INTEGER))", [{ hit: true }]);
    const refused = await executeTest(badPattern, result, context);
    expect(refused.refused).toBe(true);
    expect(refused.error?.message).toStartWith("DuckDB rejected the SQL of model m: Invalid Input Error");
    await executeTest(badPattern, result, context);
    expect(count()).toBe(2);
    expect(described.size).toBe(0);
    const badValue = await executeTest(plan("select id from a", "(cast('x' as INTEGER))", [{ id: 1 }]), result, context);
    expect(badValue.refused).toBeUndefined();
    expect(badValue.error?.message).toStartWith("An error occurred during execution of unit test 't'");
  });
});

describe("typings", () => {
  test("one candidate per family of the warehouses' types; Snowflake's integers are NUMBER(38,0)", () => {
    expect(candidateTypes("duckdb")).toEqual([
      "VARCHAR",
      "BIGINT",
      "DOUBLE",
      "DECIMAL(38,9)",
      "BOOLEAN",
      "DATE",
      "TIMESTAMP",
      "TIMESTAMPTZ",
    ]);
    expect(candidateTypes("snowflake")).toContain("DECIMAL(38,0)");
    expect(candidateTypes("snowflake")).not.toContain("BIGINT");
  });

  test("a typing recasts only the untyped columns of their own fixture; null leaves one an untyped NULL", () => {
    const fixture = (relation: string, untyped: string[]): Fixture => ({
      fromSql: false,
      key: `model.t.${relation}`,
      input: `ref('${relation}')`,
      relation,
      sql: `select 1 as id, cast(null as VARCHAR) as note`,
      columns: [
        { name: "id", type: "INTEGER", from: "values" },
        { name: "note", type: "VARCHAR", from: "values" },
      ],
      typedOnlySql: untyped.length > 0 ? "select 1 as id" : null,
      untyped,
      untypedWhy: {},
      open: null,
      declaredIn: null,
    });
    const plan: TestPlan = {
      test: {} as TestPlan["test"],
      projectDir: "",
      modelFile: "m.sql",
      modelSql: "select * from a, b",
      fixtures: [fixture("a", ["note"]), fixture("b", [])],
      expectSql: null,
      expectRows: [],
    };
    const typed = typedPlan(plan, [{ fixture: 0, name: "note" }], ["DATE"]);
    expect(typed.fixtures[0]?.sql).toContain('replace (cast(null as DATE) as "note")');
    expect(typed.fixtures[0]?.columns.map((column) => column.type)).toEqual(["INTEGER", "DATE"]);
    expect(typed.fixtures[0]?.untyped).toEqual([]);
    expect(typed.fixtures[1]).toBe(plan.fixtures[1] as Fixture);
    expect(typedPlan(plan, [{ fixture: 0, name: "note" }], [null]).fixtures[0]?.sql).toContain('replace (null as "note")');
  });
});

describe("a database lent to several runs", () => {
  test("a dialect project's runs on one database each pass: slp's macros are created once in it, not once a run", async () => {
    using cache = tempDir("slp-lent-");
    const dir = join(import.meta.dir, "..", "examples", "snowflake-shop");
    const env = { SLP_CACHE_DIR: cache.path };
    const database = await Database.open({ settings: duckdbSettings("snowflake") });
    try {
      for (let round = 0; round < 2; round++) {
        const project = await readUnitProject(openWorkTree(dir, env), "examples/snowflake-shop");
        const run = await runUnitTests({
          project,
          select: [],
          exclude: [],
          cliVars: {},
          env,
          useManifest: true,
          closeDatabase: false,
          database: Promise.resolve(database),
          dialect: { dialect: "snowflake", from: "flag" },
        });
        expect(run.results.map((result) => [result.status, result.error?.message ?? null])).toEqual([
          ["pass", null],
          ["pass", null],
          ["pass", null],
        ]);
      }
    } finally {
      database.close();
    }
  });
});

describe("slp's macros", () => {
  test("are created in one call, in order; anything but one create macro __slp_... each is refused, nothing run", async () => {
    const database = await Database.open();
    try {
      await database.defineMacros([
        "create macro __slp_test_one(x) as x + 1",
        "create macro __slp_test_two(x) as __slp_test_one(x) * 2 || ';'",
      ]);
      expect((await database.query("select __slp_test_two(1)")).rows).toEqual([["4;"]]);
      for (const foreign of [
        "create table t as select 1",
        "create macro __slp_test_three(x) as x; create table t as select 1",
        "create macro __slp_test_three(x) as x -- ;",
        'create macro __slp_test_three(x) as x, "a;b"',
        "create macro __slp_test_three(x) as e'\\';create table t as select 1'",
      ]) {
        await expect(database.defineMacros(["create macro __slp_test_four(x) as x", foreign])).rejects.toThrow(
          "not one of slp's macro definitions",
        );
      }
      await expect(database.query("select __slp_test_four(1)")).rejects.toThrow();
      await expect(database.query("select * from t")).rejects.toThrow();
    } finally {
      database.close();
    }
  });
});

describe("opening", () => {
  test("settings given as a promise are made once it settles; a rejected one is the open's error", async () => {
    const database = await Database.open({ settings: Promise.resolve(["set TimeZone = 'America/New_York'"]) });
    try {
      expect((await database.query("select current_setting('TimeZone')")).rows).toEqual([["America/New_York"]]);
    } finally {
      database.close();
    }
    await expect(Database.open({ settings: Promise.reject(new Error("no dialect")) })).rejects.toThrow("no dialect");
  });
});
