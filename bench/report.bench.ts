/**
 * Reports: `slp check` on 1,000 marts + 1,000 staging models in each CI
 * format (budget: check's 300 ms plus 150 ms to render), and `slp review` of
 * the quickstart with its HTML page (budget 500 ms: it runs the unit tests
 * and compare too).
 */
import { join } from "node:path";
import { generateProject } from "./generate-project.ts";
import { CLI, type Benchmark } from "./harness.ts";

const ROOT = join(import.meta.dir, "..");

function formatBenchmark(format: string): Benchmark {
  return {
    name: `check --format ${format}: 1000 marts + 1000 staging`,
    budgetMs: 450,
    setup(workDir) {
      const root = join(workDir, "report-1000");
      generateProject(root, { marts: 1000, staging: 1000 });
      return { argv: [process.execPath, CLI, "check", "--project-dir", root, "--format", format], cwd: workDir };
    },
  };
}

export const benchmarks: Benchmark[] = [
  ...["github", "sarif", "junit", "markdown"].map(formatBenchmark),
  {
    name: "review --html: the quickstart",
    budgetMs: 500,
    setup(workDir) {
      return { argv: [process.execPath, CLI, "review", "--html", join(workDir, "review.html")], cwd: join(ROOT, "examples", "quickstart") };
    },
  },
];
