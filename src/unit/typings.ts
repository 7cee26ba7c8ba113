/**
 * The typings stage: a test whose model reads a column nothing types (its
 * yml gives no data_type, slp cannot type it from its relation's SQL, and the
 * test gives it no value) runs once per candidate typing of such columns,
 * and gets a verdict only when every typing DuckDB binds agrees.
 *
 * dbt fills such a column with NULL cast to the warehouse column's type
 * (spec/dbt-unit-tests.md §3.2). Every value of it is NULL, so its type can
 * change the verdict only through what the type does to other values: a
 * literal or a known column cast to the common type (`coalesce(x, 'n/a')`,
 * a union), the type of an output column the expected rows are cast to, or
 * type introspection (`typeof`). Running each candidate type that binds, and
 * refusing when two of them disagree, catches the first two for every type
 * in the set. What it cannot catch (the residual risk, also in the README):
 * a warehouse type outside the set whose behaviour differs from every
 * candidate (a STRUCT, an array of a given element type, a TIME, an
 * INTERVAL), `typeof()`-like introspection that the expected rows pin to such
 * a type, and a verdict that changes only for one combination of two
 * columns' types that no typing tried (each column takes each type it binds
 * as in one run, the others in a type they bind as).
 *
 * A typing is bound first: one DuckDB cannot bind is not the warehouse's
 * (the model would not compile there either), so it is left out; one that
 * binds and then errors while it runs (a value that cannot be cast to a type
 * the column gave an output column) is an outcome like pass or fail, and
 * must agree as they must.
 */
import type { Dialect } from "../sql/dialect/dialects.ts";
import type { Database } from "../engine/duckdb.ts";
import { outputQuery } from "./compare.ts";
import type { ExecutedTest } from "./execute.ts";
import { quoteIdentifier } from "./sql.ts";
import type { Fixture, TestError, TestPlan, UnitResult } from "./types.ts";

/**
 * The candidate types, one per family of the warehouses' column types as
 * slp maps them to DuckDB (src/sql/dialect/types.ts): text, integer, binary
 * fraction, exact decimal, boolean, date, timestamp without and with a time
 * zone. Snowflake's integers are NUMBER(38,0), so its integer candidate is
 * that DECIMAL. Lists, structs, TIME, INTERVAL and binary are left out: a
 * column only they bind as is refused by name rather than guessed.
 */
export function candidateTypes(dialect: Dialect): string[] {
  const integer = dialect === "snowflake" ? "DECIMAL(38,0)" : "BIGINT";
  return ["VARCHAR", integer, "DOUBLE", "DECIMAL(38,9)", "BOOLEAN", "DATE", "TIMESTAMP", "TIMESTAMPTZ"];
}

/** At most this many bindings are tried to find which types each column binds as (each is a few milliseconds). */
const MAX_BINDINGS = 400;

/** One untyped column: its fixture (by index) and its name. */
interface UntypedColumn {
  fixture: number;
  name: string;
}

/** A type per untyped column (by index into the list); null stands for an untyped NULL, which DuckDB types from where it is used. */
type Typing = (string | null)[];

/** The same plan with each untyped column retyped: every value of such a column is NULL, so only the cast changes. */
export function typedPlan(plan: TestPlan, columns: readonly UntypedColumn[], typing: Typing): TestPlan {
  const fixtures = plan.fixtures.map((fixture, index): Fixture => {
    const replaced: string[] = [];
    const types = new Map<string, string>();
    columns.forEach((column, i) => {
      if (column.fixture !== index) return;
      const type = typing[i] ?? null;
      replaced.push(`${type === null ? "null" : `cast(null as ${type})`} as ${quoteIdentifier(column.name)}`);
      if (type !== null) types.set(column.name, type);
    });
    if (replaced.length === 0) return fixture;
    return {
      ...fixture,
      sql: `select * replace (${replaced.join(", ")}) from (\n${fixture.sql}\n) as __slp_typed`,
      columns: fixture.columns.map((column) => ({ ...column, type: types.get(column.name) ?? column.type })),
      typedOnlySql: null,
      untyped: [],
    };
  });
  return { ...plan, fixtures };
}

/** Where the typings bind and run, and the warehouse dialect whose candidate types they take. */
export interface TypingsContext {
  database: Database;
  lane: number;
  timeoutMs?: number;
  dialect: Dialect;
  kept?: KeptSearches;
}

/** Which typings a test's model binds as, or why none: what a search finds. */
export type TypingSearch = { typings: Typing[] } | { refusal: string };

/** Searches kept between runs, by what binding depends on (the model's SQL, its fixtures' columns and types): a warm run binds nothing to find them. */
export interface KeptSearches {
  get(key: string): TypingSearch | undefined;
  set(key: string, search: TypingSearch): void;
}

/** A run of the test under one typing, every column typed. */
export type RunTyped = (plan: TestPlan) => Promise<ExecutedTest>;

/**
 * The test's verdict over the typings of its untyped columns, or a refusal
 * naming `unread.readColumn` (the first one the model reads) when they disagree
 * or none binds. `unread` is the refusal slp gave before it tried typings,
 * which names why slp cannot type the column.
 */
export async function runTypings(
  plan: TestPlan,
  result: UnitResult,
  unread: TestError & { readColumn: string },
  context: TypingsContext,
  run: RunTyped,
): Promise<ExecutedTest> {
  const columns: UntypedColumn[] = plan.fixtures.flatMap((fixture, index) => fixture.untyped.map((name) => ({ fixture: index, name })));
  const candidates = candidateTypes(context.dialect);
  const refuse = (why: string): ExecutedTest => ({
    ...result,
    refused: true,
    error: { message: `${unread.message}; ${why}`, file: unread.file, line: unread.line, fix: unread.fix },
    renderedSql: plan.modelSql,
  });
  // Tests of one model that leave the same columns untyped bind alike: the search is made once for them.
  const key = JSON.stringify([
    candidates,
    plan.modelSql,
    plan.fixtures.map((fixture) => [fixture.relation, fixture.columns.map((column) => [column.name, column.type]), fixture.untyped]),
  ]);
  let searches = searched.get(context.database);
  if (!searches) {
    searches = new Map();
    searched.set(context.database, searches);
  }
  let search = searches.get(key);
  if (!search) {
    const kept = context.kept?.get(key);
    search = kept
      ? Promise.resolve(kept)
      : searchTypings(plan, columns, candidates, context).then((found) => {
          context.kept?.set(key, found);
          return found;
        });
    searches.set(key, search);
  }
  const found = await search;
  if ("refusal" in found) return refuse(found.refusal);
  const { typings } = found;
  const outcomes: { typing: Typing; result: ExecutedTest }[] = [];
  for (const typing of typings) {
    // A typing whose columns bind one by one may still not bind together (`a = b` as VARCHAR and BIGINT): left out.
    const ran = await run(typedPlan(plan, columns, typing));
    if (ran.timedOut) return ran;
    if (!ran.unbound) outcomes.push({ typing, result: ran });
  }
  const first = outcomes[0];
  if (!first) return refuse("DuckDB binds the model under none of the typings of its untyped columns together");
  const other = outcomes.find((outcome) => outcome.result.status !== first.result.status);
  if (other) {
    // Named by the column the model reads first, with its type in each run (the other untyped columns change with it).
    const lower = unread.readColumn.toLowerCase();
    const at = Math.max(
      0,
      columns.findIndex((column) => column.name.toLowerCase() === lower),
    );
    const as = (outcome: { typing: Typing; result: ExecutedTest }) =>
      `${outcome.result.status === "error" ? "an error" : outcome.result.status} as ${outcome.typing[at]}`;
    return refuse(`its verdict depends on the type of the columns it leaves untyped: ${as(first)}, ${as(other)}`);
  }
  // Every typing agrees: the first one's result, each untyped column shown with the types it ran as.
  const ranAs = columns.map((_, i) => [...new Set(outcomes.map((outcome) => outcome.typing[i] as string))].join(" | "));
  const fixtures = first.result.fixtures.map((fixture, index) => ({
    ...fixture,
    columns: fixture.columns.map((column) => {
      const i = columns.findIndex((candidate) => candidate.fixture === index && candidate.name === column.name);
      return i < 0 ? column : { ...column, type: ranAs[i] as string, from: "typings" as const };
    }),
  }));
  return { ...first.result, fixtures };
}

/** The searches made in a run, by database (one per run) and by what binding depends on. */
const searched = new WeakMap<Database, Map<string, Promise<TypingSearch>>>();

/**
 * The typings to run: which candidate types each untyped column binds as
 * (the others left untyped NULLs, which DuckDB types from where they are
 * used), found by halving the set of columns that does not bind as a type;
 * then one typing per candidate type, in which the columns that bind as it
 * take it and the others their first type.
 */
async function searchTypings(
  plan: TestPlan,
  columns: readonly UntypedColumn[],
  candidates: readonly string[],
  context: TypingsContext,
): Promise<TypingSearch> {
  const refusal = (why: string) => ({ refusal: why });
  let bindings = 0;
  let lastError = "";
  const binds = async (typing: Typing): Promise<boolean> => {
    bindings++;
    const typed = typedPlan(plan, columns, typing);
    try {
      await context.database.describe(
        outputQuery(
          typed.fixtures.map((fixture) => ({ name: fixture.relation, sql: fixture.sql })),
          typed.modelSql,
        ),
        context.lane,
        context.timeoutMs,
      );
      return true;
    } catch (error) {
      lastError = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
      return false;
    }
  };
  // Left untyped NULLs, the columns take the type each use asks for; where that is ambiguous (date_trunc of a NULL),
  // every column as one candidate type is the base instead. A model that binds with neither fails for another reason, which is named.
  let base: Typing | null = columns.map(() => null);
  if (!(await binds(base))) {
    const untypedError = lastError;
    base = null;
    for (const type of candidates) {
      const uniform = columns.map(() => type);
      if (await binds(uniform)) {
        base = uniform;
        break;
      }
    }
    if (base === null) return refusal(`DuckDB binds the model with it as none of ${candidates.join(", ")}: ${untypedError}`);
  }
  const untypedBase = base;

  // Which columns bind as each type (the others left untyped NULLs), found by halving the set that does not.
  const accepted = new Map<string, Set<number>>();
  let previous: Set<number> | null = null;
  for (const type of candidates) {
    const taken = new Set<number>();
    const tryGroup = async (group: number[]): Promise<void> => {
      if (group.length === 0) return;
      if (bindings >= MAX_BINDINGS) return;
      const typing = untypedBase.map((baseType, i) => (taken.has(i) || group.includes(i) ? type : baseType));
      if (await binds(typing)) {
        for (const i of group) taken.add(i);
        return;
      }
      if (group.length === 1) return;
      const half = Math.ceil(group.length / 2);
      await tryGroup(group.slice(0, half));
      await tryGroup(group.slice(half));
    };
    const all = columns.map((_, i) => i);
    // The columns that took the last type usually take this one too: try them first, as one group.
    if (previous && previous.size > 0 && previous.size < all.length) {
      await tryGroup([...previous]);
      await tryGroup(all.filter((i) => !taken.has(i)));
    } else await tryGroup(all);
    accepted.set(type, taken);
    previous = taken;
  }
  if (bindings >= MAX_BINDINGS)
    return refusal(`slp stopped after ${MAX_BINDINGS} bindings while finding which types the model binds its untyped columns as`);

  // Each column's types, in candidate order; a column no candidate binds as is refused by name.
  const typesOf = columns.map((_, i) => candidates.filter((type) => accepted.get(type)?.has(i)));
  const lost = typesOf.findIndex((types) => types.length === 0);
  if (lost >= 0) {
    const column = columns[lost] as UntypedColumn;
    return refusal(
      `DuckDB binds the model with column '${column.name}' of ${plan.fixtures[column.fixture]?.input} as none of ${candidates.join(", ")} (a list, a struct or another type slp does not try)`,
    );
  }
  // One typing per candidate type: the columns that bind as it take it, the others their first type.
  const typings: Typing[] = [];
  const seen = new Set<string>();
  for (const type of candidates) {
    const taken = accepted.get(type) as Set<number>;
    if (taken.size === 0) continue;
    const typing = typesOf.map((types, i) => (taken.has(i) ? type : (types[0] as string)));
    const key = typing.join("\0");
    if (seen.has(key)) continue;
    seen.add(key);
    typings.push(typing);
  }
  return { typings };
}
