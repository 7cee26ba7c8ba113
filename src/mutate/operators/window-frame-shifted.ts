/** `frame`: a window frame bound shifted by one (`2 preceding` -> `3 preceding`, `current row` -> `1 preceding`). */
import { isNode } from "../../sql/parser.ts";
import { defineOperator, matchCase, rangeOf, type Site } from "../define-operator.ts";
import { plusOne } from "./literal-altered.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "frame",
  name: "window-frame-shifted",
  docs: {
    summary: "A window frame bound moves by one row: N preceding or N following becomes N+1, current row becomes 1 preceding.",
    rationale:
      "A running total or moving average over partitions shorter than the frame cannot tell the frames apart: a fixture partition needs more rows than the frame is wide.",
    origin: "command contract",
  },
  examples: {
    fires: ["select sum(x) over (order by d rows between 2 preceding and current row) from t"],
    silent: [
      "select sum(x) over (partition by a) from t",
      "select sum(x) over (order by d rows between unbounded preceding and unbounded following) from t",
    ],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("frame_bound_preceding", "frame_bound_following", "frame_bound_current_row")) {
      const range = rangeOf(node);
      if (!range) continue;
      if (node.type === "frame_bound_current_row") {
        sites.push({ start: range[0], end: range[1], replacement: matchCase(tree.text(node), "1 preceding") });
        continue;
      }
      if (!isNode(node.expr) || node.expr.type !== "number_literal") continue;
      const number = rangeOf(node.expr) as [number, number];
      sites.push({ start: number[0], end: number[1], replacement: plusOne(tree.text(node.expr)) });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
