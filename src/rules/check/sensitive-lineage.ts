/** S6: a mart column that carries a sensitive column's value under a name its spec does not list as sensitive. */
import { BOOLEAN_TEST_FUNCTIONS, IDENTITY_REMOVING_FUNCTIONS } from "../../sql/identity.ts";
import { defineCheckRule } from "../context/check.ts";
import { sensitiveLineage } from "../shared/sensitive-lineage.ts";

const REMOVES_IDENTITY = `counting it (${IDENTITY_REMOVING_FUNCTIONS.join(", ")}) or testing it as a boolean (a comparison, is null, like, in, ${BOOLEAN_TEST_FUNCTIONS.join(", ")})`;

export default defineCheckRule({
  code: "S6",
  name: "sensitive-lineage",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary:
      "A mart column derived from a sensitive column (a spec's sensitive_columns, a column's meta.sensitive, upstream through refs and sources) without a transformation that removes identity, that the mart's spec does not list; or a construct the lineage cannot follow.",
    rationale: `sensitive_columns is a list of names, so \`customer_email as contact\` would leave it unmasked: slp follows each column's value through the models' rendered SQL (aliases, CTEs, subqueries, joins, every branch of a union, scalar functions, select *). Only ${REMOVES_IDENTITY} removes identity; min, max, any_value, string_agg, array_agg, sum and a hash (md5, sha2, hash) keep it, since a hash still joins back to the person. What the lineage cannot follow in a model that reads a sensitive column is refused by name.`,
    enforces: "Stage A: the spec lists the model's sensitive columns (sensitive_columns), which review and the data readings mask.",
  },
  messages: {
    derived:
      "column {column} carries a sensitive value ({path}), and spec.sensitive_columns does not list it; list it there, or remove identity (count it, or keep only a boolean test of it)",
    star: "{star} passes the sensitive column {column} on ({path}), and spec.sensitive_columns does not list it; select the columns the mart needs by name, or list it",
    refused:
      "{construct}; slp cannot tell whether a sensitive value reaches a mart, so it does not pass: rewrite it in plain SQL, or list the mart's columns that carry it in spec.sensitive_columns",
  },
  async run(ctx, report) {
    const lineage = await sensitiveLineage(ctx);
    if (!lineage) return;
    for (const column of lineage.unlisted) {
      const place = { file: column.file, model: column.model, line: column.line };
      const path = column.path.join(" ← ");
      if (column.star) report("star", place, { star: column.star, column: column.column, path });
      else report("derived", place, { column: column.column, path });
    }
    for (const refusal of lineage.refusals)
      report("refused", { file: refusal.file, model: refusal.model, line: refusal.line }, { construct: refusal.construct });
  },
});
