#!/usr/bin/env bun
/**
 * The command line: argv -> task -> rendered report -> exit code. The only
 * module that knows about argv and the process; `main(argv, io)` runs in
 * tests in-process.
 */
import { asSlpError, UsageError, type SlpError } from "./core/errors.ts";
import { EXIT } from "./core/exit-codes.ts";
import { configureLimits } from "./core/limits.ts";
import { forgetFolders } from "./project/files.ts";
import { isReport, type Report } from "./core/report.ts";
import { renderJsonError } from "./report/json.ts";
import { RENDERERS } from "./report/renderers.ts";
import { helpOf, parseArgs } from "./runner/args.ts";
import type { Task, TaskEnvironment } from "./runner/define-task.ts";
import { runTask } from "./runner/runner.ts";
import { VERSION } from "./version.ts";
import { builtInTasks } from "../tasks/index.ts";
import { createRegistry } from "./runner/registry.ts";

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Standard input, when something is piped in (undefined on a terminal, so nothing waits for typing). */
  stdin?: () => Promise<string>;
}

const USAGE = "usage: slp [-h] [--version] {task} ...";

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const first = argv[0];
  if (first === undefined) {
    io.stderr(`${USAGE}\n`);
    return EXIT.cannotJudge;
  }
  if (first === "-h" || first === "--help") {
    io.stdout(topLevelHelp());
    return EXIT.ok;
  }
  if (first === "--version") {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  const viaRun = first === "run";
  const name = viaRun ? argv[1] : first;
  const rest = argv.slice(viaRun ? 2 : 1);
  const wantsJson = rest.some((arg, i) => arg === "--format=json" || (arg === "--format" && rest[i + 1] === "json"));
  const prefix = viaRun ? "slp run" : "slp";

  let task: Task<any, any> | undefined;
  try {
    configureLimits(io.env);
    forgetFolders();
    if (name === undefined || name.startsWith("-")) {
      throw new UsageError(
        name === undefined ? "the following arguments are required: task" : `unrecognized arguments: ${name}`,
        USAGE,
      );
    }
    const registry = createRegistry(builtInTasks, io.cwd, () => import("./index.ts"));
    task = await registry.find(name);
    if (!task) {
      const choices = (await registry.listed()).map((t) => t.name).join(", ");
      throw new UsageError(`argument task: invalid choice: '${name}' (choose from ${choices})`, USAGE);
    }
    const parsed = parseArgs(task, rest, prefix);
    if (parsed.help) {
      io.stdout(helpOf(task, prefix));
      return EXIT.ok;
    }
    const environment: TaskEnvironment = {
      cwd: io.cwd,
      env: io.env,
      log: (line) => io.stderr(`${line}\n`),
      readStdin: io.stdin,
      registry,
    };
    const result = await runTask(task, parsed.input, environment);
    const report: Report = isReport(result) ? result : { command: task.name, findings: [], text: "" };
    const rendered = (RENDERERS[parsed.format] ?? RENDERERS.text)!(report);
    if (rendered.stderr) io.stderr(rendered.stderr);
    io.stdout(rendered.stdout);
    return rendered.exitCode;
  } catch (thrown) {
    const error = asSlpError(thrown);
    return fail(error, task?.name ?? name ?? "slp", wantsJson, io, viaRun);
  }
}

function fail(error: SlpError, command: string, json: boolean, io: CliIO, viaRun: boolean): number {
  if (error instanceof UsageError) {
    const who = command === "slp" ? "slp" : viaRun ? `slp run ${command}` : `slp ${command}`;
    io.stderr(`${error.usage}\n${who}: error: ${error.message}\n`);
  } else {
    io.stderr(`ERROR ${error.describe()}\n`);
  }
  if (json) io.stdout(renderJsonError(command, error).stdout);
  return EXIT.cannotJudge;
}

function topLevelHelp(): string {
  const lines = [
    USAGE,
    "",
    "Spec-Lock-Diff: deterministic gates for dbt projects that AI agents write.",
    "",
    "tasks:",
    ...builtInTasks.filter((task) => !task.hidden).map((task) => `  ${task.name.padEnd(14)} ${task.description}`),
    "",
    "A repository's own tasks (slp.yml `tasks:`, .slp/tasks/*.ts) are listed by `slp tasks`.",
    "",
    "options:",
    "  -h, --help     show this help and exit",
    "  --version      print the version and exit",
    "",
    "Run `slp <task> --help` for a task's flags; `slp run <task>` is the same as `slp <task>`.",
  ];
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) {
  // No top-level await: the compiled binary is bytecode, which CommonJS output allows and TLA does not.
  void main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin.isTTY ? undefined : () => Bun.stdin.text(),
  }).then((code) => {
    process.exitCode = code;
  });
}
