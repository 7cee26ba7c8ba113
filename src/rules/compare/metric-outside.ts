/** C4: each pre-registered metric against its interval, and metrics that moved without one. */
import { sortByText } from "../../core/text.ts";
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C4",
  name: "metric-outside",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary:
      "A pre-registered metric outside its interval (delta_pct or value), not measured, or pre-registered by delta_pct where production's value is 0; a measured metric that moved without being pre-registered.",
    rationale:
      "The metrics are what the business reads; each one's movement was predicted before the code, and a prediction the diff cannot be held to is not one.",
    enforces:
      "Stage E step 3: the PR is blocked if a metric lands outside its interval, or a model production does not have was pre-registered by percentage, when there is no production number to take a percentage of.",
  },
  messages: {
    notMeasured: { text: "metric {metric} was pre-registered by {by} and the diff does not measure it", fix: "human" },
    zeroProduction:
      "metric {metric} cannot be evaluated: the production value is 0; a model production does not have is pre-registered by value, not by delta_pct",
    deltaOutside: "metric {metric} moved {value} percent, pre-registration allows {min}..{max}",
    valueOutside: "metric {metric} is {value}, pre-registration allows {min}..{max}",
    undeclaredDelta: { text: "metric {metric} moved {value} percent and was not pre-registered", fix: "pre-registration" },
    undeclaredValue: { text: "metric {metric} is {value} and was not pre-registered", fix: "pre-registration" },
    undeclaredZero: {
      text: "metric {metric} moved by a percentage that cannot be evaluated, because the production value is 0, and was not pre-registered",
      fix: "pre-registration",
    },
  },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const declared = measured.preRegistration.metrics;
    const diff = measured.diff.metrics;
    for (const metric of sortByText(Object.keys(declared))) {
      const body = declared[metric]!;
      const seen = Object.hasOwn(diff, metric) ? diff[metric] : undefined;
      if (body.value !== undefined) {
        if (seen?.value === undefined) report("notMeasured", ctx.atKey("metrics", metric), { metric, by: "value" });
        else if (!within(seen.value, body.value))
          report("valueOutside", ctx.atKey("metrics", metric), { metric, value: seen.value, ...body.value });
        continue;
      }
      const interval = body.delta_pct!;
      if (!seen) report("notMeasured", ctx.atKey("metrics", metric), { metric, by: "delta_pct" });
      else if (seen.delta_pct === null) report("zeroProduction", ctx.atKey("metrics", metric), { metric });
      else if (!within(seen.delta_pct, interval))
        report("deltaOutside", ctx.atKey("metrics", metric), { metric, value: seen.delta_pct, ...interval });
    }
    for (const metric of sortByText(Object.keys(diff))) {
      if (Object.hasOwn(declared, metric)) continue;
      const { delta_pct: delta, value } = diff[metric]!;
      if (delta === 0) continue;
      if (delta !== null) report("undeclaredDelta", ctx.atKey("metrics", metric), { metric, value: delta });
      else if (value !== undefined) report("undeclaredValue", ctx.atKey("metrics", metric), { metric, value });
      else report("undeclaredZero", ctx.atKey("metrics", metric), { metric });
    }
  },
});

/** Inside [min, max], both ends allowed; NaN is inside nothing. */
function within(value: number, interval: { min: number; max: number }): boolean {
  return interval.min <= value && value <= interval.max;
}
