/** G8: a marts model's sql changed without a pre-registration of this branch's own. */
import { sortByText } from "../../core/text.ts";
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G8",
  name: "sql-without-pre-registration",
  severity: "BLOCK",
  fix: "pre-registration",
  docs: {
    summary:
      "A marts model whose sql is new or changed on this branch while its meta.pre_registration at head is missing, or is the one the base already has (its reason re-spaced, re-cased or re-punctuated, or its altered_columns reordered, is still the base's).",
    rationale:
      "Compare holds a changed model's numbers against the intervals its pre-registration predicted; with no prediction, or one written for an earlier change, nothing holds them. A yml-only change never asks for one; an undeclared sql is S4's; a moved file with the same content is not a change; a version's file (fct_orders_v2.sql), or latest_version pointed at another version, is its model's code.",
    enforces: "Stage C cannot start without a valid pre-registration; Stage B: a pre-registration belongs to one PR.",
  },
  messages: {
    missing:
      "the sql of this model changed on this branch and it carries no meta.pre_registration; nothing downstream has an interval to hold its numbers against, and compare will not so much as look at it",
    inherited:
      "the sql of this model changed on this branch and its meta.pre_registration is the one {base} already has; a prediction written for an earlier change is not this change's, and counts as absent",
  },
  run(ctx, report) {
    // A version's file (fct_orders_v2.sql) is the code of the model it versions.
    for (const name of sortByText(ctx.codeChanged)) {
      const model = ctx.after.models.get(name);
      if (!model || !ctx.isMarts(name)) continue;
      const gap = ctx.preRegistrationGap(name);
      if (gap === "missing") report("missing", ctx.place(name));
      else if (gap === "inherited") report("inherited", ctx.place(name), { base: ctx.baseName });
    }
  },
});
