/** C3: a column that changed without being declared (BLOCK), or one declared that did not change (INFO). */
import { sortByText } from "../../core/text.ts";
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C3",
  name: "altered-columns",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary:
      "A column the diff measured as changed that pre_registration.altered_columns does not list; INFO: a listed column that did not change.",
    rationale:
      "A column the agent did not mean to touch that moved anyway is an accident; a declared change that never happened says the change did less than its author thought.",
    enforces: "Stage E step 3: the PR is blocked if a column shows a difference but is not in the pre-registration's altered_columns list.",
  },
  messages: {
    undeclared: "column {column} changed and is not in pre_registration.altered_columns",
    unchanged: { text: "column {column} was pre-registered as altered and did not change", severity: "INFO", fix: "pre-registration" },
  },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const changed = new Set(measured.diff.altered_columns);
    const declared = new Set(measured.preRegistration.altered_columns);
    for (const column of sortByText(changed)) if (!declared.has(column)) report("undeclared", ctx.atKey("altered_columns"), { column });
    for (const column of sortByText(declared)) if (!changed.has(column)) report("unchanged", ctx.atKey("altered_columns"), { column });
  },
});
