/** G5: a reconciliation query changed in the same branch as the model it checks. */
import { modelFingerprint } from "../context/gate-inventory.ts";
import { defineGateRule, specOf } from "../context/gate.ts";

export default defineGateRule({
  code: "G5",
  name: "reconciliation-changed-with-model",
  severity: "BLOCK",
  docs: {
    summary:
      "An analyses/reconciliation_* query named by a spec, added, removed or edited on a branch that also changes that model (its sql, or its yml entry beyond the pre-registration).",
    rationale:
      "The reconciliation checks the model against an independent source; written in the same change as the model, it can be made to agree with whatever the model now says. A reconciliation changed alone is silent; a brand-new model with a brand-new query fires, by design.",
    enforces: "Control 5B: the gate blocks a reconciliation changed in the same PR as the model it checks.",
  },
  messages: {
    changed: "{query} changed in the same PR as the model it checks; a human changes the reconciliation, in its own PR",
  },
  run(ctx, report) {
    const moved = new Set(ctx.changed(ctx.before.recons, ctx.after.recons));
    if (moved.size === 0) return;
    for (const model of ctx.headModels) {
      const query = specOf(model)?.reconciliation_query;
      if (typeof query !== "string" || !moved.has(query)) continue;
      if (modelFingerprint(ctx.before, model.name) === modelFingerprint(ctx.after, model.name)) continue;
      report("changed", { file: query, model: model.name, line: 1 }, { query });
    }
  },
});
