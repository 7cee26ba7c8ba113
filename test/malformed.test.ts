/**
 * Every command reads a malformed input the same way (issue 10): each folder
 * under test/fixtures/malformed/ overlays the valid `base/` project with one
 * input slp cannot judge, and check, unit and gate (main holding `base/`,
 * the branch adding the overlay) must each exit 2 naming the same file, line
 * and problem. `expected.<command>` holds each run's streams; a case without
 * expected.unit is one unit answers its own way (or does not read).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./support/cli.ts";
import { expectFixtureOutput, FIXTURES } from "./support/fixtures.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";

const ROOT = join(FIXTURES, "malformed");
const BASE = join(ROOT, "base");
const cases = readdirSync(ROOT)
  .filter((name) => name !== "base" && statSync(join(ROOT, name)).isDirectory())
  .sort();

/** The base project with the case's overlay on top, in a fresh folder. */
function overlaid(name: string) {
  const dir = tempDir("slp-malformed-");
  cpSync(BASE, dir.path, { recursive: true });
  cpSync(join(ROOT, name, "overlay"), dir.path, { recursive: true });
  return dir;
}

/** `ERROR file:line: message` without the commit gate names in its message. */
function refusal(stderr: string): string {
  return stderr.replace(/ at [^,]+, /, " ");
}

describe("a malformed input is exit 2 in every command, read the same way", () => {
  test("there are cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
  });

  for (const name of cases) {
    test(name, async () => {
      const dir = join(ROOT, name);
      using checkout = overlaid(name);
      const check = await runMain(["check"], checkout.path);
      // unit reads only what it runs: a case it has its own answer to (or none) leaves expected.unit out.
      const unit = existsSync(join(dir, "expected.unit")) ? await runMain(["unit"], checkout.path) : undefined;
      using repo = tempDir("slp-malformed-git-");
      initRepo(repo.path);
      cpSync(BASE, repo.path, { recursive: true });
      commitAll(repo.path, "main: a valid project");
      git(repo.path, ["checkout", "-q", "-b", "pr"]);
      cpSync(join(dir, "overlay"), repo.path, { recursive: true });
      commitAll(repo.path, "pr: one malformed input");
      const gate = await runMain(["gate", "--base", "main"], repo.path);

      for (const [command, result] of [
        ["check", check],
        ["unit", unit],
        ["gate", gate],
      ] as const) {
        if (result === undefined) continue;
        expect({ command, exit: result.exitCode, stdout: result.stdout }).toEqual({ command, exit: 2, stdout: "" });
        // The file and its line (a folder has none), the problem, the fix.
        expect(result.stderr).toMatch(/^ERROR [^\n:]+(:\d+)?: [^\n]+; [^\n]+\n$/);
        expectFixtureOutput(dir, result, `expected.${command}`);
      }
      // One reading: the same file, line, problem and fix, whichever command met it (gate adds the commit).
      if (unit) expect(refusal(unit.stderr)).toBe(check.stderr);
      expect(refusal(gate.stderr)).toBe(check.stderr);
      // gate reads the branch's files at its commit, and says which commit it met the input at.
      expect(gate.stderr).toMatch(/^ERROR [^\n:]+(:\d+)?: at HEAD \([0-9a-f]{7,}\), /);
    });
  }
});

describe("what the refusals leave alone", () => {
  test("an empty folder named like a model's SQL (git cannot hold one) is refused by check too", async () => {
    using checkout = overlaid("sql_named_folder");
    rmSync(join(checkout.path, "models", "marts", "fct_refunds.sql", "README.txt"));
    const check = await runMain(["check"], checkout.path);
    expect(check.stderr).toStartWith("ERROR models/marts/fct_refunds.sql: a folder whose name ends in .sql;");
    expect(check.exitCode).toBe(2);
  });

  test("a folder that only holds .sql in its name, one unit test name on two models, a disabled twin, a CODEOWNERS without NUL: check passes", async () => {
    using checkout = overlaid("unit_test_defined_twice");
    const twin = join(checkout.path, "models", "marts", "fct_orders_more_units.yml");
    writeFileSync(
      twin,
      readFileSync(twin, "utf8").replace("    model: fct_orders\n", "    model: fct_orders\n    config: {enabled: false}\n"),
    );
    mkdirSync(join(checkout.path, "models", "marts", "sql.d"));
    writeFileSync(join(checkout.path, "models", "marts", "sql.d", "notes.sql.txt"), "not a model\n");
    writeFileSync(join(checkout.path, "CODEOWNERS"), "/models/marts/  @acme/data-platform\n");
    const disabledTwin = await runMain(["check"], checkout.path);
    expect(disabledTwin.stderr).toBe("");
    expect(disabledTwin.exitCode).toBe(0);
    writeFileSync(
      twin,
      readFileSync(twin, "utf8").replace("    model: fct_orders\n    config: {enabled: false}\n", "    model: stg_orders\n"),
    );
    const otherModel = await runMain(["check"], checkout.path);
    expect(otherModel.stderr).toBe("");
    expect(otherModel.exitCode).toBe(0);
  });
});
