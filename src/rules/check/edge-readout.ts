/** I5: one line per proven edge, with the rows its unit test is given and expects. */
import { collapseWhitespace } from "../../core/text.ts";
import { isMapping } from "../../core/values.ts";
import { edgeClaim, givenRows, rowCount, specEdges } from "../shared/unit-gaps.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "I5",
  name: "edge-readout",
  severity: "INFO",
  fix: "human",
  docs: {
    summary: "For each enabled unit test that proves a spec edge: the edge, the test, and how many rows it is given and expects.",
    rationale:
      "A machine can check that every edge has a test; only a human can check that the test's expect says what the edge says. This line is where that third reading starts.",
    enforces:
      "Stage E step 5: CI prints one line per edge of the spec: the unit test that names it, and how many rows it is given and expects.",
  },
  messages: {
    proven:
      "edge '{edge}' is proven by unit test '{unit}', given {given} rows and expecting {expected}; the third reading of Stage E asks whether the expect says what the edge says",
  },
  run(ctx, report) {
    for (const model of ctx.martsModels) {
      const edges = specEdges(ctx, model);
      if (!edges) continue;
      const known = new Set(edges.map(collapseWhitespace));
      for (const unit of ctx.unitTestsOf(model.name)) {
        const claim = edgeClaim(unit);
        if (claim === null || !known.has(claim)) continue;
        report(
          "proven",
          { file: unit.file, model: model.name, line: unit.line },
          {
            edge: claim,
            unit: unit.name,
            given: givenRows(unit.entry.given),
            expected: isMapping(unit.entry.expect) ? rowCount(unit.entry.expect.rows) : "?",
          },
        );
      }
    }
  },
});
