/** T1: the spec's primary key has no uniqueness test that can fail. */
import { isStringList } from "../../core/values.ts";
import { defineCheckRule } from "../context/check.ts";
import { keyUniqueness } from "../shared/primary-key.ts";

export default defineCheckRule({
  code: "T1",
  name: "pk-uniqueness-test",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary: "A marts model whose spec's primary_key has no uniqueness test that can fail the build.",
    rationale:
      "The grain is the spec's most important promise; a duplicated key silently doubles every metric, and a test that is disabled, warns, or filters rows cannot catch it. A severity, enabled, where or threshold written as Jinja renders per target, so it counts as a test that cannot fail, and the reason names the expression.",
    enforces: "Rule 2: a uniqueness test on the spec's primary_key (Stage D: uniqueness test of the spec's primary_key).",
  },
  messages: {
    missing:
      "no uniqueness test on primary key [{key}]; accepted forms: unique, unique_combination_of_columns, dbt_utils.unique_combination_of_columns",
    cannotFail: "the uniqueness test on primary key [{key}] cannot fail the build: {reason}",
  },
  run(ctx, report) {
    for (const model of ctx.martsModels) {
      const key = ctx.spec(model)?.primary_key;
      if (!isStringList(key) || key.length === 0) continue;
      const { matches, canFail, reason } = keyUniqueness(model, key);
      if (canFail) continue;
      const first = matches[0];
      if (first) report("cannotFail", { ...ctx.at(model), line: first.line }, { key: key.join(", "), reason });
      else report("missing", ctx.at(model, [...model.specKey, "primary_key"]), { key: key.join(", ") });
    }
  },
});
