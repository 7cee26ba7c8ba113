/** `agg`: an aggregate swapped for another (sum/min/avg -> max, max -> min, count(distinct x) -> count(x)). */
import { isNode } from "../../sql/parser.ts";
import { defineOperator, functionName, matchCase, rangeOf, type Site } from "../define-operator.ts";

const SWAP: Record<string, string> = { sum: "max", min: "max", avg: "max", max: "min" };

export default defineOperator<Site & { replacement: string }>({
  code: "agg",
  name: "aggregate-swapped",
  docs: {
    summary: "An aggregate is swapped: sum, min and avg become max, max becomes min, count(distinct x) becomes count(x).",
    rationale:
      "A group of one row gives the same sum, max and min: a fixture needs at least two rows in a group, with different values (and a duplicate for count distinct), to prove the aggregate.",
    origin: "reference",
  },
  examples: {
    fires: [
      "select day, sum(amount) from t group by day",
      "select count(distinct customer_id) from t",
      "select max(x) over (partition by a) from t",
    ],
    silent: ["select count(*) from t", "select day, amount from t"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("func_call")) {
      const name = functionName(node);
      const nameRange = rangeOf(node.name);
      if (!name || !nameRange) continue;
      const swap = SWAP[name];
      if (swap) {
        sites.push({ start: nameRange[0], end: nameRange[1], replacement: matchCase(tree.text(node.name), swap) });
        continue;
      }
      const args = isNode(node.args) && isNode(node.args.expr) ? node.args.expr : null;
      const distinct = args ? rangeOf(args.distinctKw) : null;
      const firstArg = args && isNode(args.args) ? rangeOf(args.args) : null;
      // count(distinct x) -> count(x): from the name to the argument, so the site reads `count(distinct `.
      if (name === "count" && distinct && firstArg)
        sites.push({ start: nameRange[0], end: firstArg[0], replacement: `${tree.text(node.name)}(` });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
