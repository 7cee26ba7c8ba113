/**
 * `slp check` on 1,000 marts + 1,000 staging models: warm (the parse cache
 * holds every yml, budget 200 ms, also with every file just written) and a
 * CI runner's first run (an empty cache, budget 300 ms); smaller sizes show
 * the cost grows linearly.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { generateProject } from "./generate-project.ts";
import { CLI, type Benchmark } from "./harness.ts";

/**
 * `warm`: files older than the parse cache's stamp window (two seconds), as
 * nearly every file is between two runs, so the cache knows each one's
 * content without reading it; `just written`: every file written a moment
 * ago (a checkout that rewrote the tree), so each is read and hashed again.
 */
type CheckState = "warm" | "just written" | "first run";

function checkBenchmark(marts: number, budgetMs: number, state: CheckState = "warm"): Benchmark {
  let cache: string | null = null;
  const firstRun = state === "first run";
  return {
    name: `check: ${marts} marts + ${marts} staging${state === "warm" ? "" : `, ${state}`}`,
    budgetMs,
    // Issue 11: memory under 150 MiB at the size the budgets are for.
    memoryBudgetMiB: marts === 1000 ? 150 : undefined,
    setup(workDir) {
      const root = join(workDir, `check-${marts}`);
      generateProject(root, { marts, staging: marts });
      // Past the stamp window: the untimed run before the timed ones then stamps every file, as an earlier run would have.
      if (state === "warm") Bun.sleepSync(2100);
      // A first run parses every yml and writes the cache: each timed run starts from an empty one of its own.
      cache = firstRun ? join(workDir, `first-run-cache-${marts}`) : null;
      return {
        argv: [process.execPath, CLI, "check", "--project-dir", root],
        cwd: workDir,
        env: cache ? { SLP_CACHE_DIR: cache } : undefined,
      };
    },
    beforeEach: firstRun ? () => rmSync(cache as string, { recursive: true, force: true }) : undefined,
  };
}

/** The budgets are for N = 1,000. */
export const benchmarks: Benchmark[] = [
  checkBenchmark(250, 200),
  checkBenchmark(500, 200),
  checkBenchmark(1000, 200),
  checkBenchmark(1000, 200, "just written"),
  checkBenchmark(1000, 300, "first run"),
];
