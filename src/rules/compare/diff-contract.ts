/**
 * C0: a diff compare can read, held against a pre-registration this branch
 * wrote. Every other compare rule reads a diff only once this one blocked
 * nothing.
 */
import { isMapping } from "../../core/values.ts";
import { topDirectories } from "../../project/files/paths.ts";
import { Diff } from "../../schemas/diff.ts";
import { schemaProblems } from "../../schemas/validate.ts";
import inconsistentPreRegistration from "../check/inconsistent-pre-registration.ts";
import invalidPreRegistration from "../check/invalid-pre-registration.ts";
import invalidSpec from "../check/invalid-spec.ts";
import { CheckContext } from "../context/check.ts";
import { defineCompareRule } from "../context/compare.ts";

/** The check rules C0 re-runs on the diff's model, in check's order: the spec (S2), then the pre-registration (P1, P2). */
const MODEL_RULES = [invalidSpec, invalidPreRegistration, inconsistentPreRegistration] as const;

export default defineCompareRule({
  code: "C0",
  name: "diff-contract",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "A diff.json that fails its schema, names no model of the project, or meets no valid pre-registration of this branch (an invalid spec included); INFO: the window it was measured over.",
    rationale:
      "A misspelled key must not read as 'nothing changed', and a number nobody committed to in advance is not evidence. Unlike the reference, the spec is validated too, so a misspelled tier blocks here instead of silently skipping the reconciliation (C6).",
    enforces:
      "Stage E step 3: each diff number is compared with the intervals declared in the pre-registration (Stage B), which belongs to one pull request.",
  },
  messages: {
    schema: "{error}",
    undeclared: "no yml under {folders} declares a model named {name}; a diff measures a model of this project",
    noPreRegistration: {
      text: "the model has no meta.pre_registration; a number nobody committed to in advance is not evidence",
      fix: "pre-registration",
    },
    inherited: {
      text: "the model's meta.pre_registration is the one {base} already has at the merge-base; a prediction written for an earlier change is not this change's, and counts as absent",
      fix: "pre-registration",
    },
    model: "{message}",
    window: { text: "measured over {column} from {start} to {end}", severity: "INFO" },
  },
  async run(ctx, report) {
    const at = ctx.at;
    const errors = schemaProblems(Diff, ctx.value, "diff");
    for (const error of errors)
      report("schema", ctx.atKey(...(typeof error.path[0] === "string" ? [error.path[0]] : [])), { error: error.sentence });

    const model = ctx.model;
    let blocked = errors.length > 0;
    if (!model) {
      const folders = topDirectories(ctx.run.project.martsPaths).join(", ");
      report("undeclared", ctx.atKey("model"), { folders, name: ctx.file.model === "" ? "?" : ctx.file.model });
      return;
    }
    if (model.preRegistration === null) {
      report("noPreRegistration", at);
      return;
    }
    if (ctx.run.stale && isMapping(model.preRegistration) && ctx.run.isStale(model.name)) {
      report("inherited", at, { base: ctx.run.stale.base });
      return;
    }
    const one = new CheckContext({ ...ctx.run.project, models: new Map([[model.name, model]]) });
    for (const rule of MODEL_RULES) {
      for (const finding of await rule.findings(one)) {
        report("model", at, { message: finding.message });
        blocked = true;
      }
    }
    const window = ctx.value.window;
    if (!blocked && isMapping(window)) {
      report("window", ctx.atKey("window"), { column: String(window.column), start: String(window.start), end: String(window.end) });
    }
  },
});
