/** G11: a commit that claims a green tcr step while check or unit is red there. */
import { defineGateRule } from "../context/gate.ts";

const RED = "commit {commit} claims a green tcr step, but {step} blocks there: {message} [{rule}]";
const CANNOT_JUDGE = "commit {commit} claims a green tcr step, but {step} cannot judge there: {error}";

export default defineGateRule({
  code: "G11",
  name: "tcr-commit-red",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "With --verify-commits (or tcr: required): each commit the branch brings (on a side branch merged into it as on its first-parent line) whose trailers say a green tcr step made it, where check or unit, re-run on the commit's files, blocks on something its first parent does not (or cannot judge). INFO, BLOCK under tcr: required.",
    rationale:
      "Trailers are text anyone can write; re-running the steps is what makes the record one CI can trust. A block the parent already had is not the commit's doing, as tcr itself judges a step against HEAD.",
    enforces: "Rule 5: green steps are committed, red ones reverted; only tcr.sh commits.",
  },
  messages: {
    red: { text: RED, severity: "INFO" },
    redRequired: RED,
    cannotJudge: { text: CANNOT_JUDGE, severity: "INFO" },
    cannotJudgeRequired: CANNOT_JUDGE,
  },
  async run(ctx, report) {
    if (!ctx.record) return;
    const required = ctx.record.required;
    for (const claim of await ctx.record.redClaims()) {
      const commit = claim.commit.label;
      if (claim.finding) {
        const { file, model, line, message, rule } = claim.finding;
        report(required ? "redRequired" : "red", { file, model, line }, { commit, step: claim.step, message, rule });
      } else {
        report(
          required ? "cannotJudgeRequired" : "cannotJudge",
          { file: "", model: "" },
          { commit, step: claim.step, error: claim.error ?? "" },
        );
      }
    }
  },
});
