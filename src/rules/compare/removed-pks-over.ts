/** C2: more production keys gone than the pre-registration allows. */
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C2",
  name: "removed-pks-over",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary: "A removed_pks above the pre-registered max (equal passes).",
    rationale: "Rows that production has and the new version lost are the quietest kind of damage; how many may go is decided in advance.",
    enforces:
      "Stage E step 3: the PR is blocked if a number is outside the declared interval (removed_pks: {max: 0} means no row should disappear).",
  },
  messages: { over: "removed_pks is {value}, pre-registration allows at most {max}" },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const value = measured.diff.removed_pks;
    const { max } = measured.preRegistration.removed_pks;
    if (!(value <= max)) report("over", ctx.atKey("removed_pks"), { value, max });
  },
});
