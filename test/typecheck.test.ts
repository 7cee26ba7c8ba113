/** The whole tree type-checks under strict TypeScript: CI runs this with the tests. */
import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

test("tsc --noEmit passes (strict)", () => {
  const tsc = Bun.spawnSync([process.execPath, join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", ROOT], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
  expect(tsc.exitCode).toBe(0);
  // tsc over the whole tree takes ~20 s on two quiet cores and over a minute beside another full suite (the machines are
  // shared); the time is not what this test judges.
}, 300_000);
