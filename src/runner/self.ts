/** How slp calls itself: the compiled binary, or Bun running this source tree. */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";

/** True inside `bun build --compile`'s single executable (its modules live in a virtual /$bunfs). */
export function isCompiled(): boolean {
  return import.meta.dir.startsWith("/$bunfs") || /^[A-Z]:\\~BUN/.test(import.meta.dir);
}

/** The argv prefix that runs slp again: `[binary]` or `[bun, src/cli.ts]`. */
export function selfCommand(): string[] {
  return isCompiled() ? [process.execPath] : [process.execPath, join(import.meta.dir, "..", "cli.ts")];
}

/**
 * The binary SLP_BINARY_PATH names, when this compiled slp is not it. npm's
 * launcher re-points node_modules/.bin/slp at the installed binary after its
 * first run (bin/slp.cjs), so the binary reads the override the launcher
 * would have: run that one instead. The source tree never delegates.
 */
export function overridingBinary(env: Record<string, string | undefined>): string | undefined {
  const override = env.SLP_BINARY_PATH;
  if (!override || !isCompiled()) return undefined;
  if (!existsSync(override)) return override;
  return realpathSync(override) === realpathSync(process.execPath) ? undefined : override;
}

/**
 * Runs `binary` with this process's arguments and streams, and returns its
 * exit code. SLP_BINARY_PATH is not passed on: the binary it named runs as
 * itself, so an override that is a wrapper around slp cannot loop.
 */
export function delegateTo(binary: string, argv: readonly string[], env: Record<string, string | undefined>): number {
  const { SLP_BINARY_PATH: _named, ...rest } = env;
  const result = Bun.spawnSync([binary, ...argv], { stdio: ["inherit", "inherit", "inherit"], env: rest });
  if (result.signalCode) process.kill(process.pid, result.signalCode);
  return result.exitCode ?? 2;
}
