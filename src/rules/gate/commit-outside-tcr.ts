/** G12: a commit on an agent branch that slp tcr did not make. */
import { defineGateRule } from "../context/gate.ts";

const OUTSIDE = "commit {commit} was not made by slp tcr; on an agent branch every commit is a green tcr step (Rule 5)";
const MERGE = "commit {commit} is a merge with files that neither parent has (written by hand), and slp tcr did not make it";

export default defineGateRule({
  code: "G12",
  name: "commit-outside-tcr",
  severity: "BLOCK",
  docs: {
    summary:
      "With --verify-commits (or tcr: required): on an agent branch (one tcr committed on, or any branch under tcr: required), each commit without tcr's trailers; a merge is named only when a file in it comes from neither parent. INFO, BLOCK under tcr: required.",
    rationale:
      "A commit made with plain git skipped check, gate and the unit tests, and the strike count with them. A merge that only takes each file from one side wrote nothing new; one that resolves by hand did.",
    enforces: "Rule 5: only tcr.sh commits, one green step at a time.",
  },
  messages: {
    outside: { text: OUTSIDE, severity: "INFO" },
    outsideRequired: OUTSIDE,
    merge: { text: MERGE, severity: "INFO" },
    mergeRequired: MERGE,
  },
  run(ctx, report) {
    const record = ctx.record;
    if (!record?.agentBranch) return;
    for (const commit of record.commits) {
      if (commit.byTcr || commit.cleanMerge) continue;
      const id = commit.merge ? "merge" : "outside";
      report(record.required ? `${id}Required` : id, { file: "", model: "" }, { commit: commit.label });
    }
  },
});
