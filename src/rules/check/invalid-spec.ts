/** S2: a spec that fails its schema. */
import { Spec } from "../../schemas/spec.ts";
import { schemaProblems } from "../../schemas/validate.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "S2",
  name: "invalid-spec",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary: "A meta.spec that fails the spec schema (schemas/spec.schema.json).",
    rationale:
      "A spec with a field missing or malformed cannot be held to: a missing primary key has no uniqueness test, a misspelled tier skips the reconciliation.",
    enforces: "Stage A: six mandatory fields for every marts model, three more for a critical one, in a fixed format.",
  },
  messages: { schema: "{error}" },
  run(ctx, report) {
    for (const model of ctx.models) {
      if (model.spec === null) continue;
      for (const problem of schemaProblems(Spec, model.spec, "spec")) {
        report("schema", ctx.at(model, [...model.specKey, ...problem.path]), { error: problem.sentence });
      }
    }
  },
});
