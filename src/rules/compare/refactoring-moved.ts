/** C5: a refactoring whose diff moved, summed up in one line. */
import { formatNumber } from "../../core/numbers.ts";
import { sortByText } from "../../core/text.ts";
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C5",
  name: "refactoring-moved",
  severity: "INFO",
  fix: "sql",
  docs: {
    summary: "A change pre-registered as a refactoring whose diff moved a number, every movement in one line.",
    rationale:
      "The schema pins every interval of a refactoring to zero, so C1-C4 already block each number; this line tells the reader at once that the 'no number moves' promise broke, and where.",
    enforces: "Stage E step 3: the PR is blocked if the type is refactoring but some delta is not zero.",
  },
  messages: {
    moved: "pre-registered as a refactoring, which may not change any number, and the diff moved: {parts}",
  },
  run(ctx, report) {
    const measured = ctx.measured();
    if (measured?.preRegistration.type !== "refactoring") return;
    const { diff } = measured;
    const parts: string[] = [];
    if (diff.row_delta !== 0) parts.push(`row_delta ${formatNumber(diff.row_delta)}`);
    if (diff.removed_pks !== 0) parts.push(`removed_pks ${formatNumber(diff.removed_pks)}`);
    if (diff.altered_columns.length > 0) parts.push(`altered columns ${sortByText(diff.altered_columns).join(", ")}`);
    for (const metric of sortByText(Object.keys(diff.metrics))) {
      const delta = diff.metrics[metric]!.delta_pct;
      if (delta !== null && delta !== 0) parts.push(`metric ${metric} ${formatNumber(delta)} percent`);
    }
    if (parts.length > 0) report("moved", ctx.at, { parts: parts.join("; ") });
  },
});
