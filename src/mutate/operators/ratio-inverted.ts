/** `ratio`: a division turned upside down (`a / b` -> `b / a`). */
import { defineOperator, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "ratio",
  name: "ratio-inverted",
  docs: {
    summary: "A ratio is inverted: a / b becomes b / a.",
    rationale:
      "A conversion or a rate computed upside down is still a number; a fixture with an expected value (not just a row) catches it.",
    origin: "command contract",
  },
  examples: {
    fires: ["select amount_cents / 100.0 as amount from t", "select clicks / nullif(views, 0) from t"],
    silent: ["select amount * 100 from t", "select a - b from t"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("binary_expr")) {
      if (node.operator !== "/") continue;
      const left = rangeOf(node.left);
      const right = rangeOf(node.right);
      if (!left || !right) continue;
      const between = tree.sql.slice(left[1], right[0]);
      sites.push({ start: left[0], end: right[1], replacement: `${tree.text(node.right)}${between}${tree.text(node.left)}` });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
