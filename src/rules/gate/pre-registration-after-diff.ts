/** G17: a pre-registration edited in or after the commit where this branch committed that model's measured diff. */
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G17",
  name: "pre-registration-after-diff",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "A model whose meta.pre_registration this branch edits in the commit that adds or changes its measured diff (<diff.out>/<model>.json, slp.yml's diff.out on the base, else diff/), or in a later one: the prediction moved once the number was known. An edit before any diff was committed is I1's count.",
    rationale:
      "The pre-registration is worth something only because it is written before the result: an interval widened (or narrowed) once the diff sits in the branch fits the number instead of predicting it. A diff measured and never committed leaves no trace gate can read; CI re-running Stage E and I1's count are what show those.",
    enforces: "Stage B: the agent commits to intervals before seeing the results, and cannot adjust its prediction later.",
  },
  messages: {
    afterDiff:
      "meta.pre_registration changed in commit {edit}, once this branch had its measured diff {diff} (committed in commit {measured}); a prediction changed after the result predicts nothing, and a human decides whether it stands",
  },
  async run(ctx, report) {
    for (const model of ctx.headModels) {
      if (model.preRegistration === null) continue;
      const versions = ctx.preRegistrationVersions(model.name);
      const edits = versions.filter((version, i) => i > 0 && version.text !== versions[i - 1]?.text);
      // Only a model whose prediction moved on the branch costs a look at git.
      if (edits.length === 0) continue;
      const diff = `${ctx.diffFolder === "." ? "" : `${ctx.diffFolder}/`}${model.name}.json`;
      const ids = await ctx.fileAlongWalk(diff);
      const measured = ids.findIndex((id, index) => index > 0 && id !== null && id !== ids[index - 1]);
      if (measured === -1) continue;
      const late = edits.find((edit) => edit.index >= measured);
      if (!late) continue;
      report(
        "afterDiff",
        { ...ctx.place(model.name), line: model.lineOf(model.preRegistrationKey) },
        { edit: ctx.walk[late.index]?.label ?? "", diff, measured: ctx.walk[measured]?.label ?? "" },
      );
    }
  },
});
