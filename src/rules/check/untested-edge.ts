/** T2: a spec edge no unit test names, or a unit test naming an edge the spec lacks. */
import { edgeGaps, GAP_SENTENCES, RULE_2 } from "../shared/unit-gaps.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "T2",
  name: "untested-edge",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary:
      "On a pre-registered marts model: a known edge that no enabled unit test names in config.meta.edge (a disabled test proves nothing), or a unit test naming an edge the spec does not have.",
    rationale:
      "Each edge the Author knows becomes a unit test; the name in config.meta.edge is the only thing that lets a machine tell which test proves which edge.",
    enforces: "Rule 2: each edge of the spec becomes a unit test with invented rows, naming the edge verbatim in config.meta.edge.",
  },
  messages: {
    untestedEdge: `${GAP_SENTENCES.untestedEdge}${RULE_2}`,
    disabledEdge: `${GAP_SENTENCES.disabledEdge}${RULE_2}`,
    // Without the citation, as the reference words it (spec/rules.md §2.1 T2).
    unknownEdge: { text: GAP_SENTENCES.unknownEdge, fix: "human" },
  },
  run(ctx, report) {
    for (const model of ctx.martsModels) {
      if (model.preRegistration === null) continue;
      for (const gap of edgeGaps(ctx, model)) {
        if (gap.kind === "untestedEdge") report("untestedEdge", gap, { edge: gap.edge });
        else if (gap.kind === "disabledEdge") report("disabledEdge", gap, { edge: gap.edge, unit: gap.unit, by: gap.by });
        else if (gap.kind === "unknownEdge") report("unknownEdge", gap, { unit: gap.unit, claim: gap.claim });
      }
    }
  },
});
