/** S4: a marts `.sql` that no yml declares escapes every other rule. */
import { compareCodePoints } from "../../core/text.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "S4",
  name: "undeclared-model",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary: "A .sql under a marts path that no yml declares.",
    rationale: "An undeclared model has no spec, no primary key and no test, so every rule that reads the yml passes it without looking.",
    enforces: 'Stage A: the spec is "mandatory in all models within models/marts/**", which needs the model to be declared.',
  },
  messages: {
    undeclared:
      "this marts model has a .sql and no yml entry, so it has no spec, no key and no test and would pass every other rule unseen; declare it in a yml with its spec",
  },
  run(ctx, report) {
    const stems = [...ctx.project.martsSql.keys()].sort(compareCodePoints);
    for (const stem of stems) {
      if (!ctx.project.models.has(stem)) report("undeclared", { file: ctx.project.martsSql.get(stem) as string, model: stem, line: 1 });
    }
  },
});
