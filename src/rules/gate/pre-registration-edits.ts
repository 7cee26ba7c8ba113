/** I1: how many times a pre-registration was edited after it was first written on this branch. */
import { plural } from "../../core/text.ts";
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "I1",
  name: "pre-registration-edits",
  severity: "INFO",
  fix: "pre-registration",
  docs: {
    summary:
      "A model whose meta.pre_registration was edited after this branch first wrote it: how many times, and in which commits (A to B and back to A is two edits).",
    rationale:
      "A prediction revised until it matches the result predicts nothing. The count is a floor: a rewritten history (amend, rebase, squash) erases edits, which is why force-push is blocked.",
    enforces: "Stage B: the number of changes to the pre-registration is visible to the Author.",
  },
  messages: {
    edited: "pre-registration was modified {times} after it was first written {first}; the edits: {commits}",
  },
  run(ctx, report) {
    for (const model of ctx.headModels) {
      if (model.preRegistration === null) continue;
      const versions = ctx.preRegistrationVersions(model.name);
      const edits = versions.filter((version, i) => i > 0 && version.text !== versions[i - 1]?.text);
      if (edits.length === 0) continue;
      report(
        "edited",
        { ...ctx.place(model.name), line: model.lineOf(model.preRegistrationKey) },
        {
          times: plural(edits.length, "time"),
          first: ctx.where(versions[0]?.index ?? 0),
          commits: edits.map((edit) => `commit ${ctx.walk[edit.index]?.label}`).join(", "),
        },
      );
    }
  },
});
