/**
 * `bun run bench [filter]`: runs every benchmark (or those whose name holds
 * the filter), prints median / min wall time against each budget, and writes
 * bench/.out/results.json. Nothing here fails a build: speed is measured.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { measure, type Benchmark, type Measurement } from "./harness.ts";
import { benchmarks as binary } from "./binary.bench.ts";
import { benchmarks as check } from "./check.bench.ts";
import { benchmarks as gate } from "./gate.bench.ts";
import { benchmarks as mutate } from "./mutate.bench.ts";
import { benchmarks as report } from "./report.bench.ts";
import { benchmarks as tcr } from "./tcr.bench.ts";
import { benchmarks as unit } from "./unit.bench.ts";

const ALL: Benchmark[] = [...check, ...gate, ...tcr, ...unit, ...mutate, ...report, ...binary];

const filter = process.argv[2];
const selected = ALL.filter((benchmark) => !filter || benchmark.name.includes(filter));
const workDir = mkdtempSync(join(tmpdir(), "slp-bench-"));
const results: Measurement[] = [];
try {
  for (const benchmark of selected) {
    const result = await measure(benchmark, workDir);
    results.push(result);
    const verdict = result.medianMs <= result.budgetMs ? "within budget" : "OVER BUDGET";
    console.log(
      `${result.name.padEnd(48)} median ${result.medianMs.toFixed(0).padStart(6)} ms  min ${result.minMs.toFixed(0).padStart(6)} ms  budget ${String(result.budgetMs).padStart(6)} ms  ${verdict}`,
    );
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
mkdirSync(join(import.meta.dir, ".out"), { recursive: true });
writeFileSync(join(import.meta.dir, ".out", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
