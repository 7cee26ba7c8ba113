/**
 * The fuzz suite: generated inputs of every kind slp reads (test/fuzz/),
 * run through the real main() in this process. Invariants: exit 0, 1 or 2
 * (3 for tcr), never the internal-error path, never a hang, no file read or
 * written outside the case's folder (the project, HOME and slp's cache) and
 * slp's own, never a canary file's text in the output, and never exit 0 on
 * an input a strict reader rejects.
 *
 * Seeded and bounded so the suite stays fast; `npx bun run fuzz -- --runs N
 * --seed S [--kind TEXT]` runs longer (test/fuzz/run.ts).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { cases } from "./fuzz/arbitraries.ts";
import { brokenInvariants, CANARY, CANARY_TEXT, runCase, type FuzzCase } from "./fuzz/harness.ts";

const SEED = Number(process.env.SLP_FUZZ_SEED ?? 20_251_201);
/** Runs per kind; the suite's default keeps the whole file to a few seconds. */
const RUNS = process.env.SLP_FUZZ_RUNS ? Number(process.env.SLP_FUZZ_RUNS) : undefined;
const KIND = process.env.SLP_FUZZ_KIND;

/** Cheap kinds get more runs than the ones that open DuckDB or build git histories. */
const DEFAULT_RUNS: Record<string, number> = {
  "properties yml (check)": 60,
  "properties yml and SQL (unit)": 12,
  "model SQL and Jinja (unit)": 25,
  "dbt_project.yml (check, unit)": 12,
  "slp.yml (check)": 30,
  "CODEOWNERS and links (check)": 30,
  "diff.json (compare)": 60,
  "diff-from-row (row)": 60,
  "git history (gate)": 4,
};

function describeCase(fuzz: FuzzCase): string {
  return JSON.stringify(
    { argv: fuzz.argv, files: fuzz.files, commits: fuzz.commits, stdin: fuzz.stdin, mustRefuse: fuzz.mustRefuse },
    null,
    1,
  ).slice(0, 4000);
}

describe("the fuzz harness can fail", () => {
  test("it sees a file read outside the case's folder (a path named on the command line, here)", async () => {
    const fuzz: FuzzCase = { kind: "self-test", files: {}, argv: ["compare", CANARY] };
    const broken = brokenInvariants(fuzz, await runCase(fuzz));
    expect(broken.some((line) => line.startsWith("touched outside the project:") && line.includes(CANARY))).toBe(true);
  });

  test("it sees the canary's text in an output, exit 0 on a refused input, an internal error and a hang", async () => {
    const fuzz: FuzzCase = {
      kind: "self-test",
      files: { "row.csv": `row_delta,removed_pks,window_column,window_start,window_end\n1,0,${CANARY_TEXT},a,b\n` },
      argv: ["diff-from-row", "--model", "fct", "row.csv"],
      mustRefuse: "a test of the oracle",
    };
    const result = await runCase(fuzz);
    expect(result.exitCode).toBe(0);
    expect(brokenInvariants(fuzz, result)).toEqual([
      "the canary file's text reached the output",
      "exit 0 on input a strict reader rejects (a test of the oracle)",
    ]);
    expect(
      brokenInvariants(fuzz, { exitCode: 2, stdout: "", stderr: "ERROR unexpected TypeError: x; this is a bug in slp", violations: [] })[0],
    ).toStartWith("the internal-error path");
    expect(brokenInvariants(fuzz, { exitCode: -1, stdout: "", stderr: "", violations: [] })[0]).toContain("a hang");
  });
});

describe("fuzz: every input slp reads keeps the invariants", () => {
  test("every kind has a generator and a run count", () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(DEFAULT_RUNS).sort());
  });

  for (const [kind, arbitrary] of Object.entries(cases)) {
    if (KIND && !kind.includes(KIND)) continue;
    const runs = RUNS ?? (DEFAULT_RUNS[kind] as number);
    test(
      `${kind}: ${runs} cases, seed ${SEED}`,
      async () => {
        await fc.assert(
          fc.asyncProperty(arbitrary, async (fuzz) => {
            const result = await runCase(fuzz);
            const broken = brokenInvariants(fuzz, result);
            if (broken.length > 0) {
              throw new Error(
                `${broken.join("\n")}\n-- exit ${result.exitCode}\n-- stderr: ${result.stderr.slice(0, 600)}\n-- case: ${describeCase(fuzz)}`,
              );
            }
          }),
          { seed: SEED, numRuns: runs, endOnFailure: process.env.SLP_FUZZ_SHRINK !== "1" },
        );
      },
      // Generous per kind: a hang fails the case long before this (runCase's own limit).
      Math.max(60_000, runs * 2_000),
    );
  }
});
