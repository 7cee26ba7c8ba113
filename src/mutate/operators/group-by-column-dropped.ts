/** `group`: one column of a GROUP BY with two or more dropped. */
import { isNode, type SqlNode } from "../../sql/parser.ts";
import { defineOperator, rangeOf, type Site } from "../define-operator.ts";

const PLAIN = new Set(["identifier", "member_expr", "number_literal", "func_call", "cast_expr", "paren_expr", "binary_expr", "case_expr"]);

export default defineOperator<Site & { replacement: string }>({
  code: "group",
  name: "group-by-column-dropped",
  docs: {
    summary: "One column of a GROUP BY with two or more columns is dropped, so groups that differ only in it merge.",
    rationale:
      "Fixtures whose rows all share the other columns' values cannot tell the grains apart: give two rows that differ only in the dropped column. DuckDB refuses the mutant when the column is still selected (a rejected mutant, not counted).",
    origin: "slp",
  },
  examples: {
    fires: ["select customer_id, sum(amount) from t group by customer_id, order_day"],
    silent: ["select day, sum(amount) from t group by day", "select count(*) from t"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("group_by_clause")) {
      const list = isNode(node.columns) && node.columns.type === "list_expr" ? node.columns : null;
      const items = list && Array.isArray(list.items) ? (list.items as SqlNode[]) : [];
      const range = rangeOf(list);
      if (!range || items.length < 2 || !items.every((item) => PLAIN.has(item.type))) continue;
      items.forEach((_, dropped) => {
        const kept = items.filter((__, i) => i !== dropped).map((item) => tree.text(item));
        sites.push({ start: range[0], end: range[1], replacement: kept.join(", ") });
      });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
