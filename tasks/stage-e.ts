/** `slp stage-e`: the whole of framework Stage E in one command: diff, reconcile, compare; one report, the worst exit code. */
import { Type } from "@sinclair/typebox";
import { join, relative, resolve } from "node:path";
import type { Report } from "../src/core/report.ts";
import { EXIT } from "../src/core/exit-codes.ts";
import { StageOptions } from "../src/data/output.ts";
import { outFolder } from "../src/data/stage-e-settings.ts";
import { loadConfig } from "../src/project/slp/slp-yml.ts";
import { combineReports, inputFor, runStage, type StageResult } from "../src/runner/compose.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { registryOf } from "../src/runner/registry.ts";

export default defineTask({
  name: "stage-e",
  description: "Stage E in one command: slp diff, slp reconcile, then slp compare on the diffs just written",
  input: Type.Object({
    ...StageOptions,
    sources: Type.Optional(Type.String({ metavar: "TEMPLATE", description: "where source('s', 't') is, for reconciliation queries" })),
  }),
  async run({ input, environment }): Promise<Report> {
    const registry = registryOf(environment.registry);
    const shared: Record<string, unknown> = { ...input };
    const stages: StageResult[] = [];
    const step = async (name: string, extra: Record<string, unknown> = {}) => {
      const task = (await registry.find(name)) as NonNullable<Awaited<ReturnType<typeof registry.find>>>;
      const result = await runStage(task, { ...inputFor(task, shared), ...extra }, environment);
      stages.push(result);
      return result;
    };
    const diff = await step("diff");
    // A diff that could not be measured leaves nothing to reconcile or compare.
    if (diff.exitCode === EXIT.ok) {
      const reconcile = await step("reconcile");
      if (reconcile.exitCode === EXIT.ok) {
        const out = (diff.report.data as { out: string; models: string[] }).models;
        const project = resolve(environment.cwd, input.projectDir);
        const folder = outFolder(input.out, environment.cwd, project, loadConfig(project)).path;
        await step("compare", { diffs: out.map((model) => relative(environment.cwd, join(folder, `${model}.json`)) || `${model}.json`) });
      }
    }
    return combineReports("stage-e", stages);
  },
});
