/** G12: a commit on an agent branch that slp tcr did not make (a merge only when it holds more than git's own merge). */
import { cleanMerge } from "../../tcr/record.ts";
import { defineGateRule } from "../context/gate.ts";

const OUTSIDE = "commit {commit} was not made by slp tcr; on an agent branch every commit is a green tcr step (Rule 5)";
const MERGE =
  "commit {commit} is a merge whose tree is not git's own merge of its parents: {paths} written by hand (a conflict resolved, or an edit), and slp tcr did not make it";
const UNREPRODUCIBLE =
  "commit {commit} is a merge gate cannot redo ({why}), so what in it was written by hand cannot be told, and slp tcr did not make it";
/** Paths a merge finding names before it counts the rest. */
const NAMED_PATHS = 10;

export default defineGateRule({
  code: "G12",
  name: "commit-outside-tcr",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "With --verify-commits (or tcr: required): on an agent branch (one tcr committed on, or any branch under tcr: required), each commit the branch brings that has no tcr trailers, on a side branch merged into it as on its first-parent line; a merge is named only when its tree differs from git's own three-way merge of its parents (a conflict resolved or an edit made by hand), with the paths that differ, whatever trailers its message carries (tcr makes no merges). Commits the base reaches (a merge of the base into the branch brings them) are the base's and are not judged. INFO, BLOCK under tcr: required.",
    rationale:
      "A commit made with plain git skipped check, gate and the unit tests, and the strike count with them; merging it in from a side branch does not make it a tcr step. A merge that is exactly what git merges by itself wrote nothing (merging the base in is how a branch takes a human's change, since rebasing is forbidden); one resolved or edited by hand did, and its edits are judged with the branch's, since gate compares the base with head. A merge gate cannot redo (a file moved and edited on one side and edited on the other, a file both sides changed with more than 1,000 lines edited on one side, several merge-bases, three parents or more) is named, never trusted.",
    enforces: "Rule 5: only tcr.sh commits, one green step at a time.",
  },
  messages: {
    outside: { text: OUTSIDE, severity: "INFO" },
    outsideRequired: OUTSIDE,
    merge: { text: MERGE, severity: "INFO" },
    mergeRequired: MERGE,
    unreproducible: { text: UNREPRODUCIBLE, severity: "INFO" },
    unreproducibleRequired: UNREPRODUCIBLE,
  },
  run(ctx, report) {
    const record = ctx.record;
    if (!record?.agentBranch) return;
    const required = <Id extends "outside" | "merge" | "unreproducible">(id: Id) => (record.required ? (`${id}Required` as const) : id);
    for (const commit of record.commits) {
      if (commit.byTcr || cleanMerge(commit)) continue;
      const edits = commit.edits;
      if (edits === null) report(required("outside"), { file: "", model: "" }, { commit: commit.label });
      else if (edits.unreproducible !== null)
        report(required("unreproducible"), { file: "", model: "" }, { commit: commit.label, why: edits.unreproducible });
      else report(required("merge"), { file: "", model: "" }, { commit: commit.label, paths: namedPaths(edits.paths) });
    }
  },
});

/** `a, b and c`, the first ten then how many more. */
function namedPaths(paths: readonly string[]): string {
  const named = paths.slice(0, NAMED_PATHS);
  const rest = paths.length - named.length;
  if (rest > 0) return `${named.join(", ")} and ${rest} more`;
  return named.length === 1 ? (named[0] as string) : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
}
