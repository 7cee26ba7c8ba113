/** `slp rules`: every rule, one line each. */
import { Type } from "@sinclair/typebox";
import type { Report } from "../src/core/report.ts";
import { allRules } from "../src/rules/index.ts";
import { defineTask } from "../src/runner/define-task.ts";

export default defineTask({
  name: "rules",
  description: "List every rule: code, name, command, severity and what it checks",
  informational: true,
  input: Type.Object({
    command: Type.Optional(
      Type.Union([Type.Literal("check"), Type.Literal("gate"), Type.Literal("compare")], {
        metavar: "COMMAND",
        description: "only the rules of this command",
      }),
    ),
  }),
  run({ input }): Report {
    const rules = allRules.filter((rule) => !input.command || rule.command === input.command);
    const rows = rules.map((rule) => [rule.code, rule.name, rule.command, rule.severities().join("+"), rule.docs.summary]);
    const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => (row[i] as string).length)));
    const text = rows.map((row) => row.map((cell, i) => (i < 4 ? cell.padEnd(widths[i] as number) : cell)).join("  ")).join("\n");
    return {
      command: "rules",
      findings: [],
      text: `${text}\n`,
      data: rules.map((rule) => ({
        code: rule.code,
        name: rule.name,
        command: rule.command,
        severities: rule.severities(),
        fixes: rule.fixes(),
        ...rule.docs,
      })),
    };
  },
});
