/** `join`: an outer join becomes an inner join, an inner join a left join. */
import { defineOperator, keywordNames, matchCase, rangeOf, type Site } from "../define-operator.ts";

export default defineOperator<Site & { replacement: string }>({
  code: "join",
  name: "join-type-swapped",
  docs: {
    summary:
      "A join's type is swapped: left, right and full (outer) joins become inner joins; inner joins (and a bare join) become left joins.",
    rationale:
      "When every key resolves in the fixtures, an inner and a left join return the same rows: the tests need a row whose key has no match on the other side. The reference leaves a bare `join` alone; slp treats it as the inner join it is.",
    origin: "reference",
  },
  examples: {
    fires: [
      "select * from a left join b on a.id = b.id",
      "select * from a inner join b on a.id = b.id",
      "select * from a join b using (id)",
    ],
    silent: ["select * from a", "select * from a cross join b", "select * from a, b"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("join_expr")) {
      const names = keywordNames(node.operator);
      const range = rangeOf(node.operator);
      if (!range || names[names.length - 1] !== "JOIN" || names.includes("NATURAL")) continue;
      const kind = names.length === 1 ? "INNER" : names[0];
      const text = tree.text(node.operator);
      if (kind === "INNER") sites.push({ start: range[0], end: range[1], replacement: matchCase(text, "left join") });
      else if (kind === "LEFT" || kind === "RIGHT" || kind === "FULL")
        sites.push({ start: range[0], end: range[1], replacement: matchCase(text, "inner join") });
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
