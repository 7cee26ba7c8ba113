/**
 * The shapes the unit runner's stages hand each other (plan → schemas →
 * fixtures → render → translate → execute → compare) and what a run
 * reports: one verdict per test, `pass`, `fail` or `error`, never a pass on
 * something not looked at.
 */
import type { Static } from "@sinclair/typebox";
import type { Value } from "../core/values.ts";
import type { FixtureColumnInfo, UnitTestError, UnitTestResult } from "../schemas/unit.ts";
import type { DialectChoice } from "../sql/dialect/dialects.ts";
import type { DisabledTest, UnitTestDefinition } from "../project/dbt/unit-test-definitions.ts";

export type Verdict = "pass" | "fail" | "error";

/** A row as a fixture gives it: column name as written -> value (CSV values are text or null). */
export type FixtureRow = Record<string, Value>;

// The shapes `slp unit --format json` reports, from their TypeBox schemas (src/schemas/unit.ts).
// The column is known only where DuckDB placed the error in the model's SQL; the report writes null elsewhere.
export type TestError = Omit<Static<typeof UnitTestError>, "column"> & { column?: number | null };

export type DiffTable = NonNullable<Static<typeof UnitTestResult>["diff"]>;

export type FixtureColumn = Static<typeof FixtureColumnInfo>;

/**
 * Where a fixture column's type came from: dbt's catalog, dbt's manifest,
 * the yml (a contract, a seed's column_types), DuckDB's reading of the
 * upstream's own SQL, a seed's CSV, dbt's snapshot columns, or the test's own
 * values (for a column nothing else types).
 */
export type ColumnSource = FixtureColumn["from"];

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

/** One mocked input as a relation the model's SQL reads. */
export interface Fixture {
  /** A `format: sql` fixture: its SELECT is in the project's dialect, used as written. */
  fromSql: boolean;
  /** The unique id of the node it stands for. */
  key: string;
  /** The given's input as written. */
  input: string;
  /** The CTE name the model's SQL reads it by. */
  relation: string;
  /** The SELECT that yields its rows, every column typed. */
  sql: string;
  columns: FixtureColumn[];
  /**
   * The same SELECT without the columns nothing types (a source column its
   * yml lists without a data_type, that no row gives a value): if the model
   * still binds without them, it never reads them by name and their type
   * cannot change its verdict. Null when every column is typed.
   */
  typedOnlySql: string | null;
  /** Those untyped columns (VARCHAR NULLs in `sql`). */
  untyped: string[];
  /** Why slp could not type an untyped column from its relation's SQL, by column name (its yml gives no data_type either). */
  untypedWhy: Record<string, string>;
  /** The relation may have columns slp does not know (a source its yml lists in part): why, and what to do (`{column}`: the column the model reads). */
  open: { why: string; fix: string } | null;
  /** Where the untyped columns are declared, for the fix. */
  declaredIn: string | null;
}

/** A test ready to run: the model's SQL as it runs (rendered or dbt's), its fixtures, and a `format: sql` expectation. */
export interface TestPlan {
  test: UnitTestDefinition;
  /** The test's own package's files are read from here. */
  projectDir: string;
  /** The tested model's file (messages point at it). */
  modelFile: string;
  modelSql: string;
  fixtures: Fixture[];
  /** A `format: sql` expectation's SELECT (in the project's dialect until translated), else null. */
  expectSql: string | null;
  /** Expected rows of a dict or csv expectation, read once. */
  expectRows: FixtureRow[] | null;
}

/** A unit test's key, model then name (two models may have tests of one name); the branch's written tests are kept by it. */
export function testKey(test: { model: string; name: string }): string {
  return `${test.model}\0${test.name}`;
}
