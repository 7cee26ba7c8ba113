/** T3: a unit test that does not mock every ref/source its model reads. */
import { GAP_SENTENCES, mockGaps, RULE_2 } from "../shared/unit-gaps.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "T3",
  name: "unmocked-input",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary: "On a pre-registered marts model: a unit test with no given rows for a ref or source the model's SQL reads.",
    rationale:
      "A unit test that reads a real relation is not a unit test: it needs a warehouse, costs money in the agent's loop, and its verdict depends on data nobody wrote down.",
    enforces: "Rule 2: each unit test mocks every ref/source in given, with invented rows.",
  },
  messages: {
    unmocked: `${GAP_SENTENCES.unmocked}${RULE_2}`,
  },
  run(ctx, report) {
    for (const model of ctx.martsModels) {
      if (model.preRegistration === null) continue;
      for (const gap of mockGaps(ctx, model)) {
        if (gap.kind === "unmockedInput") report("unmocked", gap, { unit: gap.unit, input: gap.input });
      }
    }
  },
});
