/**
 * Mutants in the agent's loop and hints that name the existing test: tcr's
 * default steps mutate the changed marts (red on a survivor, green once a
 * test catches it, the verdicts kept by content so the next attempt runs
 * no mutant), and a survivor's hint read from the mutant's actual output
 * over each existing test's rows (test/fixtures/mutate-hints/project): the
 * expected column the test lacks, or, when no test's rows tell them apart,
 * the row that would.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { separation, separationText } from "../src/mutate/separation.ts";
import { runCli, runMain } from "./support/cli.ts";
import { git } from "./support/git-repo.ts";
import {
  edit,
  FCT_ORDERS_SQL,
  FCT_ORDERS_YML,
  preRegisterDownstream,
  quickstartRepo,
  status,
  strikes,
  tcrEnvelope,
} from "./support/tcr.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { tempDir } from "./support/temp.ts";

const HINTS = join(FIXTURES, "mutate-hints", "project");

/** A change gate and unit let through: fct_orders.sql reworded, with the branch's own pre-registrations. */
function rewordFctOrders(dir: string): void {
  edit(dir, FCT_ORDERS_SQL, (text) => text.replace("-- One row per order", "-- Revenue orders: one row per order"));
  edit(dir, FCT_ORDERS_YML, (text) => text.replace("about one order in five", "about one order in five; comment reworded"));
  preRegisterDownstream(dir, "comment reworded");
}

/** A new unit test gives an order whose customer is unknown and expects it kept: the join swap's killer (changing an existing test is G4's). */
function catchJoinSwap(dir: string): void {
  edit(
    dir,
    FCT_ORDERS_YML,
    (text) => `${text}
  - name: orders_of_unknown_customers_are_kept
    model: fct_orders
    given:
      - input: ref('stg_orders')
        rows:
          - {order_id: 4, customer_id: 99, status: shipped, amount_cents: 500, ordered_at: "2025-12-01 11:00:00"}
      - input: ref('stg_customers')
        rows:
          - {customer_id: 10, customer_email: ana@example.com, country: BR}
    expect:
      rows:
        - {order_id: 4, customer_email: null}
`,
  );
}

type Step = { name: string; verdict: string; data: { cached?: string[] } | null; findings: { rule: string; message: string }[] };
const mutateStep = (envelope: { data: { steps: Step[] } }) => envelope.data.steps.find((step) => step.name === "mutate") as Step;

describe("slp tcr mutates the changed marts by default (real CLI)", () => {
  test("a survivor in a changed mart is red at mutate; the change is reverted and counts a strike", () => {
    using repo = quickstartRepo();
    rewordFctOrders(repo.path);
    const result = runCli(["tcr", "reword the mart's comment", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(envelope.data.steps.map((step: Step) => [step.name, step.verdict])).toEqual([
      ["check", "green"],
      ["gate", "green"],
      ["unit", "green"],
      ["mutate", "red"],
    ]);
    expect(envelope.data.red_step).toBe("mutate");
    expect(mutateStep(envelope).findings.map((finding) => finding.message)).toEqual([
      "mutant join/1 (join-type-swapped): left join -> inner join at line 10 survived every unit test; a unit test that cannot tell the code from this is a unit test the model does not have yet; a given row of ref('stg_orders') whose customer_id matches no row of ref('stg_customers') would reach it",
    ]);
    expect(envelope.data.outcome).toBe("reverted");
    expect(result.exitCode).toBe(1);
    expect(strikes(repo.path)).toBe("1");
    expect(status(repo.path)).toBe("");
  });

  test("the same change with a test that catches the mutant is green and committed, with mutate among the trailers' steps", () => {
    using repo = quickstartRepo();
    rewordFctOrders(repo.path);
    catchJoinSwap(repo.path);
    const result = runCli(["tcr", "reword, and test an order with an unknown customer", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(mutateStep(envelope).verdict).toBe("green");
    expect(envelope.data.outcome).toBe("committed");
    expect(result.exitCode).toBe(0);
    expect(git(repo.path, ["log", "-1", "--format=%(trailers:key=Slp-Tcr-Steps,valueonly)"]).trim()).toBe("check gate unit mutate");
    expect(status(repo.path)).toBe("");
  });

  test("a second attempt that touched neither the model nor its tests takes the mutants' verdicts from the cache", () => {
    using repo = quickstartRepo();
    using cache = tempDir("slp-mutloop-cache-");
    rewordFctOrders(repo.path);
    const env = { SLP_CACHE_DIR: cache.path };
    const first = tcrEnvelope(runCli(["tcr", "reword", "--dry-run", "--format", "json"], repo.path, env).stdout);
    expect(mutateStep(first).data?.cached).toEqual([]);
    // An edit elsewhere (a staging model's description) leaves fct_orders' model, inputs and tests as they were.
    edit(repo.path, "models/staging/_staging.yml", (text) => `${text}\n`);
    const second = tcrEnvelope(runCli(["tcr", "reword", "--dry-run", "--format", "json"], repo.path, env).stdout);
    expect(mutateStep(second).data?.cached).toEqual(["fct_orders"]);
    // The verdict is the same one: the cached run is red on the same survivor.
    expect(mutateStep(second).verdict).toBe("red");
    expect(mutateStep(second).findings).toEqual(mutateStep(first).findings);
    // A test that changes is a new key: nothing is taken from the cache, and the mutant is now killed.
    catchJoinSwap(repo.path);
    const third = tcrEnvelope(runCli(["tcr", "reword", "--dry-run", "--format", "json"], repo.path, env).stdout);
    expect(mutateStep(third).data?.cached).toEqual([]);
    expect(mutateStep(third).verdict).toBe("green");
    // SLP_NO_CACHE turns it off.
    const off = tcrEnvelope(runCli(["tcr", "reword", "--dry-run", "--format", "json"], repo.path, { ...env, SLP_NO_CACHE: "1" }).stdout);
    expect(mutateStep(off).data?.cached).toEqual([]);
  });
});

describe("a survivor's hint names the existing test and the cell it lacks (test/fixtures/mutate-hints/project)", () => {
  const mutate = async (dir: string, cache: string) =>
    runMain(["mutate", "--project-dir", dir, "--select", "fct_shipped", "--out", join(dir, "..", "out")], dir, { SLP_CACHE_DIR: cache });

  test("the join-condition flip is caught by adding email to the expect of shipped_orders_are_kept; the join swap, which no test's rows reach, keeps the row hint", async () => {
    using work = tempDir("slp-mutate-hints-");
    const dir = join(work.path, "project");
    cpSync(HINTS, dir, { recursive: true });
    const result = await mutate(dir, join(work.path, "cache"));
    const findings = result.stdout.split("\n").filter((line) => line.startsWith("BLOCK"));
    expect(findings).toEqual([
      "BLOCK\tmodels/marts/fct_shipped.sql:7\tfct_shipped\tmutant join/1 (join-type-swapped): left join -> inner join at line 7 survived every unit test; a unit test that cannot tell the code from this is a unit test the model does not have yet; a given row of ref('stg_orders') whose customer_id matches no row of ref('stg_customers') would reach it (fix: test)\t[MUTANT]",
      "BLOCK\tmodels/marts/fct_shipped.sql:8\tfct_shipped\tmutant cmp/1 (comparison-flipped): = -> <> at line 8 survived every unit test; add column email to the expect of unit test shipped_orders_are_kept, which would then catch it: on its expected row 1 (order_id = 2) the model returns email = ana@example.com, the mutant email = null (fix: test)\t[MUTANT]",
    ]);
    // Killed mutants get no hint.
    expect(result.stdout).toContain(
      "KILLED\tfct_shipped\tratio/1\tline 4\torders.amount_cents / 100.0 -> 100.0 / orders.amount_cents\tby totals_are_in_currency_units\n",
    );
    expect(result.exitCode).toBe(1);
    // The hint is right: with email in that expect, the test kills the mutant.
    const yml = join(dir, "models", "marts", "_marts.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("        - {order_id: 2}\n", "        - {order_id: 2, email: ana@example.com}\n"));
    const fixed = await mutate(dir, join(work.path, "cache"));
    expect(fixed.stdout).toContain("KILLED\tfct_shipped\tcmp/1\tline 8\t= -> <>\tby shipped_orders_are_kept\n");
    expect(fixed.stdout).not.toContain("add column");
  });

  test("the hint is the same, in text and JSON, when the verdicts come from the cache", async () => {
    using work = tempDir("slp-mutate-hints-");
    const dir = join(work.path, "project");
    cpSync(HINTS, dir, { recursive: true });
    const json = async () =>
      JSON.parse(
        (
          await runMain(
            ["mutate", "--project-dir", dir, "--select", "fct_shipped", "--out", join(work.path, "out"), "--format", "json"],
            dir,
            { SLP_CACHE_DIR: join(work.path, "cache") },
          )
        ).stdout,
      );
    const first = await json();
    const second = await json();
    expect(first.data.cached).toEqual([]);
    expect(second.data.cached).toEqual(["fct_shipped"]);
    expect(second.findings).toEqual(first.findings);
    expect(first.findings.map((finding: { message: string }) => finding.message)).toContain(
      "mutant cmp/1 (comparison-flipped): = -> <> at line 8 survived every unit test; add column email to the expect of unit test shipped_orders_are_kept, which would then catch it: on its expected row 1 (order_id = 2) the model returns email = ana@example.com, the mutant email = null",
    );
  });
});

describe("separation: where a mutant's output parts from the model's", () => {
  const outputs = (rows: (string | null)[][]) => ({
    columns: ["id", "email"],
    rows,
    expected: { columns: ["id"], rows: [["1"], ["2"]] },
  });

  test("a column the expect does not list, on the expected row it is", () => {
    const found = separation(
      "t",
      outputs([
        ["1", "a"],
        ["2", "b"],
      ]),
      outputs([
        ["1", "a"],
        ["2", null],
      ]),
    );
    expect(found).toEqual({
      test: "t",
      kind: "column",
      columns: ["email"],
      row: 2,
      where: { id: "2" },
      model: { email: "b" },
      mutant: { email: null },
    });
    expect(separationText(found as NonNullable<typeof found>)).toBe(
      "add column email to the expect of unit test t, which would then catch it: on its expected row 2 (id = 2) the model returns email = b, the mutant email = null",
    );
  });

  test("a row the mutant drops, which no expected row tells apart", () => {
    const found = separation(
      "t",
      outputs([
        ["1", "a"],
        ["1", "b"],
      ]),
      outputs([["1", "a"]]),
    );
    expect(found?.kind).toBe("row");
    expect(separationText(found as NonNullable<typeof found>)).toBe(
      "add the row (id = 1, email = b) to the expect of unit test t, which would then catch it: the model returns that row over the test's given rows, the mutant does not",
    );
  });

  test("silent: the same output, or outputs that cannot be read", () => {
    expect(separation("t", outputs([["1", "a"]]), outputs([["1", "a"]]))).toBeNull();
    expect(separation("t", null, outputs([["1", "a"]]))).toBeNull();
  });
});
