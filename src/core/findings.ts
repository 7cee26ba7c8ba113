/** Sorting, counting and summarising findings: the output contract of every command (spec/rules.md §4.1-4.3). */
import type { Finding } from "../schemas/finding.ts";
import { EXIT } from "./exit-codes.ts";
import { compareCodePoints, compareUnits, hasSurrogate, plural } from "./text.ts";

/**
 * By file, then model, then BLOCK before INFO, then rule code as a string
 * (`G10` before `G2`); ties keep the order the rules produced them.
 */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  // Checked once for the whole list, not at every comparison: without surrogates, `<` is code point order.
  const plain = findings.every((finding) => !hasSurrogate(finding.file) && !hasSurrogate(finding.model) && !hasSurrogate(finding.rule));
  const compare = plain ? compareUnits : compareCodePoints;
  return [...findings].sort(
    (a, b) =>
      compare(a.file, b.file) ||
      compare(a.model, b.model) ||
      (a.severity === b.severity ? 0 : a.severity === "BLOCK" ? -1 : 1) ||
      compare(a.rule, b.rule),
  );
}

export function countFindings(findings: readonly Finding[]): { blocks: number; infos: number } {
  let blocks = 0;
  for (const finding of findings) if (finding.severity === "BLOCK") blocks++;
  return { blocks, infos: findings.length - blocks };
}

/**
 * `slp check: OK (note)`, `slp check: 2 infos - OK (note)`,
 * `slp compare: 1 block, 6 infos - BLOCKED` (the note only when nothing blocks).
 */
export function summaryLine(command: string, findings: readonly Finding[], note?: string): string {
  const { blocks, infos } = countFindings(findings);
  const suffix = note ? ` (${note})` : "";
  if (blocks === 0 && infos === 0) return `slp ${command}: OK${suffix}`;
  const counts = [blocks ? plural(blocks, "block") : "", infos ? plural(infos, "info") : ""].filter(Boolean).join(", ");
  return blocks > 0 ? `slp ${command}: ${counts} - BLOCKED` : `slp ${command}: ${counts} - OK${suffix}`;
}

export function exitCodeFor(findings: readonly Finding[]): number {
  return findings.some((finding) => finding.severity === "BLOCK") ? EXIT.blocked : EXIT.ok;
}
