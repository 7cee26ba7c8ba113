/**
 * The mutation run: every unit test of the selected models prepared once and
 * run unmutated (the baseline), then each mutant planted in the model's
 * compiled SQL and run against the tests that passed, in one process and one
 * DuckDB, the fixtures built once per test. Verdicts per mutant, and per unit
 * test that names an edge what it killed; the report is made elsewhere.
 */
import { compareCodePoints } from "../core/text.ts";
import {
  NothingSelected,
  prepareUnitTests,
  type ExecutedTest,
  type PreparedTest,
  type TestOutputs,
  type UnitRunOptions,
} from "../unit/run.ts";
import { readText } from "../project/files/source.ts";
import { MutantCache } from "./cache.ts";
import { separation, type Separation } from "./separation.ts";
import { readShape, type Shape } from "./hints.ts";
import type { UnitProject as DbtProject } from "../project/dbt/unit-project.ts";
import type { MutationEquivalent } from "../schemas/mutation.ts";
import { parseSql } from "../sql/parser.ts";
import { SqlTree } from "./define-operator.ts";
import { operators } from "./operators/index.ts";
import { capMutants, modelMutants, type SiteFinder } from "./sites.ts";

export type Verdict = "killed" | "survived" | "equivalent" | "rejected" | "timeout" | "not_run";

export interface MutantResult {
  id: string;
  operator: string;
  operatorName: string;
  original: string;
  replacement: string;
  occurrence: number;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  verdict: Verdict;
  /** Tests that failed or errored on it. */
  caughtBy: string[];
  /** Tests it ran against. */
  ranBy: string[];
  /** equivalent: the listed reason; rejected/timeout: DuckDB's message. */
  reason: string | null;
  /** The compiled SQL with the mutant in it (for hints), and where the site is in it. */
  sql: string;
  start: number;
  end: number;
  /** A survivor: the first existing unit test whose fixtures tell it from the model, and where (null: none does). */
  separation: Separation | null;
  /** A survivor: its site's shape for the hint (hints.ts), read while the parser is at hand; null otherwise. */
  shape: Shape | null;
}

export interface ModelRun {
  model: string;
  /** The model's .sql, relative to the project dir. */
  file: string;
  source: string;
  /** Test names of the model (all, passing or not). */
  tests: { name: string; id: string; file: string; line: number | null; edge: string | null }[];
  passed: string[];
  excluded: { test: string; reason: string }[];
  /** DuckDB's refusal of the model's own SQL, placed in its file: one error of the model's, whichever of its tests met it (those are `tests`). */
  refusedSql: { message: string; line: number; column: number; tests: string[] } | null;
  finder: SiteFinder | null;
  mutants: MutantResult[];
  sites: number;
  elided: Record<string, number>;
  /** Listed equivalents that matched a mutant that was killed (the listing is stale). */
  staleEquivalents: MutationEquivalent[];
  /** Each unit test that names an edge in config.meta.edge and passed unmutated: what it did to the model's mutants. */
  edgeTests: EdgeTestRun[];
  /** Taken from an earlier run (cache.ts): nothing of this model was run this time. */
  cached: boolean;
  /** A survivor's hint was left unread because the time budget ran out (such a run is not kept). */
  hintsCut: boolean;
}

/**
 * What one unit test naming an edge did to the model's mutants, from its own
 * result on each (every test faces every mutant of its rendering; none stops
 * at the first kill). Mutants the cap left out count too: they are run for
 * such a test alone when it killed none of the kept ones, so "kills nothing"
 * is never an artefact of the cap. A mutant listed as equivalent or refused
 * by DuckDB is in no list: nothing could kill it.
 */
export interface EdgeTestRun {
  test: string;
  /** config.meta.edge, whitespace collapsed. */
  edge: string;
  /** Mutant ids it killed. */
  killed: string[];
  /** Mutant ids it ran against and passed. */
  passed: string[];
  /** Mutants whose result for it is unknown: not run within the budget, or its query timed out. */
  undecided: { id: string; why: "not_run" | "timeout" }[];
}

export interface MutateOptions extends Omit<UnitRunOptions, "select"> {
  /** The models to judge (sorted); with testSelect, the models of the tests it selects join them. */
  models: string[];
  /** `--select` as slp unit reads it (models, tests, model::test); empty: every test of `models`. */
  testSelect: string[];
  warehouse: string;
  maxMutants: number;
  equivalents: MutationEquivalent[];
  /** A test's query is interrupted after this long (default: 2 s, or 20 times its baseline if longer). */
  timeoutMs?: number;
  /** Mutants not started after this long are not_run. */
  budgetMs: number;
}

export interface MutateRun {
  models: ModelRun[];
  /** Selected models that have no unit test at all. */
  untested: string[];
  notes: string[];
}

const NAMES = new Map(operators.map((operator) => [operator.code, operator.name]));

export async function runMutants(options: MutateOptions): Promise<MutateRun> {
  const { project } = options;
  // Nothing to judge: an empty selection must not mean "every test" to the runner.
  if (options.models.length === 0 && options.testSelect.length === 0) return { models: [], untested: [], notes: [] };
  let suite: Awaited<ReturnType<typeof prepareUnitTests>>;
  try {
    suite = await prepareUnitTests({
      ...options,
      select: options.testSelect.length > 0 ? options.testSelect : options.models,
      closeDatabase: false,
    });
  } catch (error) {
    if (error instanceof NothingSelected) {
      options.database?.then(
        (database) => database.close(),
        () => undefined,
      );
      return { models: [], untested: [...options.models], notes: [] };
    }
    throw error;
  }
  const { database } = suite;
  const wanted = new Set(options.models);
  if (options.testSelect.length > 0) for (const test of suite.tests) wanted.add(test.result.model);
  const models = [...wanted].sort(compareCodePoints);
  const tests = suite.tests.filter((test) => wanted.has(test.result.model));
  // A model whose source, tests and inputs are as an earlier run saw them takes that run's verdicts and runs nothing.
  const cache = MutantCache.open(project.dir, options.env);
  const keys = new Map<string, string | null>();
  const cached = new Map<string, ModelRun>();
  for (const model of models) {
    const own = tests.filter((test) => test.result.model === model);
    if (own.length === 0) continue;
    const file = modelFile(project, model);
    const key = MutantCache.key({
      model,
      file,
      source: file ? readText(project.dir, file) : "",
      warehouse: options.warehouse,
      maxMutants: options.maxMutants,
      equivalents: options.equivalents.filter((entry) => entry.model === model),
      tests: own.map((test) => suite.fingerprint(test)),
    });
    keys.set(model, key);
    const kept = cache.get(key);
    if (kept) cached.set(model, { ...kept, cached: true });
  }
  const toRun = tests.filter((test) => !cached.has(test.result.model));
  if (toRun.length > 0) await database.widen(2);
  try {
    // Baseline: every test unmutated.
    const durations = new Map<PreparedTest, number>();
    const baseline = await runAll(toRun, database.width, async (test, lane) => {
      const from = performance.now();
      const result = await suite.execute(test, { lane });
      durations.set(test, performance.now() - from);
      return result;
    });
    const finished = suite.finish(baseline.map((result) => ({ ...result })));
    const byModel = new Map<string, { test: PreparedTest; result: ExecutedTest; line: number | null }[]>();
    toRun.forEach((test, i) => {
      const list = byModel.get(test.result.model) ?? [];
      list.push({ test, result: baseline[i] as ExecutedTest, line: finished[i]?.line ?? null });
      byModel.set(test.result.model, list);
    });
    const untested = models.filter((model) => !byModel.has(model) && !cached.has(model));
    const runs: ModelRun[] = [];
    const deadline = performance.now() + options.budgetMs;
    for (const model of models) {
      const kept = cached.get(model);
      if (kept) {
        runs.push(kept);
        continue;
      }
      const entries = byModel.get(model);
      if (!entries) continue;
      const run = await runModel(model, entries, project, options, suite, database.width, durations, deadline);
      cache.set(keys.get(model) ?? null, run);
      runs.push(run);
    }
    cache.save();
    return { models: runs, untested, notes: suite.notes };
  } finally {
    if (options.closeDatabase !== false) database.close();
  }
}

function modelFile(project: DbtProject, model: string): string {
  const node = project.refNodes.find((candidate) => candidate.kind === "model" && candidate.name === model && candidate.latest);
  return node?.file ?? "";
}

async function runModel(
  model: string,
  entries: { test: PreparedTest; result: ExecutedTest; line: number | null }[],
  project: DbtProject,
  options: MutateOptions,
  suite: Awaited<ReturnType<typeof prepareUnitTests>>,
  width: number,
  durations: Map<PreparedTest, number>,
  deadline: number,
): Promise<ModelRun> {
  const file = modelFile(project, model);
  const source = file ? readText(project.dir, file) : "";
  const passing = entries.filter((entry) => entry.result.status === "pass" && entry.test.modelSql !== null);
  const run: ModelRun = {
    model,
    file,
    source,
    tests: entries.map(({ result, line }) => ({ name: result.name, id: result.id, file: result.file, line, edge: result.edge })),
    passed: passing.map((entry) => entry.result.name),
    excluded: entries
      .filter((entry) => !passing.includes(entry))
      .map(({ result }) => ({
        test: result.name,
        reason:
          result.status === "fail"
            ? "it fails on the unmutated model"
            : `it errors on the unmutated model: ${result.error?.message ?? "unknown error"}`,
      })),
    refusedSql: refusedSqlOf(entries.map(({ result }) => result)),
    finder: null,
    mutants: [],
    sites: 0,
    elided: {},
    staleEquivalents: [],
    edgeTests: [],
    cached: false,
    hintsCut: false,
  };
  if (passing.length === 0) return run;

  // Tests that render the model alike share its mutants; the rendering most tests share numbers them.
  const renderings = new Map<string, PreparedTest[]>();
  for (const { test } of passing) renderings.set(test.modelSql as string, [...(renderings.get(test.modelSql as string) ?? []), test]);
  const ordered = [...renderings].sort((a, b) => b[1].length - a[1].length);
  const { mutants: all, finder } = modelMutants(source, ordered, options.warehouse);
  run.finder = finder;
  run.sites = all.length;
  const { kept, elided } = capMutants(all, options.maxMutants);
  run.elided = elided;

  const timeoutOf = (test: PreparedTest) => options.timeoutMs ?? Math.max(2000, 20 * (durations.get(test) ?? 0));
  const jobs: { mutant: (typeof all)[number]; sql: string; test: PreparedTest }[] = [];
  for (const mutant of kept)
    for (const plant of mutant.plants) for (const test of plant.group) jobs.push({ mutant, sql: plant.mutated, test });
  const outcomes = new Map<(typeof all)[number], { test: string; result: ExecutedTest | null }[]>();
  await runAll(jobs, width, async (job, lane) => {
    const result =
      performance.now() > deadline ? null : await suite.execute(job.test, { modelSql: job.sql, lane, timeoutMs: timeoutOf(job.test) });
    outcomes.set(job.mutant, [...(outcomes.get(job.mutant) ?? []), { test: job.test.result.name, result }]);
    return result;
  });

  /** What the model itself returns over each test's fixtures, read once, for the survivors' hints. */
  const originals = new Map<PreparedTest, Promise<TestOutputs | null>>();
  const original = (test: PreparedTest): Promise<TestOutputs | null> => {
    let read = originals.get(test);
    if (!read) {
      read = suite.outputs(test, { timeoutMs: timeoutOf(test) });
      originals.set(test, read);
    }
    return read;
  };
  const separate = async (
    plants: readonly { mutated: string; group: PreparedTest[] }[],
    model: (test: PreparedTest) => Promise<TestOutputs | null>,
    until: number,
    limit: (test: PreparedTest) => number,
  ): Promise<Separation | null> => {
    // The tests in name order, so the hint names the same test every run.
    const candidates = plants
      .flatMap((plant) => plant.group.map((test) => ({ test, sql: plant.mutated })))
      .sort((a, b) => compareCodePoints(a.test.result.name, b.test.result.name));
    for (const { test, sql } of candidates) {
      if (performance.now() > until) {
        run.hintsCut = true;
        return null;
      }
      const found = separation(test.result.name, await model(test), await suite.outputs(test, { modelSql: sql, timeoutMs: limit(test) }));
      if (found) return found;
    }
    return null;
  };

  const listed = options.equivalents.filter((entry) => entry.model === model);
  const listedAs = (mutant: (typeof all)[number]) =>
    listed.find(
      (entry) =>
        entry.operator === mutant.planned.operator && entry.original === mutant.planned.original && entry.occurrence === mutant.occurrence,
    );
  for (const mutant of kept) {
    const results = (outcomes.get(mutant) ?? []).sort((a, b) => compareCodePoints(a.test, b.test));
    const ran = results.filter((item) => item.result !== null);
    const refused = ran.find((item) => item.result?.refused);
    const caught = ran.filter((item) => !item.result?.refused && !item.result?.timedOut && item.result?.status !== "pass");
    const timedOut = ran.find((item) => item.result?.timedOut);
    const equivalent = listedAs(mutant);
    let verdict: Verdict;
    let reason: string | null = null;
    if (ran.length < results.length && caught.length === 0) verdict = "not_run";
    else if (refused) {
      verdict = "rejected";
      reason = refused.result?.error?.message ?? null;
    } else if (caught.length > 0) verdict = "killed";
    else if (timedOut) {
      verdict = "timeout";
      reason = timedOut.result?.error?.message ?? null;
    } else if (equivalent) {
      verdict = "equivalent";
      reason = equivalent.reason;
    } else verdict = "survived";
    if (equivalent && verdict === "killed") run.staleEquivalents.push(equivalent);
    const plant = mutant.plants[0] as (typeof mutant.plants)[number];
    const separated = verdict === "survived" ? await separate(mutant.plants, original, deadline, timeoutOf) : null;
    run.mutants.push({
      id: mutant.id,
      operator: mutant.planned.operator,
      operatorName: NAMES.get(mutant.planned.operator) ?? mutant.planned.operator,
      original: mutant.planned.original,
      replacement: mutant.planned.replacement,
      occurrence: mutant.occurrence,
      ...mutant.position,
      verdict,
      caughtBy: [...new Set(caught.map((item) => item.test))],
      ranBy: [...new Set(ran.map((item) => item.test))],
      reason,
      sql: plant.sql,
      start: mutant.planned.start,
      end: mutant.planned.end,
      separation: separated,
      shape: verdict === "survived" ? readShape(treeOf(plant.sql, options.warehouse), mutant.planned) : null,
    });
  }
  run.edgeTests = await edgeTestRuns({
    passing: passing.map((entry) => entry.test),
    kept: run.mutants.map((result, i) => ({ result, outcomes: outcomes.get(kept[i] as (typeof all)[number]) ?? [] })),
    elided: all.filter((mutant) => !kept.includes(mutant) && !listedAs(mutant)),
    execute: (test, sql, lane) =>
      performance.now() > deadline ? Promise.resolve(null) : suite.execute(test, { modelSql: sql, lane, timeoutMs: timeoutOf(test) }),
    width,
  });
  return run;
}

/** The refusal of the model's SQL that DuckDB placed in its file, with the tests that met it (the same at the same place). */
function refusedSqlOf(results: readonly ExecutedTest[]): ModelRun["refusedSql"] {
  let found: ModelRun["refusedSql"] = null;
  for (const { error, name } of results) {
    if (error?.line == null || error.column == null) continue;
    if (found === null) found = { message: error.message, line: error.line, column: error.column, tests: [] };
    if (found.message === error.message && found.line === error.line && found.column === error.column) found.tests.push(name);
  }
  return found;
}

/** What a test's result on a mutant says of that test alone. */
type Outcome = "killed" | "passed" | "not_run" | "timeout" | "none";

function outcomeOf(result: ExecutedTest | null): Outcome {
  if (result === null) return "not_run";
  if (result.refused) return "none";
  if (result.timedOut) return "timeout";
  return result.status === "pass" ? "passed" : "killed";
}

/**
 * Per unit test naming an edge: the kept mutants it killed, passed and left
 * undecided, read from the run's own results; then, for each such test that
 * killed none of them, the mutants the cap left out, run for it alone and
 * only until one is killed (a test that kills something is settled).
 */
async function edgeTestRuns<M extends { id: string; plants: { mutated: string; group: PreparedTest[] }[] }>(input: {
  passing: PreparedTest[];
  kept: { result: MutantResult; outcomes: { test: string; result: ExecutedTest | null }[] }[];
  elided: M[];
  execute: (test: PreparedTest, sql: string, lane: number) => Promise<ExecutedTest | null>;
  width: number;
}): Promise<EdgeTestRun[]> {
  const runs: EdgeTestRun[] = [];
  const byTest = new Map<PreparedTest, EdgeTestRun>();
  for (const test of input.passing) {
    if (test.result.edge === null) continue;
    const run: EdgeTestRun = { test: test.result.name, edge: test.result.edge, killed: [], passed: [], undecided: [] };
    for (const { result, outcomes } of input.kept) {
      const mine = outcomes.find((item) => item.test === run.test);
      // Equivalent and rejected mutants are beyond any test; a catch counts only where the verdict is killed.
      if (!mine || result.verdict === "equivalent" || result.verdict === "rejected") continue;
      record(run, result.id, outcomeOf(mine.result));
    }
    runs.push(run);
    byTest.set(test, run);
  }
  const open = (test: PreparedTest) => {
    const run = byTest.get(test);
    return run !== undefined && run.killed.length === 0;
  };
  const jobs = input.elided.flatMap((mutant) =>
    mutant.plants.flatMap((plant) => plant.group.filter(open).map((test) => ({ mutant, sql: plant.mutated, test }))),
  );
  await runAll(jobs, input.width, async (job, lane) => {
    // Recorded as each one ends, so a test is settled by its first kill and runs no more of them.
    if (open(job.test)) record(byTest.get(job.test) as EdgeTestRun, job.mutant.id, outcomeOf(await input.execute(job.test, job.sql, lane)));
  });
  // Lanes finish in any order: the lists are put back in the mutants' own.
  const order = new Map([...input.kept.map(({ result }) => result.id), ...input.elided.map((mutant) => mutant.id)].map((id, i) => [id, i]));
  const byOrder = (a: string, b: string) => (order.get(a) ?? 0) - (order.get(b) ?? 0);
  for (const run of runs) {
    run.killed.sort(byOrder);
    run.passed.sort(byOrder);
    run.undecided.sort((a, b) => byOrder(a.id, b.id));
  }
  return runs;
}

function record(run: EdgeTestRun, id: string, outcome: Outcome): void {
  if (outcome === "killed") run.killed.push(id);
  else if (outcome === "passed") run.passed.push(id);
  else if (outcome === "not_run" || outcome === "timeout") run.undecided.push({ id, why: outcome });
}

/** Runs `work` over `items` on `width` lanes, keeping the results in the items' order. */
async function runAll<T, R>(items: readonly T[], width: number, work: (item: T, lane: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, width) }, async (_, lane) => {
      for (;;) {
        const index = next++;
        if (index >= items.length) return;
        results[index] = await work(items[index] as T, lane);
      }
    }),
  );
  return results;
}

/** The syntax tree of a mutant's compiled SQL (for hints), or null when the parser cannot read it. */
export function treeOf(sql: string, warehouse: string): SqlTree | null {
  const parsed = parseSql(sql, warehouse);
  return "root" in parsed ? new SqlTree(sql, parsed.root) : null;
}
