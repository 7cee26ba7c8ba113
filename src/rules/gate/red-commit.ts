/** I6: a commit of the branch (a side branch merged in included) carrying a marts spec or pre-registration that its schema rejects. */
import type { Value } from "../../core/values.ts";
import { PreRegistration } from "../../schemas/pre-registration.ts";
import { Spec } from "../../schemas/spec.ts";
import { schemaErrors } from "../../schemas/validate.ts";
import { sortByText } from "../../core/text.ts";
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "I6",
  name: "red-commit",
  severity: "INFO",
  fix: "human",
  docs: {
    summary:
      "For each commit the branch brings (head included, and the commits of a side branch merged into it; not those a merge of the base brings), each marts model whose meta.spec or meta.pre_registration fails its schema there: one line per commit and error.",
    rationale:
      "Rule 5 commits only green steps, so a red commit in the history says the loop was skipped. A model already red on the base is named again at every commit, as the reference does, so the reading is complete.",
    enforces: "Rule 5: only green steps are committed.",
  },
  messages: {
    red: "commit {commit} carries a {what} the schema rejects: {error}; Rule 5 commits only green steps, and this one was not",
  },
  run(ctx, report) {
    // A spec unchanged across commits is the same parsed object (yml are parsed once per blob): validate it once.
    const memo = { "meta.spec": new Map<Value, string[]>(), "meta.pre_registration": new Map<Value, string[]>() };
    const errors = (schema: object, value: Value, prefix: keyof typeof memo): string[] => {
      let found = memo[prefix].get(value);
      if (!found) {
        found = schemaErrors(schema, value, prefix);
        memo[prefix].set(value, found);
      }
      return found;
    };
    for (const step of ctx.range) {
      for (const name of sortByText(step.declared.models.keys())) {
        if (!ctx.isMarts(name)) continue;
        const model = step.declared.models.get(name);
        if (!model) continue;
        const at = ctx.place(name);
        if (model.spec !== null) {
          for (const error of errors(Spec, model.spec, "meta.spec")) report("red", at, { commit: step.label, what: "meta.spec", error });
        }
        if (model.preRegistration !== null) {
          for (const error of errors(PreRegistration, model.preRegistration, "meta.pre_registration")) {
            report("red", at, { commit: step.label, what: "meta.pre_registration", error });
          }
        }
      }
    }
  },
});
