/** The benchmark verdict: a median over its budget makes `bun run bench` exit 1 (no timing is measured here). */
import { expect, test } from "bun:test";
import { budgetFrom, overBudget, type Benchmark, type Measurement } from "../bench/harness.ts";

function measured(name: string, medianMs: number, budgetMs: number): Measurement {
  return { name, budgetMs, medianMs, minMs: medianMs, runsMs: [medianMs] };
}

test("a median above its budget is over budget; one equal to it is within", () => {
  expect(overBudget([measured("fast", 10, 60), measured("exact", 60, 60), measured("slow", 61, 60)])).toEqual(["slow"]);
  expect(overBudget([measured("fast", 10, 60)])).toEqual([]);
});

test("a budget that is a factor of another benchmark is that factor of its median in the same run; unknown is over budget", () => {
  const ratio: Benchmark = { name: "dialect", budgetOf: { of: "base", factor: 1.2 }, setup: () => ({ argv: [], cwd: "." }) };
  expect(budgetFrom(ratio, [measured("base", 100, 150)])).toBe(120);
  expect(overBudget([{ ...measured("dialect", 121, 0), budgetMs: budgetFrom(ratio, [measured("base", 100, 150)]) }])).toEqual(["dialect"]);
  expect(overBudget([{ ...measured("dialect", 119, 0), budgetMs: 120 }])).toEqual([]);
  expect(budgetFrom(ratio, [])).toBeNaN();
  expect(overBudget([{ ...measured("dialect", 10, 0), budgetMs: budgetFrom(ratio, []) }])).toEqual(["dialect"]);
});
