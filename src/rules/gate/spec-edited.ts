/** G7: a marts model's spec edited after it was first written. */
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G7",
  name: "spec-edited",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "A marts model whose meta.spec at head differs from the first spec the walk meets (on the base, or in the commit that first wrote it).",
    rationale:
      "The spec is the Author's decision, taken before the code; an agent that edits it after the fact moves the target to where its code landed. Reordering keys is not a change; an edit reverted before head is silent; a deleted spec is S1's business. The finding names the commit of the first edit.",
    enforces: "Principle 1 / Stage A: the spec is decided by a human before any line of code.",
  },
  messages: {
    edited:
      "meta.spec changed after it was first written (written {first}, first changed in commit {changed}); the spec is the human's decision, and a human changes it in a separate PR",
  },
  run(ctx, report) {
    for (const model of ctx.headModels) {
      if (model.spec === null || !ctx.isMarts(model.name)) continue;
      const specs = ctx.walk.map((step) => step.declared.models.get(model.name)?.spec ?? null);
      const first = specs.findIndex((spec) => spec !== null);
      const written = ctx.canonical(specs[first] ?? null);
      if (written === ctx.canonical(model.spec)) continue;
      const changed = specs.findIndex((spec, index) => index > first && spec !== null && ctx.canonical(spec) !== written);
      const step = ctx.walk[changed === -1 ? ctx.walk.length - 1 : changed];
      report(
        "edited",
        { ...ctx.place(model.name), line: model.lineOf(model.specKey) },
        { first: ctx.where(first), changed: step?.label ?? "" },
      );
    }
  },
});
