/**
 * A green TCR cycle on the quickstart: check, gate, unit, then a commit
 * (budget 300 ms from source, 150 ms from the binary); a red cycle on SQL
 * the step broke, unit run again at HEAD to tell the change's error from the
 * environment's, then the revert (budget 600 ms: two unit runs); and
 * `gate --verify-commits` on a 30-commit branch tcr made (budget 2 s).
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll, git, initRepo } from "../test/support/git-repo.ts";
import { CLI, type Benchmark } from "./harness.ts";

const QUICKSTART = join(import.meta.dir, "..", "examples", "quickstart");

/** One green cycle per run: a fresh change (untimed), then `tcr`; `slp` gives the command that runs slp. */
export function tcrGreenCycle(name: string, budgetMs: number, slp: (workDir: string) => string[]): Benchmark {
  let repo = "";
  let step = 0;
  return {
    name,
    budgetMs,
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

/**
 * A branch of 30 commits, each with tcr's trailers and each changing what
 * check and unit read (the model's sql, its yml, in turn), so no commit's
 * verdict can be taken from another's.
 */
function verifyCommits(): Benchmark {
  return {
    name: "gate --verify-commits: quickstart, 30 tcr commits",
    budgetMs: 2000,
    setup(workDir) {
      const repo = join(workDir, "verify-commits");
      cpSync(QUICKSTART, repo, { recursive: true });
      initRepo(repo);
      commitAll(repo, "quickstart");
      git(repo, ["checkout", "-q", "-b", "agent/bench"]);
      const trailers = "\n\nSlp-Tcr: green\nSlp-Tcr-Steps: check gate unit\nSlp-Tcr-Strikes: 0\nSlp-Version: 0.1.0\n";
      // The branch's own pre-registrations, so gate's G8 lets the sql changes through, and G15 the mart downstream of them.
      const reword = (path: string, words: string) =>
        writeFileSync(join(repo, path), readFileSync(join(repo, path), "utf8").replace(words, `${words}; reworded`));
      reword("models/marts/fct_orders.yml", "about one order in five");
      reword("models/marts/finance/fct_revenue_daily.yml", "two days gain revenue and orders");
      for (let i = 1; i <= 30; i++) {
        const path = join(repo, "models", "marts", i % 2 === 0 ? "fct_orders.sql" : "fct_orders.yml");
        writeFileSync(path, `${readFileSync(path, "utf8")}\n${i % 2 === 0 ? "--" : "#"} step ${i}\n`);
        commitAll(repo, `step ${i}${trailers}`);
      }
      return { argv: [process.execPath, CLI, "gate", "--base", "main", "--verify-commits"], cwd: repo };
    },
  };
}

/** Each run: the step breaks fct_orders' SQL (a column that is not there) and its strikes start at 0 (untimed); tcr reverts it. */
function redOnBrokenSql(): Benchmark {
  let repo = "";
  const edit = (path: string, change: (text: string) => string) =>
    writeFileSync(join(repo, path), change(readFileSync(join(repo, path), "utf8")));
  return {
    name: "tcr: red cycle, SQL the step broke (unit at HEAD too)",
    budgetMs: 600,
    expectExit: 1,
    setup(workDir) {
      repo = join(workDir, "tcr-red");
      cpSync(QUICKSTART, repo, { recursive: true });
      initRepo(repo);
      commitAll(repo, "quickstart");
      git(repo, ["checkout", "-q", "-b", "agent/bench"]);
      return { argv: [process.execPath, CLI, "tcr", "a column that is not there"], cwd: repo };
    },
    beforeEach() {
      rmSync(join(repo, ".git", "slp", "tcr-strikes"), { force: true });
      edit("models/marts/fct_orders.sql", (text) => text.replace("/ 100.0", "/ 100.0 + no_such_column"));
      edit("models/marts/fct_orders.yml", (text) => text.replace("about one order in five", "about one order in five; reworked"));
    },
  };
}

/**
 * One `tcr --dry-run` attempt that changes the mart fct_orders (its comment,
 * with the branch's own pre-registrations): check, gate, unit, then mutate of
 * the changed mart, red on its surviving join swap. `fresh`: each run writes
 * a new comment, so mutate's kept verdicts never apply (an attempt that
 * touched the model); else the same change every run (an attempt that
 * touched neither the model nor its tests: the verdicts are kept).
 * Budget 1.5 s from the binary, either way (issue 25).
 */
export function tcrMutateAttempt(name: string, budgetMs: number, fresh: boolean, slp: (workDir: string) => string[]): Benchmark {
  let repo = "";
  let step = 0;
  const edit = (path: string, change: (text: string) => string) =>
    writeFileSync(join(repo, path), change(readFileSync(join(repo, path), "utf8")));
  return {
    name,
    budgetMs,
    expectExit: 1,
    setup(workDir) {
      repo = join(workDir, name.replace(/\W+/g, "-"));
      cpSync(QUICKSTART, repo, { recursive: true });
      initRepo(repo);
      commitAll(repo, "quickstart");
      git(repo, ["checkout", "-q", "-b", "agent/bench"]);
      edit("models/marts/fct_orders.yml", (text) => text.replace("about one order in five", "about one order in five; reworded"));
      edit("models/marts/finance/fct_revenue_daily.yml", (text) =>
        text.replace("two days gain revenue and orders", "two days gain revenue and orders; reworded"),
      );
      edit("models/marts/fct_orders.sql", (text) => `${text}-- step 0\n`);
      return { argv: [...slp(workDir), "tcr", "reword the mart", "--dry-run"], cwd: repo };
    },
    beforeEach() {
      if (!fresh) return;
      step++;
      edit("models/marts/fct_orders.sql", (text) => text.replace(/-- step \d+\n$/, `-- step ${step}\n`));
    },
  };
}

export const benchmarks: Benchmark[] = [
  tcrGreenCycle("tcr: green cycle on the quickstart", 300, () => [process.execPath, CLI]),
  redOnBrokenSql(),
  verifyCommits(),
];
