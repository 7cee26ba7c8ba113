/**
 * Every rule against its fixture folders: each rule has a case that fires and
 * one that stays silent, and each case's output equals its `expected` file.
 * The `expected` files are the reference tool's lines (spec/rules.md §4.1), so
 * a case that names no format runs with `--format reference`: these are the
 * conformance tests; the default text (`path:line`, the fix kind) is pinned
 * by the golden files and by every other fixture.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { allRules } from "../src/rules/index.ts";
import type { AnyRule } from "../src/rules/define-rule.ts";
import { runMain } from "./support/cli.ts";
import { expectFixtureOutput, fixtureCases, ruleFixtureDirs, type FixtureCase } from "./support/fixtures.ts";
import { buildHistory } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";

function defaultArgs(rule: AnyRule, fixture: FixtureCase): string[] {
  if (rule.command === "gate") return ["gate", "--base", "main"];
  if (rule.command === "compare") {
    const diffs = readdirSync(join(fixture.dir, "diff"))
      .filter((file) => file.endsWith(".json"))
      .sort();
    return ["compare", ...diffs.map((file) => `diff/${file}`)];
  }
  return [rule.command];
}

async function runCase(rule: AnyRule, fixture: FixtureCase) {
  const given = fixture.args ?? defaultArgs(rule, fixture);
  const args = given.some((arg) => arg === "--format" || arg.startsWith("--format=")) ? given : [...given, "--format", "reference"];
  if (!fixture.history) return runMain(args, fixture.dir);
  using repo = tempDir("slp-fixture-");
  buildHistory(repo.path, fixture.dir);
  // Awaited here: `using` removes the repository when this function returns, not when the promise settles.
  return await runMain(args, repo.path);
}

/** The rule codes of the findings in a text report, or in a JSON envelope (`--format json`). */
function rulesIn(stdout: string): Set<string> {
  if (stdout.startsWith("{")) {
    const envelope = JSON.parse(stdout) as { findings: { rule: string }[] };
    return new Set(envelope.findings.map((finding) => finding.rule));
  }
  return new Set([...stdout.matchAll(/\t\[([A-Z]+\d+)\]$/gm)].map((match) => match[1] as string));
}

test("every fixture folder names a registered rule", () => {
  const codes = new Set(allRules.map((rule) => rule.code));
  expect(ruleFixtureDirs().filter((dir) => !codes.has(dir))).toEqual([]);
});

for (const rule of allRules) {
  describe(`${rule.code} ${rule.name}`, () => {
    const cases = fixtureCases(rule.code);

    test("has a case that fires and a case that stays silent", () => {
      expect(cases.some((c) => c.kind === "fires")).toBe(true);
      expect(cases.some((c) => c.kind === "silent")).toBe(true);
    });

    for (const fixture of cases) {
      test(`${fixture.kind}: ${fixture.name}`, async () => {
        const result = await runCase(rule, fixture);
        const found = rulesIn(result.stdout);
        if (fixture.kind === "fires") expect(found.has(rule.code)).toBe(true);
        else expect(found.has(rule.code)).toBe(false);
        expectFixtureOutput(fixture.dir, result);
      });
    }
  });
}

describe("every finding carries its line", () => {
  for (const rule of allRules) {
    const fires = fixtureCases(rule.code).find((c) => c.kind === "fires" && !(c.args ?? []).includes("--format"));
    if (!fires) continue;
    test(`${rule.code}: ${fires.name}, in --format json`, async () => {
      const result = await runCase(rule, { ...fires, args: [...(fires.args ?? defaultArgs(rule, fires)), "--format", "json"] });
      const envelope = JSON.parse(result.stdout) as { findings: { rule: string; file: string; line: unknown }[] };
      const mine = envelope.findings.filter((finding) => finding.rule === rule.code);
      expect(mine.length).toBeGreaterThan(0);
      // A finding on a file points at a line of it; one about a commit (tcr's record) has no file and no line.
      for (const finding of envelope.findings) {
        expect({
          rule: finding.rule,
          file: finding.file,
          lined: finding.file === "" ? finding.line === null : Number.isInteger(finding.line) && (finding.line as number) >= 1,
        }).toEqual({ rule: finding.rule, file: finding.file, lined: true });
      }
    });
  }
});
