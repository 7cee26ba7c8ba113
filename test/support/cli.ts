/** Runs slp in-process (main) or as a real subprocess, capturing stdout, stderr and the exit code. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli.ts";

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** One parse cache for the whole test run, outside the user's own cache folder. */
const TEST_CACHE = join(tmpdir(), `slp-test-cache-${process.pid}`);

/** The environment every test runs slp with: no colour, UTC, no inherited SLP_, GIT_ or DBT_ settings, a private cache. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("SLP_") && !key.startsWith("GIT_") && !key.startsWith("DBT_")) env[key] = value;
  }
  return { ...env, NO_COLOR: "1", TZ: "UTC", SLP_CACHE_DIR: TEST_CACHE, ...extra };
}

/** `main(argv, io)` in this process, with `cwd` as the working directory and `stdin` as what is piped in. */
export async function runMain(argv: string[], cwd: string, env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const exitCode = await main(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd,
    env: testEnv(env),
    stdin: stdin === undefined ? undefined : async () => stdin,
  });
  return { stdout, stderr, exitCode };
}

export const CLI_ENTRY = join(import.meta.dir, "..", "..", "src", "cli.ts");

/** The real CLI as a subprocess: `bun src/cli.ts ...args`, with `stdin` piped in when given. */
export function runCli(argv: string[], cwd: string, env: Record<string, string> = {}, stdin?: string): CliResult {
  const result = Bun.spawnSync([process.execPath, CLI_ENTRY, ...argv], {
    cwd,
    env: testEnv(env),
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), exitCode: result.exitCode ?? -1 };
}
