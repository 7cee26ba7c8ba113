/** C1: the diff's row_delta outside the pre-registered interval. */
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C1",
  name: "row-delta-outside",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary: "A row_delta outside the pre-registered [min, max] (both ends allowed).",
    rationale:
      "The interval was committed before the numbers were seen; a row count outside it means the change did something its author did not predict.",
    enforces:
      "Stage E step 3: the PR is blocked if a number is outside the declared interval (e.g. row delta is 15,000, but the pre-registration said max: 12000).",
  },
  messages: { outside: "row_delta is {value}, pre-registration allows {min}..{max}" },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const value = measured.diff.row_delta;
    const { min, max } = measured.preRegistration.row_delta;
    if (!(min <= value && value <= max)) report("outside", ctx.atKey("row_delta"), { value, min, max });
  },
});
