/** `grain`: the grain of a date_trunc (or timestamp_trunc, datetime_trunc) moved to the next one up. */
import { isNode } from "../../sql/parser.ts";
import { defineOperator, functionArgs, functionName, matchCase, type Site } from "../define-operator.ts";

export const GRAIN_FUNCTIONS = new Set(["date_trunc", "timestamp_trunc", "datetime_trunc", "time_trunc", "datetrunc"]);

const NEXT: Record<string, string> = {
  microsecond: "millisecond",
  millisecond: "second",
  second: "minute",
  minute: "hour",
  hour: "day",
  day: "week",
  week: "month",
  month: "quarter",
  quarter: "year",
  year: "month",
};

export default defineOperator<Site & { replacement: string }>({
  code: "grain",
  name: "date-trunc-grain-changed",
  docs: {
    summary: "The grain of a date_trunc moves one step coarser (day -> week, month -> quarter; year -> month).",
    rationale:
      "Rows that all fall in one month agree at every grain: the fixtures need dates on both sides of a grain boundary to prove the bucketing.",
    origin: "slp",
  },
  examples: {
    fires: ["select date_trunc('month', ordered_at) as month, count(*) from t group by 1"],
    silent: ["select cast(ordered_at as date) from t", "select date_trunc(granularity, ordered_at) from t"],
  },
  sites(tree) {
    const sites: (Site & { replacement: string })[] = [];
    for (const { node } of tree.find("func_call")) {
      const name = functionName(node);
      if (!name || !GRAIN_FUNCTIONS.has(name)) continue;
      for (const arg of functionArgs(node)) {
        if (!isNode(arg) || !arg.range) continue;
        // 'month' in DuckDB, PostgreSQL and Snowflake; MONTH (a bare word) in BigQuery.
        const word = arg.type === "string_literal" ? String(arg.value) : arg.type === "identifier" ? String(arg.name) : null;
        const next = word === null ? undefined : NEXT[word.toLowerCase()];
        if (!next) continue;
        const text = tree.text(arg);
        const replacement =
          arg.type === "string_literal" ? text.replace(word as string, matchCase(word as string, next)) : matchCase(text, next);
        sites.push({ start: arg.range[0], end: arg.range[1], replacement });
        break;
      }
    }
    return sites;
  },
  mutate: (site) => site.replacement,
});
