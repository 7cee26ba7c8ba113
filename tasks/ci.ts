/** `slp ci`: every stage task (check, gate, unit, ...) in order, one combined report and exit code. */
import { Type } from "@sinclair/typebox";
import type { Report } from "../src/core/report.ts";
import { MartsPathOption, ProjectDirOption } from "../src/project/slp/options.ts";
import { combineReports, inputFor, runStage, type StageResult } from "../src/runner/compose.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { registryOf } from "../src/runner/registry.ts";

export default defineTask({
  name: "ci",
  description: "Run every stage (check, gate, unit, mutate) in order: one combined report, the worst exit code",
  input: Type.Object({
    projectDir: ProjectDirOption,
    martsPath: MartsPathOption,
    base: Type.Optional(
      Type.String({
        metavar: "REF",
        description:
          "the base branch for gate and mutate (default: each one's own: SLP_BASE, then slp.yml's base, which gate takes only as the default branch has it, then main)",
      }),
    ),
    head: Type.Optional(Type.String({ metavar: "REF", description: "the commit gate judges (default HEAD)" })),
  }),
  async run({ input, environment }): Promise<Report> {
    const shared: Record<string, unknown> = {
      projectDir: input.projectDir,
      martsPath: input.martsPath,
      // Each stage defaults its base itself: gate takes slp.yml's only as the default branch has it.
      base: input.base,
      head: input.head,
    };
    const stages: StageResult[] = [];
    for (const task of registryOf(environment.registry).ciStages()) {
      stages.push(await runStage(task, inputFor(task, shared), environment));
    }
    return combineReports("ci", stages);
  },
});
