/** `where`: one predicate of a WHERE clause dropped (true in an AND, false in an OR). */
import { isNode, type SqlNode } from "../../sql/parser.ts";
import { defineOperator, keywordNames, rangeOf, type Site } from "../define-operator.ts";

type PredicateSite = Site & { replacement: "true" | "false" };

export default defineOperator<PredicateSite>({
  code: "where",
  name: "where-predicate-dropped",
  docs: {
    summary:
      "One predicate of a WHERE clause is dropped: replaced by true where it is ANDed, by false where it is ORed, so the rest of the filter still holds.",
    rationale:
      "A filter whose rows all pass anyway is a filter no test exercises: the unit tests need a row the predicate excludes. Unlike the reference, an OR'ed predicate becomes false, which drops that alternative instead of the whole filter.",
    origin: "reference",
  },
  examples: {
    fires: [
      "select * from orders where status <> 'cancelled'",
      "select * from t where a > 1 and b < 2",
      "select * from t where a = 1 or b = 2",
    ],
    silent: ["select * from orders", "select count(*) from t group by a having count(*) > 1"],
  },
  sites(tree) {
    const sites: PredicateSite[] = [];
    for (const { node } of tree.find("where_clause")) {
      if (!isNode(node.expr)) continue;
      collect(node.expr, "AND", sites);
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});

/** The operands of a chain of ANDs or ORs (not looking inside parentheses), each one site. */
function collect(expression: SqlNode, joinedBy: "AND" | "OR", sites: PredicateSite[]): void {
  const [operator] = keywordNames(expression.operator);
  if (
    expression.type === "binary_expr" &&
    (operator === "AND" || operator === "OR") &&
    isNode(expression.left) &&
    isNode(expression.right)
  ) {
    collect(expression.left, operator, sites);
    collect(expression.right, operator, sites);
    return;
  }
  const range = rangeOf(expression);
  if (range) sites.push({ start: range[0], end: range[1], replacement: joinedBy === "AND" ? "true" : "false" });
}
