/**
 * How benchmarks are measured: the real CLI as a subprocess, wall time of
 * whole runs (process start included), several runs, median and min quoted.
 * Budgets are printed next to the figures; they are never asserted in tests.
 */
import { join } from "node:path";

export const CLI = join(import.meta.dir, "..", "src", "cli.ts");

export interface Benchmark {
  name: string;
  /** What the issue allows, in milliseconds of wall time. */
  budgetMs: number;
  /** Prepares inputs once; returns the command to time and where to run it. */
  setup(workDir: string): Promise<Timed> | Timed;
  /** Expected exit code of the timed command (a benchmark of a failing run measures nothing). */
  expectExit?: number;
  /** Runs before each timed run, untimed (tcr needs a fresh change each time). */
  beforeEach?(): void;
  runs?: number;
}

/** What a benchmark times: a command, where it runs, and what it adds to the environment. */
export interface Timed {
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface Measurement {
  name: string;
  budgetMs: number;
  runsMs: number[];
  medianMs: number;
  minMs: number;
}

export function time(argv: string[], cwd: string, expectExit = 0, env: Record<string, string> = {}): number {
  const start = performance.now();
  const result = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", ...env } });
  const elapsed = performance.now() - start;
  if (result.exitCode !== expectExit) {
    throw new Error(`${argv.join(" ")} exited ${result.exitCode}, expected ${expectExit}:\n${result.stderr.toString().slice(0, 2000)}`);
  }
  return elapsed;
}

export async function measure(benchmark: Benchmark, workDir: string): Promise<Measurement> {
  const { argv, cwd, env } = await benchmark.setup(workDir);
  benchmark.beforeEach?.();
  time(argv, cwd, benchmark.expectExit, env); // warm the OS file cache; not counted
  const runsMs: number[] = [];
  for (let i = 0; i < (benchmark.runs ?? 7); i++) {
    benchmark.beforeEach?.();
    runsMs.push(time(argv, cwd, benchmark.expectExit, env));
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  return {
    name: benchmark.name,
    budgetMs: benchmark.budgetMs,
    runsMs,
    medianMs: sorted[Math.floor(sorted.length / 2)] as number,
    minMs: sorted[0] as number,
  };
}

/** The names of the measurements whose median is over their budget (what makes `bun run bench` exit 1). */
export function overBudget(results: readonly Measurement[]): string[] {
  return results.filter((result) => result.medianMs > result.budgetMs).map((result) => result.name);
}
