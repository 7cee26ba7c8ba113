/**
 * Runs dbt unit tests on one in-process DuckDB (spec/dbt-unit-tests.md §3):
 * render the model with the test's context, stand each mocked input up as a
 * typed CTE, read the model's output types, cast the expected rows to them,
 * and compare actual and expected as multisets on the compared columns.
 * Every test ends `pass`, `fail` or `error`; an error is never a pass.
 */
import { SlpError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";
import { isMapping, type Mapping, type Value } from "../core/values.ts";
import { parseRelationCall } from "../project/relations.ts";
import { readText } from "../project/source.ts";
import type { Column as DeclaredColumn, RefNode, UnitProject as DbtProject } from "../project/unit-project.ts";
import type { DialectRun } from "../sql/dialect/run.ts";
import { readUnitTests, type DisabledTest, type GivenDefinition, type Problem, type UnitTestDefinition } from "../project/unit-tests.ts";
import { parseCsv } from "../project/csv.ts";
import { DbtRenderer, RenderRefusal, type RelationCall, type RenderSession } from "../sql/dbt-context.ts";
import { castLiteral, fixtureSql, inferType, quoteIdentifier, type FixtureColumn, type FixtureRow } from "../sql/fixtures.ts";
import { printable, TemplateFailure } from "../sql/jinja.ts";
import { duckdbSettings, type DialectChoice } from "../sql/dialect/dialects.ts";
import { mapType } from "../sql/dialect/types.ts";
import { Database, DatabaseError, QueryTimeout, type Column } from "./duckdb.ts";

export type Verdict = "pass" | "fail" | "error";

export interface TestError {
  message: string;
  file: string | null;
  line: number | null;
  fix: string | null;
}

export interface DiffTable {
  columns: string[];
  /** Rows only in expected (`---`) and only in actual (`+++`), sorted; values as DuckDB prints them. */
  rows: { side: "expected" | "actual"; values: (string | null)[] }[];
}

export interface UnitResult {
  id: string;
  model: string;
  name: string;
  file: string;
  line: number | null;
  edge: string | null;
  status: Verdict;
  /** Where the model's SQL came from: rendered by slp, or dbt's compiled code in target/manifest.json. */
  sqlFrom: "rendered" | "manifest" | null;
  error: TestError | null;
  diff: DiffTable | null;
  fixtures: { input: string; relation: string; columns: FixtureColumn[] }[];
  /** The model's SQL as run, on error only (to see what DuckDB refused). */
  renderedSql: string | null;
  /** native: run as written (a DuckDB project); translated: from the project's dialect; untranslatable: refused. */
  ran: "native" | "translated" | "untranslatable" | null;
}

export interface UnitRun {
  results: UnitResult[];
  dialect: DialectChoice;
  disabled: DisabledTest[];
  notes: string[];
}

export interface UnitRunOptions {
  project: DbtProject;
  /** Model names, test names or model::test; empty means every test. */
  select: string[];
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

/** No test matched --select: nothing ran, and nothing ran is not a pass. */
export class NothingSelected extends SlpError {
  constructor(select: string[]) {
    super("E_USAGE", `no unit test matches --select ${select.join(" ")}`, { fix: "select a model name, a test name, or model::test" });
  }
}

export async function runUnitTests(options: UnitRunOptions): Promise<UnitRun> {
  const suite = await prepareUnitTests(options);
  const { tests, database } = suite;
  // A second connection pays off once there are enough tests to keep two busy.
  const runnable = tests.filter((test) => test.modelSql !== null).length;
  if (runnable >= 4) await database.widen(2);
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

/** A model's SQL as a unit test with nothing overridden runs it, or why it cannot be rendered. */
export type UntestedSql = { sql: string; sqlFrom: "rendered" | "manifest" } | { error: TestError };

/**
 * Each model's SQL as a unit test that mocks every input and overrides
 * nothing would run it (each ref and source its CTE, `this` too, dbt's
 * compiled code when target/manifest.json is fresh, is_incremental() false):
 * what `slp mutate --dry-run` lists mutants in, with no unit test read and no
 * database opened.
 */
export function renderModelsUntested(project: DbtProject, nodes: readonly RefNode[], options: Omit<UnitRunOptions, "select" | "database" | "closeDatabase">): Map<string, UntestedSql> {
  const dialect = options.dialect ?? { dialect: "duckdb", from: "default" };
  const renderer = new DbtRenderer(project, { cliVars: options.cliVars, env: options.env, startedAt: new Date(), adapter: dialect.dialect });
  const manifest = options.useManifest ? readManifest(project) : null;
  const mocks = new Map<string, string>();
  for (const owner of [project, ...project.packages.values()]) {
    for (const node of owner.refNodes) mocks.set(nodeKey(node), mockRelation(node));
    for (const source of owner.sources) mocks.set(nodeKey(source), mockRelation(source));
  }
  const rendered = new Map<string, UntestedSql>();
  for (const node of nodes) {
    if (!node.file) continue;
    const session: RenderSession = {
      ...emptySession(node.name),
      thisRelation: mockRelation(node),
      isIncremental: false,
      relation: (call) => {
        const resolved = resolveCall(call, project);
        if (!resolved) throw new RenderRefusal(`model ${node.name} calls ${callLabel(call)}, which names nothing in the project`, "check the name (and the package or version) in the model's SQL");
        return mockRelation(resolved);
      },
    };
    const compiled = manifest?.compiled({ macros: {}, vars: {}, envVars: {} }, node, (key) => mocks.get(key));
    try {
      const sql = compiled ? compiled.sql : renderer.renderFile(node.file, session);
      rendered.set(node.name, sql.trim() === "" ? { error: { message: `model ${node.name} renders no SQL`, file: node.file, line: null, fix: "check the model's Jinja: it must produce a SELECT" } } : { sql: trimStatement(sql), sqlFrom: compiled ? "manifest" : "rendered" });
    } catch (error) {
      rendered.set(node.name, { error: renderError(error, node.file) });
    }
  }
  return rendered;
}

/** One test, prepared: everything that needs no database is done (rendered, fixtures typed). */
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

/** A test's result, and why it errored when the model's SQL itself could not run. */
export type ExecutedTest = UnitResult & {
  /** DuckDB refused the model's SQL before any row was compared (a syntax or binder error). */
  refused?: boolean;
  /** A query ran past ExecuteOptions.timeoutMs and was interrupted. */
  timedOut?: boolean;
};

/**
 * The seam `slp mutate` runs on: every selected test prepared once, then run
 * as often as asked, each time with the model's SQL as given. Fixtures are
 * built into tables at a test's first run with replaced SQL, so the mutants of
 * one model share them.
 */
export interface PreparedTests {
  tests: PreparedTest[];
  dialect: DialectChoice;
  disabled: DisabledTest[];
  notes: string[];
  database: Database;
  execute(test: PreparedTest, options?: ExecuteOptions): Promise<ExecutedTest>;
  /** Adds each result's line in its yml and keeps the run's translations (once, after the run). */
  finish(results: UnitResult[]): UnitResult[];
}

export async function prepareUnitTests(options: UnitRunOptions): Promise<PreparedTests> {
  const { project } = options;
  const dialect = options.dialect ?? { dialect: "duckdb", from: "default" };
  // DuckDB creates the database on its own thread while this one reads and renders.
  const opening = options.database ?? Database.load().then(() => Database.open({ settings: duckdbSettings(dialect.dialect) }));
  if (!options.database) await Database.load();
  opening.catch(() => undefined);
  const renderer = new DbtRenderer(project, { cliVars: options.cliVars, env: options.env, startedAt: new Date(), adapter: dialect.dialect });
  const parseSession = emptySession("parse");
  const set = readUnitTests(project, (text, file) => nativeValue(renderer.renderText(text, file, parseSession)));
  const selected = set.tests.filter((test) => selects(options.select, test));
  if (options.select.length > 0 && selected.length === 0) {
    opening.then((database) => database.close(), () => undefined);
    throw new NothingSelected(options.select);
  }
  selected.sort((a, b) => compareCodePoints(a.model, b.model) || compareCodePoints(a.name, b.name) || compareCodePoints(a.file, b.file));

  const manifest = options.useManifest ? readManifest(project) : null;
  const notes: string[] = [];
  if (manifest?.stale) notes.push("target/manifest.json is older than the project's sources; slp rendered every model itself");
  const plans = new Map<PreparedTest, Plan>();
  const tests = selected.map((test) => {
    const { result, plan } = prepare(test, project, renderer, manifest, dialect);
    const prepared: PreparedTest = { result, modelSql: plan?.modelSql ?? null };
    if (plan) plans.set(prepared, plan);
    return prepared;
  });
  // Loaded only for a warehouse dialect: a DuckDB project never reads the translator's module.
  const dialectRun = dialect.dialect === "duckdb" ? null : await import("../sql/dialect/run.ts").then(({ DialectRun }) => new DialectRun(dialect, project.dir, options.env));
  const database = await opening;
  let tables = 0;
  const shared = new Map<Plan, Promise<Plan>>();
  const described: DescribeCache = new Map();
  /** The plan with its fixtures built into tables once: every later run reads them instead of re-reading VALUES. */
  const sharedPlan = (plan: Plan): Promise<Plan> => {
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
          const table = quoteIdentifier(`__slp_fixture_${tables++}`);
          await database.define(`create table ${table} as ${fixture.sql}`);
          fixtures.push({ ...fixture, sql: `select * from ${table}` });
        }
        return { ...plan, fixtures };
      })();
      shared.set(plan, built);
    }
    return built;
  };
  return {
    tests,
    dialect,
    disabled: set.disabled,
    notes,
    database,
    async execute(test, executeOptions = {}) {
      const plan = plans.get(test);
      if (!plan) return test.result;
      const lane = executeOptions.lane ?? 0;
      if (executeOptions.modelSql === undefined) return execute(plan, test.result, database, lane, dialectRun, executeOptions.timeoutMs);
      let base: Plan;
      try {
        base = await sharedPlan(plan);
      } catch {
        base = plan; // a fixture DuckDB cannot build as a table still runs inline, as the unmutated test did
      }
      return execute({ ...base, modelSql: trimStatement(executeOptions.modelSql) }, test.result, database, lane, dialectRun, executeOptions.timeoutMs, described);
    },
    finish(results) {
      dialectRun?.save();
      addLines(project, results);
      return results;
    },
  };
}

/** The SQL of a model as a subquery: no trailing semicolon or whitespace. */
function trimStatement(sql: string): string {
  return sql.replace(/[\s;]+$/, "");
}

// --- preparing a test: everything that needs no database ---

export interface Fixture {
  /** A `format: sql` fixture: its SELECT is in the project's dialect. */
  fromSql: boolean;
  key: string;
  input: string;
  relation: string;
  sql: string;
  columns: FixtureColumn[];
}

export interface Plan {
  project: DbtProject;
  test: UnitTestDefinition;
  modelSql: string;
  fixtures: Fixture[];
  /** A `format: sql` expectation's SELECT (in the project's dialect until translated), else null. */
  expectSql: string | null;
}

interface Prepared {
  result: UnitResult;
  plan: Plan | null;
}

function prepare(test: UnitTestDefinition, project: DbtProject, renderer: DbtRenderer, manifest: Manifest | null, dialect: DialectChoice): Prepared {
  const result: UnitResult = {
    id: test.id,
    model: test.model,
    name: test.name,
    file: test.file,
    line: null,
    edge: test.edge,
    status: "error",
    sqlFrom: null,
    error: null,
    diff: null,
    fixtures: [],
    renderedSql: null,
    ran: null,
  };
  const fail = (error: TestError, ran: UnitResult["ran"] = null): Prepared => ({ result: { ...result, error, ran }, plan: null });
  if (test.problems.length > 0) return fail(problemError(test.problems[0] as Problem, test.file));
  const node = test.node as RefNode;
  if (!node.file) {
    return fail({ message: `model ${test.model} has no .sql file slp can run`, file: node.ymlFile ?? test.file, line: null, fix: "slp runs SQL models only (dbt does not unit test Python models either)" });
  }
  if (node.language === "python") {
    return fail({ message: `model ${test.model} is a Python model (${node.file}), and a unit test runs SQL`, file: test.file, line: null, fix: "unit test the SQL models around it; dbt does not unit test Python models either" });
  }
  const rawSql = readText(project.dir, node.file);
  const callsIncremental = /\bis_incremental\s*\(/.test(rawSql.replace(/\{#[\s\S]*?#\}/g, ""));
  const override = test.overrides.macros.is_incremental;
  if (callsIncremental && typeof override !== "boolean") {
    return fail({
      message: `Boolean override for 'is_incremental' must be provided for unit test '${test.name}' in model '${test.model}'`,
      file: test.file,
      line: null,
      fix: "add overrides: {macros: {is_incremental: true}} (or false) to the test",
    });
  }
  const givenThis = test.given.some((given) => given.input.trim() === "this");
  if (callsIncremental && override === true && !givenThis) {
    return fail({ message: `Unit test '${test.name}' for incremental model '${test.model}' must have a 'this' input`, file: test.file, line: null, fix: "add a given with input: this and the rows the model's table already holds" });
  }

  // Resolve every given to the node it stands for.
  const byKey = new Map<string, { given: GivenDefinition; target: Target }>();
  for (const given of test.given) {
    const target = resolveInput(given.input, test, project);
    if ("error" in target) return fail({ message: target.error, file: test.file, line: null, fix: target.fix });
    byKey.set(target.key, { given, target });
  }
  const thisKey = nodeKey(node);
  const used = new Set<string>();
  const session: RenderSession = {
    testName: test.name,
    thisRelation: byKey.has(thisKey) && givenThis ? cteName(node.identifier) : null,
    overrides: test.overrides,
    isIncremental: typeof override === "boolean" ? override : null,
    config: { tags: test.tags, meta: test.meta, enabled: test.enabled },
    relation: (call: RelationCall) => {
      const resolved = resolveCall(call, project);
      const label = callLabel(call);
      if (!resolved) {
        throw new RenderRefusal(`model ${test.model} calls ${label}, which names nothing in the project`, "check the name (and the package or version) in the model's SQL");
      }
      const key = nodeKey(resolved);
      const mocked = byKey.get(key);
      if (!mocked) {
        throw new RenderRefusal(
          `model ${test.model} calls ${label}, which this test does not mock`,
          `add a given with input: ${label} and its rows (every ref and source the model reads must be mocked)`,
        );
      }
      used.add(key);
      return mocked.target.relation;
    },
  };
  if (givenThis) used.add(thisKey);

  let modelSql: string;
  const compiled = manifest?.compiled(test.overrides, node, (key) => byKey.get(key)?.target.relation);
  try {
    if (compiled) {
      modelSql = compiled.sql;
      for (const key of compiled.used) used.add(key);
      result.sqlFrom = "manifest";
    } else {
      modelSql = renderer.renderFile(node.file, session);
      result.sqlFrom = "rendered";
    }
  } catch (error) {
    return fail(renderError(error, node.file));
  }
  if (modelSql.trim() === "") return fail({ message: `model ${test.model} renders no SQL`, file: node.file, line: null, fix: "check the model's Jinja: every branch this test takes must produce a SELECT" });

  const fixtures: Fixture[] = [];
  for (const [key, { given, target }] of [...byKey].sort(([a], [b]) => compareCodePoints(a, b))) {
    if (!used.has(key)) continue; // dbt never injects a given the model does not read.
    try {
      fixtures.push(buildFixture(given, target, test, project, renderer, dialect));
    } catch (error) {
      return fail(renderError(error, test.file), error instanceof UntranslatableType ? "untranslatable" : null);
    }
  }
  result.fixtures = fixtures.map((fixture) => ({ input: fixture.input, relation: fixture.relation, columns: fixture.columns }));
  let expectSql: string | null = null;
  if (test.expect.format === "sql") {
    try {
      expectSql = trimStatement(printable(fixtureText("sql", test.expect.rows, test.expect.fixture, "expected output", test, project)));
    } catch (error) {
      return fail(renderError(error, test.file));
    }
  }
  return { result, plan: { project, test, modelSql: trimStatement(modelSql), fixtures, expectSql } };
}

type Target = { key: string; relation: string; node: RefNode | null; source: { source: string; table: string; file: string; columns: DeclaredColumn[] } | null; isThis: boolean };

function resolveInput(input: string, test: UnitTestDefinition, project: DbtProject): Target | { error: string; fix: string } {
  const call = parseInput(input);
  if (call === null) {
    return { error: `Unit test given inputs must be either a 'ref', 'source' or 'this' call. Got: '${input}'`, fix: "write input: ref('model'), source('source', 'table') or this" };
  }
  if (call === "this") {
    const node = test.node as RefNode;
    return { key: nodeKey(node), relation: cteName(node.identifier), node, source: null, isThis: true };
  }
  const resolved = resolveCall(call, project);
  if (!resolved) {
    return { error: `Unit test '${test.name}' had an input (${input}) which was not found in the manifest.`, fix: "name a model, seed, snapshot or source the project declares" };
  }
  if ("source" in resolved && !("kind" in resolved)) {
    return { key: nodeKey(resolved), relation: mockRelation(resolved), node: null, source: resolved, isThis: false };
  }
  const node = resolved as RefNode;
  return { key: nodeKey(node), relation: mockRelation(node), node, source: null, isThis: false };
}

/** `ref('m')`, `ref("pkg", "m")`, `ref('m', v=2)`, `source('s', 't')` or `this`, read statically as dbt does. */
export function parseInput(input: string): RelationCall | "this" | null {
  return input.trim() === "this" ? "this" : parseRelationCall(input);
}

type SourceTable = { source: string; table: string; file: string; columns: DeclaredColumn[] };

function resolveCall(call: RelationCall, project: DbtProject): RefNode | SourceTable | null {
  if (call.kind === "source") {
    const all = [project, ...project.packages.values()].flatMap((p) => p.sources);
    return all.find((source) => source.source === call.source && source.table === call.table) ?? null;
  }
  const owner = call.package === null || call.package === project.name ? project : project.packages.get(call.package);
  if (!owner) return null;
  const candidates = owner.refNodes.filter((node) => node.name === call.name);
  if (call.version === null) return candidates.find((node) => node.latest) ?? null;
  return candidates.find((node) => node.version === call.version) ?? null;
}

function nodeKey(node: RefNode | SourceTable): string {
  if ("kind" in node) return `${node.kind}.${node.package}.${node.name}${node.version === null ? "" : `.v${node.version}`}`;
  return `source.${node.source}.${node.table}`;
}

function callLabel(call: RelationCall): string {
  if (call.kind === "source") return `source('${call.source}', '${call.table}')`;
  const version = call.version === null ? "" : `, v=${call.version}`;
  return call.package === null ? `ref('${call.name}'${version})` : `ref('${call.package}', '${call.name}'${version})`;
}

function cteName(identifier: string): string {
  return `__dbt__cte__${identifier}`;
}

/** The CTE a unit test's given stands in as for a model, seed, snapshot or source. */
function mockRelation(target: RefNode | SourceTable): string {
  return "kind" in target ? cteName(target.identifier) : cteName(`${target.source}__${target.table}`);
}

function buildFixture(given: GivenDefinition, target: Target, test: UnitTestDefinition, project: DbtProject, renderer: DbtRenderer, dialect: DialectChoice): Fixture {
  const node = target.node;
  const label = given.input.trim();
  const text = fixtureText(given.format, given.rows, given.fixture, label, test, project);
  if (given.format === "sql") {
    const sql = renderer.renderText(text as string, given.fixture ? fixtureFile(given.fixture, project, given.format, test) : test.file, emptySession(test.name));
    return { fromSql: true, key: target.key, input: label, relation: target.relation, sql: sql.replace(/[\s;]+$/, ""), columns: [] };
  }
  if (node && node.materialized === "ephemeral" && !target.isThis) {
    throw new RenderRefusal(`${label} is an ephemeral model, which dbt cannot introspect for a ${given.format} fixture`, `mock it with format: sql (a SELECT that yields its columns)`);
  }
  let rows: FixtureRow[];
  let csv = given.format === "csv";
  if (given.format === "dict" && given.rows === undefined && given.fixture === null) {
    if (!node || node.kind !== "seed") {
      throw new RenderRefusal(`Unable to find seed '${node?.package ?? project.name}.${node?.name ?? label}' for unit tests: ${label} has neither rows nor fixture`, "give the input rows (rows: [] for an empty input)");
    }
    // A seed with no rows: its CSV file, every value a string, "" kept (dbt's _load_rows_from_seed).
    const table = csvTable(readText(project.dir, node.file as string), node.file as string);
    rows = table.rows.map((row) => Object.fromEntries(table.header.map((column, i) => [column, row[i] ?? null])));
    csv = true;
  } else if (given.format === "dict") {
    rows = dictRows(given.rows, label);
  } else rows = csvRows(text as string, label, given.fixture ? fixtureFile(given.fixture, project, "csv", test) : test.file);
  const declared = declaredColumns(target, project);
  const declaredIn = { file: target.source?.file ?? node?.ymlFile ?? null, owner: target.source?.table ?? node?.name ?? "" };
  const columns = dialect.dialect === "duckdb" ? declared.columns : declared.columns.map((column) => warehouseColumn(column, label, dialect, declared.from.get(column.name) === "seed", project, declaredIn));
  const typed = fixtureSql({ label, declared: columns, complete: declared.complete, declaredFrom: "declared", rows, csv });
  return { fromSql: false, key: target.key, input: label, relation: target.relation, sql: typed.sql, columns: typed.columns.map((column) => ({ ...column, from: declared.from.get(column.name) ?? column.from })) };
}

/** The upstream's columns: its yml, a seed's column_types, else the seed's own CSV values. */
function declaredColumns(target: Target, project: DbtProject): { columns: DeclaredColumn[]; complete: boolean; from: Map<string, FixtureColumn["from"]> } {
  const from = new Map<string, FixtureColumn["from"]>();
  if (target.source) return { columns: target.source.columns, complete: false, from };
  const node = target.node as RefNode;
  if (node.kind !== "seed") return { columns: node.columns, complete: node.columnsComplete, from };
  const table = csvTable(readText(project.dir, node.file as string), node.file as string);
  const columns = node.columns.map((column, i) => {
    if (column.dataType !== null) return column;
    const inferred = inferType(table.rows.map((row) => (row[i] === "" ? null : (row[i] ?? null))), true);
    if (inferred.type !== null) from.set(column.name, "seed");
    return { name: column.name, dataType: inferred.type ?? "VARCHAR" };
  });
  return { columns, complete: true, from };
}

/** A fixture column whose declared warehouse type slp has no faithful DuckDB type for: the test ran `untranslatable`. */
class UntranslatableType extends SlpError {
  constructor(message: string, file: string | undefined, line: number | undefined) {
    super("E_RENDER", message, { file, line, fix: "declare a type slp maps (see the README's dialect table), or mock the input with format: sql" });
  }
}

/** A declared column's warehouse type as the DuckDB type with the same values (a type inferred from a seed's CSV is DuckDB's already). */
function warehouseColumn(column: DeclaredColumn, label: string, dialect: DialectChoice, inferred: boolean, project: DbtProject, declaredIn: { file: string | null; owner: string }): DeclaredColumn {
  if (column.dataType === null || inferred) return column;
  const mapped = mapType(column.dataType, dialect.dialect);
  if (!mapped.ok) {
    const file = declaredIn.file ?? undefined;
    throw new UntranslatableType(`untranslatable: column '${column.name}' of ${label} has the ${dialect.dialect} type '${column.dataType}': ${mapped.why}`, file, file ? columnLine(project, file, declaredIn.owner, column.name) : undefined);
  }
  return { name: column.name, dataType: mapped.type };
}

/** The line declaring column `column` of `owner` (a model, seed or source table) in a yml file: its `name:` after the owner's. */
function columnLine(project: DbtProject, file: string, owner: string, column: string): number | undefined {
  const lines = readText(project.dir, file).split("\n");
  const named = (name: string) => new RegExp(`(^|[\\s{,-])name\\s*:\\s*(["']?)${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\2\\s*([,}#]|$)`, "i");
  const start = lines.findIndex((line) => named(owner).test(line));
  const at = lines.findIndex((line, i) => i > start && named(column).test(line));
  return at >= 0 ? at + 1 : undefined;
}

function fixtureText(format: string, rows: Value | undefined, fixture: string | null, label: string, test: UnitTestDefinition, project: DbtProject): Value | undefined {
  if (format === "dict") {
    if (fixture !== null) throw new RenderRefusal(`${label} names fixture '${fixture}' with format dict`, "a fixture file needs format: csv or format: sql");
    return rows;
  }
  if (fixture !== null) return readText(project.dir, fixtureFile(fixture, project, format, test));
  if (typeof rows !== "string") throw new RenderRefusal(`${label} has rows which do not match format ${format}. Expected string.`, `write rows: | followed by the ${format === "csv" ? "CSV lines" : "SELECT"}, or name a fixture file`);
  return rows;
}

function fixtureFile(name: string, project: DbtProject, format: string, test: UnitTestDefinition): string {
  const files = project.fixtures.get(name) ?? [];
  if (files.length === 0) {
    throw new RenderRefusal(`File not found for fixture '${name}' in unit tests in ${test.file}`, `add ${project.testPaths[0] ?? "tests"}/fixtures/${name}.${format === "sql" ? "sql" : "csv"}`);
  }
  if (files.length > 1) throw new RenderRefusal(`fixture name '${name}' is used by ${files.length} files: ${files.join(", ")}`, "fixture names must be unique across tests/fixtures/ and its subfolders");
  const file = files[0] as string;
  if (!file.endsWith(`.${format}`)) throw new RenderRefusal(`fixture '${name}' is ${file}, but the test reads it as format ${format}`, `use format: ${file.endsWith(".csv") ? "csv" : "sql"} for it`);
  return file;
}

function dictRows(rows: Value | undefined, label: string): FixtureRow[] {
  if (!Array.isArray(rows) || !rows.every(isMapping)) {
    throw new RenderRefusal(`${label} has rows which do not match format dict`, "write rows as a list of mappings ({column: value}), or set format: csv or sql");
  }
  return rows as FixtureRow[];
}

/** CSV records read as Python's csv.DictReader yields them: a row shorter than the header is padded with null. */
function csvTable(text: string, file: string): { header: string[]; rows: (string | null)[][]; overlong: number } {
  const [header = [], ...records] = parseCsv(text, { file, fix: "write the fixture as CSV: a header line, then one line per row" });
  const overlong = records.findIndex((record) => record.length > header.length);
  return { header, rows: records.map((record) => header.map((_, i) => record[i] ?? null)), overlong };
}

function csvRows(text: string, label: string, file: string): FixtureRow[] {
  const table = csvTable(text, file);
  if (table.overlong >= 0) throw new RenderRefusal(`CSV row ${table.overlong + 1} of ${label} has more fields than its header`, "give every row the header's columns");
  // An empty CSV cell is NULL for every type (dbt #9881); the text `null` stays text.
  return table.rows.map((row) => Object.fromEntries(table.header.map((column, i) => [column, row[i] === "" ? null : (row[i] ?? null)])));
}

// --- running a prepared test ---

/**
 * The model's output columns depend only on its SQL and its inputs' column
 * types, so tests whose fixtures are typed alike share one DESCRIBE of each
 * mutant (a `format: sql` fixture, whose types are its SELECT's, never does).
 */
type DescribeCache = Map<string, Promise<Column[]>>;

function describeKey(plan: Plan): string | null {
  if (plan.fixtures.some((fixture) => fixture.columns.length === 0)) return null;
  return JSON.stringify([plan.modelSql, plan.fixtures.map((fixture) => [fixture.relation, fixture.columns.map((column) => [column.name, column.type])])]);
}

async function execute(
  plan: Plan,
  result: UnitResult,
  database: Database,
  lane: number,
  dialectRun: DialectRun | null,
  timeoutMs?: number,
  described?: DescribeCache,
): Promise<ExecutedTest> {
  const { test } = plan;
  result = { ...result, ran: "native" };
  if (dialectRun) {
    const translated = await dialectRun.prepare(plan, database, lane);
    if ("error" in translated) return { ...result, ran: "untranslatable", error: translated.error, renderedSql: plan.modelSql };
    plan = translated.plan;
    result.ran = "translated";
  }
  const ctes = plan.fixtures.map((fixture) => `${fixture.relation} as (\n${fixture.sql}\n)`);
  const withClause = (extra: string[]) => {
    const all = [...ctes, ...extra];
    return all.length > 0 ? `with ${all.join(",\n")}\n` : "";
  };
  const modelQuery = `select * from (\n${plan.modelSql}\n) as __slp_model`;
  let output: Column[];
  try {
    const key = described ? describeKey(plan) : null;
    let columns = key === null ? undefined : described?.get(key);
    if (!columns) {
      // A failed DESCRIBE is forgotten, so a later test asks again.
      columns = database.describe(`${withClause([])}${modelQuery}`, lane, timeoutMs).catch((error: unknown) => {
        if (key !== null) described?.delete(key);
        throw error;
      });
      if (key !== null) described?.set(key, columns);
    }
    output = await columns;
  } catch (error) {
    if (error instanceof QueryTimeout) return timedOut(result, error, test.node?.file ?? test.file, plan.modelSql);
    return { ...result, refused: true, error: databaseError(error, `DuckDB rejected the SQL of model ${test.model}`, test.node?.file ?? test.file, "see data.tests[].rendered_sql in --format json for the SQL as run"), renderedSql: plan.modelSql };
  }
  let expected: { columns: Column[]; sql: string };
  try {
    expected = expectedSql(test, output, plan);
  } catch (error) {
    return { ...result, error: renderError(error, test.file) };
  }
  const columns = expected.columns.map((column) => quoteIdentifier(column.name)).join(", ");
  const shown = expected.columns.map((column) => `cast(${quoteIdentifier(column.name)} as VARCHAR)`).join(", ");
  const order = expected.columns.map((_, i) => `${i + 2}`).join(", ");
  const sql = `${withClause([
    `__slp_actual as (select ${columns} from (\n${plan.modelSql}\n) as __slp_model)`,
    `__slp_expected as (\n${expected.sql}\n)`,
    "__slp_missing as (select * from __slp_expected except all select * from __slp_actual)",
    "__slp_extra as (select * from __slp_actual except all select * from __slp_expected)",
  ])}select 'expected' as __slp_side, ${shown} from __slp_missing
union all
select 'actual' as __slp_side, ${shown} from __slp_extra
order by 1 desc${order ? `, ${order}` : ""}`;
  let rows: (string | null)[][];
  try {
    rows = (await database.query(sql, lane, timeoutMs)).rows;
  } catch (error) {
    if (error instanceof QueryTimeout) return timedOut(result, error, test.file, plan.modelSql);
    return {
      ...result,
      error: databaseError(error, `An error occurred during execution of unit test '${test.name}'. There may be an error in the unit test definition: check the data types`, test.file, "check that each given and expected value can be cast to its column's type"),
      renderedSql: plan.modelSql,
    };
  }
  if (rows.length === 0) return { ...result, status: "pass" };
  return {
    ...result,
    status: "fail",
    diff: { columns: expected.columns.map((column) => column.name), rows: rows.map((row) => ({ side: row[0] === "expected" ? "expected" : "actual", values: row.slice(1) })) },
  };
}

/** The expected rows as SQL, cast to the model's output types, and the columns compared (spec §3.3-3.4). */
function expectedSql(test: UnitTestDefinition, output: Column[], plan: Plan): { columns: Column[]; sql: string } {
  const { expect } = test;
  const label = "expected output";
  if (plan.expectSql !== null) {
    const list = output.map((column) => quoteIdentifier(column.name)).join(", ");
    return { columns: output, sql: `select ${list} from (\n${plan.expectSql}\n) as __slp_expected_sql` };
  }
  const text = fixtureText(expect.format, expect.rows, expect.fixture, label, test, plan.project);
  const rows = expect.format === "csv" ? csvRows(text as string, label, expect.fixture ? fixtureFile(expect.fixture, plan.project, "csv", test) : test.file) : dictRows(text, label);
  if (rows.length === 0) return { columns: output, sql: `select * from __slp_actual limit 0` };
  // The compared columns are the first row's keys, after dbt moves the first row without a null to the top.
  const first = rows.find((row) => Object.values(row).every((value) => value !== null)) ?? (rows[0] as FixtureRow);
  const keys = Object.keys(first);
  const byLower = new Map(output.map((column) => [column.name.toLowerCase(), column]));
  const columns = keys.map((key) => {
    const column = byLower.get(key.toLowerCase());
    if (!column) {
      throw new RenderRefusal(
        `Invalid column name: '${key}' in unit test fixture for expected output. Accepted columns for expected output are: [${output.map((c) => `'${c.name}'`).join(", ")}]`,
        "name only columns the model returns",
      );
    }
    return column;
  });
  const wanted = keys.map((key) => key.toLowerCase()).sort().join("\u0000");
  const values = rows.map((row, i) => {
    const own = Object.keys(row);
    if (own.map((key) => key.toLowerCase()).sort().join("\u0000") !== wanted) {
      throw new RenderRefusal(
        `expected row ${i + 1} has the columns [${own.join(", ")}], but the compared columns are [${keys.join(", ")}]`,
        "give every expected row the same columns (write null where you expect NULL); dbt pairs expected columns by position, so rows that differ compare wrongly there",
      );
    }
    const lower = new Map(own.map((key) => [key.toLowerCase(), row[key] ?? null]));
    return keys.map((key) => lower.get(key.toLowerCase()) ?? null);
  });
  const tuples = values.map((row) => `(${row.map((value, i) => castLiteral(value, (columns[i] as Column).type)).join(", ")})`);
  return { columns, sql: `select * from (values ${tuples.join(", ")}) as __slp_expected_rows(${columns.map((c) => quoteIdentifier(c.name)).join(", ")})` };
}

// --- errors ---

function timedOut(result: UnitResult, error: QueryTimeout, file: string, sql: string): UnitResult & { timedOut: true } {
  return { ...result, timedOut: true, error: { message: error.message, file, line: null, fix: "a query this slow on a few fixture rows does not end; look for a join or recursion without a bound" }, renderedSql: sql };
}

function problemError(problem: Problem, file: string): TestError {
  return { message: problem.message, file: problem.file ?? file, line: null, fix: problem.fix };
}

function renderError(error: unknown, file: string): TestError {
  if (error instanceof TemplateFailure) {
    const origin = error.origin;
    const fix = origin instanceof SlpError && origin.fix ? origin.fix : "slp renders models with dbt's context (slp unit --help lists what it provides); override the macro in overrides.macros, or simplify the construct";
    return { message: error.message, file: error.file, line: error.line ?? null, fix };
  }
  if (error instanceof SlpError) return { message: error.message, file: error.file ?? file, line: error.line ?? null, fix: error.fix ?? null };
  throw error;
}

function databaseError(error: unknown, what: string, file: string, fix: string): TestError {
  if (!(error instanceof DatabaseError)) throw error;
  const message = error.message.split("\n")[0] ?? error.message;
  // A refusal of the locked database (a file read, a limit) says what to do itself.
  return { message: `${what}: ${message}`, file, line: null, fix: error.fix ?? fix };
}

/**
 * The line of each test in its yml: the `name:` line of its entry, found by
 * reading the text (a positional YAML parse costs more than a whole small run).
 */
function addLines(project: DbtProject, results: UnitResult[]): void {
  const texts = new Map<string, string[]>();
  for (const result of results) {
    let lines = texts.get(result.file);
    if (!lines) {
      lines = readText(project.dir, result.file).split("\n");
      texts.set(result.file, lines);
    }
    result.line = nameLine(lines, result.name) ?? nameLine(lines, result.name.replace(/_v[^_]+$/, ""));
    if (result.error && result.error.file === result.file && result.error.line === null) result.error.line = result.line;
  }
}

function nameLine(lines: string[], name: string): number | null {
  const start = lines.findIndex((line) => /^unit_tests\s*:/.test(line));
  const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^\\s*(-\\s+)?name\\s*:\\s*(["']?)${quoted}\\2\\s*(#.*)?$`);
  for (let i = Math.max(0, start); i < lines.length; i++) if (pattern.test(lines[i] as string)) return i + 1;
  return null;
}

// --- selection, parse-time values, sessions ---

function selects(select: string[], test: UnitTestDefinition): boolean {
  if (select.length === 0) return true;
  return select.some((item) => item === test.model || item === test.name || item === `${test.model}::${test.name}`);
}

/** dbt's native rendering of a yml value: a rendered number, boolean or None becomes that value. */
function nativeValue(text: string): Value {
  const trimmed = text.trim();
  if (/^[-+]?\d+$/.test(trimmed)) return Number(trimmed);
  if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return Number(trimmed);
  if (trimmed === "True") return true;
  if (trimmed === "False") return false;
  if (trimmed === "None") return null;
  return text;
}

/** A context with nothing mocked: yml values at parse time, `format: sql` fixtures. */
function emptySession(testName: string): RenderSession {
  return {
    testName,
    thisRelation: null,
    overrides: { macros: {}, vars: {}, envVars: {} },
    isIncremental: null,
    config: {},
    relation: (call) => {
      throw new RenderRefusal(`${callLabel(call)} cannot resolve here (inside a format: sql fixture or a yml value)`, "write the fixture's SELECT without ref() or source()");
    },
  };
}

// --- dbt's compiled SQL from target/manifest.json ---

interface Manifest {
  stale: boolean;
  /** The model's compiled code with each relation it names replaced by its mock's (`mockOf` a node key), or null when a test may not use it. */
  compiled(overrides: UnitTestDefinition["overrides"], node: RefNode, mockOf: (key: string) => string | undefined): { sql: string; used: string[] } | null;
}

/**
 * target/manifest.json, when dbt compiled the project after its last change.
 * Its compiled code names real relations; a test may use it only when the
 * test changes nothing rendering depends on (no overrides, no `this`, no
 * is_incremental) and every relation the code names is mocked.
 */
function readManifest(project: DbtProject): Manifest | null {
  const manifest = project.manifest;
  if (!manifest) return null;
  if (manifest.stale) return { stale: true, compiled: () => null };
  const { nodes, sources } = manifest;
  const relationOf = (key: string): string | null => {
    const entry = nodes[key] ?? sources[key];
    return entry && typeof entry.relation_name === "string" ? entry.relation_name : null;
  };
  return {
    stale: false,
    compiled(overrides, node, mockOf) {
      const { macros, vars, envVars } = overrides;
      if (Object.keys(macros).length + Object.keys(vars).length + Object.keys(envVars).length > 0) return null;
      const uniqueId = `model.${node.package}.${node.name}${node.version === null ? "" : `.v${node.version}`}`;
      const entry = nodes[uniqueId];
      const code = entry?.compiled_code;
      if (typeof code !== "string" || !isMapping(entry?.depends_on)) return null;
      const raw = typeof entry.raw_code === "string" ? entry.raw_code : "";
      if (/\bis_incremental\s*\(|\bthis\b/.test(raw) || code.includes("__dbt__cte__")) return null;
      const depends = entry.depends_on.nodes;
      if (!Array.isArray(depends)) return null;
      let sql = code;
      const used: string[] = [];
      for (const dependency of depends.map(String)) {
        const relation = relationOf(dependency);
        if (relation === null) return null;
        const key = manifestKey(dependency);
        const mock = key === null ? undefined : mockOf(key);
        if (mock === undefined || !sql.includes(relation)) return null;
        sql = sql.split(relation).join(mock);
        used.push(key as string);
      }
      return { sql, used };
    },
  };
}

/** `model.pkg.name(.v2)`, `seed.pkg.name`, `source.pkg.s.t` -> the keys nodeKey makes. */
function manifestKey(uniqueId: string): string | null {
  const parts = uniqueId.split(".");
  if (parts[0] === "source" && parts.length === 4) return `source.${parts[2]}.${parts[3]}`;
  if ((parts[0] === "model" || parts[0] === "seed" || parts[0] === "snapshot") && parts.length >= 3) return uniqueId;
  return null;
}
