/** `case`: one branch of a CASE removed (a WHEN, or the ELSE). */
import { isNode, type SqlNode } from "../../sql/parser.ts";
import { defineOperator, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "case",
  name: "case-branch-removed",
  docs: {
    summary:
      "One branch of a CASE is removed: a WHEN (rows it matched fall to the next branch), or the ELSE (they become NULL). A CASE with a single WHEN becomes its ELSE.",
    rationale:
      "A mapping whose branches the fixtures never reach is a mapping no test proves: give one row per branch, and one that reaches the ELSE.",
    origin: "command contract",
  },
  examples: {
    fires: [
      "select case when amount > 100 then 'large' when amount > 10 then 'medium' else 'small' end from t",
      "select case status when 'a' then 1 end from t",
    ],
    silent: ["select status from t", "select coalesce(a, b) from t"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("case_expr")) {
      const clauses = Array.isArray(node.clauses) ? (node.clauses as SqlNode[]) : [];
      const whens = clauses.filter((clause) => clause.type === "case_when");
      const otherwise = clauses.find((clause) => clause.type === "case_else");
      const whole = rangeOf(node);
      if (!whole) continue;
      if (whens.length === 1) {
        const result = otherwise && isNode(otherwise.result) ? tree.text(otherwise.result) : "null";
        sites.push({ start: whole[0], end: whole[1], replacement: result });
      } else {
        for (const clause of whens) {
          const range = rangeOf(clause);
          if (range) sites.push({ start: range[0], end: range[1], replacement: "" });
        }
      }
      const elseRange = rangeOf(otherwise);
      if (elseRange && whens.length > 0) sites.push({ start: elseRange[0], end: elseRange[1], replacement: "" });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
