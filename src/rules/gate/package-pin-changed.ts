/** G6: a package pin file added, removed or edited. */
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G6",
  name: "package-pin-changed",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary: "packages.yml, package-lock.yml or dependencies.yml (beside dbt_project.yml) added, removed or edited.",
    rationale:
      "A package version decides what every generic test and macro from that package does; bumping one can change or silence tests without any test file changing.",
    enforces: "Control 5B: the gate blocks a package version changed (packages.yml is a protected path in Control 5A).",
  },
  messages: { changed: "{path} changed on this branch; the versions the project builds with are a human decision" },
  run(ctx, report) {
    for (const path of ctx.changed(ctx.before.packages, ctx.after.packages))
      report("changed", { file: path, model: "", line: 1 }, { path });
  },
});
