/** `slp check`: the spec, pre-registrations and tests of a dbt project, read from the working tree. */
import { Type } from "@sinclair/typebox";
import { plural } from "../src/core/text.ts";
import type { Report } from "../src/core/report.ts";
import { lineageEnvironment, MartsPathOption, ProjectDirOption, resolveProjectOnDisk } from "../src/project/slp/options.ts";
import { openWorkTree } from "../src/project/open.ts";
import { CheckContext, readCheckProject } from "../src/rules/context/check.ts";
import { checkRules } from "../src/rules/check-rules.ts";
import { defineTask } from "../src/runner/define-task.ts";

export default defineTask({
  name: "check",
  description: "Check specs, pre-registrations and tests in the working tree (S1-S6, P1, P2, T1-T3, I5, I7)",
  ciOrder: 10,
  input: Type.Object({ projectDir: ProjectDirOption, martsPath: MartsPathOption }),
  async run({ input, environment }): Promise<Report> {
    const resolved = resolveProjectOnDisk(environment.cwd, input.projectDir, input.martsPath);
    const project = await readCheckProject(
      openWorkTree(resolved.dir, environment.env),
      resolved.dir,
      resolved.dirAsGiven,
      resolved.martsPaths,
    );
    project.lineage = lineageEnvironment(resolved, environment);
    const context = new CheckContext(project);
    const findings = [];
    for (const rule of checkRules) findings.push(...(await rule.findings(context)));
    // Read even when no rule needed it: a CODEOWNERS GitHub cannot read (a NUL byte) is refused, never passed over.
    context.codeowners();
    const martsCount = context.martsModels.length;
    const read = project.models.size;
    const note = `${martsCount === 0 ? "no model" : plural(martsCount, "model")} in ${resolved.martsPaths.join(", ")}, of ${
      read === 0 ? "none" : plural(read, "model")
    } read`;
    return {
      command: "check",
      findings,
      note,
      notes: resolved.config.warnings,
      scope: [{ rules: checkRules.map((rule) => rule.code), models: context.models.map((model) => model.name) }],
      data: { marts_models: martsCount, models_read: read, marts_paths: resolved.martsPaths },
    };
  },
});
