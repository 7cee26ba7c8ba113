/** C7: a pre-registered model whose diff never arrived. */
import { plural } from "../../core/text.ts";
import { isMapping } from "../../core/values.ts";
import { defineCompareRunRule } from "../context/compare.ts";

export default defineCompareRunRule({
  code: "C7",
  name: "missing-diff",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "A model with a pre-registration of this branch (any folder), or a marts or critical model downstream of a change (with --base, what git says the branch changed; without it, the pre-registered models), that none of the diffs given measures; slp.yml's lineage (critical-only, off) narrows the downstream ones. Pass every diff in one call.",
    rationale:
      "A diff step that skipped a model would otherwise pass: a number that never arrived was never compared with anything. Stage E rebuilds state:modified+, so the change's full effect shows in the diffs of the marts downstream of it, which gate's G15 asks a pre-registration of for the same reason. With --base, a pre-registration main already has is not this branch's and asks for no diff.",
    enforces:
      "Stage E step 3: each diff number is compared with the pre-registration; a model that reaches Stage E with a prediction and no diff is a model nobody compared.",
  },
  messages: {
    missing:
      "this model has a pre-registration and no diff.json among the {files} read; a number that never arrived was never compared with anything, and a gate that did not look is not a gate that passed",
    downstream:
      "this {what} model is downstream of {changed}, which this branch changes, and no diff.json among the {files} read measures it; Stage E rebuilds state:modified+, so its numbers move with the change and its diff shows them (slp diff writes it)",
  },
  async run(ctx, report) {
    const arrived = new Set(ctx.diffs.map((diff) => diff.model));
    const files = plural(ctx.diffs.length, "file");
    for (const model of ctx.models) {
      if (arrived.has(model.name)) continue;
      if (isMapping(model.preRegistration) && !ctx.isStale(model.name)) {
        report("missing", { file: model.file, model: model.name, line: model.line }, { files });
        continue;
      }
      const why = (await ctx.owed()).reasons.get(model.name);
      if (why?.kind === "downstream") {
        report(
          "downstream",
          { file: model.file, model: model.name, line: model.line },
          { files, changed: why.of.join(", "), what: why.critical ? "critical" : "marts" },
        );
      }
    }
  },
});
