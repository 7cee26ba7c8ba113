/** C9: the spec's external_validation number against the reconciliation's source of truth. */
import { formatNumber } from "../../core/numbers.ts";
import { anchorAgrees, anchorNumber } from "../shared/anchor.ts";
import { defineCompareRule } from "../context/compare.ts";

export default defineCompareRule({
  code: "C9",
  name: "anchor-disagrees",
  severity: "BLOCK",
  docs: {
    summary:
      "A diff's reconciliation whose source of truth (external_value, which slp reconcile records) is not the number the spec's external_validation states, to the decimals it is written with. The anchor's number is the first one after its last `=`, or its only number; an anchor with several numbers and no `=`, or none, is not read.",
    rationale:
      "The anchor exists because the spec can be wrong: every test checks the spec, and only a number from outside the warehouse checks the spec. When the reconciliation's source of truth says another number, either the anchor is stale or the reconciliation query reads the wrong source, and a reconciliation within tolerance of the wrong truth proves nothing.",
    enforces:
      "Stage A: external_validation is a concrete number from outside the warehouse that anchors the model, because the spec can also be wrong; Stage E step 4: the reconciliation holds the model against that source of truth.",
  },
  messages: {
    disagrees:
      "the spec's external_validation says {anchor} ({text}) and the reconciliation's source of truth says {truth}: one of them is wrong, and a reconciliation against the wrong truth proves nothing; correct the anchor with the spec's author, or the reconciliation query",
  },
  run(ctx, report) {
    const measured = ctx.measured();
    if (!measured) return;
    const { diff, spec, model } = measured;
    const truth = diff.reconciliation?.external_value;
    const text = spec.external_validation;
    if (truth === undefined || typeof text !== "string") return;
    const anchor = anchorNumber(text);
    if (anchor === null || anchorAgrees(anchor, truth)) return;
    report(
      "disagrees",
      { file: model.file, model: model.name, line: model.lineOf([...model.specKey, "external_validation"]) },
      { anchor: anchor.text, text: JSON.stringify(text), truth: formatNumber(truth) },
    );
  },
});
