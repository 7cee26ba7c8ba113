/** `slp gate` over a branch history: 600 models × 30 commits (budget 0.5 s) and 1,000 marts + 1,000 staging × 100 commits (3 s). */
import { join } from "node:path";
import { generateHistory, type HistoryShape } from "./generate-history.ts";
import { CLI, type Benchmark } from "./harness.ts";

function gateBenchmark(shape: HistoryShape, budgetMs: number, memoryBudgetMiB?: number): Benchmark {
  return {
    name: `gate: ${shape.marts} marts + ${shape.staging} staging, ${shape.commits} commits`,
    budgetMs,
    memoryBudgetMiB,
    setup(workDir) {
      const root = join(workDir, `gate-${shape.marts}-${shape.commits}`);
      generateHistory(root, shape);
      return { argv: [process.execPath, CLI, "gate", "--base", "main"], cwd: root };
    },
  };
}

/** The Python reference takes about 52 s on the first repository. */
export const benchmarks: Benchmark[] = [
  // Issue 11: memory under 150 MiB.
  gateBenchmark({ marts: 300, staging: 300, commits: 30 }, 500, 150),
  gateBenchmark({ marts: 1000, staging: 1000, commits: 100 }, 3000),
];
