/** `coalesce`: coalesce(a, b, ...) (and ifnull, nvl) replaced by its first argument. */
import { defineOperator, functionArgs, functionName, type Site } from "../define-operator.ts";

const FALLBACKS = new Set(["coalesce", "ifnull", "nvl"]);

export default defineOperator<Site & { first: string }>({
  code: "coalesce",
  name: "coalesce-removed",
  docs: {
    summary: "A coalesce (or ifnull, nvl) is replaced by its first argument, so a NULL goes through.",
    rationale: "A fallback no fixture exercises is untested code: the tests need a row where the first argument is NULL.",
    origin: "reference",
  },
  examples: {
    fires: ["select coalesce(discount, 0) from t", "select ifnull(a, b) from t"],
    silent: ["select coalesce(a) from t", "select discount from t"],
  },
  sites(tree) {
    const sites: (Site & { first: string })[] = [];
    for (const { node } of tree.find("func_call")) {
      const name = functionName(node);
      const args = functionArgs(node);
      if (!name || !FALLBACKS.has(name) || args.length < 2 || !node.range || node.over) continue;
      sites.push({ start: node.range[0], end: node.range[1], first: tree.text(args[0]) });
    }
    return sites;
  },
  mutate: (site) => site.first,
});
