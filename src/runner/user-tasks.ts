/**
 * A dbt repository's own tasks, found at its root: shell strings under
 * `tasks:` in slp.yml (run with Bun Shell, the way `deno task` runs them;
 * `slp` inside the string is this slp) and TypeScript files under
 * `.slp/tasks/` that import slp's public API as `spec-lock-diff`. A task
 * file is listed from its text and imported only when that task is run.
 */
import { Type } from "@sinclair/typebox";
import { $ } from "bun";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ConfigError } from "../core/errors.ts";
import type { Report } from "../core/report.ts";
import { CONFIG_FILE, loadConfig, repositoryRoot } from "../project/slp/slp-yml.ts";
import { defineTask, type Task } from "./define-task.ts";
import { selfCommand } from "./self.ts";
import type { readTaskHeading as ReadTaskHeading } from "./task-file.ts";

export const USER_TASK_DIR = ".slp/tasks";
const TASK_NAME = /^[a-z][a-z0-9-]*$/;

/** slp's public API as a task file imports it (`spec-lock-diff`); the caller supplies it, so this module imports nothing above it. */
export type PublicApi = () => Promise<Record<string, unknown>>;

/** A user task as a listing knows it: read from slp.yml or from a task file's text, nothing of it run. */
export interface UserTaskEntry {
  name: string;
  /** Null when a task file's description is not a string literal. */
  description: string | null;
  source: { kind: "shell"; command: string } | { kind: "file"; path: string; shown: string };
}

/**
 * Every user task of the repository holding `cwd`, read without running any
 * of them: listing tasks (slp tasks, help, the names offered for a mistyped
 * one) must not execute repository code. Names must not clash with
 * built-ins or each other.
 */
export function listUserTasks(cwd: string, builtIns: readonly string[]): UserTaskEntry[] {
  const root = repositoryRoot(cwd);
  const { config, file } = loadConfig(cwd);
  const entries: (UserTaskEntry & { file?: string; line?: number })[] = [];
  for (const [name, command] of Object.entries(config.tasks ?? {})) {
    if (!TASK_NAME.test(name)) {
      throw new ConfigError(`the task name '${name}' in slp.yml is not a word slp can run`, {
        file: file ?? undefined,
        fix: "use lower-case letters, digits and dashes, starting with a letter (e.g. lint-sql)",
      });
    }
    entries.push({ name, description: command, source: { kind: "shell", command }, file: file ?? undefined });
  }
  const folder = join(root, USER_TASK_DIR);
  if (existsSync(folder)) {
    // The literal reader is loaded only where task files exist: a run of a built-in task never pays for it.
    const { readTaskHeading } = require("./task-file.ts") as { readTaskHeading: typeof ReadTaskHeading };
    for (const entry of readdirSync(folder)
      .filter((f) => /\.(ts|js|mjs)$/.test(f))
      .sort()) {
      const shown = `${USER_TASK_DIR}/${entry}`;
      const path = join(folder, entry);
      const heading = readTaskHeading(readTaskFile(path, shown), shown);
      entries.push({
        name: heading.name,
        description: heading.description,
        source: { kind: "file", path, shown },
        file: shown,
        line: heading.line,
      });
    }
  }
  const seen = new Set(builtIns);
  for (const entry of entries) {
    if (seen.has(entry.name)) {
      throw new ConfigError(`the task name ${entry.name} is taken ${builtIns.includes(entry.name) ? "by a built-in task" : "twice"}`, {
        file: entry.file,
        line: entry.line,
        fix: "give your task another name",
      });
    }
    seen.add(entry.name);
  }
  return entries.map(({ name, description, source }) => ({ name, description, source }));
}

/** The task an entry stands for; a task file is imported (its code runs) here and only here, when the task is run. */
export async function loadUserTask(entry: UserTaskEntry, cwd: string, api: PublicApi): Promise<Task<any, any>> {
  if (entry.source.kind === "shell") return shellTask(entry.name, entry.source.command, repositoryRoot(cwd));
  const { path, shown } = entry.source;
  registerApiModule(api);
  const module = (await import(path)) as { default?: Task<any, any> };
  const task = module.default;
  if (!task || typeof task.name !== "string" || typeof task.run !== "function") {
    throw new ConfigError(`${shown} does not export a task`, {
      file: shown,
      fix: 'export default defineTask({ name, description, run }) from "spec-lock-diff"',
    });
  }
  if (task.name !== entry.name) {
    // What a listing showed must be what runs: a name computed at run time could take another task's place.
    throw new ConfigError(`${shown} reads as the task ${entry.name}, but running it defines the task ${task.name}`, {
      file: shown,
      fix: "write the task's name as one string literal in defineTask({ name: ... })",
    });
  }
  return { ...task, needs: task.needs ?? [], input: task.input ?? Type.Object({}), origin: "user" };
}

function readTaskFile(path: string, shown: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot be read: ${(error as Error).message}`, { file: shown, fix: "make the task file readable, or remove it" });
  }
}

/** A `tasks:` entry: the shell string, with the caller's extra words appended, run at the repository root. */
function shellTask(name: string, command: string, root: string): Task<any, Report> {
  return defineTask({
    name,
    description: command,
    origin: "user",
    informational: true,
    input: Type.Object({
      args: Type.Optional(Type.Array(Type.String(), { positional: true, metavar: "ARG", description: "words appended to the command" })),
    }),
    async run({ input, environment }): Promise<Report> {
      const words = (input.args ?? []).map((arg: string) => $.escape(arg)).join(" ");
      const env = { ...environment.env, PATH: `${selfShimDir()}${delimiter}${environment.env.PATH ?? ""}` };
      const line = words ? `${command} ${words}` : command;
      const result = await runShell(line, root, env as Record<string, string>).catch((error: unknown) => {
        // Bun Shell throws on syntax it cannot parse: the user's string, not slp, is what to fix.
        throw new ConfigError(
          `the task ${name} is not a command slp's shell can run (${error instanceof Error ? error.message : String(error)})`,
          {
            file: CONFIG_FILE,
            fix: "write it as a plain shell command line (Bun Shell: pipes, &&, ||, > file, 2>&1)",
          },
        );
      });
      const { stderr, missing } = explainShellErrors(result.stderr.toString(), name);
      if (stderr) environment.log(stderr.replace(/\n$/, ""));
      // A command that is not installed means the task judged nothing: exit 2, never a pass or a block.
      const exitCode = missing && result.exitCode !== 0 ? 2 : result.exitCode;
      return {
        command: name,
        findings: [],
        text: result.stdout.toString(),
        exitCode,
        data: { command, exit_code: exitCode, stdout: result.stdout.toString(), stderr },
      };
    },
  });
}

/** Runs a command line with Bun Shell; a line it cannot parse rejects (it throws while building the command). */
async function runShell(line: string, cwd: string, env: Record<string, string>) {
  return await $`${{ raw: line }}`.cwd(cwd).env(env).nothrow().quiet();
}

/**
 * Bun Shell reports a missing program as `bun: command not found: X`, which
 * names a Bun the user may not have (inside the compiled binary). Say it as
 * slp, with the task's name and the fix.
 */
function explainShellErrors(stderr: string, task: string): { stderr: string; missing: boolean } {
  let missing = false;
  const text = stderr.replace(/^bun: command not found: (.+)$/gm, (_line, program: string) => {
    missing = true;
    return `slp: the task ${task} runs ${program}, which is not installed (not found on PATH); install ${program}, or change the task in slp.yml`;
  });
  return { stderr: text, missing };
}

let shimDir: string | undefined;
/** A folder holding an `slp` that runs this slp, put first on the shell's PATH. */
function selfShimDir(): string {
  if (shimDir) return shimDir;
  const dir = join(tmpdir(), `slp-shim-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const argv = selfCommand()
    .map((part) => `"${part}"`)
    .join(" ");
  writeFileSync(join(dir, "slp"), `#!/bin/sh\nexec ${argv} "$@"\n`);
  chmodSync(join(dir, "slp"), 0o755);
  writeFileSync(join(dir, "slp.cmd"), `@echo off\r\n${argv} %*\r\n`);
  shimDir = dir;
  return dir;
}

let registered = false;
/** Lets a task file `import ... from "spec-lock-diff"` reach this slp, in source and in the compiled binary. */
function registerApiModule(api: PublicApi): void {
  if (registered) return;
  registered = true;
  Bun.plugin({
    name: "spec-lock-diff public API",
    setup(build) {
      build.module("spec-lock-diff", async () => ({ exports: await api(), loader: "object" }));
    },
  });
}
