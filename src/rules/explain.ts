/** A rule explained in full, from its definition: what `slp explain` prints and SARIF carries as the rule's help. */
import { FIX_KINDS } from "../schemas/finding.ts";
import type { AnyRule, MessageMap } from "./define-rule.ts";

export function explainText(rule: AnyRule): string {
  const messages = Object.entries(rule.messages as MessageMap).map(([id, spec]) => {
    if (typeof spec === "string") return `  ${id}: ${spec}`;
    const marks = [spec.severity, spec.fix === undefined ? undefined : `fix: ${spec.fix}`].filter(Boolean).join(", ");
    const text = `[${marks}] ${spec.text}`;
    return `  ${id}: ${text}`;
  });
  return [
    `${rule.code} ${rule.name} (${rule.command}, ${rule.severities().join(" and ")})`,
    "",
    rule.docs.summary,
    "",
    "Fix:",
    ...rule.fixes().map((kind) => `  ${kind}: ${FIX_KINDS[kind]}`),
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
