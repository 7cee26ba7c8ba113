/** `slp tcr "message"`: check, gate, unit, mutate (of the changed marts); green commits, red reverts; five reds in a row stop the agent. */
import { Type } from "@sinclair/typebox";
import { resolve } from "node:path";
import { ConfigError, InputError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { defaultBase } from "../src/project/slp/slp-yml.ts";
import { ProjectDirOption } from "../src/project/slp/options.ts";
import { inputFor, takesInput } from "../src/runner/compose.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { registryOf } from "../src/runner/registry.ts";
import type { TcrStep } from "../src/tcr/run.ts";

/** Mutate judges the models changed against the base, as `slp ci` will: a survivor is red here, not a surprise there. */
export const DEFAULT_STEPS = ["check", "gate", "unit", "mutate"];

export default defineTask({
  name: "tcr",
  description:
    "The agent's loop: check, gate, unit tests and mutants of the changed models; green commits the change, red reverts it (five reds stop)",
  input: Type.Object({
    message: Type.Optional(Type.String({ positional: true, metavar: "MESSAGE", description: "the commit message of this step" })),
    projectDir: ProjectDirOption,
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          "judge the step exactly as a real run would and say what would be committed or reverted, changing nothing (hooks are not run)",
      }),
    ),
    reset: Type.Optional(
      Type.String({
        metavar: "REASON",
        description: "clear the strike count after a human has looked, saying why (logged, and recorded in the next commit)",
      }),
    ),
    status: Type.Optional(
      Type.Boolean({
        description: "show the strike count, the last attempts and the saved reverted ones (their numbers for --restore); changes nothing",
      }),
    ),
    restore: Type.Optional(
      Type.Integer({
        minimum: 1,
        metavar: "N",
        description:
          "put saved reverted attempt N (from --status) back in the work tree; refused, changing nothing, when it would overwrite uncommitted changes",
      }),
    ),
    author: Type.Optional(Type.String({ metavar: "'NAME <EMAIL>'", description: "who commits (default: git's own identity)" })),
  }),
  async run({ input, environment }): Promise<Report> {
    const projectDir = resolve(environment.cwd, input.projectDir);
    // Loaded on use: git for this task only.
    const { resetStrikes, runTcr } = await import("../src/tcr/run.ts");
    const chosen = [
      input.reset !== undefined && "--reset",
      input.status === true && "--status",
      input.restore !== undefined && "--restore",
    ];
    const modes = chosen.filter((mode): mode is string => typeof mode === "string");
    if (modes.length > 1 || (modes.length === 1 && input.message !== undefined)) {
      throw new InputError(`${[...modes, ...(input.message !== undefined ? ["a message"] : [])].join(" and ")} cannot be given together`, {
        fix: "run one of them at a time",
      });
    }
    if (input.reset !== undefined) return resetStrikes(projectDir, input.reset, environment);
    if (input.status === true || input.restore !== undefined) {
      const { restoreAttempt, tcrStatus } = await import("../src/tcr/history.ts");
      if (input.restore === undefined) return tcrStatus(projectDir);
      // The command line gives every option as text.
      const number = Number(input.restore);
      if (!Number.isInteger(number) || number < 1) {
        throw new InputError(`--restore takes the number of a saved attempt, not "${input.restore}"`, {
          fix: "slp tcr --status lists the saved attempts with their numbers",
        });
      }
      return restoreAttempt(projectDir, number, environment);
    }
    const { headConfig } = await import("../src/tcr/config.ts");
    // The loop's own settings come from HEAD: a step cannot change what judges it.
    const { config, file, notes } = await headConfig(projectDir);
    const base = defaultBase(environment.env, config);
    const registry = registryOf(environment.registry);
    const steps: TcrStep[] = (typeof config.tcr === "object" ? (config.tcr.steps ?? DEFAULT_STEPS) : DEFAULT_STEPS).map((name) => {
      const task = registry.builtIns.find((candidate) => candidate.name === name);
      if (!task || task.name === "tcr") {
        throw new ConfigError(`tcr step '${name}' is not a task slp knows`, {
          file: file ?? undefined,
          fix: "list built-in tasks from `slp tasks` under tcr.steps",
        });
      }
      const stepInput = inputFor(task, { projectDir: input.projectDir, base, verifyCommits: false });
      return { name, task, input: stepInput, judgesCommit: takesInput(task, "head"), takesBase: takesInput(task, "base") };
    });
    return runTcr({
      message: input.message ?? "",
      projectDir,
      base,
      steps,
      dryRun: input.dryRun === true,
      author: input.author,
      environment,
      notes,
    });
  },
});
