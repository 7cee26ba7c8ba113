/** A green TCR cycle on the quickstart: check, gate, unit, then a commit (budget 500 ms). */
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, type Benchmark } from "./harness.ts";

const QUICKSTART = join(import.meta.dir, "..", "examples", "quickstart");

function run(cwd: string, args: string[]): void {
  const result = Bun.spawnSync(args, { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${args.join(" ")}: ${result.stderr.toString()}`);
}

let repo = "";
let step = 0;

export const benchmarks: Benchmark[] = [
  {
    name: "tcr: green cycle on the quickstart",
    budgetMs: 500,
    setup(workDir) {
      repo = join(workDir, "tcr-quickstart");
      cpSync(QUICKSTART, repo, { recursive: true });
      run(repo, ["git", "init", "-q", "-b", "main"]);
      run(repo, ["git", "config", "user.name", "Bench"]);
      run(repo, ["git", "config", "user.email", "bench@example.com"]);
      run(repo, ["git", "add", "-A"]);
      run(repo, ["git", "commit", "-q", "-m", "quickstart"]);
      run(repo, ["git", "checkout", "-q", "-b", "agent/bench"]);
      return { argv: [process.execPath, CLI, "tcr", "one more note"], cwd: repo };
    },
    beforeEach() {
      step++;
      writeFileSync(join(repo, "NOTES.md"), `step ${step}\n`);
    },
  },
];
