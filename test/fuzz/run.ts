/**
 * `npx bun run fuzz [-- --runs N] [--seed S] [--kind TEXT] [--shrink]`: the
 * fuzz suite (test/fuzz.test.ts) run longer than the test command runs it:
 * N cases per kind (default 500), from seed S (default: a new one, printed,
 * so a failure can be replayed), only the kinds whose name holds TEXT, and
 * with --shrink a failing case reduced to its smallest form.
 */
import { join } from "node:path";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const runs = option("runs") ?? "500";
const seed = option("seed") ?? String(Math.floor(Math.random() * 2 ** 31));
const kind = option("kind");
if (!/^\d+$/.test(runs) || !/^-?\d+$/.test(seed)) {
  console.error("usage: bun run fuzz [-- --runs N] [--seed S] [--kind TEXT] [--shrink]");
  process.exit(2);
}
console.log(`fuzz: ${runs} cases per kind, seed ${seed}${kind ? `, kinds matching "${kind}"` : ""} (replay with --seed ${seed})`);
const result = Bun.spawnSync([process.execPath, "test", join(import.meta.dir, "..", "fuzz.test.ts"), "--timeout", "0"], {
  env: {
    ...process.env,
    SLP_FUZZ_RUNS: runs,
    SLP_FUZZ_SEED: seed,
    ...(kind ? { SLP_FUZZ_KIND: kind } : {}),
    ...(args.includes("--shrink") ? { SLP_FUZZ_SHRINK: "1" } : {}),
  },
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(result.exitCode ?? 2);
