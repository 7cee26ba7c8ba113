/** A rule explained in full, from its definition: what `slp explain` prints and SARIF carries as the rule's help. */
import type { AnyRule, MessageMap } from "./define-rule.ts";

export function explainText(rule: AnyRule): string {
  const messages = Object.entries(rule.messages as MessageMap).map(([id, spec]) => {
    const text = typeof spec === "string" ? spec : `[${spec.severity}] ${spec.text}`;
    return `  ${id}: ${text}`;
  });
  return [
    `${rule.code} ${rule.name} (${rule.command}, ${rule.severities().join(" and ")})`,
    "",
    rule.docs.summary,
    "",
    `Why: ${rule.docs.rationale}`,
    "",
    `Enforces: ${rule.docs.enforces}`,
    "",
    "Messages:",
    ...messages,
    "",
  ].join("\n");
}
