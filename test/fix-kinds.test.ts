/**
 * Every finding carries whose move its fix is (sql, test, pre-registration,
 * human): test/fixtures/fix/<kind>/{fires,silent}/<case>/ hold a project whose
 * findings carry that kind, and one whose findings do not. Each case's text
 * output equals its `expected` file (`path:line`, the kind at the end of a
 * BLOCK's message); the JSON envelope carries `fix` on every finding.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FIX_KINDS, type Finding } from "../src/schemas/finding.ts";
import { Envelope } from "../src/schemas/envelope.ts";
import { schemaErrors } from "../src/schemas/validate.ts";
import { runCli, runMain } from "./support/cli.ts";
import { expectFixtureOutput, FIXTURES } from "./support/fixtures.ts";

const ROOT = join(FIXTURES, "fix");

function cases(kind: string, verdict: "fires" | "silent"): string[] {
  const dir = join(ROOT, kind, verdict);
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => join(dir, name));
}

test("a folder per fix kind, no other", () => {
  expect(readdirSync(ROOT).sort()).toEqual(Object.keys(FIX_KINDS).sort());
});

for (const kind of Object.keys(FIX_KINDS)) {
  describe(`fix: ${kind}`, () => {
    for (const verdict of ["fires", "silent"] as const) {
      test(`has a case that ${verdict === "fires" ? "fires" : "stays silent"}`, () => {
        expect(cases(kind, verdict).length).toBeGreaterThan(0);
      });
      for (const dir of cases(kind, verdict)) {
        test(`${verdict}: ${dir.slice(dir.lastIndexOf("/") + 1)}`, async () => {
          const text = await runMain(["check"], dir);
          expectFixtureOutput(dir, text);
          const envelope = JSON.parse((await runMain(["check", "--format", "json"], dir)).stdout);
          expect(schemaErrors(Envelope, envelope, "envelope")).toEqual([]);
          const mine = (envelope.findings as Finding[]).filter((finding) => finding.fix === kind);
          if (verdict === "fires") {
            expect(mine.some((finding) => finding.severity === "BLOCK")).toBe(true);
            // Each such BLOCK's text line names its file and line and ends with its kind.
            for (const finding of mine.filter((found) => found.severity === "BLOCK"))
              expect(text.stdout).toContain(
                `BLOCK\t${finding.file}:${finding.line}\t${finding.model}\t${finding.message} (fix: ${kind})\t[${finding.rule}]\n`,
              );
          } else expect(mine.filter((finding) => finding.severity === "BLOCK")).toEqual([]); // an INFO asks for no fix
        });
      }
    }
  });
}

describe("the real CLI, as a subprocess", () => {
  const dir = join(ROOT, "sql", "fires", "key_columns_not_declared");

  test("text: path:line and the fix kind; --format reference: the reference's exact lines", () => {
    const text = runCli(["check"], dir);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toStartWith(
      "BLOCK\tmodels/marts/fct_orders.yml:7\tfct_orders\tspec.primary_key names order_day, which the model does not declare as a column (fix: sql)\t[S3]\n",
    );
    const reference = runCli(["check", "--format", "reference"], dir);
    expect(reference.exitCode).toBe(1);
    expect(reference.stdout).toBe(
      "BLOCK\tmodels/marts/fct_orders.yml\tfct_orders\tspec.primary_key names order_day, which the model does not declare as a column\t[S3]\n" +
        "BLOCK\tmodels/marts/fct_orders.yml\tfct_orders\tspec.primary_key names customer_id, which the model does not declare as a column\t[S3]\n" +
        "slp check: 2 blocks - BLOCKED\n",
    );
  });

  test("JSON: every finding carries its fix", () => {
    const result = runCli(["check", "--format", "json"], dir);
    const envelope = JSON.parse(result.stdout);
    expect(schemaErrors(Envelope, envelope, "envelope")).toEqual([]);
    expect(envelope.findings.map((finding: Finding) => [finding.rule, finding.line, finding.fix])).toEqual([
      ["S3", 7, "sql"],
      ["S3", 7, "sql"],
    ]);
  });
});

describe("the kinds are data on each rule", () => {
  test("slp explain lists a rule's kinds with their words, and marks the message that carries another", async () => {
    const explain = await runMain(["explain", "T2"], ROOT);
    expect(explain.stdout).toContain(`Fix:\n  test: ${FIX_KINDS.test}\n  human: ${FIX_KINDS.human}\n`);
    expect(explain.stdout).toContain("  unknownEdge: [fix: human] unit test '{unit}' names an edge the spec does not have: '{claim}'\n");
    const rules = JSON.parse((await runMain(["rules", "--format", "json"], ROOT)).stdout);
    const byCode = new Map(rules.data.map((rule: { code: string; fixes: string[] }) => [rule.code, rule.fixes]));
    expect([byCode.get("P1"), byCode.get("S1"), byCode.get("C1"), byCode.get("T1")]).toEqual([
      ["pre-registration"],
      ["human"],
      ["sql"],
      ["test"],
    ]);
  });
});
