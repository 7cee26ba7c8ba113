/** I4: the commit where a new marts spec was first written. */
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "I4",
  name: "spec-written-on-branch",
  severity: "INFO",
  fix: "human",
  docs: {
    summary: "A marts model whose meta.spec is new on this branch: the commit that first wrote it, and who authored that commit.",
    rationale:
      "Only the Author can say whether they read and approved a spec before the code; the gate can say where it came from, so the question gets asked.",
    enforces: "Stage A: the Author approves the six fields before any line of code.",
  },
  messages: {
    written:
      "meta.spec was first written on this branch, in commit {commit}; the framework asks the Author to have read and approved its six fields before any line of code, and only the Author can say whether that happened",
  },
  run(ctx, report) {
    for (const model of ctx.headModels) {
      if (model.spec === null || !ctx.isMarts(model.name)) continue;
      if ((ctx.before.models.get(model.name)?.spec ?? null) !== null) continue;
      const first = ctx.walk.findIndex((step) => (step.declared.models.get(model.name)?.spec ?? null) !== null);
      report("written", { ...ctx.place(model.name), line: model.lineOf(model.specKey) }, { commit: ctx.walk[first]?.label ?? "" });
    }
  },
});
