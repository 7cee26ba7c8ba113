/**
 * tcr's advice after a red, built from the red findings' fix kinds: a
 * failing unit test the branch wrote names the test, a failing test the base
 * has says fix the SQL, P1 says fix the pre-registration, T2's edge the spec
 * lacks says stop and ask a human; several kinds give one line each.
 */
import { describe, expect, test } from "bun:test";
import { adviceAfterRed } from "../src/tcr/advice.ts";
import type { Finding } from "../src/schemas/finding.ts";
import { runCli } from "./support/cli.ts";
import { commitAll } from "./support/git-repo.ts";
import { breakCentsEdge, edit, FCT_ORDERS_YML, quickstartRepo, tcrEnvelope } from "./support/tcr.ts";

/** A unit test the agent writes on its branch, expecting 19.90 where the model (rightly) gives 19.99. */
const WRONG_NEW_TEST = `
  - name: cents_round_as_the_agent_thinks
    model: fct_orders
    given:
      - input: ref('stg_orders')
        rows:
          - {order_id: 4, customer_id: 11, status: delivered, amount_cents: 1999, ordered_at: "2025-12-03 12:00:00"}
      - input: ref('stg_customers')
        rows:
          - {customer_id: 11, customer_email: bruno@example.com, country: PT}
    expect:
      rows:
        - {order_id: 4, order_total: 19.90}
`;

function nextLines(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line.startsWith("next: "));
}

describe("slp tcr: the advice after a red follows the findings' fix kinds", () => {
  test("a failing unit test this branch wrote: the advice names the test and its line, and says the test may be wrong", () => {
    using repo = quickstartRepo(["unit"]);
    edit(repo.path, FCT_ORDERS_YML, (text) => `${text}${WRONG_NEW_TEST}`);
    const envelope = tcrEnvelope(runCli(["tcr", "add a rounding test", "--format", "json"], repo.path).stdout);
    expect(envelope.data.red_step).toBe("unit");
    expect(envelope.findings.map((finding: Finding) => [finding.rule, finding.fix, finding.line])).toEqual([["UNIT", "test", 94]]);
    const unit = envelope.data.steps[0].data.tests.find((test: { name: string }) => test.name === "cents_round_as_the_agent_thinks");
    expect(unit.fix).toBe("test");
    expect(envelope.data.next).toStartWith(
      `check the expectation of unit test cents_round_as_the_agent_thinks (${FCT_ORDERS_YML}:94): this branch wrote that test, so the test may be what is wrong, not the model, then run tcr again`,
    );
    expect(envelope.data.next).not.toContain("Rule 3");
  });

  test("slp unit: a test committed earlier on the branch is still the branch's (against the merge-base, not HEAD); one the base has is the SQL's", () => {
    using repo = quickstartRepo();
    edit(repo.path, FCT_ORDERS_YML, (text) => `${text}${WRONG_NEW_TEST}`);
    commitAll(repo.path, "the agent's test, committed by hand");
    breakCentsEdge(repo.path);
    const result = runCli(["unit", "--format", "json"], repo.path);
    expect(result.exitCode).toBe(1);
    const fixes = JSON.parse(result.stdout).data.tests.map((test: { name: string; status: string; fix: string | null }) => [
      test.name,
      test.status,
      test.fix,
    ]);
    expect(fixes).toContainEqual(["cents_round_as_the_agent_thinks", "fail", "test"]);
    expect(fixes).toContainEqual(["cents_become_currency_units", "fail", "sql"]);
    expect(fixes).toContainEqual(["cancelled_orders_are_excluded", "pass", null]);
  });

  test("a failing unit test the base has: the advice is the SQL's, as before (Rule 3)", () => {
    using repo = quickstartRepo(["unit"]);
    breakCentsEdge(repo.path);
    const result = runCli(["tcr", "break the cents edge"], repo.path);
    expect(result.exitCode).toBe(1);
    expect(nextLines(result.stdout)).toEqual([
      expect.stringMatching(
        /^next: fix the SQL of fct_orders in the code, not in the tests \(Rule 3\): unit test cents_become_currency_units \(models\/marts\/fct_orders\.yml:79\), then run tcr again; the reverted change is in /,
      ),
    ]);
  });

  test("P1: the advice is to fix the pre-registration", () => {
    using repo = quickstartRepo(["check"]);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("row_delta: {min: 0, max: 5}", "row_delta: {min: zero, max: 5}"));
    const envelope = tcrEnvelope(runCli(["tcr", "widen the band", "--format", "json"], repo.path).stdout);
    expect(envelope.data.red_step).toBe("check");
    const p1 = envelope.findings.find((finding: Finding) => finding.rule === "P1");
    expect(p1).toMatchObject({ fix: "pre-registration", file: FCT_ORDERS_YML, line: 21 });
    expect(envelope.data.next).toStartWith(
      `fix the pre-registration (meta.pre_registration of fct_orders), not the SQL: P1 invalid-pre-registration at ${FCT_ORDERS_YML}:21, then run tcr again`,
    );
  });

  test("T2, an edge the spec does not have: stop and ask a human, with the finding's words; the edge left untested: a test to write", () => {
    using repo = quickstartRepo(["check"]);
    edit(repo.path, FCT_ORDERS_YML, (text) =>
      text.replace("meta: {edge: \"status='cancelled' → row excluded\"}", "meta: {edge: \"status='refunded' → row excluded\"}"),
    );
    const result = runCli(["tcr", "rename the edge"], repo.path);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      `BLOCK\t${FCT_ORDERS_YML}:51\tfct_orders\tunit test 'cancelled_orders_are_excluded' names an edge the spec does not have: 'status='refunded' → row excluded' (fix: human)\t[T2]`,
    );
    const next = nextLines(result.stdout);
    expect(next[0]).toStartWith(
      `next: stop and ask a human: T2 untested-edge at ${FCT_ORDERS_YML}:51 (unit test 'cancelled_orders_are_excluded' names an edge the spec does not have: 'status='refunded' → row excluded'); that fix is theirs`,
    );
    // The edge the test no longer names is a test to write: a second kind, a second line.
    expect(next[1]).toStartWith(
      `next: write or correct the unit tests these ask for: T2 untested-edge at ${FCT_ORDERS_YML}:14, then run tcr again`,
    );
    expect(next.length).toBe(2);
    expect(result.stdout).not.toContain("Rule 3");
  });
});

describe("adviceAfterRed: one line per kind, the human's first", () => {
  const finding = (rule: string, fix: Finding["fix"], severity: Finding["severity"] = "BLOCK"): Finding => ({
    severity,
    rule,
    name: rule.toLowerCase(),
    file: "models/marts/m.yml",
    model: "m",
    line: 3,
    message: `${rule} says so`,
    fix,
  });

  test("several kinds: a line each, in the order human, pre-registration, test, sql; INFO findings give none", () => {
    const lines = adviceAfterRed(
      [
        finding("C1", "sql"),
        finding("T1", "test"),
        finding("P1", "pre-registration"),
        finding("G7", "human"),
        finding("I5", "human", "INFO"),
      ],
      "check",
    );
    expect(lines).toEqual([
      "stop and ask a human: G7 g7 at models/marts/m.yml:3 (G7 says so); that fix is theirs (a spec's author, the owner of a protected path); yours is at most to take back what you changed",
      "fix the pre-registration (meta.pre_registration of m), not the SQL: P1 p1 at models/marts/m.yml:3",
      "write or correct the unit tests these ask for: T1 t1 at models/marts/m.yml:3",
      "fix the SQL of m in the code, not in the tests (Rule 3): C1 c1 at models/marts/m.yml:3",
    ]);
  });

  test("a surviving mutant: its first clause (what survived) and its place, not the rule's name", () => {
    const survivor = {
      ...finding("MUTANT", "test"),
      file: "models/marts/m.sql",
      line: 7,
      message:
        "mutant join/1 (join-type-swapped): left join -> inner join at line 7 survived every unit test; add column email to the expect of unit test t",
    };
    expect(adviceAfterRed([survivor], "mutate")).toEqual([
      "write or correct the unit tests these ask for: mutant join/1 (join-type-swapped): left join -> inner join at line 7 survived every unit test (models/marts/m.sql:7)",
    ]);
  });

  test("a red with no finding (a hook that failed) keeps the old sentence", () => {
    expect(adviceAfterRed([finding("I5", "human", "INFO")], "pre-commit hook")).toEqual([
      "fix what pre-commit hook reports in the code, not in the tests (Rule 3)",
    ]);
  });
});
