/** A green TCR cycle on the quickstart: check, gate, unit, then a commit (budget 500 ms). */
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll, git, initRepo } from "../test/support/git-repo.ts";
import { CLI, type Benchmark } from "./harness.ts";

const QUICKSTART = join(import.meta.dir, "..", "examples", "quickstart");

/** One green cycle per run: a fresh change (untimed), then `tcr`; `slp` gives the command that runs slp. */
export function tcrGreenCycle(name: string, slp: (workDir: string) => string[]): Benchmark {
  let repo = "";
  let step = 0;
  return {
    name,
    budgetMs: 500,
    setup(workDir) {
      repo = join(workDir, name.replace(/\W+/g, "-"));
      cpSync(QUICKSTART, repo, { recursive: true });
      initRepo(repo);
      commitAll(repo, "quickstart");
      git(repo, ["checkout", "-q", "-b", "agent/bench"]);
      return { argv: [...slp(workDir), "tcr", "one more note"], cwd: repo };
    },
    beforeEach() {
      step++;
      writeFileSync(join(repo, "NOTES.md"), `step ${step}\n`);
    },
  };
}

export const benchmarks: Benchmark[] = [tcrGreenCycle("tcr: green cycle on the quickstart", () => [process.execPath, CLI])];
