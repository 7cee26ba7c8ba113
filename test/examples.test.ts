/**
 * Every shipped example passes every command the README runs on it: check,
 * unit, and compare on the diffs it ships. An example that cannot pass one
 * must say why in its own README ("`slp check` blocks it (S1): ..." or
 * "does not pass `slp check`").
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./support/cli.ts";

const EXAMPLES = join(import.meta.dir, "..", "examples");

function excused(example: string, command: string): boolean {
  const readme = join(EXAMPLES, example, "README.md");
  if (!existsSync(readme)) return false;
  const text = readFileSync(readme, "utf8").replace(/\s+/g, " ");
  return text.includes(`does not pass \`slp ${command}\``) || new RegExp(`\`slp ${command}\` (blocks|fails) it`).test(text);
}

describe.each(readdirSync(EXAMPLES).sort())("examples/%s", (example) => {
  const dir = join(EXAMPLES, example);
  const commands: string[][] = [["check"], ["unit"]];
  if (existsSync(join(dir, "diff"))) commands.push(["compare", "diff/*.json"]);

  test.each(commands.map((argv) => [argv.join(" "), argv]))("slp %s exits 0", async (_name, argv) => {
    const command = (argv as string[])[0] as string;
    const result = await runMain(argv as string[], dir);
    if (excused(example, command)) {
      expect(result.exitCode).not.toBe(0);
      return;
    }
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
  });
});
