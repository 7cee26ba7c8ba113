/** C8: a pre-registered interval wider than slp.yml's band ceiling for the model's tier. */
import { formatPercent } from "../../core/numbers.ts";
import { sortByText } from "../../core/text.ts";
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C8",
  name: "band-too-wide",
  severity: "BLOCK",
  fix: "pre-registration",
  docs: {
    summary:
      "With band_ceilings in slp.yml (the base's with --base): a row_delta band wider than the tier's rows_pct of the model's production rows (as the diff's extra.production_rows records them, which slp diff writes), or a metric's delta_pct band wider than the tier's delta_pct points. Without the setting, nothing: I2 reports every band's width as always.",
    rationale:
      "An interval wide enough holds any result: a prediction of 0 to 1,000,000 rows on a model of 40,000 cannot fail, and the Author reading I2 has to notice it. A team that knows how wide a critical model's honest band is writes the ceiling once, and a wider one blocks.",
    enforces: "Stage B: the intervals are narrow enough to be wrong (the Author judges the intervals against the reason); Stage E step 3.",
  },
  messages: {
    rows: "pre_registration.row_delta spans {min}..{max}: {width} rows, {share} percent of production's {rows} rows, wider than the {ceiling} percent band_ceilings.{tier}.rows_pct allows; a band that wide holds almost any result",
    metric:
      "pre_registration.metrics.{metric}.delta_pct spans {min}..{max}: {width} points, wider than the {ceiling} points band_ceilings.{tier}.delta_pct allows; a band that wide holds almost any result",
    rowsUnknown: {
      text: "band_ceilings.{tier}.rows_pct is set, and this diff does not say how many rows production has (extra.production_rows, which slp diff records): the row_delta band {min}..{max} was not held against it",
      severity: "INFO",
      fix: "human",
    },
  },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const { diff, spec, preRegistration, model } = measured;
    // The band is the yml's: the finding points at the interval there.
    const at = (...path: string[]) => ({ file: model.file, model: model.name, line: model.lineOf([...model.preRegistrationKey, ...path]) });
    const tier = spec.tier;
    const ceilings = typeof tier === "string" ? ctx.run.settings.ceilings?.[tier] : undefined;
    if (!ceilings) return;
    const { min, max } = preRegistration.row_delta;
    if (ceilings.rows_pct !== undefined) {
      const rows = diff.extra?.production_rows;
      if (typeof rows !== "number" || !Number.isFinite(rows) || rows <= 0) report("rowsUnknown", at("row_delta"), { tier, min, max });
      else {
        const share = ((max - min) / rows) * 100;
        if (share > ceilings.rows_pct) {
          report("rows", at("row_delta"), {
            min,
            max,
            width: max - min,
            share: formatPercent(share),
            rows,
            ceiling: ceilings.rows_pct,
            tier,
          });
        }
      }
    }
    if (ceilings.delta_pct !== undefined) {
      for (const metric of sortByText(Object.keys(preRegistration.metrics))) {
        const band = preRegistration.metrics[metric]?.delta_pct;
        if (band && band.max - band.min > ceilings.delta_pct) {
          report("metric", at("metrics", metric, "delta_pct"), {
            metric,
            min: band.min,
            max: band.max,
            width: band.max - band.min,
            ceiling: ceilings.delta_pct,
            tier,
          });
        }
      }
    }
  },
});
