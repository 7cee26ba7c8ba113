/** C6: the reconciliation's two numbers against the spec's tolerance; a critical model must bring them. */
import { formatPercent } from "../../core/numbers.ts";
import { reconciliationDrift, TOLERANCE } from "../shared/reconciliation.ts";
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C6",
  name: "reconciliation-drift",
  severity: "BLOCK",
  fix: "sql",
  docs: {
    summary:
      "A critical model's diff without reconciliation numbers, reconciliation numbers with no tolerance to read them against, or a model number further from the source of truth than spec.reconciliation_tolerance allows.",
    rationale:
      "The reconciliation is the only gate that can see a column whose meaning the agent got wrong: the unit tests test what the spec says, the source of truth says what is.",
    enforces:
      "Stage E step 4: for tier: critical, the reconciliation query runs on full data and its difference from the source of truth must be within reconciliation_tolerance, or the PR is blocked.",
  },
  messages: {
    missing: {
      text: "critical model without reconciliation numbers; the query in the spec runs on full data and its two numbers belong in the diff",
      fix: "human",
    },
    noTolerance: {
      text: "reconciliation numbers given, and the spec declares no reconciliation_tolerance to read them against",
      fix: "human",
    },
    zeroTruth: "reconciliation: the model says {model} and the source of truth says {truth}; no percentage makes that difference small",
    over: "reconciliation: the model says {model} and the source of truth says {truth}, a difference of {drift} percent, and the spec allows {tolerance}",
  },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const { diff, spec } = measured;
    const numbers = diff.reconciliation;
    if (!numbers) {
      if (spec.tier === "critical") report("missing", ctx.at);
      return;
    }
    const tolerance = spec.reconciliation_tolerance;
    const allowed = typeof tolerance === "string" ? TOLERANCE.exec(tolerance) : null;
    if (!allowed) {
      report("noTolerance", ctx.atKey("reconciliation"));
      return;
    }
    const { model_value: model, external_value: truth } = numbers;
    const drift = reconciliationDrift(model, truth);
    if (drift === null) {
      if (model !== 0) report("zeroTruth", ctx.atKey("reconciliation"), { model, truth });
      return;
    }
    if (!(drift <= Number(allowed[1]))) {
      report("over", ctx.atKey("reconciliation"), { model, truth, drift: formatPercent(drift), tolerance: tolerance as string });
    }
  },
});
