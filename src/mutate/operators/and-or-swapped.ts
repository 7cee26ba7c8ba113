/** `logic`: AND <-> OR. */
import { defineOperator, keywordNames, matchCase, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "logic",
  name: "and-or-swapped",
  docs: {
    summary: "A logical connective is swapped: and becomes or, or becomes and.",
    rationale:
      "Rows that satisfy both conditions, or neither, cannot tell and from or: the fixtures need a row that meets one condition and not the other.",
    origin: "slp",
  },
  examples: {
    fires: ["select * from t where a > 1 and b < 2", "select case when a = 1 or b = 1 then 1 end from t"],
    silent: ["select * from t where a between 1 and 2", "select * from t where a = 1"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("binary_expr")) {
      const [name] = keywordNames(node.operator);
      const range = rangeOf(node.operator);
      if (!range || (name !== "AND" && name !== "OR")) continue;
      sites.push({ start: range[0], end: range[1], replacement: matchCase(tree.text(node.operator), name === "AND" ? "or" : "and") });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
