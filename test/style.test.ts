/**
 * The code's form is checked with the tests: Biome formats and lints every
 * TypeScript file (biome.jsonc says which, and why a rule is off), so the
 * README's test command fails on a file that is not formatted or that a lint
 * rule refuses.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");

function biome(args: string[], cwd: string): { output: string; exitCode: number } {
  const result = Bun.spawnSync([BIOME, args[0] as string, "--colors=off", ...args.slice(1)], { cwd, stdout: "pipe", stderr: "pipe" });
  return { output: result.stdout.toString() + result.stderr.toString(), exitCode: result.exitCode ?? -1 };
}

describe("Biome", () => {
  test("finds every file formatted and nothing its lint rules refuse", () => {
    const { output, exitCode } = biome(["ci", "--max-diagnostics=20", "."], ROOT);
    expect(exitCode === 0 ? "" : output).toBe("");
    // The includes still name the tree: a pattern that matched nothing would pass on no files.
    expect(Number(/Checked (\d+) files/.exec(output)?.[1])).toBeGreaterThan(250);
  }, 60_000);

  test("refuses a file that is not formatted, and one a lint rule refuses", () => {
    using dir = tempDir("slp-style-");
    copyFileSync(join(ROOT, "biome.jsonc"), join(dir.path, "biome.jsonc"));
    mkdirSync(join(dir.path, "src"));
    writeFileSync(join(dir.path, "src", "unformatted.ts"), "export const x = {a:1,\n b : 2}\n");
    writeFileSync(join(dir.path, "src", "debugger.ts"), "export function f(): void {\n  debugger;\n}\n");
    const { output, exitCode } = biome(["ci", "--vcs-enabled=false", "."], dir.path);
    expect(exitCode).not.toBe(0);
    expect(output).toContain("src/unformatted.ts format");
    expect(output).toContain("lint/suspicious/noDebugger");
  }, 60_000);
});
