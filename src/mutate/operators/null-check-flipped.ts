/** `null`: `is null` <-> `is not null`. */
import { isNode } from "../../sql/parser.ts";
import { defineOperator, keywordNames, matchCase, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "null",
  name: "null-check-flipped",
  docs: {
    summary: "A null check is flipped: is null becomes is not null, and is not null becomes is null.",
    rationale: "NULL handling is where three-valued logic bites: the fixtures need both a NULL and a value in the column the check reads.",
    origin: "slp",
  },
  examples: {
    fires: ["select * from t where deleted_at is null", "select * from t where email is not null"],
    silent: ["select * from t where a = 1", "select * from t where a is distinct from b"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("binary_expr")) {
      const names = keywordNames(node.operator);
      const start = rangeOf(node.operator);
      const end = rangeOf(node.right);
      if (!start || !end || !isNode(node.right) || node.right.type !== "null_literal") continue;
      const text = tree.sql.slice(start[0], end[1]);
      if (names.join(" ") === "IS") sites.push({ start: start[0], end: end[1], replacement: matchCase(text, "is not null") });
      else if (names.join(" ") === "IS NOT") sites.push({ start: start[0], end: end[1], replacement: matchCase(text, "is null") });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
