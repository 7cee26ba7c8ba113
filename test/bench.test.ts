/** The benchmark verdict: a median over its budget makes `bun run bench` exit 1 (no timing is measured here). */
import { expect, test } from "bun:test";
import { overBudget, type Measurement } from "../bench/harness.ts";

function measured(name: string, medianMs: number, budgetMs: number): Measurement {
  return { name, budgetMs, medianMs, minMs: medianMs, runsMs: [medianMs] };
}

test("a median above its budget is over budget; one equal to it is within", () => {
  expect(overBudget([measured("fast", 10, 60), measured("exact", 60, 60), measured("slow", 61, 60)])).toEqual(["slow"]);
  expect(overBudget([measured("fast", 10, 60)])).toEqual([]);
});
