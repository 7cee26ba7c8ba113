/**
 * A dbt repository's own tasks, found at its root: shell strings under
 * `tasks:` in slp.yml (run with Bun Shell, the way `deno task` runs them;
 * `slp` inside the string is this slp) and TypeScript files under
 * `.slp/tasks/` that import slp's public API as `spec-lock-diff`.
 */
import { Type } from "@sinclair/typebox";
import { $ } from "bun";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ConfigError } from "../core/errors.ts";
import type { Report } from "../core/report.ts";
import { CONFIG_FILE, loadConfig, repositoryRoot } from "../project/slp/slp-yml.ts";
import { defineTask, type Task } from "./define-task.ts";
import { selfCommand } from "./self.ts";

export const USER_TASK_DIR = ".slp/tasks";
const TASK_NAME = /^[a-z][a-z0-9-]*$/;

/** slp's public API as a task file imports it (`spec-lock-diff`); the caller supplies it, so this module imports nothing above it. */
export type PublicApi = () => Promise<Record<string, unknown>>;

/** Every user task of the repository holding `cwd`; names must not clash with built-ins or each other. */
export async function loadUserTasks(cwd: string, builtIns: readonly Task<any, any>[], api: PublicApi): Promise<Task<any, any>[]> {
  const root = repositoryRoot(cwd);
  const { config, file } = loadConfig(cwd);
  const tasks: Task<any, any>[] = [];
  for (const [name, command] of Object.entries(config.tasks ?? {})) {
    if (!TASK_NAME.test(name)) {
      throw new ConfigError(`the task name '${name}' in slp.yml is not a word slp can run`, {
        file: file ?? undefined,
        fix: "use lower-case letters, digits and dashes, starting with a letter (e.g. lint-sql)",
      });
    }
    tasks.push(shellTask(name, command, root));
  }
  const folder = join(root, USER_TASK_DIR);
  if (existsSync(folder)) {
    registerApiModule(api);
    for (const entry of readdirSync(folder)
      .filter((f) => /\.(ts|js|mjs)$/.test(f))
      .sort()) {
      const path = join(folder, entry);
      const module = (await import(path)) as { default?: Task<any, any> };
      const task = module.default;
      if (!task || typeof task.name !== "string" || typeof task.run !== "function") {
        throw new ConfigError(`${USER_TASK_DIR}/${entry} does not export a task`, {
          file: `${USER_TASK_DIR}/${entry}`,
          fix: 'export default defineTask({ name, description, run }) from "spec-lock-diff"',
        });
      }
      tasks.push({ ...task, needs: task.needs ?? [], input: task.input ?? Type.Object({}), origin: "user" });
    }
  }
  const seen = new Set(builtIns.map((task) => task.name));
  for (const task of tasks) {
    if (seen.has(task.name)) {
      throw new ConfigError(
        `the task name ${task.name} is taken ${builtIns.some((t) => t.name === task.name) ? "by a built-in task" : "twice"}`,
        {
          file: file ?? undefined,
          fix: "give your task another name",
        },
      );
    }
    seen.add(task.name);
  }
  return tasks;
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
