/** T3: a unit test that does not mock every ref/source its model reads. */
import { mockGaps } from "../shared/unit-gaps.ts";
import { defineCheckRule } from "../context/check.ts";
import { RULE_2 } from "./untested-edge.ts";

export default defineCheckRule({
  code: "T3",
  name: "unmocked-input",
  severity: "BLOCK",
  docs: {
    summary: "On a pre-registered marts model: a unit test with no given rows for a ref or source the model's SQL reads.",
    rationale:
      "A unit test that reads a real relation is not a unit test: it needs a warehouse, costs money in the agent's loop, and its verdict depends on data nobody wrote down.",
    enforces: "Rule 2: each unit test mocks every ref/source in given, with invented rows.",
  },
  messages: {
    unmocked: `unit test '{unit}' has no given rows for {input}, which the model reads; dbt has nothing to mock it with, and a unit test that reads a relation is not a unit test${RULE_2}`,
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
