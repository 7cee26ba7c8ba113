/** `cmp`: a comparison replaced by its negation (`=` -> `<>`, `<` -> `>=`). */
import { defineOperator, symbolSites, type Site } from "../define-operator.ts";

const NEGATION: Record<string, string> = { "=": "<>", "<>": "=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<" };

export default defineOperator<Site & { symbol: string }>({
  code: "cmp",
  name: "comparison-flipped",
  docs: {
    summary: "A comparison is replaced by its negation: = becomes <>, <> becomes =, < becomes >=, > becomes <=.",
    rationale:
      "A join key compared the wrong way or a filter pointing the wrong direction returns plausible rows; only a fixture with a row on each side of the comparison tells them apart.",
    origin: "reference",
  },
  examples: {
    fires: ["select * from orders where status = 'shipped'", "select * from a join b on a.id = b.id", "select * from t where amount > 100"],
    silent: ["select status from orders", "select * from t where amount between 1 and 5"],
  },
  sites: (tree) => symbolSites(tree, NEGATION),
  mutate: (site) => NEGATION[site.symbol] as string,
});
