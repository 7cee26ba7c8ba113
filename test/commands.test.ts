/**
 * Command cases that are not one rule's: exit 2 paths, argument handling and
 * converters, as folders under test/fixtures/commands/<command>/<case>/ with
 * an `args` file, an optional `stdin` file (piped in), optional before/ and
 * after/ trees (built into a git repository), and an `expected` file holding
 * the exit code, stdout and stderr. Rewrite with SLP_UPDATE_FIXTURES=1.
 */
import { describe, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./support/cli.ts";
import { expectFixtureOutput, FIXTURES } from "./support/fixtures.ts";
import { buildHistory } from "./support/git-repo.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

const ROOT = join(FIXTURES, "commands");

function folders(dir: string): string[] {
  return readdirSync(dir)
    .filter((entry) => statSync(join(dir, entry)).isDirectory())
    .sort();
}

async function runCase(dir: string) {
  const args = readFileSync(join(dir, "args"), "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"));
  const stdin = existsSync(join(dir, "stdin")) ? readFileSync(join(dir, "stdin"), "utf8") : undefined;
  if (!existsSync(join(dir, "before"))) {
    // A command that writes (diff, reconcile, stage-e) writes into a copy, never into the fixture.
    using copy = copyToTemp(dir, "slp-command-");
    return await runMain(args, copy.path, {}, stdin);
  }
  using repo = tempDir("slp-command-");
  buildHistory(repo.path, dir);
  return await runMain(args, repo.path, {}, stdin);
}

for (const command of folders(ROOT)) {
  describe(command, () => {
    for (const name of folders(join(ROOT, command))) {
      const dir = join(ROOT, command, name);
      test(name, async () => {
        const result = await runCase(dir);
        expectFixtureOutput(dir, result);
      });
    }
  });
}
