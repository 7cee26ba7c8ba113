/** `distinct`: `select distinct` becomes `select`. */
import { isNode } from "../../sql/parser.ts";
import { defineOperator, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { select: string }>({
  code: "distinct",
  name: "distinct-removed",
  docs: {
    summary: "select distinct becomes select, so duplicate rows come through.",
    rationale:
      "A distinct that never meets a duplicate in the fixtures is a distinct no test proves: give a fixture two rows that collapse into one.",
    origin: "reference",
  },
  examples: {
    fires: ["select distinct customer_id from orders"],
    silent: ["select customer_id from orders", "select count(distinct customer_id) from orders"],
  },
  sites(tree) {
    const sites: (Site & { select: string })[] = [];
    for (const { node } of tree.find("select_clause")) {
      const modifiers = Array.isArray(node.modifiers) ? node.modifiers : [];
      // `distinct on (...)` keeps one row per key, a different defect: only the plain keyword is a site.
      const distinct = modifiers.find((modifier) => isNode(modifier) && modifier.type === "select_distinct");
      const select = rangeOf(node.selectKw);
      const end = rangeOf(distinct);
      if (select && end) sites.push({ start: select[0], end: end[1], select: tree.text(node.selectKw) });
    }
    return sites;
  },
  mutate: (site) => site.select,
});
