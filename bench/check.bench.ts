/** `slp check` on 1,000 marts + 1,000 staging models (budget 300 ms), and how it scales with N. */
import { join } from "node:path";
import { generateProject } from "./generate-project.ts";
import { CLI, type Benchmark } from "./harness.ts";

function checkBenchmark(marts: number, budgetMs: number): Benchmark {
  return {
    name: `check: ${marts} marts + ${marts} staging`,
    budgetMs,
    setup(workDir) {
      const root = join(workDir, `check-${marts}`);
      generateProject(root, { marts, staging: marts });
      return { argv: [process.execPath, CLI, "check", "--project-dir", root], cwd: workDir };
    },
  };
}

/** The budget is for N = 1,000; the smaller sizes show the cost grows linearly. */
export const benchmarks: Benchmark[] = [
  checkBenchmark(250, 300),
  checkBenchmark(500, 300),
  checkBenchmark(1000, 300),
];
