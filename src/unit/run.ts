/**
 * Runs dbt unit tests on one in-process DuckDB, stage by stage: plan (which
 * tests, what they read), render (the model's SQL), schemas (each input's
 * columns), fixtures (rows to relations), then per test translate, execute
 * and compare. `prepareUnitTests` is the seam `slp mutate` runs on: every
 * selected test prepared once, then run as often as asked, each time with
 * the model's SQL as given.
 */
import { compareCodePoints } from "../core/text.ts";
import type { Mapping } from "../core/values.ts";
import { Database, type Column } from "../engine/duckdb.ts";
import { ParseCache } from "../project/files/cache.ts";
import type { DisabledTest } from "../project/dbt/unit-test-definitions.ts";
import type { UnitProject } from "../project/dbt/unit-project.ts";
import { DbtRenderer, type RenderSession } from "../sql/dbt-context.ts";
import { callText, parseRelationCall, type RelationCall } from "../project/dbt/relations.ts";
import type { UnitTestDefinition } from "../project/dbt/unit-test-definitions.ts";
import type { Dialect, DialectChoice } from "../sql/dialect/dialects.ts";
import { duckdbSettings } from "../sql/dialect/settings.ts";
import { executeTest, readOutputs, type DescribeCache, type ExecutedTest, type TestOutputs } from "./execute.ts";
import { buildFixture, expectedRows, expectedSql, givenRows, UntranslatableType } from "./fixtures.ts";
import { compiledModels } from "./manifest.ts";
import { emptyResult, planTest, readTestSet, selectTests, type PlannedTest, type TestSet } from "./plan.ts";
import { nativeValue, parseSession, renderError, renderModel } from "./render.ts";
import { UpstreamSchemas } from "./schemas.ts";
import { trimStatement } from "./sql.ts";
import type { DialectRun } from "./translate.ts";
import type { TypingSearch } from "./typings.ts";
import type { Fixture, TestPlan, UnitResult, UnitRun } from "./types.ts";

export type { ExecutedTest, TestOutputs } from "./execute.ts";
export { NothingSelected } from "./plan.ts";

export interface UnitRunOptions {
  project: UnitProject;
  /** dbt selector arguments (each may hold several, space-separated); empty means every test. */
  select: string[];
  /** dbt selector arguments of what to leave out. */
  exclude?: string[];
  cliVars: Mapping;
  env: Record<string, string | undefined>;
  /** Use dbt's compiled SQL from target/manifest.json when it is fresh (default true). */
  useManifest: boolean;
  /** Close DuckDB when done (default true); the CLI leaves it to the process exit, which is ~10 ms sooner. */
  closeDatabase?: boolean;
  /** A database already being opened (the CLI starts it before it reads the project, to overlap the two), with the dialect's settings. */
  database?: Promise<Database>;
  /** The warehouse dialect the models are written in (default DuckDB). */
  dialect?: DialectChoice;
}

/** One test, prepared: everything before its own queries is done (rendered, inputs typed, fixtures built). */
export interface PreparedTest {
  /** The verdict so far: an `error` when the test could not be prepared. */
  readonly result: UnitResult;
  /** The model's SQL as this test runs it (rendered, or dbt's compiled code); null when preparing failed. */
  readonly modelSql: string | null;
}

export interface ExecuteOptions {
  /** Runs the test against this SQL instead of the model's own (a mutant); the fixtures and expected rows stay. */
  modelSql?: string;
  /** The connection to run on (see Database.widen). */
  lane?: number;
  /** Interrupts the test's queries after this long; the result is then an error whose `timedOut` is true. */
  timeoutMs?: number;
}

export interface PreparedTests {
  tests: PreparedTest[];
  dialect: DialectChoice;
  disabled: DisabledTest[];
  notes: string[];
  database: Database;
  execute(test: PreparedTest, options?: ExecuteOptions): Promise<ExecutedTest>;
  /** Keeps the run's translations and inferred schemas, and puts each error on its line (once, after the run). */
  finish(results: UnitResult[]): UnitResult[];
  /**
   * What decides the test's verdict on any SQL of its model, as one hash: its
   * definition and place, the model's SQL as it runs, its fixtures (rows and
   * column types) and expectation, and the engine; null when it could not be
   * prepared. Equal fingerprints run alike, so a verdict may be kept by it.
   */
  fingerprint(test: PreparedTest): string | null;
  /** Every row the model (or `modelSql`, a mutant) returns over the test's fixtures, and the test's expected rows, as text; null when it cannot be read. */
  outputs(test: PreparedTest, options?: ExecuteOptions): Promise<TestOutputs | null>;
}

export async function runUnitTests(options: UnitRunOptions): Promise<UnitRun> {
  const suite = await prepareUnitTests(options);
  const { tests, database } = suite;
  // A second connection pays off once there are enough tests to keep two busy: fewer for a
  // warehouse dialect, whose tests bind slp's macros (a division costs DuckDB ~7 ms to bind).
  const runnable = tests.filter((test) => test.modelSql !== null).length;
  if (runnable >= (suite.dialect.dialect === "duckdb" ? 4 : 2)) await database.widen(2);
  const results: UnitResult[] = new Array(tests.length);
  try {
    let next = 0;
    const worker = async (lane: number) => {
      for (;;) {
        const index = next++;
        if (index >= tests.length) return;
        results[index] = await suite.execute(tests[index] as PreparedTest, { lane });
      }
    };
    await Promise.all(Array.from({ length: database.width }, (_, lane) => worker(lane)));
  } finally {
    if (options.closeDatabase !== false) database.close();
  }
  return { results: suite.finish(results), dialect: suite.dialect, disabled: suite.disabled, notes: suite.notes };
}

export async function prepareUnitTests(options: UnitRunOptions): Promise<PreparedTests> {
  const { project } = options;
  const dialect = options.dialect ?? { dialect: "duckdb", from: "default" };
  // DuckDB creates the database on its own thread while this one reads and renders.
  const opening = options.database ?? Database.load().then(() => Database.open({ settings: duckdbSettings(dialect.dialect) }));
  opening.catch(() => undefined);
  const closeOnError = () =>
    opening.then(
      (database) => database.close(),
      () => undefined,
    );

  // Loaded only for a warehouse dialect: a DuckDB project never reads the translator's module.
  const dialectRun: DialectRun | null =
    dialect.dialect === "duckdb"
      ? null
      : await import("./translate.ts").then(({ DialectRun }) => new DialectRun(dialect, project.dir, options.env));
  if (dialectRun)
    opening.then(
      (database) => dialectRun.prime(database),
      () => undefined,
    );

  // Plan: the tests, chosen, each resolved to its model and inputs, and rendered.
  const renderer = new DbtRenderer(project, {
    cliVars: options.cliVars,
    env: options.env,
    startedAt: new Date(),
    adapter: dialect.dialect,
  });
  let planned: { result: UnitResult; plan: PlannedTest | null }[];
  let set: TestSet;
  try {
    set = readTests(project, renderer);
    planned = selectTests(project, set, options.select, options.exclude ?? []).map((test) => {
      const result = emptyResult(test);
      const plan = planTest(test, set.owners.get(test) as UnitProject, project, (input, of, owner) =>
        renderedInput(renderer, input, of, owner),
      );
      return "error" in plan ? { result: { ...result, error: plan.error }, plan: null } : { result, plan };
    });
  } catch (error) {
    closeOnError();
    throw error;
  }
  const compiled = options.useManifest ? compiledModels(project) : null;
  const notes: string[] = [];
  if (compiled?.stale) notes.push("target/manifest.json is older than the project's sources; slp rendered every model itself");
  const rendered = planned.map(({ result, plan }) => {
    if (!plan) return { result, plan, model: null };
    const model = renderModel(plan, project, renderer, compiled, dialect.dialect);
    if ("error" in model) return { result: { ...result, error: model.error }, plan: null, model: null };
    return { result: { ...result, sqlFrom: model.sqlFrom }, plan, model };
  });

  const database = await opening;

  // Schemas and fixtures: each input's columns (read once per node), its rows cast to them.
  const schemas = new UpstreamSchemas({
    root: project,
    renderer,
    database,
    dialect: dialect.dialect,
    translate: dialectRun ? (sql) => dialectRun.translate(sql, database) : null,
    env: options.env,
    cliVars: options.cliVars,
    cache: UpstreamSchemas.cache(project.dir, options.env),
    givenColumns: givenSourceColumns(project, set),
  });
  const plans = new Map<PreparedTest, TestPlan>();
  const tests: PreparedTest[] = [];
  for (const { result, plan, model } of rendered) {
    if (!plan || !model) {
      tests.push({ result, modelSql: null });
      continue;
    }
    const prepared = await fixturesOf(plan, model.used, schemas, renderer, dialect.dialect);
    if ("error" in prepared) {
      tests.push({ result: { ...result, error: prepared.error, ran: prepared.untranslatable ? "untranslatable" : null }, modelSql: null });
      continue;
    }
    const testPlan: TestPlan = { test: plan.test, projectDir: project.dir, modelFile: plan.node.file, modelSql: model.sql, ...prepared };
    const test: PreparedTest = {
      result: {
        ...result,
        fixtures: prepared.fixtures.map((fixture) => ({ input: fixture.input, relation: fixture.relation, columns: fixture.columns })),
      },
      modelSql: model.sql,
    };
    plans.set(test, testPlan);
    tests.push(test);
  }

  let tables = 0;
  const shared = new Map<TestPlan, Promise<TestPlan>>();
  const described: DescribeCache = new Map();
  const engine = [database.version, ...duckdbSettings(dialect.dialect), dialectRun?.macroDigest ?? ""];
  const outputs = keptBySql<Column[]>(project.dir, options.env, engine, "outputs");
  const searches = keptBySql<TypingSearch>(project.dir, options.env, engine, "typings");
  /** The plan with its fixtures built into tables once: every later run reads them instead of re-reading VALUES. */
  const sharedPlan = (plan: TestPlan): Promise<TestPlan> => {
    let built = shared.get(plan);
    if (!built) {
      built = (async () => {
        const fixtures: Fixture[] = [];
        for (const fixture of plan.fixtures) {
          // A format: sql fixture is warehouse SQL the dialect run translates each time (it caches the translation).
          if (fixture.fromSql) {
            fixtures.push(fixture);
            continue;
          }
          const table = `"__slp_fixture_${tables++}"`;
          await database.define(`create table ${table} as ${fixture.sql}`);
          const typedOnly = fixture.typedOnlySql === null ? null : `"__slp_fixture_${tables++}"`;
          if (typedOnly !== null) await database.define(`create table ${typedOnly} as ${fixture.typedOnlySql}`);
          fixtures.push({
            ...fixture,
            sql: `select * from ${table}`,
            typedOnlySql: typedOnly === null ? null : `select * from ${typedOnly}`,
          });
        }
        return { ...plan, fixtures };
      })();
      shared.set(plan, built);
    }
    return built;
  };
  /** Columns a tested model reads of a source fixture that neither the test nor slp knows (by source unique id). */
  const readDirectly = new Map<string, Set<string>>();
  return {
    tests,
    dialect,
    disabled: set.disabled,
    notes,
    database,
    async execute(test, executeOptions = {}) {
      const plan = plans.get(test);
      if (!plan) return test.result;
      // Tests of one model whose inputs are typed alike share one reading of its output columns.
      const context = {
        database,
        lane: executeOptions.lane ?? 0,
        dialectRun,
        timeoutMs: executeOptions.timeoutMs,
        described,
        readsUnknown:
          executeOptions.modelSql !== undefined
            ? undefined
            : (key: string, column: string) => {
                const known = readDirectly.get(key) ?? new Set<string>();
                readDirectly.set(key, known.add(column));
              },
      };
      // A mutant's output is read afresh: mutants are many, each seen once.
      if (executeOptions.modelSql === undefined)
        return executeTest(plan, test.result, { ...context, kept: outputs, searches, place: true });
      let base: TestPlan;
      try {
        base = await sharedPlan(plan);
      } catch {
        base = plan; // a fixture DuckDB cannot build as a table still runs inline, as the unmutated test did
      }
      return executeTest({ ...base, modelSql: trimStatement(executeOptions.modelSql) }, test.result, context);
    },
    fingerprint(test) {
      const plan = plans.get(test);
      if (!plan) return null;
      const { status: _status, error: _error, diff: _diff, renderedSql: _sql, ran: _ran, ...place } = test.result;
      return ParseCache.key(JSON.stringify([FINGERPRINT_FORMAT, engine, dialect.dialect, place, plan], jsonSafe));
    },
    async outputs(test, executeOptions = {}) {
      const plan = plans.get(test);
      if (!plan) return null;
      let base: TestPlan;
      try {
        base = await sharedPlan(plan);
      } catch {
        base = plan;
      }
      const modelSql = executeOptions.modelSql === undefined ? base.modelSql : trimStatement(executeOptions.modelSql);
      return readOutputs(
        { ...base, modelSql },
        { database, lane: executeOptions.lane ?? 0, dialectRun, timeoutMs: executeOptions.timeoutMs, described },
      );
    },
    finish(results) {
      dialectRun?.save();
      schemas.save();
      outputs.save();
      searches.save();
      for (const result of results) {
        if (result.error && result.error.file === result.file && result.error.line === null) result.error.line = result.line;
      }
      const needed = schemas.needed();
      const namedBy = new Map<string, string[]>();
      for (const [id, columns] of readDirectly) {
        // A column of a model that passes one source's columns through (select *) is that source's column.
        const through = schemas.passesThrough(id);
        const source = project.index.byId(id)?.kind === "source" ? id : through.length === 1 ? (through[0] as string) : null;
        if (source === null) continue;
        if (source !== id) namedBy.set(source, [...(namedBy.get(source) ?? []), labelOf(project, id)]);
        needed.set(source, [...new Set([...(needed.get(source) ?? []), ...columns])].sort(compareCodePoints));
      }
      const ask = askForSourceColumns(project, needed, results, namedBy);
      if (ask) notes.push(ask);
      return results;
    },
  };
}

/** What a project's runs keep by the SQL it was read from (`kind`: output columns, typing searches), keyed also by what binding depends on (`engine`). */
function keptBySql<T>(
  projectDir: string,
  env: Record<string, string | undefined>,
  engine: readonly string[],
  kind: string,
): { get(sql: string): T | undefined; set(sql: string, value: T): void; save(): void } {
  const cache = ParseCache.open<T>(projectDir, env, kind);
  const keyOf = (sql: string) => ParseCache.key([OUTPUTS_FORMAT, ...engine, sql].join("\0"));
  return {
    get: (sql) => cache.get(keyOf(sql)),
    set: (sql, value) => cache.set(keyOf(sql), value, true),
    save: () => cache.save(),
  };
}

/** Bumped when what a kept output holds changes. */
const OUTPUTS_FORMAT = 1;

/** Bumped when what a test's fingerprint covers changes. */
const FINGERPRINT_FORMAT = 1;

/** JSON for a fingerprint: a bigint as its digits, a non-finite number by name (nothing dropped silently). */
function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return value;
}

/** Every unit test of the project and its packages, their yml values rendered as dbt renders them at parse time. */
function readTests(project: UnitProject, renderer: DbtRenderer): TestSet {
  const yml = parseSession("parse");
  const judgeTags = (text: string, file: string, pkg: string): string[] | null => {
    try {
      const value = renderer.evaluate(text, file, yml, pkg);
      const tags = typeof value === "string" ? [value] : value;
      return Array.isArray(tags) && tags.every((tag) => typeof tag === "string") ? tags : null;
    } catch {
      // What cannot be evaluated stays undecided: a tag criterion that meets it is refused, naming the expression.
      return null;
    }
  };
  return { ...readTestSet(project, (text, file) => nativeValue(renderer.renderText(text, file, yml))), judgeTags };
}

/** The test set `slp mutate --select` selects from, read as `slp unit` reads it. */
export function testSetOf(project: UnitProject, options: Pick<UnitRunOptions, "cliVars" | "env" | "dialect">): TestSet {
  return readTests(
    project,
    new DbtRenderer(project, {
      cliVars: options.cliVars,
      env: options.env,
      startedAt: new Date(),
      adapter: options.dialect?.dialect ?? "duckdb",
    }),
  );
}

/** The fixtures a test's model reads, each input typed by its upstream's schema, and its expectation. */
async function fixturesOf(
  plan: PlannedTest,
  used: Set<string>,
  schemas: UpstreamSchemas,
  renderer: DbtRenderer,
  dialect: Dialect,
): Promise<Pick<TestPlan, "fixtures" | "expectSql" | "expectRows"> | { error: UnitResult["error"] & object; untranslatable: boolean }> {
  const { test, owner } = plan;
  const fixtures: Fixture[] = [];
  try {
    // dbt never injects a given the model does not read.
    for (const [id, input] of [...plan.inputs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!used.has(id)) continue;
      const schema = input.given.format === "sql" ? null : await schemas.of(input.node);
      fixtures.push(buildFixture(input, schema, test, owner, renderer, dialect));
    }
    if (test.expect.format === "sql") return { fixtures, expectSql: expectedSql(test, owner), expectRows: null };
    return { fixtures, expectSql: null, expectRows: expectedRows(test, owner) };
  } catch (error) {
    return { error: renderError(error, test.file), untranslatable: error instanceof UntranslatableType };
  }
}

/**
 * The relation a given's input names when dbt renders it (support_custom_ref_kwargs): `{{ <input> }}` in
 * the test's package, through the project's own `ref` macro, which calls builtins.ref; the first ref it
 * calls, else the first source (dbt's _extract_ref_or_source_via_jinja). Null when it calls neither or
 * does not render (dbt's "must be either a 'ref', 'source' or 'this' call").
 */
function renderedInput(renderer: DbtRenderer, input: string, test: UnitTestDefinition, owner: UnitProject): RelationCall | null {
  const calls: RelationCall[] = [];
  const session: RenderSession = {
    ...parseSession(test.name),
    relation: (call) => {
      calls.push(call);
      return callText(call);
    },
  };
  try {
    renderer.renderText(`{{ ${input} }}`, test.file, session, owner.name);
  } catch {
    return null;
  }
  return calls.find((call) => call.kind === "ref") ?? calls[0] ?? null;
}

/**
 * The columns the project's unit tests give each source (every test read, selected or not). A source
 * whose yml lists few columns or none has these in the warehouse, and a model the test does not mock
 * reads them there (dbt takes them from the relation).
 */
function givenSourceColumns(project: UnitProject, set: TestSet): Map<string, string[]> {
  const bySource = new Map<string, Map<string, string>>();
  for (const test of set.tests) {
    const owner = set.owners.get(test) as UnitProject;
    for (const given of test.given) {
      const call = parseRelationCall(given.input);
      if (call?.kind !== "source") continue;
      const resolved = project.index.resolve(call, null);
      if (!("node" in resolved) || resolved.node.kind !== "source") continue;
      const read = givenRows(given, test, owner);
      if (!read) continue;
      const columns = bySource.get(resolved.node.uniqueId) ?? new Map<string, string>();
      bySource.set(resolved.node.uniqueId, columns);
      for (const row of read.rows)
        for (const name of Object.keys(row)) if (!columns.has(name.toLowerCase())) columns.set(name.toLowerCase(), name);
    }
  }
  return new Map([...bySource].map(([id, columns]) => [id, [...columns.values()]]));
}

/**
 * One request for every source column slp needs and has nowhere to read (no catalog, no data_type, no
 * test's values, not fixed by the SQL that reads it), when tests were refused for want of them: the
 * columns of each source a refusal names, as a YAML snippet for the file that declares the source.
 */
export function askForSourceColumns(
  project: UnitProject,
  needed: ReadonlyMap<string, readonly string[]>,
  results: readonly UnitResult[],
  /** The models a refusal may name instead of the source, for each source whose columns they pass through. */
  namedBy: ReadonlyMap<string, readonly string[]> = new Map(),
): string | null {
  const refusals = results.filter((result) => result.status === "error" && result.error !== null);
  const byFile = new Map<string, { source: string; table: string; columns: readonly string[] }[]>();
  let tests = 0;
  const named = new Set<string>();
  for (const [id, columns] of needed) {
    const node = project.index.byId(id);
    if (node?.kind !== "source" || columns.length === 0) continue;
    const label = callText({ kind: "source", source: node.source, table: node.table });
    const labels = [label, ...(namedBy.get(id) ?? [])];
    const naming = refusals.filter((result) => labels.some((text) => result.error?.message.includes(text)));
    if (naming.length === 0) continue;
    for (const result of naming) named.add(result.id);
    const entries = byFile.get(node.file) ?? [];
    entries.push({ source: node.source, table: node.table, columns });
    byFile.set(node.file, entries);
  }
  tests = named.size;
  if (byFile.size === 0) return null;
  const count = [...byFile.values()].flat().reduce((sum, entry) => sum + entry.columns.length, 0);
  const snippets = [...byFile]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([file, entries]) => {
      const sources = new Map<string, typeof entries>();
      for (const entry of entries) sources.set(entry.source, [...(sources.get(entry.source) ?? []), entry]);
      const lines = [`${file}:`, "  sources:"];
      for (const [source, tables] of [...sources].sort(([a], [b]) => compareCodePoints(a, b))) {
        lines.push(`    - name: ${source}`, "      tables:");
        for (const table of [...tables].sort((a, b) => compareCodePoints(a.table, b.table))) {
          lines.push(`        - name: ${table.table}`, "          columns:");
          for (const column of table.columns) lines.push(`            - {name: ${column}, data_type: <warehouse type>}`);
        }
      }
      return lines.join("\n");
    });
  return [
    `${tests} unit ${tests === 1 ? "test" : "tests"} could not run for want of ${count} source ${count === 1 ? "column" : "columns"} that no yml, target/catalog.json or unit test types, and that the SQL reading ${count === 1 ? "it does" : "them does"} not type either. Declare ${count === 1 ? "it" : "them"} once, with the warehouse's types (or run dbt docs generate so target/catalog.json lists them):`,
    ...snippets,
  ].join("\n");
}

/** How messages name a node: `ref('m')`, `source('s', 't')`. */
function labelOf(project: UnitProject, id: string): string {
  const node = project.index.byId(id);
  if (!node) return id;
  if (node.kind === "source") return callText({ kind: "source", source: node.source, table: node.table });
  return callText({ kind: "ref", package: null, name: node.name, version: node.version !== null && !node.latest ? node.version : null });
}
