/** S5: a critical or incremental model that no CODEOWNERS line owns. */
import { sortByText } from "../../core/text.ts";
import { isMapping } from "../../core/values.ts";
import { CODEOWNERS_LOCATIONS } from "../../project/slp/codeowners.ts";
import { defineCheckRule, type CheckContext, type Model } from "../context/check.ts";

const INCREMENTAL_IN_SQL = /materialized\s*=\s*['"]incremental['"]/;

export default defineCheckRule({
  code: "S5",
  name: "unowned-model",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary: "A critical or incremental model that no CODEOWNERS line owns.",
    rationale:
      "A Partner approves a critical model and a human approves an incremental one; CODEOWNERS is the only thing that makes the platform ask them.",
    enforces: "Stage E: a critical model is approved by a Partner, CODEOWNERS enforces it; Control 5A lists incremental models explicitly.",
  },
  messages: {
    noFile: "{kind} model, and this repository has no CODEOWNERS file ({locations}); {why}",
    unowned: "{kind} model, and no line of {codeowners} owns {path}; {why}",
  },
  run(ctx, report) {
    for (const { model, kind, paths } of modelsToOwn(ctx)) {
      const why =
        kind === "critical"
          ? "a Partner approves a critical model, and CODEOWNERS is what makes that required (framework Stage E)"
          : "Control 5A asks for each incremental model to be listed by name, so a human approves every change to it";
      const codeowners = ctx.codeowners();
      if (!codeowners) {
        report("noFile", ctx.at(model), { kind, why, locations: CODEOWNERS_LOCATIONS.join(", ") });
        continue;
      }
      for (const path of paths) {
        if (!codeowners.owns(path)) {
          report(
            "unowned",
            { file: path, model: model.name, line: path === model.file ? model.line : 1 },
            { kind, why, path: codeowners.pathOf(path), codeowners: codeowners.file },
          );
        }
      }
    }
  },
});

/** The critical and incremental models, each with the files (its yml, its sql) CODEOWNERS must own: what slp init lists by name. */
export function modelsToOwn(ctx: CheckContext): { model: Model; kind: "critical" | "incremental"; paths: string[] }[] {
  const owned = [];
  for (const model of ctx.models) {
    const kind = kindOf(ctx, model);
    if (!kind) continue;
    const sql = ctx.project.martsSql.get(model.name);
    owned.push({ model, kind, paths: sortByText(new Set([model.file, ...(sql ? [sql] : [])])) });
  }
  return owned;
}

function kindOf(ctx: CheckContext, model: Model): "critical" | "incremental" | null {
  if (ctx.isMarts(model) && ctx.spec(model)?.tier === "critical") return "critical";
  const config = model.entry.config;
  if (isMapping(config) && config.materialized === "incremental") return "incremental";
  const sql = ctx.project.martsSql.get(model.name);
  if (sql && INCREMENTAL_IN_SQL.test(ctx.text(sql))) return "incremental";
  return null;
}
