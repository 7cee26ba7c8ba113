/** G16: SQL that reads the environment (target, env_var, invocation_id, run_started_at, flags, execute), added to a mart or to anything upstream of one. */
import { sortByText } from "../../core/text.ts";
import { isMapping, type Mapping, type Value } from "../../core/values.ts";
import { addedReferences, type EnvironmentReference } from "../../project/dbt/environment.ts";
import type { Graph, RefNode } from "../../project/model.ts";
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G16",
  name: "environment-branching",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary:
      "A reference to the environment dbt runs in (target.*, env_var(), invocation_id, run_started_at, flags, execute) that this branch adds to the Jinja of a marts model, or of a model or snapshot upstream of one: its SQL, or its yml config (a pre_hook, a materialized written as Jinja). A macro's own change is G9's (macros are protected).",
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
    const { after } = changes;
    // The references each changed SQL (or yml config) adds come first: the DAG is read only when one is found outside marts.
    const found: { node: RefNode; file: string; line: number | null; added: EnvironmentReference[] }[] = [];
    for (const node of [...after.models, ...after.snapshots]) {
      const what = changes.nodes.get(node.uniqueId)?.what ?? [];
      const isNew = what.includes("new");
      if (node.file?.endsWith(".sql") && (isNew || what.includes("its SQL"))) {
        const baseFile = await changes.baseFile(node);
        const before = baseFile?.endsWith(".sql") ? await ctx.before.project.text(baseFile) : null;
        const added = addedReferences(await ctx.after.project.text(node.file), before);
        if (added.length > 0) found.push({ node, file: node.file, line: null, added });
      }
      // A yml config dbt renders (a pre_hook, a materialized written as Jinja) is the model's SQL too.
      const declared = node.kind === "model" ? ctx.after.models.get(node.name) : undefined;
      if (declared && (isNew || what.includes("its config"))) {
        const base = ctx.before.models.get(node.name);
        const added = addedReferences(configText(declared.entry), base ? configText(base.entry) : null);
        if (added.length > 0) found.push({ node, file: declared.file, line: declared.line, added });
      }
    }
    if (found.length === 0) return;
    const marts = new Set(after.models.filter((node) => ctx.isMarts(node.name)).map((node) => node.uniqueId));
    const graph = found.every(({ node }) => marts.has(node.uniqueId)) ? null : await changes.graph();
    for (const { node, file, line, added } of found) {
      const fed = marts.has(node.uniqueId)
        ? []
        : (graph as Graph)
            .downstream([node.uniqueId])
            .filter((id) => marts.has(id))
            .map((id) => after.byId.get(id)?.name ?? id);
      if (!marts.has(node.uniqueId) && fed.length === 0) continue;
      for (const reference of added) {
        const place = { file, model: node.name, line: line ?? reference.line };
        if (fed.length === 0) report("marts", place, { file, expression: reference.expression });
        else
          report("upstream", place, {
            file,
            expression: reference.expression,
            marts: `the marts model${fed.length === 1 ? "" : "s"} ${sortByText(fed).join(", ")}`,
          });
      }
    }
  },
});

/** Every text of a yml entry's config and its versions' configs, one a line: what dbt renders of it. */
function configText(entry: Mapping): string {
  const texts: string[] = [];
  const collect = (value: Value | undefined) => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (isMapping(value)) for (const key of Object.keys(value).sort()) collect(value[key]);
  };
  collect(entry.config);
  if (Array.isArray(entry.versions)) for (const version of entry.versions) if (isMapping(version)) collect(version.config);
  return texts.join("\n");
}
