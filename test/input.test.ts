/**
 * Fail-closed inputs: each folder under test/fixtures/input/ is a project
 * that slp cannot judge (or one whose settings earn a warning). Could-not-judge
 * means exit 2, nothing on stdout (the JSON envelope excepted), and one
 * `ERROR <file>:<line>: <message>; <fix>` line on stderr; `expected` holds
 * both streams and the exit code.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./support/cli.ts";
import { expectFixtureOutput, FIXTURES } from "./support/fixtures.ts";
import { copyToTemp } from "./support/temp.ts";

const ROOT = join(FIXTURES, "input");

function caseArgs(dir: string): string[] {
  const file = join(dir, "args");
  if (!existsSync(file)) return ["check"];
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

const cases = readdirSync(ROOT)
  .filter((name) => statSync(join(ROOT, name)).isDirectory())
  .sort();

describe("fail-closed inputs", () => {
  test("there are cases to run", () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  for (const name of cases) {
    const dir = join(ROOT, name);
    test(name, async () => {
      const args = caseArgs(dir);
      // Run from a copy: slp.yml is read at the repository root, and the
      // fixture folder itself sits inside this repository.
      using project = copyToTemp(dir, "slp-input-");
      const result = await runMain(args, project.path);

      expect(result.stdout + result.stderr).not.toContain(project.path);
      if (result.exitCode === 2) {
        expect(result.stderr).toMatch(/^ERROR [^\n]+; [^\n]+\n$/);
        if (args.includes("json")) {
          const envelope = JSON.parse(result.stdout);
          expect(envelope).toMatchObject({ command: "check", status: "error", exit_code: 2, findings: [] });
          expect(envelope.errors).toHaveLength(1);
          const [error] = envelope.errors;
          expect(result.stderr).toContain(error.message);
          expect(result.stderr).toContain(`${error.file}:${error.line}: `);
          expect(typeof error.fix).toBe("string");
        } else {
          expect(result.stdout).toBe("");
        }
      }

      expectFixtureOutput(dir, result);
    });
  }
});
