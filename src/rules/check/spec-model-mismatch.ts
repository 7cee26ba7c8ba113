/** S3: a spec that names columns the model does not declare, or a reconciliation query that does not exist. */
import { sortByText } from "../../core/text.ts";
import { isStringList } from "../../core/values.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "S3",
  name: "spec-model-mismatch",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary:
      "A spec inconsistent with its model: key or sensitive columns not declared, sensitivity flags that disagree, a missing reconciliation query.",
    rationale:
      "The spec is read against the model: a key column the model does not declare cannot be tested, a sensitive column not flagged is not masked, and a reconciliation query that does not exist never runs.",
    enforces:
      "Stage A: the spec names this model's columns (primary_key, sensitive_columns) and, for a critical model, an existing reconciliation query.",
  },
  messages: {
    noColumns: "cannot verify primary_key: the model declares no columns; declare them in the yml",
    keyNotDeclared: "spec.primary_key names {column}, which the model does not declare as a column",
    sensitiveNotDeclared: "spec.sensitive_columns names {column}, but the model does not declare that column",
    sensitiveNotFlagged: "spec.sensitive_columns names {column}, but that column is not marked meta.sensitive: true",
    flaggedNotListed: { text: "column {column} is marked meta.sensitive: true but is not in spec.sensitive_columns", fix: "human" },
    missingQuery: { text: "spec.reconciliation_query points at {query}, which does not exist", fix: "human" },
  },
  run(ctx, report) {
    for (const model of ctx.models) {
      const spec = ctx.spec(model);
      if (!spec) continue;
      const at = (...path: string[]) => ctx.at(model, [...model.specKey, ...path]);
      const declared = new Set(model.columns.map((column) => column.name));
      const key = spec.primary_key;
      if (isStringList(key) && key.length > 0) {
        if (model.columns.length === 0) report("noColumns", at("primary_key"));
        else for (const column of key) if (!declared.has(column)) report("keyNotDeclared", at("primary_key"), { column });
      }
      if (isStringList(spec.sensitive_columns)) {
        const listed = new Set(spec.sensitive_columns);
        const flagged = new Set(model.columns.filter((column) => column.sensitive).map((column) => column.name));
        for (const column of sortByText(listed)) {
          if (flagged.has(column)) continue;
          report(declared.has(column) ? "sensitiveNotFlagged" : "sensitiveNotDeclared", at("sensitive_columns"), { column });
        }
        for (const column of sortByText(flagged)) {
          if (!listed.has(column))
            report("flaggedNotListed", { ...at(), line: model.columns.find((c) => c.name === column)?.line ?? model.line }, { column });
        }
      }
      const query = spec.reconciliation_query;
      if (spec.tier === "critical" && typeof query === "string" && !ctx.exists(query))
        report("missingQuery", at("reconciliation_query"), { query });
    }
  },
});
