/** `slp explain T1`: one rule in full, from its definition. */
import { Type } from "@sinclair/typebox";
import { UsageError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { explainText } from "../src/rules/explain.ts";
import { allRules, findRule } from "../src/rules/index.ts";
import { defineTask } from "../src/runner/define-task.ts";

export default defineTask({
  name: "explain",
  description: "Explain one rule: what it checks, why, the framework sentence it enforces, its messages",
  informational: true,
  input: Type.Object({
    rule: Type.String({ positional: true, metavar: "RULE", description: "a rule code (T1) or name (pk-uniqueness-test)" }),
  }),
  run({ input }): Report {
    const rule = findRule(input.rule);
    if (!rule) {
      throw new UsageError(
        `unknown rule '${input.rule}'; known rules: ${allRules.map((r) => r.code).join(", ")}`,
        "usage: slp explain RULE",
      );
    }
    const text = explainText(rule);
    return {
      command: "explain",
      findings: [],
      text,
      data: { code: rule.code, name: rule.name, command: rule.command, severities: rule.severities(), ...rule.docs, messages: rule.messages },
    };
  },
});
