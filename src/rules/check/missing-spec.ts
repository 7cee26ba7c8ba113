/** S1: a marts model has no spec, so nothing says what it should do. */
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "S1",
  name: "missing-spec",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary: "A marts model without meta.spec.",
    rationale:
      "Without a spec nobody decided what the model should do before the code was written, so no test, diff or review has anything to hold it against.",
    enforces: 'Stage A: "In all models within models/marts/**" the Author writes the spec before any code (Rule 1: no spec, stop and ask).',
  },
  messages: {
    missingSpec:
      "this marts model has no meta.spec; a human writes its grain, primary_key, tier, metrics, known_edges and sensitive_columns before any code (framework Stage A)",
  },
  run(ctx, report) {
    for (const model of ctx.martsModels) {
      if (model.spec === null) report("missingSpec", ctx.at(model));
    }
  },
});
