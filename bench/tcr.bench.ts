/** A green TCR cycle on the quickstart: check, gate, unit, then a commit (budget 500 ms). */
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll, git, initRepo } from "../test/support/git-repo.ts";
import { CLI, type Benchmark } from "./harness.ts";

const QUICKSTART = join(import.meta.dir, "..", "examples", "quickstart");


let repo = "";
let step = 0;

export const benchmarks: Benchmark[] = [
  {
    name: "tcr: green cycle on the quickstart",
    budgetMs: 500,
    setup(workDir) {
      repo = join(workDir, "tcr-quickstart");
      cpSync(QUICKSTART, repo, { recursive: true });
      initRepo(repo);
      commitAll(repo, "quickstart");
      git(repo, ["checkout", "-q", "-b", "agent/bench"]);
      return { argv: [process.execPath, CLI, "tcr", "one more note"], cwd: repo };
    },
    beforeEach() {
      step++;
      writeFileSync(join(repo, "NOTES.md"), `step ${step}\n`);
    },
  },
];
