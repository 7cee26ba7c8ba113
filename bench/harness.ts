/**
 * How benchmarks are measured: the real CLI as a subprocess, wall time of
 * whole runs (process start included), several runs, median and min quoted.
 * Budgets are printed next to the figures; they are never asserted in tests.
 */
import { join } from "node:path";

export const CLI = join(import.meta.dir, "..", "src", "cli.ts");

/** What a benchmark may take: a fixed number of milliseconds, or a factor of another benchmark's median in the same run. */
export type Budget = { budgetMs: number; budgetOf?: undefined } | { budgetMs?: undefined; budgetOf: { of: string; factor: number } };

export type Benchmark = Budget & {
  name: string;
  /** Prepares inputs once; returns the command to time and where to run it. */
  setup(workDir: string): Promise<Timed> | Timed;
  /** Expected exit code(s) of the timed command (a benchmark of a failing run measures nothing). */
  expectExit?: number | readonly number[];
  /** Why this benchmark cannot run on this machine (its input is absent): printed, never measured, never over budget. */
  skip?: string;
  /** Runs before each timed run, untimed (tcr needs a fresh change each time). */
  beforeEach?(): void;
  runs?: number;
  /** Another benchmark of the same run this one must stay within `factor` times of (median against median). */
  within?: { of: string; factor: number };
  /** The most memory (peak resident set) the timed process may use. */
  memoryBudgetMiB?: number;
};

/** What a benchmark times: a command, where it runs, and what it adds to the environment. */
export interface Timed {
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface Measurement {
  name: string;
  /** The budget in milliseconds (a `budgetOf` benchmark's, from the other's median in the same run; NaN until known). */
  budgetMs: number;
  runsMs: number[];
  medianMs: number;
  minMs: number;
  /** The largest peak resident set of the timed runs, in MiB. */
  maxRssMiB?: number;
  /** Median CPU time (user + system) of the timed runs: what a loaded machine does not inflate. */
  medianCpuMs?: number;
}

export function time(argv: string[], cwd: string, expectExit: number | readonly number[] = 0, env: Record<string, string> = {}): number {
  return run(argv, cwd, expectExit, env).elapsedMs;
}

/** One timed run: wall time and the process's peak resident set. */
function run(
  argv: string[],
  cwd: string,
  expectExit: number | readonly number[] = 0,
  env: Record<string, string> = {},
): { elapsedMs: number; maxRssMiB: number; cpuMs: number } {
  const start = performance.now();
  const result = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", ...env } });
  const elapsedMs = performance.now() - start;
  if (!([] as number[]).concat(expectExit).includes(result.exitCode)) {
    throw new Error(`${argv.join(" ")} exited ${result.exitCode}, expected ${expectExit}:\n${result.stderr.toString().slice(0, 2000)}`);
  }
  const usage = result.resourceUsage;
  const cpuMs = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : 0;
  return { elapsedMs, maxRssMiB: (usage?.maxRSS ?? 0) / 1024 / 1024, cpuMs };
}

export async function measure(benchmark: Benchmark, workDir: string): Promise<Measurement> {
  const { argv, cwd, env } = await benchmark.setup(workDir);
  benchmark.beforeEach?.();
  time(argv, cwd, benchmark.expectExit, env); // warm the OS file cache; not counted
  const runsMs: number[] = [];
  let maxRssMiB = 0;
  const cpuMs: number[] = [];
  for (let i = 0; i < (benchmark.runs ?? 7); i++) {
    benchmark.beforeEach?.();
    const timed = run(argv, cwd, benchmark.expectExit, env);
    runsMs.push(timed.elapsedMs);
    maxRssMiB = Math.max(maxRssMiB, timed.maxRssMiB);
    cpuMs.push(timed.cpuMs);
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  return {
    name: benchmark.name,
    budgetMs: benchmark.budgetMs ?? Number.NaN,
    runsMs,
    medianMs: sorted[Math.floor(sorted.length / 2)] as number,
    minMs: sorted[0] as number,
    maxRssMiB: Math.round(maxRssMiB),
    medianCpuMs: Math.round([...cpuMs].sort((a, b) => a - b)[Math.floor(cpuMs.length / 2)] as number),
  };
}

/** The names of the measurements whose median is over their budget, or whose budget is unknown (what makes `bun run bench` exit 1). */
export function overBudget(results: readonly Measurement[]): string[] {
  return results.filter((result) => !(result.medianMs <= result.budgetMs)).map((result) => result.name);
}

/** A `budgetOf` benchmark's budget: the factor times the other's median measured in the same run (NaN when it was not). */
export function budgetFrom(benchmark: Benchmark, results: readonly Measurement[]): number {
  if (benchmark.budgetOf === undefined) return benchmark.budgetMs;
  const { of, factor } = benchmark.budgetOf;
  const against = results.find((result) => result.name === of);
  return against ? Math.round(against.medianMs * factor) : Number.NaN;
}
