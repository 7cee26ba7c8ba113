/** P2: a pre-registration whose intervals are upside down or whose names are not the model's. */
import { displayValue } from "../../core/display.ts";
import { sortByText } from "../../core/text.ts";
import { isMapping, isStringList, type Mapping, type Value } from "../../core/values.ts";
import { defineCheckRule } from "../context/check.ts";

export default defineCheckRule({
  code: "P2",
  name: "inconsistent-pre-registration",
  severity: "BLOCK",
  fix: "pre-registration",
  docs: {
    summary:
      "A pre-registration inconsistent with itself or its spec: min above max, metrics that differ from the spec's, altered columns the model does not declare.",
    rationale:
      "An interval whose min is above its max admits no number, and a metric the spec does not define is measured against nothing: the comparison in Stage E would be meaningless.",
    enforces: "Stage B / Rule 6: closed intervals, one for each metric of the spec.",
  },
  messages: {
    noSpec: {
      text: "pre-registration without a spec: the spec is what the diff is compared against; a human writes it first",
      fix: "human",
    },
    upsideDown: "pre_registration.{interval} has min {min}, which is above max {max}",
    unknownMetric: "pre_registration.metrics declares {metric}, which spec.metrics does not define",
    undeclaredMetric: "spec.metrics defines {metric}, which pre_registration.metrics declares no interval for",
    unknownColumn: "pre_registration.altered_columns names {column}, which the model does not declare as a column",
  },
  run(ctx, report) {
    for (const model of ctx.models) {
      const prereg = model.preRegistration;
      if (!isMapping(prereg)) continue;
      const at = (...path: (string | number)[]) => ctx.at(model, [...model.preRegistrationKey, ...path]);
      const spec = ctx.spec(model);
      if (!spec) {
        report("noSpec", at());
        continue;
      }
      const checkInterval = (label: string, interval: Value | undefined) => {
        if (!isMapping(interval)) return;
        const { min, max } = interval;
        if (isNumeric(min) && isNumeric(max) && Number(min) > Number(max)) {
          report("upsideDown", at(...label.split(".")), { interval: label, min: displayValue(min), max: displayValue(max) });
        }
      };
      checkInterval("row_delta", prereg.row_delta);
      const declared: Mapping = isMapping(prereg.metrics) ? prereg.metrics : {};
      const defined: Mapping = isMapping(spec.metrics) ? spec.metrics : {};
      for (const metric of sortByText(Object.keys(declared))) {
        const body = declared[metric];
        if (!isMapping(body)) continue;
        const by = Object.hasOwn(body, "value") ? "value" : "delta_pct";
        checkInterval(`metrics.${metric}.${by}`, body[by]);
      }
      for (const metric of sortByText(Object.keys(declared))) {
        if (!Object.hasOwn(defined, metric)) report("unknownMetric", at("metrics", metric), { metric });
      }
      for (const metric of sortByText(Object.keys(defined))) {
        if (!Object.hasOwn(declared, metric)) report("undeclaredMetric", ctx.at(model, [...model.specKey, "metrics", metric]), { metric });
      }
      if (isStringList(prereg.altered_columns)) {
        const columns = new Set(model.columns.map((column) => column.name));
        prereg.altered_columns.forEach((column, index) => {
          if (!columns.has(column)) report("unknownColumn", at("altered_columns", index), { column });
        });
      }
    }
  },
});

/** Booleans count as numbers here, as Python's `int` subclassing makes them. */
function isNumeric(value: Value | undefined): value is number | boolean {
  return typeof value === "number" || typeof value === "boolean";
}
