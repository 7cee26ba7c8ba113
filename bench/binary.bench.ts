/**
 * The single executable (`npm run build`, dist/slp): built once into the
 * bench folder, then timed as users run it. Budgets: `slp check` on the
 * quickstart in 60 ms with DuckDB not loaded; the quickstart's unit tests in
 * 80 ms (issue 12); a green TCR cycle in 150 ms; a tcr attempt that mutates a changed
 * mart in 1.5 s, its mutants run or their verdicts kept (issue 25); 20 mutants x 5 unit tests in 1 s;
 * `slp check` as npm installs it (node_modules/.bin/slp, which the launcher
 * re-points at the binary on its first run) at most 30 ms more than the binary
 * alone; the launcher under Node (a first run, or SLP_BINARY_PATH) in 100 ms.
 */
import { cpSync, linkSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostPlatform } from "../src/build/platforms.ts";
import { CLI, type Benchmark } from "./harness.ts";
import { mutate20Project } from "./mutate.bench.ts";
import { tcrGreenCycle, tcrMutateAttempt } from "./tcr.bench.ts";

const ROOT = join(import.meta.dir, "..");
let binary = "";

/** Builds dist/slp into the bench folder once, and says how big it is. */
export function buildOnce(workDir: string): string {
  if (binary) return binary;
  binary = join(workDir, "slp");
  const result = Bun.spawnSync([process.execPath, CLI, "run", "build", "--outfile", binary], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`build failed: ${result.stderr.toString()}`);
  console.log(`binary: ${(statSync(binary).size / 1024 / 1024).toFixed(1)} MiB`);
  return binary;
}

/** A copy of the quickstart, so the binary runs far from this repository's node_modules. */
function quickstartCopy(workDir: string, name: string): string {
  const dir = join(workDir, name);
  cpSync(join(ROOT, "examples", "quickstart"), dir, { recursive: true });
  return dir;
}

/**
 * The quickstart with slp laid out as `npm install spec-lock-diff` leaves it
 * (the launcher package, this machine's platform package, npm's relative link
 * in .bin), run once so the launcher has re-pointed the link.
 */
function npmInstalledQuickstart(workDir: string, name: string): string {
  const dir = quickstartCopy(workDir, name);
  const modules = join(dir, "node_modules");
  const launcherPackage = join(modules, "spec-lock-diff");
  mkdirSync(join(launcherPackage, "bin"), { recursive: true });
  cpSync(join(ROOT, "bin", "slp.cjs"), join(launcherPackage, "bin", "slp.cjs"));
  writeFileSync(join(launcherPackage, "package.json"), JSON.stringify({ name: "spec-lock-diff", bin: { slp: "bin/slp.cjs" } }));
  const platformPackage = join(modules, "@spec-lock-diff", `cli-${hostPlatform()?.name}`);
  mkdirSync(platformPackage, { recursive: true });
  linkSync(buildOnce(workDir), join(platformPackage, "slp"));
  writeFileSync(join(platformPackage, "package.json"), JSON.stringify({ name: `@spec-lock-diff/cli-${hostPlatform()?.name}` }));
  mkdirSync(join(modules, ".bin"));
  symlinkSync(join("..", "spec-lock-diff", "bin", "slp.cjs"), join(modules, ".bin", "slp"));
  const first = Bun.spawnSync([join(modules, ".bin", "slp"), "check"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (first.exitCode !== 0) throw new Error(`the installed slp failed: ${first.stderr.toString()}`);
  return dir;
}

export const benchmarks: Benchmark[] = [
  {
    name: "binary: check on the quickstart",
    budgetMs: 60,
    setup(workDir) {
      return { argv: [buildOnce(workDir), "check"], cwd: quickstartCopy(workDir, "binary-check") };
    },
  },
  {
    name: "binary: unit on the quickstart",
    budgetMs: 80,
    setup(workDir) {
      return { argv: [buildOnce(workDir), "unit"], cwd: quickstartCopy(workDir, "binary-unit") };
    },
  },
  tcrGreenCycle("binary: tcr green cycle on the quickstart", 150, (workDir) => [buildOnce(workDir)]),
  tcrMutateAttempt("binary: tcr attempt on a changed mart, mutants run", 1500, true, (workDir) => [buildOnce(workDir)]),
  tcrMutateAttempt("binary: tcr attempt on a changed mart, mutants kept", 1500, false, (workDir) => [buildOnce(workDir)]),
  {
    name: "binary: mutate 20 mutants x 5 unit tests",
    budgetMs: 1000,
    expectExit: 1,
    setup(workDir) {
      return { argv: [buildOnce(workDir), "mutate", "--select", "fct_model_0"], cwd: mutate20Project(workDir, "binary-mutate-20") };
    },
  },
  {
    name: "npm install: check via node_modules/.bin/slp",
    budgetMs: 90,
    setup(workDir) {
      const dir = npmInstalledQuickstart(workDir, "npm-check");
      return { argv: [join(dir, "node_modules", ".bin", "slp"), "check"], cwd: dir };
    },
  },
  {
    name: "launcher: check on the quickstart (Node + binary)",
    budgetMs: 100,
    setup(workDir) {
      return {
        argv: ["node", join(ROOT, "bin", "slp.cjs"), "check"],
        cwd: quickstartCopy(workDir, "launcher-check"),
        env: { SLP_BINARY_PATH: buildOnce(workDir) },
      };
    },
  },
];
