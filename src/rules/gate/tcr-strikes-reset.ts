/** G13: a commit that records a reset of tcr's strike count. */
import { defineGateRule } from "../context/gate.ts";

const RESET =
  "commit {commit} follows a reset of the strike count ({reset}); five reds in a row stop the agent until a human has looked (Rule 5)";

export default defineGateRule({
  code: "G13",
  name: "tcr-strikes-reset",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "With --verify-commits (or tcr: required): each strike reset a tcr commit of the branch (a side branch merged in included) records in its trailers (`slp tcr --reset REASON`: the count it cleared, who, why). INFO, BLOCK under tcr: required.",
    rationale:
      "The count lives in the git directory, which is never pushed; a reset is the one way to go on after five reds, so the reviewer reads who reset it and why.",
    enforces: "Rule 5: five reverts in a row, stop and call a human.",
  },
  messages: {
    reset: { text: RESET, severity: "INFO" },
    resetRequired: RESET,
  },
  run(ctx, report) {
    const record = ctx.record;
    if (!record) return;
    for (const commit of record.commits) {
      for (const reset of commit.resets)
        report(record.required ? "resetRequired" : "reset", { file: "", model: "" }, { commit: commit.label, reset });
    }
  },
});
