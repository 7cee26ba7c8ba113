/**
 * `slp check` on 1,000 marts + 1,000 staging models: warm (the parse cache
 * holds every yml, budget 200 ms) and a CI runner's first run (an empty
 * cache, budget 300 ms); smaller sizes show the cost grows linearly.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { generateProject } from "./generate-project.ts";
import { CLI, type Benchmark } from "./harness.ts";

function checkBenchmark(marts: number, budgetMs: number, firstRun = false): Benchmark {
  let cache: string | null = null;
  return {
    name: `check: ${marts} marts + ${marts} staging${firstRun ? ", first run" : ""}`,
    budgetMs,
    // Issue 11: memory under 150 MiB at the size the budgets are for.
    memoryBudgetMiB: marts === 1000 ? 150 : undefined,
    setup(workDir) {
      const root = join(workDir, `check-${marts}`);
      generateProject(root, { marts, staging: marts });
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
  checkBenchmark(1000, 300, true),
];
