/**
 * The execute stage: one prepared test on the database. The plan's SQL is
 * translated for a warehouse dialect, DuckDB describes the model's output
 * over the fixtures (a column the model reads that no fixture has is named
 * with its input and the fix), the expected rows are cast to that output,
 * and one query compares them. Every database failure becomes the test's
 * error with dbt's wording; a query past its time limit is a timeout.
 */
import { DatabaseError, QueryTimeout, type Column, type Database } from "../engine/duckdb.ts";
import { compareQuery, diffOf, expectedQuery, outputQuery } from "./compare.ts";
import { quoteIdentifier, withClause } from "./sql.ts";
import { renderError } from "./render.ts";
import { placeInModel } from "./sql-place.ts";
import { missingColumn } from "./schemas.ts";
import { isJsonType } from "./json-values.ts";
import type { DialectRun } from "./translate.ts";
import { runTypings, type KeptSearches } from "./typings.ts";
import type { Fixture, TestError, TestPlan, UnitResult } from "./types.ts";

/** A test's result, and why it errored when the model's SQL itself could not run. */
export type ExecutedTest = UnitResult & {
  /** DuckDB refused the model's SQL before any row was compared (a syntax or binder error). */
  refused?: boolean;
  /** A query ran past the time limit and was interrupted. */
  timedOut?: boolean;
  /** The model's output could not be described over these fixtures (a typing of untyped columns DuckDB does not bind). */
  unbound?: boolean;
};

/**
 * The model's output columns depend only on its SQL and its inputs' column
 * types, so tests whose fixtures are typed alike share one DESCRIBE of the
 * model (and of each mutant); a `format: sql` fixture, whose types are its
 * SELECT's, never does.
 */
export type DescribeCache = Map<string, Promise<Column[]>>;

/**
 * Output columns kept from earlier runs, by the exact SQL described (and
 * the engine's version, settings and macros, which the cache's key holds):
 * binding the same SQL in the same engine gives the same columns, and
 * binding is most of a warm run's database time (a warehouse division is
 * ~7 ms of it). Only a DESCRIBE that succeeded is kept; the test's query
 * still binds and runs the model.
 */
export interface KeptOutputs {
  get(sql: string): Column[] | undefined;
  set(sql: string, columns: Column[]): void;
}

export interface ExecuteContext {
  database: Database;
  lane: number;
  dialectRun: DialectRun | null;
  timeoutMs?: number;
  described?: DescribeCache;
  kept?: KeptOutputs;
  /** Typing searches kept from earlier runs (see typings.ts). */
  searches?: KeptSearches;
  /** Told of a column the model reads of a fixture slp knows only in part (by the fixture's node id), which nothing gives. */
  readsUnknown?: (key: string, column: string) => void;
  /** Place a refusal of the model's SQL in its file (the model's own SQL, not a mutant's: a mutant's refusal is its verdict). */
  place?: boolean;
}

export async function executeTest(plan: TestPlan, result: UnitResult, context: ExecuteContext): Promise<ExecutedTest> {
  const { database, lane, dialectRun } = context;
  result = { ...result, ran: "native" };
  const rendered = plan.modelSql;
  if (dialectRun) {
    const translated = await dialectRun.prepare(plan, database, lane);
    if ("error" in translated) return { ...result, ran: "untranslatable", error: translated.error, renderedSql: plan.modelSql };
    plan = translated.plan;
    result.ran = "translated";
  }
  return runPlan(plan, result, context, true, rendered);
}

/** The translated plan run: its output described, the expected rows cast to it, and the one compare query. `rendered`: the model's SQL before translation. */
async function runPlan(
  plan: TestPlan,
  result: UnitResult,
  context: ExecuteContext,
  typings: boolean,
  rendered: string,
): Promise<ExecutedTest> {
  const { database, lane, timeoutMs } = context;
  const { dialectRun } = context;
  const dialect = dialectRun?.dialect ?? "duckdb";
  const { test } = plan;
  const ctes = (typedOnly: boolean) =>
    plan.fixtures.map((fixture) => ({
      name: fixture.relation,
      sql: typedOnly && fixture.typedOnlySql !== null ? fixture.typedOnlySql : fixture.sql,
    }));
  let output: Column[];
  try {
    output = await describeOutput(plan, context, ctes);
  } catch (error) {
    if (error instanceof QueryTimeout) return timedOut(result, error, plan.modelFile, plan.modelSql);
    // Binding folds constant casts, so a fixture value that cannot be cast may fail here rather than in the run: it is still the data's error.
    if (error instanceof DatabaseError && isDataError(error))
      return { ...result, unbound: true, error: executionError(error, test.name, test.file), renderedSql: plan.modelSql };
    const unread = error instanceof DatabaseError ? unknownColumn(plan, error) : null;
    const open = plan.fixtures.filter((fixture) => fixture.open !== null);
    const missing = error instanceof DatabaseError ? missingColumn(error.message) : null;
    if (unread && missing !== null && open.length === 1 && !readsUntyped(plan, error as DatabaseError))
      context.readsUnknown?.((open[0] as Fixture).key, missing);
    // A column nothing types that the model reads: the test runs once per candidate type of such columns.
    if (unread && typings && error instanceof DatabaseError && readsUntyped(plan, error)) {
      return runTypings(
        plan,
        result,
        { ...unread, readColumn: missingColumn(error.message) as string },
        { database, lane, timeoutMs, dialect, kept: context.searches },
        (typedPlan) => runPlan(typedPlan, result, context, false, rendered),
      );
    }
    if (unread) return { ...result, refused: true, unbound: true, error: unread, renderedSql: plan.modelSql };
    const place = context.place && error instanceof DatabaseError ? await placeOf(error, plan, rendered, context) : null;
    const rejected =
      place ??
      databaseError(
        error,
        `DuckDB rejected the SQL of model ${test.model}`,
        plan.modelFile,
        "see data.tests[].rendered_sql in --format json for the SQL as run",
      );
    return { ...result, refused: true, unbound: true, error: withPartlyKnown(plan, rejected), renderedSql: plan.modelSql };
  }
  let expected: { columns: Column[]; sql: string };
  try {
    expected = expectedQuery(plan, output, dialect);
  } catch (error) {
    return { ...result, error: renderError(error, test.file) };
  }
  // A warehouse's semi-structured values compare by their canonical text (json-values.ts).
  const canonical = dialectRun !== null && expected.columns.some((column) => isJsonType(column.type));
  let rows: (string | null)[][];
  try {
    rows = (await database.query(compareQuery(ctes(false), plan.modelSql, expected, dialect, canonical), lane, timeoutMs)).rows;
  } catch (error) {
    if (error instanceof QueryTimeout) return timedOut(result, error, test.file, plan.modelSql);
    return { ...result, error: executionError(error, test.name, test.file), renderedSql: plan.modelSql };
  }
  const diff = diffOf(rows, expected.columns);
  return diff === null ? { ...result, status: "pass" } : { ...result, status: "fail", diff };
}

/** What a model returns over one test's fixtures, beside what the test expects: every value as text. */
export interface TestOutputs {
  /** The model's output columns, in order, and every row it returns (sorted, so the same output reads the same). */
  columns: string[];
  rows: (string | null)[][];
  /** The columns the test compares (its expect's), and its expected rows in the order written. */
  expected: { columns: string[]; rows: (string | null)[][] };
}

/**
 * The model's whole output over the test's fixtures and the test's expected
 * rows, both as DuckDB's text of the output's types (so a value reads the
 * same on both sides); null when either cannot be read (the SQL does not
 * bind, a typing search would be needed, a query fails).
 */
export async function readOutputs(plan: TestPlan, context: ExecuteContext): Promise<TestOutputs | null> {
  const { database, lane, dialectRun, timeoutMs } = context;
  try {
    if (dialectRun) {
      const translated = await dialectRun.prepare(plan, database, lane);
      if ("error" in translated) return null;
      plan = translated.plan;
    }
    const ctes = plan.fixtures.map((fixture) => ({ name: fixture.relation, sql: fixture.sql }));
    const output = await describeOutput(plan, context, () => ctes);
    const expected = expectedQuery(plan, output, dialectRun?.dialect ?? "duckdb");
    const asText = (columns: readonly Column[]) =>
      columns.map((column) => `cast(${quoteIdentifier(column.name)} as VARCHAR)`).join(", ") || "1";
    const actual = await database.query(
      withClause(ctes, `select ${asText(output)} from (\n${plan.modelSql}\n) as __slp_model order by all`),
      lane,
      timeoutMs,
    );
    const none = plan.expectRows !== null && plan.expectRows.length === 0;
    const wanted = none
      ? { rows: [] }
      : await database.query(
          withClause(ctes, `select ${asText(expected.columns)} from (\n${expected.sql}\n) as __slp_expected`),
          lane,
          timeoutMs,
        );
    return {
      columns: output.map((column) => column.name),
      rows: actual.rows,
      expected: { columns: expected.columns.map((column) => column.name), rows: wanted.rows },
    };
  } catch {
    return null;
  }
}

/**
 * DESCRIBE of the model over the fixtures. A fixture with untyped columns is
 * described without them first: the model must bind without reading them by
 * name, so their type cannot change what it returns.
 */
async function describeOutput(
  plan: TestPlan,
  context: ExecuteContext,
  ctes: (typedOnly: boolean) => { name: string; sql: string }[],
): Promise<Column[]> {
  const { database, lane, timeoutMs, described, kept } = context;
  const untyped = plan.fixtures.some((fixture) => fixture.typedOnlySql !== null);
  if (untyped) await database.describe(outputQuery(ctes(true), plan.modelSql), lane, timeoutMs);
  const key = described ? describeKey(plan) : null;
  let columns = key === null ? undefined : described?.get(key);
  if (!columns) {
    const sql = outputQuery(ctes(false), plan.modelSql);
    const earlier = key === null ? undefined : kept?.get(sql);
    // A failed DESCRIBE is forgotten, so a later test asks again.
    columns = earlier
      ? Promise.resolve(earlier)
      : database.describe(sql, lane, timeoutMs).then(
          (read) => {
            if (key !== null) kept?.set(sql, read);
            return read;
          },
          (error: unknown) => {
            if (key !== null) described?.delete(key);
            throw error;
          },
        );
    if (key !== null) described?.set(key, columns);
  }
  return columns;
}

function describeKey(plan: TestPlan): string | null {
  if (plan.fixtures.some((fixture) => fixture.fromSql)) return null;
  return JSON.stringify([
    plan.modelSql,
    plan.fixtures.map((fixture) => [fixture.relation, fixture.columns.map((column) => [column.name, column.type])]),
  ]);
}

/** The column DuckDB says is missing is one a fixture leaves untyped. */
function readsUntyped(plan: TestPlan, error: DatabaseError): boolean {
  const column = missingColumn(error.message)?.toLowerCase();
  return column !== undefined && plan.fixtures.some((fixture) => fixture.untyped.some((name) => name.toLowerCase() === column));
}

/** A column the model reads that a fixture lacks: which input, and why slp does not have it. */
function unknownColumn(plan: TestPlan, error: DatabaseError): TestError | null {
  const column = missingColumn(error.message);
  if (column === null) return null;
  const lower = column.toLowerCase();
  const untyped = plan.fixtures.find((fixture) => fixture.untyped.some((name) => name.toLowerCase() === lower));
  const where = (fixture: Fixture) => `model ${plan.test.model} reads column '${column}' of ${fixture.input}`;
  if (untyped) {
    // Why the upstream's own SQL did not type it either is the cause to name (an untranslatable construct, an untyped input of its own).
    const cause = untyped.untypedWhy[untyped.untyped.find((name) => name.toLowerCase() === lower) as string] ?? null;
    const declaredIn = untyped.declaredIn ?? `the yml of ${untyped.input}`;
    return cause === null
      ? {
          message: `${where(untyped)}, whose yml declares it without a data_type, and this test gives it no value`,
          file: plan.test.file,
          line: null,
          fix: `give ${column} a data_type in ${declaredIn}, or a value in the test's rows`,
        }
      : {
          message: `${where(untyped)}, which this test gives no value and slp cannot type: ${cause}`,
          file: plan.test.file,
          line: null,
          fix: `give ${column} a value in the test's rows, or a data_type in ${declaredIn}`,
        };
  }
  const open = plan.fixtures.filter((fixture) => fixture.open !== null);
  if (open.length === 0) return null;
  const fixture = open[0] as Fixture;
  const others =
    open.length > 1
      ? ` (or of ${open
          .slice(1)
          .map((other) => other.input)
          .join(", ")})`
      : "";
  return {
    message: `${where(fixture)}${others}, which this test does not give and slp does not know of: ${fixture.open?.why}`,
    file: plan.test.file,
    line: null,
    fix: (fixture.open?.fix ?? "give {column} a value in the test's rows").replaceAll("{column}", column),
  };
}

/**
 * A model DuckDB cannot bind over fixtures of which some are relations slp knows only in part (a source its
 * yml lists in part or not at all): the warehouse relation has columns these fixtures lack, so SQL that takes
 * all of an input's columns (`select *` under a union, a join of two `*`) binds there and not here. The
 * refusal names those inputs, why slp lacks their columns, and what to declare.
 */
function withPartlyKnown(plan: TestPlan, error: TestError): TestError {
  const open = plan.fixtures.filter((fixture) => fixture.open !== null);
  const first = open[0];
  if (!first?.open) return error;
  const inputs = open.map((fixture) => `${fixture.input} (${fixture.open?.why})`).join("; ");
  return {
    ...error,
    message: `${error.message}; slp knows the columns of ${inputs} only as far as this test gives them, and SQL that takes every column of ${open.length === 1 ? "it" : "them"} (select *) reads the warehouse relation's columns`,
    fix: first.open.fix.replaceAll("{column}", "every column of the table"),
  };
}

function timedOut(result: UnitResult, error: QueryTimeout, file: string, sql: string): ExecutedTest {
  return {
    ...result,
    timedOut: true,
    error: {
      message: error.message,
      file,
      line: null,
      fix: "a query this slow on a few fixture rows does not end; look for a join or recursion without a bound",
    },
    renderedSql: sql,
  };
}

/** DuckDB's refusal of the model's SQL at its place in the model's file, or null when DuckDB names no place there. */
async function placeOf(error: DatabaseError, plan: TestPlan, rendered: string, context: ExecuteContext): Promise<TestError | null> {
  const place = await placeInModel(error, {
    ran: plan.modelSql,
    rendered,
    projectDir: plan.projectDir,
    file: plan.modelFile,
    database: context.database,
    lane: context.lane,
  });
  if (!place) return null;
  const moved = place.statementStart
    ? ` (DuckDB's place is in the SQL slp translated from ${context.dialectRun?.dialect}, where it moved: this is the statement's start)`
    : "";
  return {
    message: `DuckDB rejected the SQL of model ${plan.test.model}: ${place.message}${moved}`,
    file: plan.modelFile,
    line: place.line,
    column: place.column,
    fix: "fix the model's SQL there (data.tests[].rendered_sql in --format json is the SQL as run)",
  };
}

/** dbt's wording for a failure while the test's query runs. */
function executionError(error: unknown, testName: string, file: string): TestError {
  return databaseError(
    error,
    `An error occurred during execution of unit test '${testName}'. There may be an error in the unit test definition: check the data types`,
    file,
    "check that each given and expected value can be cast to its column's type",
  );
}

/** A value DuckDB cannot convert or hold (as opposed to SQL it cannot read or bind). */
function isDataError(error: DatabaseError): boolean {
  return /^(Conversion|Out of Range) Error/.test(error.message);
}

function databaseError(error: unknown, what: string, file: string, fix: string): TestError {
  if (!(error instanceof DatabaseError)) throw error;
  const message = error.message.split("\n")[0] ?? error.message;
  // A refusal of the locked database (a file read, a limit) says what to do itself.
  return { message: `${what}: ${message}`, file, line: null, fix: error.fix ?? fix };
}
