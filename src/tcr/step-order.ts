/**
 * The order tcr runs an attempt's steps in: cheapest first, so the quick
 * verdicts come before the slow ones, and every step runs (one attempt, one
 * strike, all its findings). The cost is a fixed rank per built-in task, not
 * a measured time, so the order (and the report) is the same on every
 * machine; a step of equal rank keeps its place in slp.yml.
 */

/** Expected cost per built-in step: reads files (check), reads history (gate), runs SQL (unit), runs SQL per mutant (mutate). */
export const STEP_COST: Readonly<Record<string, number>> = {
  guard: 0,
  check: 1,
  gate: 2,
  unit: 3,
  mutate: 4,
};

/** Any other task slp knows: after the unit tests, before mutants. */
const OTHER_COST = 3.5;

export function costOf(name: string): number {
  return STEP_COST[name] ?? OTHER_COST;
}

/** The steps by expected cost, equal costs in their configured order. */
export function byExpectedCost<T extends { name: string }>(steps: readonly T[]): T[] {
  return steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => costOf(a.step.name) - costOf(b.step.name) || a.index - b.index)
    .map(({ step }) => step);
}
