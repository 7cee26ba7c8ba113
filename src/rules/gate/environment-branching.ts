/** G16: SQL that reads the environment (target, env_var, invocation_id, run_started_at, flags, execute), added to a mart or to anything upstream of one. */
import { sortByText } from "../../core/text.ts";
import { addedReferences } from "../../project/environment.ts";
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G16",
  name: "environment-branching",
  severity: "BLOCK",
  docs: {
    summary:
      "A reference to the environment dbt runs in (target.*, env_var(), invocation_id, run_started_at, flags, execute) that this branch adds to the Jinja of a marts model, or of a model or snapshot upstream of one. A macro's own change is G9's (macros are protected).",
    rationale:
      "SQL that branches on the environment runs one way in unit tests and CI and another in production: every unit test, mutant and diff then proves something about SQL production never runs. What is already on the base is the Author's; what the branch adds is the agent's.",
    enforces: "Rule 2 and Stage C: the unit tests prove the SQL that ships; Stage E compares the branch's build with production's.",
  },
  messages: {
    marts:
      "{file} now reads {expression} (added on this branch): this marts model then runs different SQL in unit tests, in CI and in production, and what its tests prove need not hold where it runs",
    upstream:
      "{file} now reads {expression} (added on this branch) and feeds {marts}: the rows built from it then differ between unit tests, CI and production, and what the tests prove need not hold where it runs",
  },
  async run(ctx, report) {
    const changes = await ctx.changes();
    const { graph, after } = changes;
    const marts = new Set(after.models.filter((node) => ctx.isMarts(node.name)).map((node) => node.uniqueId));
    const scope = new Set([...marts, ...graph.upstream(marts)]);
    const base = await ctx.before.project.nodes();
    for (const node of [...after.models, ...after.snapshots]) {
      if (!scope.has(node.uniqueId) || node.file === null || !node.file.endsWith(".sql")) continue;
      const what = changes.nodes.get(node.uniqueId)?.what ?? [];
      if (!what.includes("its SQL") && !what.includes("new")) continue;
      const was = base.byId.get(node.uniqueId);
      const before = was?.file?.endsWith(".sql") ? await ctx.before.project.text(was.file) : null;
      const added = addedReferences(await ctx.after.project.text(node.file), before);
      if (added.length === 0) continue;
      const isMarts = ctx.isMarts(node.name);
      const fed = isMarts ? [] : graph.downstream([node.uniqueId]).filter((id) => marts.has(id)).map((id) => after.byId.get(id)?.name ?? id);
      for (const reference of added) {
        const place = { file: node.file, model: node.name, line: reference.line };
        if (isMarts) report("marts", place, { file: node.file, expression: reference.expression });
        else report("upstream", place, { file: node.file, expression: reference.expression, marts: `the marts model${fed.length === 1 ? "" : "s"} ${sortByText(fed).join(", ")}` });
      }
    }
  },
});
