/** `literal`: a number literal plus one, a string literal with `_` appended. */
import type { SqlNode } from "../../sql/parser.ts";
import { defineOperator, functionArgs, functionName, type Site } from "../define-operator.ts";
import { GRAIN_FUNCTIONS } from "./date-trunc-grain-changed.ts";

/** Typed literals (`date '2025-01-01'`) whose string is not free text: `'2025-01-01_'` is only a refused mutant. */
const TYPED_LITERALS = new Set([
  "date_literal",
  "time_literal",
  "timestamp_literal",
  "datetime_literal",
  "interval_literal",
  "json_literal",
  "numeric_literal",
  "bignumeric_literal",
]);

export default defineOperator<Site & { text: string; kind: "number" | "string" }>({
  code: "literal",
  name: "literal-altered",
  docs: {
    summary:
      "A literal is altered: a number gains one (007 -> 8, 0.50 -> 1.50), a string gains a trailing underscore ('shipped' -> 'shipped_').",
    rationale:
      "A constant in a filter, a mapping or a conversion that no fixture row meets is a constant no test proves. Positional GROUP BY / ORDER BY numbers, window frame bounds and date_trunc grains are left to their own operators. Unlike the reference, a decimal keeps its digits (0.50 -> 1.50, not 1.5).",
    origin: "reference",
  },
  examples: {
    fires: ["select amount_cents / 100.0 as amount from t", "select * from orders where status = 'shipped'"],
    silent: ["select a, count(*) from t group by 1 order by 1", "select date_trunc('month', ordered_at) from t"],
  },
  sites(tree) {
    const sites: (Site & { text: string; kind: "number" | "string" })[] = [];
    for (const { node, ancestors } of tree.find("number_literal", "string_literal")) {
      if (!node.range || excluded(node, ancestors)) continue;
      sites.push({
        start: node.range[0],
        end: node.range[1],
        text: tree.text(node),
        kind: node.type === "number_literal" ? "number" : "string",
      });
    }
    return sites;
  },
  mutate(site) {
    if (site.kind === "string") return `${site.text.slice(0, -1)}_${site.text.slice(-1)}`;
    return plusOne(site.text);
  },
});

/** `7` -> `8`, `007` -> `8`, `0.50` -> `1.50`, `.5` -> `1.5`, `1e3` -> `1001`. */
export function plusOne(text: string): string {
  if (/^\d+$/.test(text)) return (BigInt(text) + 1n).toString();
  const decimal = /^(\d*)\.(\d*)$/.exec(text);
  if (decimal) return `${(BigInt(decimal[1] || "0") + 1n).toString()}.${decimal[2]}`;
  return String(Number(text) + 1);
}

function excluded(node: SqlNode, ancestors: readonly SqlNode[]): boolean {
  const parent = ancestors[ancestors.length - 1];
  if (parent && TYPED_LITERALS.has(parent.type)) return true;
  if (parent && (parent.type === "frame_bound_preceding" || parent.type === "frame_bound_following")) return true;
  // A number standing alone for a column position: `group by 1`, `order by 2`.
  if (node.type === "number_literal") {
    const holder = parent?.type === "sort_specification" ? ancestors[ancestors.length - 3] : ancestors[ancestors.length - 2];
    const direct = parent?.type === "sort_specification" || parent?.type === "list_expr";
    if (direct && holder && (holder.type === "group_by_clause" || holder.type === "order_by_clause")) return true;
  }
  // The grain of date_trunc and its kin.
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const ancestor = ancestors[i] as SqlNode;
    if (ancestor.type !== "func_call") continue;
    const name = functionName(ancestor);
    if (name && GRAIN_FUNCTIONS.has(name) && functionArgs(ancestor).some((arg) => arg === node)) return true;
    break;
  }
  return false;
}
