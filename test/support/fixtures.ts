/**
 * Rule fixtures as folders: test/fixtures/<RULE>/{fires,silent}/<case>/
 * holds real project files (or before/ mid/ after/ trees for git history),
 * an optional `args` file (the command line, one argument per line), and an
 * `expected` file: `# exit N`, then the exact stdout (and `# stderr` lines).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "bun:test";

export const FIXTURES = join(import.meta.dir, "..", "fixtures");

export interface FixtureCase {
  rule: string;
  kind: "fires" | "silent";
  name: string;
  dir: string;
  /** True when the case is a git history (before/ and after/ trees). */
  history: boolean;
  args: string[] | null;
}

export interface Expected {
  exitCode: number;
  stdout: string;
  stderr: string | null;
}

export function ruleFixtureDirs(): string[] {
  return readdirSync(FIXTURES).filter((entry) => /^[A-Z]\d+$/.test(entry) && statSync(join(FIXTURES, entry)).isDirectory());
}

export function fixtureCases(rule: string): FixtureCase[] {
  const cases: FixtureCase[] = [];
  for (const kind of ["fires", "silent"] as const) {
    const root = join(FIXTURES, rule, kind);
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root).sort()) {
      const dir = join(root, name);
      if (!statSync(dir).isDirectory()) continue;
      const argsFile = join(dir, "args");
      const args = existsSync(argsFile)
        ? readFileSync(argsFile, "utf8")
            .split("\n")
            .map((line) => line.trim())
            .filter((line) => line !== "" && !line.startsWith("#"))
        : null;
      cases.push({ rule, kind, name, dir, history: existsSync(join(dir, "before")), args });
    }
  }
  return cases;
}

export function readExpected(dir: string, name = "expected"): Expected | null {
  const file = join(dir, name);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, "utf8");
  const [first = "", ...rest] = text.split("\n");
  const match = /^# exit (\d+)$/.exec(first);
  if (!match) throw new Error(`${file}: the first line must be "# exit N"`);
  const body = rest.join("\n");
  const split = body.indexOf("# stderr\n");
  return {
    exitCode: Number(match[1]),
    stdout: split >= 0 ? body.slice(0, split) : body,
    stderr: split >= 0 ? body.slice(split + "# stderr\n".length) : null,
  };
}

export function writeExpected(
  dir: string,
  result: { exitCode: number; stdout: string; stderr: string },
  withStderr: boolean,
  name = "expected",
): void {
  const stderr = withStderr && result.stderr ? `# stderr\n${result.stderr}` : "";
  writeFileSync(join(dir, name), `# exit ${result.exitCode}\n${result.stdout}${stderr}`);
}

/** Set SLP_UPDATE_FIXTURES=1 to rewrite `expected` files from the current output (then review the diff). */
export const UPDATE = process.env.SLP_UPDATE_FIXTURES === "1";

/** The error of a golden file that is not there: the test fails, and nothing is written (SLP_UPDATE_FIXTURES=1 writes it). */
export function missingGolden(file: string): Error {
  return new Error(`${file} is missing: run the test with SLP_UPDATE_FIXTURES=1 to write it from the current output, then review it`);
}

/**
 * Compares a text with a golden file, byte for byte. A missing file fails
 * the test; only SLP_UPDATE_FIXTURES=1 writes (or rewrites) it.
 */
export function expectGolden(file: string, actual: string): void {
  if (UPDATE) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) throw missingGolden(file);
  expect(actual).toBe(readFileSync(file, "utf8"));
}

/**
 * Compares a run with the case's `expected` file: stdout and exit code
 * exactly, and stderr exactly (a case without a `# stderr` section expects
 * none, so no warning slips by unseen). A missing file fails the test; only
 * SLP_UPDATE_FIXTURES=1 writes it.
 */
export function expectFixtureOutput(dir: string, result: { stdout: string; stderr: string; exitCode: number }, name = "expected"): void {
  if (UPDATE) {
    writeExpected(dir, result, true, name);
    return;
  }
  const expected = readExpected(dir, name);
  if (!expected) throw missingGolden(join(dir, name));
  expect(result.stdout).toBe(expected.stdout);
  expect(result.stderr).toBe(expected.stderr ?? "");
  expect(result.exitCode).toBe(expected.exitCode);
}
