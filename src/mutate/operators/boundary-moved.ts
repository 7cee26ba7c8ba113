/** `boundary`: a boundary comparison moved to include or exclude its edge (`<` <-> `<=`, `>` <-> `>=`). */
import { defineOperator, symbolSites, type Site } from "../define-operator.ts";

const MOVED: Record<string, string> = { "<": "<=", "<=": "<", ">": ">=", ">=": ">" };

export default defineOperator<Site & { symbol: string }>({
  code: "boundary",
  name: "boundary-moved",
  docs: {
    summary: "A boundary comparison moves to include or exclude its edge: < becomes <=, <= becomes <, > becomes >=, >= becomes >.",
    rationale:
      "Off-by-one at a threshold (orders over 100, days before the cutoff) is the commonest filter bug; only a fixture row exactly on the edge catches it.",
    origin: "command contract",
  },
  examples: {
    fires: ["select * from t where amount > 100", "select * from t where day <= '2025-01-31'"],
    silent: ["select * from t where amount = 100", "select * from t where amount <> 0"],
  },
  sites: (tree) => symbolSites(tree, MOVED),
  mutate: (site) => MOVED[site.symbol] as string,
});
