/** P1: a pre-registration that fails its schema (an open interval among them). */
import { PreRegistration } from "../../schemas/pre-registration.ts";
import { schemaProblems } from "../../schemas/validate.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "P1",
  name: "invalid-pre-registration",
  severity: "BLOCK",
  fix: "pre-registration",
  docs: {
    summary: "A meta.pre_registration that fails its schema (schemas/pre_registration.schema.json).",
    rationale:
      "A prediction with an open interval, a missing field or a misspelled key cannot fail, and a prediction that cannot fail predicts nothing.",
    enforces: "Stage B / Rule 6: the pre-registration is validated by JSON Schema; open intervals are invalid and rejected by CI.",
  },
  messages: { schema: "{error}" },
  run(ctx, report) {
    for (const model of ctx.models) {
      if (model.preRegistration === null) continue;
      for (const problem of schemaProblems(PreRegistration, model.preRegistration, "pre_registration")) {
        report("schema", ctx.at(model, [...model.preRegistrationKey, ...problem.path]), { error: problem.sentence });
      }
    }
  },
});
