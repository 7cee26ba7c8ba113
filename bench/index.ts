/**
 * `bun run bench [filter]`: runs every benchmark (or those whose name holds
 * the filter), prints median / min wall time against each budget, and writes
 * bench/.out/results.json. Exits 1 when a benchmark's median is over its
 * budget (the test suite never runs this: tests do not depend on timing). A
 * benchmark whose input is not on this machine (a corpus extract) is listed
 * as skipped, with the reason.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { budgetFrom, measure, overBudget, type Benchmark, type Measurement } from "./harness.ts";
import { benchmarks as binary } from "./binary.bench.ts";
import { benchmarks as check } from "./check.bench.ts";
import { benchmarks as corpus } from "./corpus.bench.ts";
import { benchmarks as diff } from "./diff.bench.ts";
import { benchmarks as gate } from "./gate.bench.ts";
import { benchmarks as mutate } from "./mutate.bench.ts";
import { benchmarks as report } from "./report.bench.ts";
import { benchmarks as tcr } from "./tcr.bench.ts";
import { benchmarks as inference } from "./inference.bench.ts";
import { benchmarks as unit } from "./unit.bench.ts";

const ALL: Benchmark[] = [...check, ...gate, ...tcr, ...unit, ...inference, ...mutate, ...report, ...diff, ...binary, ...corpus];

const filter = process.argv[2];
const chosen = ALL.filter((benchmark) => !filter || benchmark.name.includes(filter));
// A benchmark whose budget is a factor of another's runs with that other, measured first.
const needed = new Set(chosen.flatMap((benchmark) => (benchmark.budgetOf ? [benchmark.budgetOf.of] : [])));
const selected = ALL.filter((benchmark) => chosen.includes(benchmark) || needed.has(benchmark.name));
const workDir = mkdtempSync(join(tmpdir(), "slp-bench-"));
const results: Measurement[] = [];
try {
  for (const benchmark of selected) {
    if (benchmark.skip !== undefined) {
      console.log(`${benchmark.name.padEnd(48)} SKIPPED: ${benchmark.skip}`);
      continue;
    }
    const result = await measure(benchmark, workDir);
    result.budgetMs = budgetFrom(benchmark, results);
    results.push(result);
    const verdict = overBudget([result]).length === 0 ? "within budget" : "OVER BUDGET";
    const of = benchmark.budgetOf ? ` (${benchmark.budgetOf.factor}x ${benchmark.budgetOf.of})` : "";
    console.log(
      `${result.name.padEnd(48)} median ${result.medianMs.toFixed(0).padStart(6)} ms  min ${result.minMs.toFixed(0).padStart(6)} ms  budget ${String(result.budgetMs).padStart(6)} ms${of}  ${verdict}`,
    );
    if (benchmark.memoryBudgetMiB !== undefined) {
      const fits = (result.maxRssMiB ?? 0) <= benchmark.memoryBudgetMiB ? "within budget" : "OVER BUDGET";
      console.log(`${"".padEnd(48)} peak memory ${result.maxRssMiB} MiB, budget ${benchmark.memoryBudgetMiB} MiB  ${fits}`);
    }
    // A ratio to another benchmark of the run: advisory (within) or the budget itself (budgetOf).
    const relative = benchmark.within ?? benchmark.budgetOf;
    const against = relative && results.find((other) => other.name === relative.of);
    if (relative && against) {
      const ratio = result.medianMs / against.medianMs;
      const fits = ratio <= relative.factor ? "within budget" : "OVER BUDGET";
      console.log(`${"".padEnd(48)} ${ratio.toFixed(2)}x ${against.name} (budget ${relative.factor}x)  ${fits}`);
      const cpuRatio = (result.medianCpuMs ?? 0) / (against.medianCpuMs ?? 1);
      console.log(
        `${"".padEnd(48)} CPU time ${result.medianCpuMs} ms against ${against.medianCpuMs} ms: ${cpuRatio.toFixed(2)}x (what a loaded machine does not inflate)`,
      );
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
mkdirSync(join(import.meta.dir, ".out"), { recursive: true });
writeFileSync(join(import.meta.dir, ".out", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
const over = overBudget(results);
if (over.length > 0) console.log(`over budget: ${over.join(", ")}`);
process.exitCode = over.length > 0 ? 1 : 0;
