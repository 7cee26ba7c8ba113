/**
 * The git program, for what only it does exactly: staging a work tree (every
 * ignore file, attribute, filter and line-ending setting git honours), writing
 * commits, moving a branch with its reflog, and patches. Reading history stays
 * in-process (repository.ts); the TCR loop, which already runs in a clone an
 * agent works in, is the only caller.
 */
import { GitError } from "../core/errors.ts";

export interface GitRun {
  stdout: Uint8Array;
  stderr: string;
  exitCode: number;
}

export interface GitOptions {
  /** The environment git runs with (the task's); git's own repository variables are never inherited. */
  env: Record<string, string | undefined>;
  /** Extra variables, e.g. GIT_INDEX_FILE for a private index. */
  set?: Record<string, string>;
  input?: string | Uint8Array;
  /** Return a failed run instead of throwing. */
  allowFailure?: boolean;
}

/**
 * Variables that would point git at another repository, work tree or index
 * than the one asked for (slp run from inside a hook inherits them).
 */
const REPOSITORY_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
];

/** The environment a git process (or a hook) starts from: the caller's, minus repository overrides, never prompting. */
export function gitEnvironment(env: Record<string, string | undefined>, set: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !REPOSITORY_VARIABLES.includes(key)) out[key] = value;
  return { ...out, GIT_TERMINAL_PROMPT: "0", ...set };
}

/** Runs `git <args>` in `cwd`; a failure is a GitError quoting git (unless allowFailure). */
export function runGit(cwd: string, args: string[], options: GitOptions): GitRun {
  // git's own messages in English, so the ones slp quotes read the same everywhere.
  const env = gitEnvironment(options.env, { LC_ALL: "C", ...options.set });
  const program = Bun.which("git", { PATH: env.PATH ?? "" });
  if (!program) {
    throw new GitError("the git program is not on PATH, and slp tcr stages, commits and reverts through it", {
      fix: "install git (apt-get install git, brew install git) or put it on PATH",
    });
  }
  const result = Bun.spawnSync([program, ...args], {
    cwd,
    env,
    stdin: options.input === undefined ? "ignore" : typeof options.input === "string" ? Buffer.from(options.input) : options.input,
    stdout: "pipe",
    stderr: "pipe",
  });
  const run: GitRun = { stdout: result.stdout, stderr: result.stderr.toString(), exitCode: result.exitCode ?? -1 };
  if (run.exitCode !== 0 && !options.allowFailure) {
    const said = run.stderr.trim().split("\n").filter(Boolean).slice(-3).join(" / ");
    throw new GitError(`git ${args[0]} failed${said ? `: ${said}` : ` with exit ${run.exitCode}`}`, {
      fix: "run git status to see what is wrong with the repository",
    });
  }
  return run;
}

/** git's standard output as text, without the trailing newline. */
export function gitText(cwd: string, args: string[], options: GitOptions): string {
  return new TextDecoder().decode(runGit(cwd, args, options).stdout).replace(/\n$/, "");
}
