/** `not`: a NOT removed (`not in` -> `in`, `not like` -> `like`, `not exists` -> `exists`, `not x` -> `x`). */
import { isNode } from "../../sql/parser.ts";
import { defineOperator, keywordNames, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "not",
  name: "negation-removed",
  docs: {
    summary:
      "A negation is removed: not in, not like, not ilike, not between, not exists, is not distinct from and a plain not lose their NOT.",
    rationale:
      "An exclusion list or pattern that no fixture row matches is one no test proves. `is not null` is left to null-check-flipped.",
    origin: "reference",
  },
  examples: {
    fires: [
      "select * from t where status not in ('test', 'void')",
      "select * from t where not exists (select 1 from u where u.id = t.id)",
      "select * from t where email not like '%@example.com'",
    ],
    silent: ["select * from t where status in ('a')", "select * from t where a is not null"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("binary_expr", "between_expr", "prefix_op_expr")) {
      if (node.type === "prefix_op_expr") {
        if (keywordNames(node.operator)[0] !== "NOT" || !node.range || !isNode(node.expr) || !node.expr.range) continue;
        // `not x` -> `x`; the site runs to the end of the operand's first word, so `not exists (...)` reads `not exists`.
        const operand = tree.sql.slice(node.expr.range[0], node.expr.range[1]);
        const first = /^[\p{L}\p{N}_]+|^./u.exec(operand)?.[0] ?? operand;
        sites.push({ start: node.range[0], end: node.expr.range[0] + first.length, replacement: first });
        continue;
      }
      const field = node.type === "between_expr" ? node.betweenKw : node.operator;
      const names = keywordNames(field);
      const range = rangeOf(field);
      if (!range || names.length < 2) continue;
      const words = tree.text(field).split(/\s+/);
      // `not in`, `not like`, `not between`; `is not distinct from` (but not `is not null`: null-check-flipped's).
      const notAt = names.indexOf("NOT");
      if (notAt < 0 || (names[0] === "IS" && names[2] !== "DISTINCT")) continue;
      sites.push({ start: range[0], end: range[1], replacement: words.filter((_, i) => i !== notAt).join(" ") });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
