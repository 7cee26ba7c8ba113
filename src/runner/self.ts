/** How slp calls itself: the compiled binary, or Bun running this source tree. */
import { join } from "node:path";

/** True inside `bun build --compile`'s single executable (its modules live in a virtual /$bunfs). */
export function isCompiled(): boolean {
  return import.meta.dir.startsWith("/$bunfs") || /^[A-Z]:\\~BUN/.test(import.meta.dir);
}

/** The argv prefix that runs slp again: `[binary]` or `[bun, src/cli.ts]`. */
export function selfCommand(): string[] {
  return isCompiled() ? [process.execPath] : [process.execPath, join(import.meta.dir, "..", "cli.ts")];
}
