/** The sentences of `slp review`, written once for its Markdown and its HTML page. */
import { formatDecimal, formatNumber, formatPercent, groupThousands } from "../core/numbers.ts";
import { plural } from "../core/text.ts";
import type { ReviewData, ReviewHistoryEntry, ReviewModel, ReviewNumber, ReviewOtherTests, ReviewRows } from "../schemas/review.ts";

export type Verdict = "ok" | "bad" | "warn" | "none";

export function title(data: ReviewData): string {
  return data.models.length === 0
    ? "slp review: nothing pre-registered on this branch"
    : `slp review: ${plural(data.models.length, "model")}`;
}

export function inputsLine(data: ReviewData): string {
  const diffs = data.diffs.length === 0 ? "no diff given" : `diffs: ${data.diffs.join(", ")}`;
  const base = data.base ? `; base ${data.base}` : "";
  return `Project ${data.project}${base}; ${diffs}. ${data.compare ?? "compare did not run (no diff)"}. ${data.unit}.`;
}

export function headingOf(model: ReviewModel): string {
  return `${model.model} (${model.tier ?? "no tier"})`;
}

export function declaredAs(model: ReviewModel): string | null {
  const { type, reason, inherited } = model.pre_registration;
  if (type === null && reason === null) return "no pre-registration: a diff nobody predicted";
  const base = `declared as a ${type ?? "?"}, because: ${reason ?? "?"}`;
  return inherited ? `${base} (inherited from the base branch: written for an earlier change, it counts as absent)` : base;
}

export function keyLine(model: ReviewModel): { text: string; verdict: Verdict } {
  if (!model.primary_key) return { text: "the spec names no primary key", verdict: "bad" };
  const key = model.primary_key.join(", ");
  if (model.uniqueness.can_fail)
    return { text: `primary key ${key}: its uniqueness test (${model.uniqueness.tests.join(", ")}) can fail the build`, verdict: "ok" };
  return {
    text: `primary key ${key}: ${model.uniqueness.reason === "no uniqueness test on the key" ? "no uniqueness test on the key, so a duplicate passes" : `its uniqueness test cannot fail the build: ${model.uniqueness.reason}`}`,
    verdict: "bad",
  };
}

function unit(number: ReviewNumber): string {
  return number.by === "delta_pct" ? " percent" : "";
}

export function numberLabel(number: ReviewNumber): string {
  if (number.kind === "metric") return `metric ${number.name} (${number.by === "delta_pct" ? "change in percent" : "value"})`;
  return number.name;
}

export function bandText(number: ReviewNumber): string {
  if (number.min === null) return `at most ${formatNumber(number.max)}`;
  const width = number.max - number.min;
  const wide = number.min === number.max ? "pinned to one value" : `a band ${formatNumber(width)} wide`;
  return `${formatNumber(number.min)}..${formatNumber(number.max)}${unit(number)} (${wide})`;
}

export function measuredText(number: ReviewNumber): string {
  return number.measured === null ? (number.measured_note ?? "not measured") : `${decimal(number.measured)}${unit(number)}`;
}

export function numberVerdict(number: ReviewNumber): { text: string; verdict: Verdict } {
  if (number.inside === null) return { text: number.measured_note === "no diff" ? "no diff" : "cannot be judged", verdict: "bad" };
  return number.inside ? { text: "inside", verdict: "ok" } : { text: "outside", verdict: "bad" };
}

/** What to flag about a band: it can never fail, or one end never can. */
export function bandFlags(model: ReviewModel): string[] {
  return model.numbers.flatMap((number) => [number.cannot_fail, number.dead_end].filter((text): text is string => text !== null));
}

export function columnsLine(model: ReviewModel): { text: string; verdict: Verdict } {
  const { declared, measured, undeclared } = model.altered_columns;
  const list = (columns: string[]) => `[${columns.join(", ")}]`;
  if (measured === null) return { text: `altered columns declared ${list(declared)}; no diff measured them`, verdict: "bad" };
  const changed = undeclared.length ? `; changed and not pre-registered: ${undeclared.join(", ")}` : "";
  return {
    text: `altered columns measured ${list(measured)}, declared ${list(declared)}${changed}`,
    verdict: undeclared.length ? "bad" : "ok",
  };
}

export function windowLine(model: ReviewModel): string {
  if (!model.diff) return "no diff.json for this model was given: measure it (slp diff) and pass it to slp review";
  const window = model.window
    ? `measured over ${model.window.column} from ${model.window.start} to ${model.window.end}`
    : "the diff declares no window (Stage E asks for a closed window, identical on both sides)";
  return `${window}, in ${model.diff}`;
}

export function reconciliationLine(model: ReviewModel): { text: string; verdict: Verdict } | null {
  const r = model.reconciliation;
  if (!r) return null;
  if (r.model_value === null || r.external_value === null) {
    return {
      text: `critical model without reconciliation numbers: run ${r.query ?? "the spec's reconciliation query"} on full data and put its two numbers in the diff`,
      verdict: "bad",
    };
  }
  const difference =
    r.drift_pct === null ? "no percentage (the source of truth is 0)" : `a difference of ${formatPercent(r.drift_pct)} percent`;
  const allows = r.tolerance ? `the spec allows ${r.tolerance}` : "the spec declares no reconciliation_tolerance";
  const text = `reconciliation: the model says ${formatNumber(r.model_value)}, the source of truth ${formatNumber(r.external_value)}: ${difference}; ${allows}`;
  return { text, verdict: r.within === true ? "ok" : "bad" };
}

export function anchorLine(model: ReviewModel): string | null {
  const anchor = model.reconciliation?.external_validation;
  return anchor ? `external anchor: ${anchor}` : null;
}

/**
 * The anchor held against the reconciliation's source of truth: flagged when
 * they disagree (one of them is wrong), a plain line when they agree, null
 * when there is nothing to hold (no anchor number, no reconciliation).
 */
export function anchorCheckLine(model: ReviewModel): { text: string; verdict: Verdict } | null {
  const r = model.reconciliation;
  if (!r || r.anchor_agrees === null || r.anchor_value === null || r.external_value === null) return null;
  const anchor = formatNumber(r.anchor_value);
  const truth = formatNumber(r.external_value);
  if (r.anchor_agrees) return { text: `the anchor's ${anchor} is the reconciliation's source of truth`, verdict: "ok" };
  return {
    text: `the anchor says ${anchor} and the reconciliation's source of truth says ${truth}: one of them is wrong, and a reconciliation against the wrong truth proves nothing`,
    verdict: "bad",
  };
}

/**
 * A number in the review's before/after table: the loop's formatDecimal (at most four decimals),
 * thousands grouped; four significant digits for a number smaller than
 * that shows (0.00001234).
 */
export function decimal(value: number): string {
  return groupThousands(formatDecimal(value));
}

/** Where the diff says it was measured, or that it does not say: whether it is current cannot be told then. */
export function measuredOnLine(model: ReviewModel): { text: string; verdict: Verdict } | null {
  if (!model.diff) return null;
  const on = model.measured_on;
  if (!on) {
    return {
      text: "this diff records no commit and no content id (another tool wrote it, or an older slp): the review cannot tell whether it measures this code; re-run slp diff to know",
      verdict: "warn",
    };
  }
  const commit = on.commit ? `commit ${on.commit.slice(0, 12)}${on.dirty ? " with uncommitted changes" : ""}` : "no commit";
  return {
    text: `measured at ${commit}; ${on.files.length === 1 ? "its 1 file is" : `its ${on.files.length} files are`} unchanged since`,
    verdict: "ok",
  };
}

/** The before/after table's header and rows, as text cells (production, branch, delta, delta %). */
export const BEFORE_AFTER_HEADER = ["", "production", "branch", "delta", "delta %"] as const;

export function beforeAfterCells(entry: ReviewModel["before_after"][number]): string[] {
  const show = (value: number | null, signed = false) => (value === null ? "–" : `${signed && value > 0 ? "+" : ""}${decimal(value)}`);
  return [
    entry.kind === "rows" ? "rows" : `metric ${entry.name}`,
    show(entry.production),
    show(entry.branch),
    show(entry.delta, true),
    entry.delta_pct === null ? "–" : `${show(entry.delta_pct, true)} %`,
  ];
}

/** Said under the table when the diff does not record production's and the branch's values. */
export function beforeAfterNote(model: ReviewModel): string | null {
  const missing = model.before_after.some((entry) => entry.production === null || entry.branch === null);
  return missing ? "– : the diff does not record this value (slp diff records both sides; another tool may not)" : null;
}

export function rowsSummary(rows: ReviewRows): string {
  return `${rows.count} ${rows.count === "1" ? "row" : "rows"}`;
}

export function edgeTestLine(test: { name: string; status: string; given: { rows: ReviewRows }[]; expect: ReviewRows }): string {
  const given = test.given.length === 0 ? "no given rows" : `given ${test.given.map((item) => item.rows.count).join(" + ")} rows`;
  return `unit test ${test.name} (${test.status}): ${given}, expecting ${rowsSummary(test.expect)}`;
}

export function mutationLine(model: ReviewModel): { text: string; verdict: Verdict } {
  const m = model.mutation;
  if (!m.ran) return { text: `mutation check not run (no ${m.file})`, verdict: "warn" };
  const counts = `${m.killed} killed, ${m.survived} survived, ${m.equivalent} equivalent`;
  if (m.survivors.length === 0) return { text: `no surviving mutant (${counts})`, verdict: "ok" };
  return {
    text: `${plural(m.survivors.length, "surviving mutant")} (${counts}): the unit tests would not notice these defects`,
    verdict: "bad",
  };
}

export function survivorLine(survivor: ReviewModel["mutation"]["survivors"][number]): string {
  return `${survivor.operator} at line ${survivor.line}: ${survivor.original || "(nothing)"} → ${survivor.replacement || "(nothing)"}`;
}

/** The history section's heading and its one line when there is nothing in it, or it was not read. */
export const HISTORY_HEADING = "History of the branch";

export function historyLine(data: ReviewData): string {
  const h = data.history;
  if (!h.read) return `Not read: ${h.reason ?? "no reason given"}.`;
  const empty = h.branch.length === 0 && h.models.length === 0;
  const agent = h.agent_branch ? "" : " (slp tcr made none of them: not an agent branch, so commits outside tcr are not counted)";
  const read = `Read as gate reads it: ${plural(h.commits, "commit")} since the merge-base ${h.merge_base ?? "?"} with ${data.base ?? "the base"}${agent}`;
  if (!empty) return `${read}, oldest first:`;
  const nothing = h.agent_branch
    ? "no pre-registration edited, no strike, no strike reset, no commit outside tcr, no merge edited by hand"
    : "no pre-registration edited, no strike, no strike reset";
  return `${read}. Nothing to report: ${nothing}.`;
}

/** How serious a history entry is: a prediction moved after its result, or work tcr never judged, blocks; the rest is for reading. */
export function historyVerdict(entry: ReviewHistoryEntry): Verdict {
  return entry.rule === "G17" || entry.rule === "G12" ? "bad" : "warn";
}

export function historyEntryLine(entry: ReviewHistoryEntry): string {
  return `${entry.rule ? `[${entry.rule}] ` : ""}${entry.text}`;
}

export function otherUnitLine(test: ReviewOtherTests["unit"][number]): string {
  const names = test.edge === null ? "names no edge" : `names the edge "${test.edge}", which the spec does not list`;
  const given = test.given.length === 0 ? "no given rows" : `given ${test.given.join(", ")}`;
  return `unit test ${test.name} (${test.status}), ${names}: ${given}, expecting ${test.expect}`;
}

/** A data test by name: its arguments are in what it asserts. */
export function dataTestLabel(test: ReviewOtherTests["data"][number]): string {
  return test.name;
}
