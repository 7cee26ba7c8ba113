/** I2: the numbers of a diff that kept its contract, next to what was declared, every time. */
import { displayValue } from "../../core/display.ts";
import { formatNumber, formatPercent } from "../../core/numbers.ts";
import { sortByText } from "../../core/text.ts";
import { defineCompareRule } from "../context/compare.ts";
import { reconciliationDrift } from "../shared/reconciliation.ts";

export default defineCompareRule({
  code: "I2",
  name: "diff-readout",
  severity: "INFO",
  fix: "human",
  docs: {
    summary:
      "For every diff that kept its contract: the declared type and reason, each number next to its interval and how wide that interval is, the altered columns, the reconciliation, and a missing window.",
    rationale:
      "A pass that prints nothing is a green nobody looked at; the Author reads whether each interval was narrow enough to fail, which no machine can judge.",
    enforces:
      "Stage E step 5: the human reads the diff; the Author assesses whether the interval makes sense given the declared reason (Stage B).",
  },
  messages: {
    reason: "declared as a {type}, because: {reason}",
    rowDelta: "row_delta {value}, declared {min}..{max} ({band})",
    removedPks: "removed_pks {value}, declared at most {max}",
    metricNotMeasured: "metric {metric} was not measured, declared {min}..{max} ({band})",
    metricValue: "metric {metric} is {value}, declared {min}..{max} ({band})",
    metricZeroProduction:
      "metric {metric} moved by a percentage that cannot be evaluated, because the production value is 0, declared {min}..{max} ({band})",
    metricDelta: "metric {metric} moved {value} percent, declared {min}..{max} ({band})",
    columns: "altered columns measured [{measured}], declared [{declared}]",
    reconciliation: "reconciliation: model {model} against source of truth {truth}, {difference}, and the spec allows {tolerance}",
    reconciliationNoTolerance:
      "reconciliation: model {model} against source of truth {truth}, {difference}, and the spec declares no reconciliation_tolerance",
    noWindow:
      "this diff declares no window; the framework (Stage E step 2) asks for a closed event_time window identical on both sides, and nothing here can check that",
  },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const { diff, preRegistration: declared, spec } = measured;
    const at = ctx.at;
    report("reason", at, { type: declared.type, reason: declared.reason });
    report("rowDelta", ctx.atKey("row_delta"), { value: diff.row_delta, ...declared.row_delta, band: band(declared.row_delta) });
    report("removedPks", ctx.atKey("removed_pks"), { value: diff.removed_pks, max: declared.removed_pks.max });
    for (const metric of sortByText(Object.keys(declared.metrics))) {
      const body = declared.metrics[metric]!;
      const seen = Object.hasOwn(diff.metrics, metric) ? diff.metrics[metric] : undefined;
      const byValue = body.value !== undefined;
      const interval = (byValue ? body.value : body.delta_pct)!;
      const numbers = { metric, ...interval, band: band(interval) };
      if (!seen || (byValue && seen.value === undefined)) report("metricNotMeasured", ctx.atKey("metrics", metric), numbers);
      else if (byValue) report("metricValue", ctx.atKey("metrics", metric), { ...numbers, value: seen.value! });
      else if (seen.delta_pct === null) report("metricZeroProduction", ctx.atKey("metrics", metric), numbers);
      else report("metricDelta", ctx.atKey("metrics", metric), { ...numbers, value: seen.delta_pct });
    }
    report("columns", ctx.atKey("altered_columns"), {
      measured: sortByText(diff.altered_columns).join(", "),
      declared: sortByText(declared.altered_columns).join(", "),
    });
    if (diff.reconciliation) {
      const { model_value: model, external_value: truth } = diff.reconciliation;
      const drift = reconciliationDrift(model, truth);
      const difference =
        drift === null ? "no percentage difference (the source of truth is 0)" : `a difference of ${formatPercent(drift)} percent`;
      const tolerance = spec.reconciliation_tolerance;
      if (tolerance === undefined) report("reconciliationNoTolerance", ctx.atKey("reconciliation"), { model, truth, difference });
      else report("reconciliation", ctx.atKey("reconciliation"), { model, truth, difference, tolerance: displayValue(tolerance) });
    }
    if (!diff.window) report("noWindow", at);
  },
});

/** How wide an interval is: the Author's question is whether it could have failed. */
function band(interval: { min: number; max: number }): string {
  return interval.min === interval.max ? "a band that pins it to one value" : `a band ${formatNumber(interval.max - interval.min)} wide`;
}
