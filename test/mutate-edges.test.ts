/**
 * A unit test named for a known edge that kills no mutant of its model blocks
 * in `slp mutate` and `slp ci` (test/fixtures/mutate-edge/): each case is
 * committed on main, then reworded on a branch (the model's SQL and its
 * pre-registration), and judged as a pull request is. Silent when the test
 * reaches the edge, names no edge or an unknown one, or has nothing to kill;
 * exit 2 when the run cannot say (budget; a timeout, incomplete/); the cap
 * never makes a test look as if it killed nothing.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { expectFixtureOutput, FIXTURES, fixtureCases } from "./support/fixtures.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { validateAgainst } from "./support/official-schema.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const CASES = join(FIXTURES, "mutate-edge");
const QUICKSTART = join(import.meta.dir, "..", "examples", "quickstart");
const SARIF_SCHEMA = join(import.meta.dir, "support", "schemas", "sarif-2.1.0.json");
const FIXTURE_FILES = new Set(["expected", "args", "README.txt"]);

/** The project on main, then branch agent/work that rewords its model's SQL and pre-registration (a change gate accepts). */
function pullRequest(project: string, model = "models/marts/fct_orders"): TempDir {
  const repo = tempDir("slp-mutate-edge-");
  cpSync(project, repo.path, { recursive: true, filter: (source) => !FIXTURE_FILES.has(basename(source)) });
  initRepo(repo.path);
  commitAll(repo.path, "main");
  git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
  const sql = join(repo.path, `${model}.sql`);
  writeFileSync(sql, `${readFileSync(sql, "utf8")}-- reworded\n`);
  const yml = join(repo.path, `${model}.yml`);
  const text = readFileSync(yml, "utf8");
  writeFileSync(yml, text.replace(/(\n {8}reason: "[^"\n]*)"/, '$1; reworded"'));
  commitAll(repo.path, "agent: reword");
  return repo;
}

const BLOCK =
  "BLOCK\tmodels/marts/fct_orders.yml:35\tfct_orders\tunit test 'cancelled_orders_are_excluded' (models/marts/fct_orders.yml, line 35) names the edge 'status='cancelled' → row excluded' of fct_orders but kills no mutant of it";

describe("slp mutate: a unit test named for an edge that kills no mutant (test/fixtures/mutate-edge)", () => {
  for (const fixture of fixtureCases("mutate-edge")) {
    test(`${fixture.kind}/${fixture.name}`, async () => {
      using repo = pullRequest(fixture.dir);
      const result = await runMain(["mutate", "--base", "main", ...(fixture.args ?? [])], repo.path);
      expectFixtureOutput(fixture.dir, result);
    });
  }

  test("a budget spent before the mutants run: the verdict on the edge test is incomplete, exit 2, never 'kills nothing'", async () => {
    using repo = pullRequest(join(CASES, "fires", "no_cancelled_row"));
    const result = await runMain(["mutate", "--base", "main", "--budget-ms", "0", "--format", "json"], repo.path);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.exit_code).toBe(2);
    expect(result.exitCode).toBe(2);
    expect(envelope.findings).toEqual([]);
    expect(envelope.errors).toContainEqual({
      code: "E_EDGE_INCOMPLETE",
      message:
        "the verdict on unit test 'cancelled_orders_are_excluded' (edge 'status='cancelled' → row excluded') is incomplete: it killed no mutant of fct_orders, and 2 mutants never ran against it, the time budget having run out (where/1, literal/1), so slp cannot say whether it tells the model from a wrong one",
      file: "models/marts/fct_orders.yml",
      line: 35,
      column: null,
      fix: "raise --budget-ms (or --timeout-ms) and run slp mutate again",
    });
  });

  test("a query that times out on a mutant the edge test might have killed: incomplete, exit 2, never 'kills nothing'", async () => {
    // incomplete/: a recursive count beside the filter; dropping its bound never ends. Which tiny queries also pass the
    // timeout on a loaded machine varies, so this case is read through its verdicts, not its exact lines.
    using repo = pullRequest(join(CASES, "incomplete", "timed_out"));
    const result = await runMain(["mutate", "--base", "main", "--timeout-ms", "1000", "--format", "json"], repo.path);
    const envelope = JSON.parse(result.stdout);
    expect(result.exitCode).toBe(2);
    expect(envelope.findings.filter((finding: { message: string }) => finding.message.includes("names the edge"))).toEqual([]);
    const incomplete = envelope.errors.filter((error: { code: string }) => error.code === "E_EDGE_INCOMPLETE");
    expect(incomplete).toHaveLength(1);
    expect(incomplete[0]).toMatchObject({ file: "models/marts/fct_orders.yml", line: 35 });
    expect(incomplete[0].message).toStartWith(
      "the verdict on unit test 'cancelled_orders_are_excluded' (edge 'status='cancelled' → row excluded') is incomplete: it killed ",
    );
    expect(incomplete[0].message).toMatch(
      /its query timed out on \d+ mutants? \([^)]*\bwhere\/1\b[^)]*\), so slp cannot say whether it tells the model from a wrong one$/,
    );
  });

  test("the finding has the shape of every other: JSON (rule, severity, file, line) and a valid SARIF result at the test's line", async () => {
    using repo = pullRequest(join(CASES, "fires", "no_cancelled_row"));
    const json = JSON.parse((await runMain(["mutate", "--base", "main", "--format", "json"], repo.path)).stdout);
    const [finding, ...others] = json.findings;
    expect(others).toEqual([]);
    expect(finding).toMatchObject({
      severity: "BLOCK",
      rule: "MUTANT",
      name: "mutation-check",
      file: "models/marts/fct_orders.yml",
      model: "fct_orders",
      line: 35,
    });
    expect(`BLOCK\t${finding.file}:${finding.line}\t${finding.model}\t${finding.message}`).toStartWith(BLOCK);
    const sarif = await runMain(["mutate", "--base", "main", "--format", "sarif"], repo.path);
    const log = JSON.parse(sarif.stdout);
    expect(validateAgainst(SARIF_SCHEMA, log)).toEqual([]);
    const [result] = log.runs[0].results;
    expect(result).toMatchObject({
      ruleId: "MUTANT",
      level: "error",
      message: { text: finding.message },
      locations: [{ physicalLocation: { artifactLocation: { uri: "models/marts/fct_orders.yml" }, region: { startLine: 35 } } }],
    });
    expect(sarif.exitCode).toBe(1);
  });
});

describe("slp ci (real CLI): the edge test that kills nothing blocks the pull request", () => {
  test("rows that never reach the cancelled-order filter: a block from the mutate stage, ci exit 1", () => {
    using repo = pullRequest(join(CASES, "fires", "no_cancelled_row"));
    const result = runCli(["ci"], repo.path);
    expect(result.stdout).toContain(`${BLOCK}: it passes against 2 mutants: where/1`);
    expect(result.stdout).toMatch(/^gate: slp gate: OK \(1 commit\)$/m);
    expect(result.stdout).toMatch(/^mutate: slp mutate: 1 block - BLOCKED$/m);
    expect(result.stdout).toMatch(/^slp ci: 1 block, 1 info - BLOCKED \(4 stages; not green: mutate\)$/m);
    expect(result.exitCode).toBe(1);
  });

  test("the same test with a cancelled row and the right expect: ci green", () => {
    using repo = pullRequest(join(CASES, "silent", "cancelled_row"));
    const result = runCli(["ci"], repo.path);
    expect(result.stdout).not.toContain("names the edge");
    expect(result.stdout).toMatch(/^slp ci: 1 info - OK \(4 stages\)$/m);
    expect(result.exitCode).toBe(0);
  });
});

describe("the quickstart's own edge tests", () => {
  test("each kills a mutant of its model: no edge test is flagged, on either mart", async () => {
    using repo = tempDir("slp-mutate-edge-quickstart-");
    cpSync(QUICKSTART, repo.path, { recursive: true });
    const result = await runMain(["mutate", "--select", "fct_orders", "fct_revenue_daily", "--format", "json"], repo.path);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.errors).toEqual([]);
    expect(envelope.findings.filter((finding: { message: string }) => finding.message.includes("names the edge"))).toEqual([]);
    // Every edge-naming test of both marts is among the killers.
    const killers = new Set(
      envelope.data.models.flatMap((model: { mutants: { caught_by: string[] }[] }) => model.mutants.flatMap((mutant) => mutant.caught_by)),
    );
    for (const test of [
      "cancelled_orders_are_excluded",
      "partially_shipped_orders_are_kept",
      "cents_become_currency_units",
      "orders_of_one_day_add_up",
      "days_without_orders_have_no_row",
    ])
      expect(killers.has(test)).toBe(true);
  });
});
