/**
 * The repository's commit hooks, run the way `git commit` runs them: from
 * the hooks folder git uses, only when executable,
 * at the work tree's root, with the index being committed in GIT_INDEX_FILE
 * and no editor; stdout and stderr are kept together as one output.
 */
import { closeSync, constants, accessSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitEnvironment } from "./cli.ts";

export interface HookRun {
  name: string;
  exitCode: number;
  /** What the hook printed (stdout and stderr interleaved), at most OUTPUT_LIMIT characters: its end. */
  output: string;
}

/** A hook's output kept for the report: its last part, where the reason for a failure is. */
const OUTPUT_LIMIT = 20_000;

export class Hooks {
  readonly #root: string;
  readonly #dir: string;
  readonly #env: Record<string, string | undefined>;
  /** Hooks present but not executable: git ignores them with a hint, so do we. */
  readonly ignored: string[] = [];

  /** The hooks in `dir` (where git looks for them: see WorkTree.commitSettings), run at the work tree's root. */
  constructor(root: string, dir: string, env: Record<string, string | undefined>) {
    this.#root = root;
    this.#dir = dir;
    this.#env = env;
  }

  /**
   * Runs one hook if it exists (null when it does not, or is not executable);
   * `set` adds variables (GIT_INDEX_FILE, the author).
   */
  run(name: string, args: string[], set: Record<string, string>): HookRun | null {
    const path = join(this.#dir, name);
    if (!existsSync(path) || !statSync(path).isFile()) return null;
    try {
      accessSync(path, constants.X_OK);
    } catch {
      this.ignored.push(name);
      return null;
    }
    const scratch = mkdtempSync(join(tmpdir(), "slp-hook-"));
    const outputFile = join(scratch, "output");
    const fd = openSync(outputFile, "w+");
    let open = true;
    try {
      const result = Bun.spawnSync([path, ...args], {
        cwd: this.#root,
        env: gitEnvironment(this.#env, { GIT_EDITOR: ":", GIT_PREFIX: "", ...set }),
        stdin: "ignore",
        stdout: fd,
        stderr: fd,
      });
      closeSync(fd);
      open = false;
      const output = readFileSync(outputFile, "utf8");
      return {
        name,
        exitCode: result.exitCode ?? (result.signalCode ? 128 : -1),
        output: output.length > OUTPUT_LIMIT ? `...${output.slice(-OUTPUT_LIMIT)}` : output,
      };
    } catch (error) {
      return { name, exitCode: 126, output: `cannot run ${name}: ${(error as Error).message}` };
    } finally {
      if (open) closeSync(fd);
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}
