/** `slp explain T1`: one rule in full, from its definition. */
import { Type } from "@sinclair/typebox";
import { UsageError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { explainText } from "../src/rules/explain.ts";
import { allRules, findRule } from "../src/rules/index.ts";
import type { Operator } from "../src/mutate/define-operator.ts";
import { defineTask } from "../src/runner/define-task.ts";

export default defineTask({
  name: "explain",
  description: "Explain one rule (what it checks, why, the framework sentence it enforces, its messages) or mutation operator",
  informational: true,
  input: Type.Object({
    rule: Type.String({
      positional: true,
      metavar: "RULE",
      description: "a rule code (T1) or name (pk-uniqueness-test), or a mutation operator's code (join) or name (join-type-swapped)",
    }),
  }),
  async run({ input }): Promise<Report> {
    // Loaded here: the operators bring the SQL parser, which no other command starting up needs.
    const { operators } = await import("../src/mutate/operators/index.ts");
    const rule = findRule(input.rule);
    const operator = rule ? undefined : operators.find((candidate) => candidate.code === input.rule || candidate.name === input.rule);
    if (operator) return explainOperator(operator);
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
      data: {
        code: rule.code,
        name: rule.name,
        command: rule.command,
        severities: rule.severities(),
        fixes: rule.fixes(),
        ...rule.docs,
        messages: rule.messages,
      },
    };
  },
});

/** A mutation operator, from its definition: what it plants, why a test should notice, and its examples. */
function explainOperator(operator: Operator<any>): Report {
  const text = [
    `${operator.code} ${operator.name} (slp mutate operator, from the ${operator.docs.origin})`,
    "",
    operator.docs.summary,
    "",
    `Why: ${operator.docs.rationale}`,
    "",
    "Plants a mutant in:",
    ...operator.examples.fires.map((sql) => `  ${sql}`),
    "Leaves alone:",
    ...operator.examples.silent.map((sql) => `  ${sql}`),
    "",
  ].join("\n");
  return {
    command: "explain",
    findings: [],
    text,
    data: { code: operator.code, name: operator.name, ...operator.docs, examples: operator.examples },
  };
}
