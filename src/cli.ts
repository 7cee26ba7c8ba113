#!/usr/bin/env bun
/**
 * The command line: argv -> task -> rendered report -> exit code. The only
 * module that knows about argv and the process; `main(argv, io)` runs in
 * tests in-process.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { asSlpError, InputError, UsageError, type SlpError } from "./core/errors.ts";
import { EXIT } from "./core/exit-codes.ts";
import { configureLimits } from "./core/limits.ts";
import { forgetEnvValues, maskEnvValues } from "./core/env-values.ts";
import { forgetFolders } from "./project/files/files.ts";
import { isReport, type Report } from "./core/report.ts";
import { pathLocator, summaryOf, type RenderContext, type Rendered } from "./report/format.ts";
import { isFormatName, loadFormat } from "./report/renderers.ts";
import { formatsOf, helpOf, parseArgs } from "./runner/args.ts";
import type { Task, TaskEnvironment, TaskRegistry } from "./runner/define-task.ts";
import { runTask } from "./runner/runner.ts";
import { VERSION } from "./version.ts";
import type { nearestNames as NearestNames } from "./runner/nearest-names.ts";
import { delegateTo, overridingBinary } from "./runner/self.ts";

/**
 * The tasks whose start is measured against a budget (issues 11 and 12): loaded
 * alone, a third of the modules every task holds, and the rest only when a
 * run asks for the registry. A built-in name always means the built-in task,
 * so this finds what the registry would.
 */
export const STARTED_ALONE: Record<string, () => Promise<{ default: Task<any, any> }>> = {
  check: () => import("../tasks/check.ts"),
  gate: () => import("../tasks/gate.ts"),
  unit: () => import("../tasks/unit.ts"),
};

/** Every built-in task, loaded when first asked for. */
function builtInTasks(): readonly Task<any, any>[] {
  return (require("../tasks/index.ts") as typeof import("../tasks/index.ts")).builtInTasks;
}

function registryModule(): typeof import("./runner/registry.ts") {
  return require("./runner/registry.ts") as typeof import("./runner/registry.ts");
}

/** The registry of a run, built (every task loaded) when a task or the CLI first asks it something. */
function lazyRegistry(cwd: string): TaskRegistry {
  let registry: TaskRegistry | undefined;
  // Loaded with the first question: the registry reads slp.yml's tasks (TypeBox, the config schema), which --version,
  // --help of a built-in task and the tasks started alone never need.
  const built = () => (registry ??= registryModule().createRegistry(builtInTasks(), cwd, () => import("./index.ts")));
  return {
    get builtIns() {
      return built().builtIns;
    },
    find: (name) => built().find(name),
    listed: () => built().listed(),
    ciStages: () => built().ciStages(),
  };
}

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
  if (first === "-h" || first === "--help" || (first === "help" && argv.length === 1)) {
    io.stdout(await topLevelHelp(io));
    return EXIT.ok;
  }
  // `slp help TASK` is `slp TASK --help`.
  if (first === "help") return main([...argv.slice(1), "--help"], io);
  if (first === "--version") {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  const viaRun = first === "run";
  const name = viaRun ? argv[1] : first;
  const rest = argv.slice(viaRun ? 2 : 1);
  const prefix = viaRun ? "slp run" : "slp";

  let task: Task<any, any> | undefined;
  try {
    configureLimits(io.env);
    forgetFolders();
    forgetEnvValues();
    if (viaRun && (name === "-h" || name === "--help")) {
      const registry = lazyRegistry(io.cwd);
      io.stdout(runHelp((await registry.listed()).map((listed) => listed.name)));
      return EXIT.ok;
    }
    if (name === undefined || name.startsWith("-")) {
      throw new UsageError(name === undefined ? "the following arguments are required: task" : `unrecognized arguments: ${name}`, USAGE);
    }
    const registry = lazyRegistry(io.cwd);
    task = (await STARTED_ALONE[name]?.())?.default ?? (await registry.find(name));
    if (!task) {
      // The repository's task files are read for their names here, never run.
      const names = (await registry.listed()).map((t) => t.name);
      // Loaded only for a name no task has: a run of a known task never pays for it.
      const { nearestNames } = require("./runner/nearest-names.ts") as { nearestNames: typeof NearestNames };
      const nearest = nearestNames(name, names);
      const guess = nearest.length > 0 ? `; did you mean ${nearest.map((n) => `'${n}'`).join(" or ")}?` : "";
      throw new UsageError(`argument task: invalid choice: '${name}'${guess} (choose from ${names.join(", ")})`, USAGE);
    }
    const parsed = parseArgs(task, rest, prefix);
    if (parsed.help) {
      io.stdout(helpOf(task, prefix));
      return EXIT.ok;
    }
    const environment: TaskEnvironment = {
      cwd: io.cwd,
      env: io.env,
      log: (line) => io.stderr(maskEnvValues(`${line}\n`)),
      // Asked only by the tasks that read standard input: looking at it costs a start ~10 ms of stream machinery.
      get readStdin() {
        return io.stdin;
      },
      registry,
    };
    const result = await runTask(task, parsed.input, environment);
    const report: Report = isReport(result) ? result : { command: task.name, findings: [], text: "" };
    const format = await loadFormat(parsed.format);
    const rendered = format.render(report, renderContext(io, parsed.input, parsed.quiet, report.filesAsGiven));
    deliver(rendered, parsed.output, io, summaryOf(report));
    return rendered.exitCode;
  } catch (thrown) {
    const error = asSlpError(thrown);
    return await fail(error, task, name, rest, io, viaRun);
  }
}

/** What the renderers need to know of this run: where the project is, --quiet, the environment. */
function renderContext(io: CliIO, input: Record<string, unknown>, quiet: boolean, filesAsGiven?: string[]): RenderContext {
  const projectDir = typeof input.projectDir === "string" ? input.projectDir : ".";
  return { locate: pathLocator({ cwd: io.cwd, projectDir, root: io.env.GITHUB_WORKSPACE || undefined, filesAsGiven }), quiet, env: io.env };
}

/**
 * The rendered report to stdout, or with --output to the file (the summary
 * line still on the terminal); GitHub's job summary appended to
 * $GITHUB_STEP_SUMMARY when the format wrote one.
 */
function deliver(rendered: Rendered, output: string | undefined, io: CliIO, summary: string | null): void {
  // Every output of a run passes here: no value env_var() handed a template leaves it.
  if (rendered.stderr) io.stderr(maskEnvValues(rendered.stderr));
  if (output === undefined) io.stdout(maskEnvValues(rendered.stdout));
  else {
    const target = resolve(io.cwd, output);
    try {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, maskEnvValues(rendered.stdout));
    } catch (error) {
      throw new InputError(`--output ${output} cannot be written: ${(error as Error).message}`, { fix: "choose a path you can write to" });
    }
    if (summary !== null) io.stdout(`${summary}\n`);
  }
  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  if (rendered.stepSummary !== undefined && stepSummary) {
    try {
      appendFileSync(resolve(io.cwd, stepSummary), `${maskEnvValues(rendered.stepSummary)}\n`);
    } catch (error) {
      io.stderr(`WARNING the job summary (GITHUB_STEP_SUMMARY=${stepSummary}) cannot be written: ${(error as Error).message}\n`);
    }
  }
}

async function fail(
  error: SlpError,
  task: Task<any, any> | undefined,
  name: string | undefined,
  args: readonly string[],
  io: CliIO,
  viaRun: boolean,
): Promise<number> {
  const command = task?.name ?? name ?? "slp";
  if (error instanceof UsageError) {
    const who = command === "slp" ? "slp" : viaRun ? `slp run ${command}` : `slp ${command}`;
    io.stderr(`${error.usage}\n${who}: error: ${error.message}\n`);
  } else {
    io.stderr(maskEnvValues(`ERROR ${error.describe()}\n`));
  }
  // A run that could not judge still answers in the format asked for, so a CI parser reads a failure, not nothing.
  const asked = requested(args);
  if (asked.format === "text" || (task && !formatsOf(task).includes(asked.format))) return EXIT.cannotJudge;
  const format = await loadFormat(asked.format);
  try {
    deliver(format.renderError(command, error, renderContext(io, { projectDir: asked.projectDir }, false)), asked.output, io, null);
  } catch (writeError) {
    io.stderr(`ERROR ${asSlpError(writeError).describe()}\n`);
  }
  return EXIT.cannotJudge;
}

const RUN_USAGE = "usage: slp run [-h] {task} ...";

/** `slp run --help`: what `run` does and the tasks it can run, the repository's own included. */
function runHelp(names: readonly string[]): string {
  return `${RUN_USAGE}\n\nRun a task by name: a built-in one or the repository's own (slp.yml \`tasks:\`, .slp/tasks/*.ts).\n\ntasks: ${names.join(", ")}\n\nRun \`slp run <task> --help\` for a task's flags.\n`;
}

/** --format, --output and --project-dir read straight from argv, for an error raised before (or while) the flags were parsed. */
function requested(args: readonly string[]): { format: string; output?: string; projectDir?: string } {
  const value = (flag: string): string | undefined => {
    for (let i = args.length - 1; i >= 0; i--) {
      const arg = args[i] as string;
      if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
      if (arg === flag && args[i + 1] !== undefined) return args[i + 1];
    }
    return undefined;
  };
  const format = value("--format");
  return {
    format: format !== undefined && isFormatName(format) ? format : "text",
    output: value("--output"),
    projectDir: value("--project-dir"),
  };
}

/** `slp --help`: the built-in tasks, then the repository's own (read from their files, never run). */
async function topLevelHelp(io: CliIO): Promise<string> {
  let yours: string[];
  try {
    const listed = (await lazyRegistry(io.cwd).listed()).filter((task) => task.origin === "user");
    yours =
      listed.length === 0
        ? []
        : [
            "",
            "your tasks (slp.yml `tasks:`, .slp/tasks/*.ts):",
            ...listed.map((task) => `  ${task.name.padEnd(14)} ${registryModule().describe(task)}`),
          ];
  } catch (error) {
    // Help still helps; what is wrong with the repository's tasks is said, and `slp tasks` exits 2 on it.
    io.stderr(`WARNING your tasks cannot be listed: ${asSlpError(error).describe()}\n`);
    yours = [];
  }
  const lines = [
    USAGE,
    "",
    "Spec-Lock-Diff: deterministic gates for dbt projects that AI agents write.",
    "",
    "tasks:",
    ...builtInTasks()
      .filter((task) => !task.hidden)
      .map((task) => `  ${task.name.padEnd(14)} ${task.description}`),
    ...yours,
    "",
    "`slp tasks` lists every task; a repository's own come from slp.yml `tasks:` and .slp/tasks/*.ts.",
    "",
    "options:",
    "  -h, --help     show this help and exit",
    "  --version      print the version and exit",
    "",
    "Run `slp <task> --help` (or `slp help <task>`) for a task's flags; `slp run <task>` is the same as `slp <task>`.",
  ];
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) runFromCommandLine();

function runFromCommandLine(): void {
  const override = overridingBinary(process.env);
  if (override !== undefined) {
    if (!existsSync(override)) {
      process.stderr.write(`ERROR SLP_BINARY_PATH is ${override}, and there is no file there; point it at an slp binary, or unset it\n`);
      process.exitCode = EXIT.cannotJudge;
    } else process.exitCode = delegateTo(override, process.argv.slice(2), process.env);
    return;
  }
  // Until main settles the exit code is "could not judge": a process that ends early never passes.
  process.exitCode = EXIT.cannotJudge;
  // Bun.write, one write after the other: process.stdout and process.stderr build node's stream machinery (~14 ms of CPU) on first use.
  let written: Promise<unknown> = Promise.resolve();
  const writeTo = (sink: typeof Bun.stdout) => (text: string) => {
    // A reader that went away (`slp check | head`) loses the rest of the text, and nothing else.
    written = written.then(() => Bun.write(sink, text)).catch(() => undefined);
  };
  // No top-level await: the compiled binary is bytecode, which CommonJS output allows and TLA does not.
  void main(process.argv.slice(2), {
    stdout: writeTo(Bun.stdout),
    stderr: writeTo(Bun.stderr),
    cwd: process.cwd(),
    env: process.env,
    get stdin() {
      return process.stdin.isTTY ? undefined : () => Bun.stdin.text();
    },
  }).then((code) => {
    process.exitCode = code;
  });
}
