/** I7: the T2/T3 gaps of a model that carries no pre-registration, reported as a reading. */
import { edgeGaps, GAP_SENTENCES, mockGaps, RULE_2 } from "../shared/unit-gaps.ts";
import { defineCheckRule } from "../context/check.ts";

const READING = `; the model carries no pre-registration, so this is a reading: the rule blocks once the agent pre-registers a change${RULE_2}`;

export default defineCheckRule({
  code: "I7",
  name: "gaps-without-pre-registration",
  severity: "INFO",
  fix: "test",
  docs: {
    summary: "The gaps T2 and T3 would block, on a marts model that has no pre-registration yet.",
    rationale:
      "An existing project adopts Rule 2 one model at a time: the gaps are printed everywhere, and they block only on the models an agent is changing.",
    enforces: "Rule 2: each edge becomes a unit test naming it, mocking every input; shown as a reading until the model is pre-registered.",
  },
  messages: {
    untestedEdge: `${GAP_SENTENCES.untestedEdge}${READING}`,
    disabledEdge: `${GAP_SENTENCES.disabledEdge}${READING}`,
    unknownEdge: { text: `${GAP_SENTENCES.unknownEdge}${READING}`, fix: "human" },
    unmocked: `${GAP_SENTENCES.unmocked}${READING}`,
  },
  run(ctx, report) {
    for (const model of ctx.martsModels) {
      if (model.preRegistration !== null) continue;
      for (const gap of [...edgeGaps(ctx, model), ...mockGaps(ctx, model)]) {
        if (gap.kind === "untestedEdge") report("untestedEdge", gap, { edge: gap.edge });
        else if (gap.kind === "disabledEdge") report("disabledEdge", gap, { edge: gap.edge, unit: gap.unit, by: gap.by });
        else if (gap.kind === "unknownEdge") report("unknownEdge", gap, { unit: gap.unit, claim: gap.claim });
        else report("unmocked", gap, { unit: gap.unit, input: gap.input });
      }
    }
  },
});
