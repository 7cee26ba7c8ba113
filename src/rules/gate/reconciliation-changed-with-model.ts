/** G5: a reconciliation query changed in the same branch as the model it checks. */
import { sortByText } from "../../core/text.ts";
import { modelFingerprint } from "../context/gate-inventory.ts";
import { defineGateRule, specOf } from "../context/gate.ts";

export default defineGateRule({
  code: "G5",
  name: "reconciliation-changed-with-model",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "An analyses/reconciliation_* query named by a spec, added, removed or edited on a branch that also changes that model (its sql, or its yml entry beyond the pre-registration), or anything it is built from (a model, seed, snapshot, source or macro upstream, as slp.yml's lineage follows it).",
    rationale:
      "The reconciliation checks the model against an independent source; written in the same change as the model, it can be made to agree with whatever the model now says, and a change upstream moves the model's numbers as surely as one in its own SQL. A reconciliation changed alone is silent; a brand-new model with a brand-new query fires, by design.",
    enforces: "Control 5B: the gate blocks a reconciliation changed in the same PR as the model it checks.",
  },
  messages: {
    changed: "{query} changed in the same PR as the model it checks; a human changes the reconciliation, in its own PR",
    upstream:
      "{query} changed in the same PR as {changed}, which the model it checks is built from; a human changes the reconciliation, in its own PR",
  },
  async run(ctx, report) {
    const moved = new Set(ctx.changed(ctx.before.recons, ctx.after.recons));
    if (moved.size === 0) return;
    for (const model of ctx.headModels) {
      const query = specOf(model)?.reconciliation_query;
      if (typeof query !== "string" || !moved.has(query)) continue;
      const place = { file: query, model: model.name, line: 1 };
      if (modelFingerprint(ctx.before, model.name) !== modelFingerprint(ctx.after, model.name)) {
        report("changed", place, { query });
        continue;
      }
      // What it is built from moved the same numbers (slp.yml's lineage, from the base, says how far to follow).
      if (ctx.lineage === "off") continue;
      const changes = await ctx.changes();
      if (changes.nodes.size === 0) continue;
      const reached = await changes.reached();
      const node = changes.after.models.find((candidate) => candidate.name === model.name && candidate.latest);
      const upstream = (node ? (reached.get(node.uniqueId) ?? []) : [])
        .filter((id) => id !== node?.uniqueId)
        .map((id) => changes.nodes.get(id))
        .filter((change) => change !== undefined)
        .map((change) => `${change.name} (${change.what.join(", ")})`);
      if (upstream.length > 0) report("upstream", place, { query, changed: sortByText(upstream).join(", ") });
    }
  },
});
