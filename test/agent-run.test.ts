/**
 * An agent's session, scripted end to end through the real loop on a copy of
 * the quickstart with tcr's default steps (check, gate, unit, mutate): it takes
 * the human's change by merging the base branch, pre-registers, writes a test
 * with a wrong expectation, makes a syntax error, makes two faults in one
 * attempt, reads --status, brings a saved attempt back with --restore, fixes
 * it, refits a band, and the human's review shows the history first (the
 * refitted band, the strikes) and the numbers before and after. Each step
 * asserts what the agent and the reviewer are told, not how long it took.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git } from "./support/git-repo.ts";
import type { TempDir } from "./support/temp.ts";
import { edit, FCT_ORDERS_SQL, FCT_ORDERS_YML, quickstartRepo, strikes, tcrEnvelope } from "./support/tcr.ts";

/** A unit test the agent writes, whose expectation is wrong: 2500 cents are 25.0, not 2500. */
const WRONG_TEST = `
  - name: delivered_orders_keep_their_total
    model: fct_orders
    given:
      - input: ref('stg_orders')
        rows:
          - {order_id: 4, customer_id: 11, status: delivered, amount_cents: 2500, ordered_at: "2025-12-03 12:00:00"}
      - input: ref('stg_customers')
        rows:
          - {customer_id: 11, customer_email: bruno@example.com, country: PT}
    expect:
      rows:
        - {order_id: 4, order_total: 2500}
`;

/** The line of the quickstart's fct_orders.sql whose `)` the syntax error drops. */
const FILTER_LINE = 12;

function dropParen(dir: string): void {
  edit(dir, FCT_ORDERS_SQL, (text) => text.replace("'partially_shipped')", "'partially_shipped'"));
}

function dropSpec(dir: string): void {
  edit(dir, FCT_ORDERS_YML, (text) => text.replace("    meta:\n      spec:", "    meta:\n      not_a_spec:"));
}

async function tcr(dir: string, message: string) {
  const result = await runMain(["tcr", message, "--format", "json"], dir);
  return { exitCode: result.exitCode, envelope: tcrEnvelope(result.stdout) };
}

const SLOW = 120_000;

describe("an agent's session through the loop, scripted", () => {
  let repo: TempDir;
  let dir: string;
  beforeAll(() => {
    repo = quickstartRepo();
    dir = repo.path;
  });
  afterAll(() => repo[Symbol.dispose]());

  test(
    "the human's change, merged from the base branch: no strike, no block",
    async () => {
      git(dir, ["checkout", "-q", "main"]);
      edit(dir, FCT_ORDERS_YML, (text) =>
        text.replace(
          "Orders the shop counts as revenue, one row per order.",
          "Orders the shop counts as revenue (shipped, delivered, partially shipped).",
        ),
      );
      commitAll(dir, "human: describe fct_orders");
      git(dir, ["checkout", "-q", "agent/work"]);
      git(dir, ["merge", "-q", "--no-ff", "main", "-m", "merge main"]);
      // The agent's first step: its own pre-registration of the change it is about to make, here and downstream.
      edit(dir, FCT_ORDERS_YML, (text) => text.replace("about one order in five", "about one order in five; refunds now shown"));
      edit(dir, "models/marts/finance/fct_revenue_daily.yml", (text) =>
        text.replace("two days gain revenue and orders", "two days gain revenue and orders; refunds now shown"),
      );
      const { exitCode, envelope } = await tcr(dir, "pre-register: refunds shown");
      expect(envelope.data.outcome).toBe("committed");
      expect(exitCode).toBe(0);
      expect(strikes(dir)).toBe("0");
      const gate = await runMain(["gate", "--base", "main"], dir);
      expect(gate.stdout).not.toContain("BLOCK");
      expect(gate.exitCode).toBe(0);
    },
    SLOW,
  );

  test(
    "a wrong expectation in a test the agent just wrote: the advice names the test, not the SQL",
    async () => {
      edit(dir, FCT_ORDERS_YML, (text) => `${text.trimEnd()}\n${WRONG_TEST}`);
      const { exitCode, envelope } = await tcr(dir, "test: delivered orders keep their total");
      expect(exitCode).toBe(1);
      expect(envelope.data.red_steps).toEqual(["unit"]);
      expect(envelope.findings.filter((finding: { severity: string }) => finding.severity === "BLOCK")).toMatchObject([
        { rule: "UNIT", file: FCT_ORDERS_YML, fix: "test", message: expect.stringContaining("delivered_orders_keep_their_total") },
      ]);
      expect(envelope.data.next).toStartWith(
        "check the expectation of unit test delivered_orders_keep_their_total (models/marts/fct_orders.yml:",
      );
      expect(envelope.data.next).toContain("this branch wrote that test, so the test may be what is wrong, not the model");
      expect(strikes(dir)).toBe("1");
    },
    SLOW,
  );

  test(
    "a syntax error: one finding at the model's line, whatever number of tests it stopped",
    async () => {
      dropParen(dir);
      const text = runCli(["tcr", "sql: a missing paren"], dir);
      expect(text.exitCode).toBe(1);
      const unitBlocks = text.stdout.split("\n").filter((line) => line.startsWith("BLOCK") && line.endsWith("[E_UNIT]"));
      expect(unitBlocks).toHaveLength(1);
      expect(unitBlocks[0]).toStartWith(`BLOCK\t${FCT_ORDERS_SQL}:${FILTER_LINE}\tfct_orders\t`);
      expect(text.stdout).toContain(`${FCT_ORDERS_SQL}:${FILTER_LINE}:`);
      expect(text.stdout).not.toContain('"line": null');
      expect(strikes(dir)).toBe("2");
    },
    SLOW,
  );

  test(
    "two faults in one attempt (a spec dropped, a syntax error): both reported, one strike, the human's part in the advice",
    async () => {
      dropParen(dir);
      dropSpec(dir);
      const { exitCode, envelope } = await tcr(dir, "two faults");
      expect(exitCode).toBe(1);
      expect(envelope.data.red_steps).toEqual(expect.arrayContaining(["check", "unit"]));
      const rules = envelope.findings
        .filter((finding: { severity: string }) => finding.severity === "BLOCK")
        .map((finding: { rule: string }) => finding.rule);
      expect(rules).toContain("S1");
      expect(rules).toContain("E_UNIT");
      expect(envelope.data.next).toContain(`fix the error this change introduced (${FCT_ORDERS_SQL}:${FILTER_LINE}:`);
      expect(envelope.data.next).toContain("stop and ask a human: ");
      expect(envelope.data.next).toContain("S1 missing-spec at models/marts/fct_orders.yml:4");
      expect(envelope.data.strikes).toBe(3);
      expect(strikes(dir)).toBe("3");
    },
    SLOW,
  );

  test(
    "--status lists the strikes and the saved attempts; --restore brings the wrong test back, and once fixed it is green",
    async () => {
      const status = tcrEnvelope((await runMain(["tcr", "--status", "--format", "json"], dir)).stdout);
      expect(status.data.strikes).toBe(3);
      expect(status.data.history.saved.map((saved: { number: number }) => saved.number)).toEqual([1, 2, 3]);
      const restored = await runMain(["tcr", "--restore", "1"], dir);
      expect(restored.exitCode).toBe(0);
      expect(readFileSync(join(dir, FCT_ORDERS_YML), "utf8")).toContain("delivered_orders_keep_their_total");
      // The agent reads the advice: the expectation was wrong.
      edit(dir, FCT_ORDERS_YML, (text) => text.replace("{order_id: 4, order_total: 2500}", "{order_id: 4, order_total: 25.0}"));
      const { exitCode, envelope } = await tcr(dir, "test: delivered orders keep their total");
      expect(envelope.data.outcome).toBe("committed");
      expect(exitCode).toBe(0);
    },
    SLOW,
  );

  test(
    "the review shows the history first (the refitted band, the strikes) and the numbers before and after each delta",
    async () => {
      // The committed diff measured 2 more rows; the agent narrows its row_delta band to fit it after seeing it (I1).
      edit(dir, FCT_ORDERS_YML, (text) => text.replace("row_delta: {min: 0, max: 5}", "row_delta: {min: 0, max: 3}"));
      expect((await tcr(dir, "pre-register: a narrower row_delta")).exitCode).toBe(0);
      const review = await runMain(["review", "--base", "main"], dir);
      expect(review.exitCode).toBe(0);
      const page = review.stdout;
      const history = page.indexOf("### History of the branch");
      expect(history).toBeGreaterThan(-1);
      expect(history).toBeLessThan(page.indexOf("### fct\\_orders"));
      expect(page).toMatch(/\[I1\\\] pre-registration edited by .*: row\\_delta 0\.\.5 → 0\.\.3 \(narrowed\)/);
      expect(page).toContain("after 3 red attempts in a row (3 strikes, each reverted by tcr)");
      // The clean merge of main is not in the history: taking the human's change is a normal step.
      expect(page).not.toContain("merge main");
      // Production and the branch beside the delta: 5 rows then 7, 262.99 then 307.99.
      expect(page).toContain("| rows | 5 | 7 | +2 | +40 % |");
      expect(page).toContain("| metric gross\\_revenue | 262.99 | 307.99 | +45 | +17.1109 % |");
    },
    SLOW,
  );
});
