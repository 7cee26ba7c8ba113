/** `union`: UNION <-> UNION ALL. */
import { defineOperator, keywordNames, matchCase, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "union",
  name: "union-all-swapped",
  docs: {
    summary: "A union is swapped: union (or union distinct) becomes union all, union all becomes union.",
    rationale:
      "Without a row both branches return, union and union all agree: the fixtures need a duplicate across the branches (or within one).",
    origin: "slp",
  },
  examples: {
    fires: ["select id from a union all select id from b", "select id from a union select id from b"],
    silent: ["select id from a", "select id from a intersect select id from b"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("compound_select_stmt")) {
      const names = keywordNames(node.operator);
      const range = rangeOf(node.operator);
      if (!range || names[0] !== "UNION" || names.includes("BY")) continue;
      const text = tree.text(node.operator);
      sites.push({ start: range[0], end: range[1], replacement: matchCase(text, names[1] === "ALL" ? "union" : "union all") });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
