/**
 * The three readings of Stage E, gathered for each model the branch
 * pre-registered: (1) the grain and key as the spec states them, and whether
 * the key's uniqueness test can fail; (2) each pre-registered number beside
 * the measured one, its band, and whether the band could ever fail, then the
 * reconciliation; (3) one line per known edge: the unit test naming it, the
 * rows it is given and expects, and the model's surviving mutants. Pure: the
 * task reads the files and runs the tests, this module only reads what it is
 * handed. A sensitive column's values never leave it.
 */
import { collapseWhitespace, sortByText } from "../core/text.ts";
import { isMapping, isStringList, pythonStr, type Mapping, type Value } from "../core/values.ts";
import { formatNumber } from "../core/numbers.ts";
import { parseCsv } from "../project/files/csv.ts";
import type { DiffFile } from "../project/history/diff-files.ts";
import type { Model } from "../rules/context/check.ts";
import type { CheckContext } from "../rules/context/check.ts";
import { keyUniqueness } from "../rules/shared/primary-key.ts";
import { anchorAgrees, anchorNumber } from "../rules/shared/anchor.ts";
import { reconciliationDrift, TOLERANCE } from "../rules/shared/reconciliation.ts";
import { edgeClaim, rowCount } from "../rules/shared/unit-gaps.ts";
import type { Finding } from "../schemas/finding.ts";
import {
  SENSITIVE_CELL,
  type ReviewData,
  type ReviewBeforeAfter,
  type ReviewEdge,
  type ReviewHistory,
  type ReviewModel,
  type ReviewNumber,
  type ReviewRows,
} from "../schemas/review.ts";
import { otherTestsOf } from "./review-tests.ts";

/** A mutation artifact as review reads it (spec/rules.md §4.9): only what it shows. */
export interface MutationRead {
  killed: number;
  survived: number;
  equivalent: number;
  survivors: { id: string; operator: string; original: string; replacement: string; line: number }[];
}

export interface ReviewInputs {
  projectAsGiven: string;
  context: CheckContext;
  base: string | null;
  /** Models whose pre-registration is the merge-base's (--base); empty without it. */
  inherited: ReadonlySet<string>;
  diffs: readonly DiffFile[];
  /** compare over those diffs, or null when none was given. */
  compare: { summary: string; findings: Finding[] } | null;
  unit: { summary: string; status: ReadonlyMap<string, "pass" | "fail" | "error"> };
  /** mutation/<model>.json per model, or null when the mutation check has not run for it. */
  mutation(model: string): MutationRead | null;
  /** Column names that carry a sensitive value under another name (sensitive-column lineage), lower case. */
  derivedSensitive?: readonly string[];
  /** The branch's history as gate reads it (review-history.ts), or why it was not read. */
  history: ReviewHistory;
}

/** Rows beyond this many are counted, not shown: the reading is of the edge, not of a data set. */
const ROWS_SHOWN = 10;

export function buildReview(inputs: ReviewInputs): ReviewData {
  const { context } = inputs;
  const sensitive = sensitiveColumns(context);
  // A column derived from a sensitive one (`email as contact`) holds the same values: masked the same.
  for (const name of inputs.derivedSensitive ?? []) sensitive.add(name);
  const diffOf = new Map(inputs.diffs.map((file) => [file.model, file] as const));
  const reviewed = context.models.filter(
    (model) => (isMapping(model.preRegistration) && !inputs.inherited.has(model.name)) || diffOf.has(model.name),
  );
  const names = new Set(reviewed.map((model) => model.name));
  return {
    project: inputs.projectAsGiven,
    base: inputs.base,
    diffs: inputs.diffs.map((file) => file.path),
    compare: inputs.compare?.summary ?? null,
    unit: inputs.unit.summary,
    history: inputs.history,
    models: reviewed.map((model) => reviewModel(model, inputs, diffOf.get(model.name), sensitive)),
    unreviewed: context.martsModels.filter((model) => isMapping(model.spec) && !names.has(model.name)).map((model) => model.name),
  };
}

function reviewModel(model: Model, inputs: ReviewInputs, diffFile: DiffFile | undefined, sensitive: ReadonlySet<string>): ReviewModel {
  const spec = inputs.context.spec(model) ?? {};
  const declared = isMapping(model.preRegistration) ? model.preRegistration : {};
  const diff = diffFile?.value ?? null;
  const key = isStringList(spec.primary_key) && spec.primary_key.length > 0 ? spec.primary_key : null;
  const uniqueness = key ? keyUniqueness(model, key) : null;
  const declaredColumns = isStringList(declared.altered_columns) ? sortByText(declared.altered_columns) : [];
  const measuredColumns = diff && isStringList(diff.altered_columns) ? sortByText(diff.altered_columns) : null;
  const mutation = inputs.mutation(model.name);
  const compare = (inputs.compare?.findings ?? []).filter((finding) => finding.model === model.name && finding.severity === "BLOCK");
  return {
    model: model.name,
    file: model.file,
    tier: typeof spec.tier === "string" ? spec.tier : null,
    grain: typeof spec.grain === "string" ? spec.grain : null,
    primary_key: key,
    uniqueness: {
      can_fail: uniqueness?.canFail ?? false,
      tests: (uniqueness?.matches ?? []).map((test) => test.name),
      reason:
        key === null
          ? "the spec names no primary key"
          : uniqueness?.canFail
            ? null
            : uniqueness?.matches.length
              ? uniqueness.reason
              : "no uniqueness test on the key",
    },
    pre_registration: {
      type: typeof declared.type === "string" ? declared.type : null,
      reason: typeof declared.reason === "string" ? declared.reason : null,
      inherited: inputs.inherited.has(model.name),
    },
    diff: diffFile?.path ?? null,
    window:
      diff && isMapping(diff.window) && ["column", "start", "end"].every((k) => typeof (diff.window as Mapping)[k] === "string")
        ? { column: String(diff.window.column), start: String(diff.window.start), end: String(diff.window.end) }
        : null,
    numbers: numbersOf(declared, diff),
    measured_on: measuredOnOf(diff),
    before_after: beforeAfterOf(declared, diff),
    altered_columns: {
      declared: declaredColumns,
      measured: measuredColumns,
      undeclared: (measuredColumns ?? []).filter((column) => !declaredColumns.includes(column)),
    },
    reconciliation: reconciliationOf(spec, diff),
    edges: edgesOf(model, inputs, sensitive),
    mutation: {
      file: `mutation/${model.name}.json`,
      ran: mutation !== null,
      killed: mutation?.killed ?? 0,
      survived: mutation?.survived ?? 0,
      equivalent: mutation?.equivalent ?? 0,
      survivors: mutation?.survivors ?? [],
    },
    compare: compare.map((finding) => `${finding.rule}: ${finding.message}`),
    other_tests: otherTestsOf(model, inputs.context, inputs.unit.status),
  };
}

const isNumber = (value: Value | undefined): value is number => typeof value === "number";

/** row_delta, removed_pks, then each declared metric by name: the band, the measured number, and whether it could fail. */
function numbersOf(declared: Mapping, diff: Mapping | null): ReviewNumber[] {
  const numbers: ReviewNumber[] = [];
  const removedMax = isMapping(declared.removed_pks) && isNumber(declared.removed_pks.max) ? declared.removed_pks.max : null;
  if (isMapping(declared.row_delta) && isNumber(declared.row_delta.min) && isNumber(declared.row_delta.max)) {
    const { min, max } = declared.row_delta;
    const measured = diff && isNumber(diff.row_delta) ? diff.row_delta : null;
    // With a unique key, row_delta = added - removed >= -removed: below -removed_pks.max, removed_pks blocks first.
    const deadEnd =
      removedMax !== null && min < -removedMax
        ? `row_delta falls below ${formatNumber(-removedMax)} only when more than ${formatNumber(removedMax)} keys are removed, which removed_pks (at most ${formatNumber(removedMax)}) blocks first, so the lower end ${formatNumber(min)} never fails on its own`
        : endsThatCannotFail("row_delta", min, max);
    numbers.push(
      number(
        "row_delta",
        "row_delta",
        "count",
        min,
        max,
        measured,
        diff ? (measured === null ? "not measured" : null) : "no diff",
        deadEnd,
      ),
    );
  }
  if (removedMax !== null) {
    const measured = diff && isNumber(diff.removed_pks) ? diff.removed_pks : null;
    numbers.push(
      number(
        "removed_pks",
        "removed_pks",
        "count",
        null,
        removedMax,
        measured,
        diff ? (measured === null ? "not measured" : null) : "no diff",
        endsThatCannotFail("removed_pks", 0, removedMax),
      ),
    );
  }
  const metrics = isMapping(declared.metrics) ? declared.metrics : {};
  const measuredMetrics = diff && isMapping(diff.metrics) ? diff.metrics : {};
  for (const name of sortByText(Object.keys(metrics))) {
    const body = metrics[name];
    if (!isMapping(body)) continue;
    const by = "value" in body ? "value" : "delta_pct";
    const interval = body[by];
    if (!isMapping(interval) || !isNumber(interval.min) || !isNumber(interval.max)) continue;
    const seen = Object.hasOwn(measuredMetrics, name) && isMapping(measuredMetrics[name]) ? (measuredMetrics[name] as Mapping) : null;
    const raw = seen ? seen[by] : undefined;
    const measured = isNumber(raw) ? raw : null;
    const note = !diff
      ? "no diff"
      : measured !== null
        ? null
        : by === "delta_pct" && seen && raw === null
          ? "the production value is 0: no percentage exists"
          : "not measured";
    const dead =
      by === "delta_pct" && interval.min <= -100 && Number.isFinite(interval.max)
        ? `${name} can never fail on a fall: below -100 percent it would have changed sign, so the lower end ${formatNumber(interval.min)} fails only on a sign flip`
        : endsThatCannotFail(name, interval.min, interval.max);
    const band = number(name, "metric", by, interval.min, interval.max, measured, note, dead);
    if (by === "delta_pct" && interval.min <= -100 && interval.min > -Infinity && interval.max === Infinity) {
      band.cannot_fail = `${name} may move from ${formatNumber(interval.min)} percent to infinity: no fall and no rise can fail it`;
      band.dead_end = null;
    }
    numbers.push(band);
  }
  return numbers;
}

/** An infinite end can never be reached (YAML's `.inf`); both infinite: the band cannot fail at all. */
function endsThatCannotFail(name: string, min: number, max: number): string | null {
  if (min === -Infinity && max === Infinity) return null;
  if (min === -Infinity) return `${name} has no lower end (-infinity): no fall can fail it`;
  if (max === Infinity) return `${name} has no upper end (infinity): no rise can fail it`;
  return null;
}

function number(
  name: string,
  kind: ReviewNumber["kind"],
  by: ReviewNumber["by"],
  min: number | null,
  max: number,
  measured: number | null,
  note: string | null,
  deadEnd: string | null,
): ReviewNumber {
  const floor = min ?? 0;
  const cannotFail =
    floor === -Infinity && max === Infinity ? `${name} is declared from -infinity to infinity: no number can fail it` : null;
  return {
    name,
    kind,
    by,
    min,
    max,
    measured,
    measured_note: note,
    inside: measured === null || Number.isNaN(measured) ? (measured === null ? null : false) : measured >= floor && measured <= max,
    cannot_fail: cannotFail,
    dead_end: cannotFail ? null : deadEnd,
  };
}

function reconciliationOf(spec: Mapping, diff: Mapping | null): ReviewModel["reconciliation"] {
  const numbers = diff && isMapping(diff.reconciliation) ? diff.reconciliation : null;
  if (spec.tier !== "critical" && !numbers) return null;
  const modelValue = numbers && isNumber(numbers.model_value) ? numbers.model_value : null;
  const externalValue = numbers && isNumber(numbers.external_value) ? numbers.external_value : null;
  const tolerance = typeof spec.reconciliation_tolerance === "string" ? spec.reconciliation_tolerance : null;
  const allowed = tolerance === null ? null : TOLERANCE.exec(tolerance);
  const drift = modelValue !== null && externalValue !== null ? reconciliationDrift(modelValue, externalValue) : null;
  const within =
    modelValue === null || externalValue === null || !allowed ? null : drift === null ? modelValue === 0 : drift <= Number(allowed[1]);
  const anchor = typeof spec.external_validation === "string" ? anchorNumber(spec.external_validation) : null;
  return {
    query: typeof spec.reconciliation_query === "string" ? spec.reconciliation_query : null,
    tolerance,
    external_validation: typeof spec.external_validation === "string" ? spec.external_validation : null,
    model_value: modelValue,
    external_value: externalValue,
    drift_pct: drift,
    within,
    anchor_value: anchor?.value ?? null,
    anchor_agrees: anchor === null || externalValue === null ? null : anchorAgrees(anchor, externalValue),
  };
}

/**
 * What the diff records it was measured on (extra.slp, which slp diff
 * writes); null when it records nothing (the reference's diffs), so the
 * review cannot tell whether it is current. A recorded diff whose files have
 * changed never gets here: compare refuses it first (exit 2).
 */
function measuredOnOf(diff: Mapping | null): ReviewModel["measured_on"] {
  const record = diff && isMapping(diff.extra) && isMapping(diff.extra.slp) ? diff.extra.slp : null;
  if (!record || !isMapping(record.content)) return null;
  return {
    commit: typeof record.commit === "string" ? record.commit : null,
    dirty: typeof record.dirty === "boolean" ? record.dirty : null,
    files: sortByText(Object.keys(record.content)),
  };
}

/**
 * The numbers behind each delta: rows and every metric (declared or measured,
 * by name), production's value and the branch's inside the window, as slp
 * diff records them in extra (production_rows, branch_rows,
 * metrics.<name>.production/branch); a diff that does not record them (the
 * reference's) shows its deltas alone.
 */
function beforeAfterOf(declared: Mapping, diff: Mapping | null): ReviewBeforeAfter[] {
  if (!diff) return [];
  const extra = isMapping(diff.extra) ? diff.extra : {};
  const finite = (value: Value | undefined): number | null => (isNumber(value) && Number.isFinite(value) ? value : null);
  const percent = (delta: number | null, production: number | null) =>
    delta === null || production === null || production === 0 ? null : (delta / Math.abs(production)) * 100;
  const rows = { production: finite(extra.production_rows), branch: finite(extra.branch_rows) };
  const rowDelta = finite(diff.row_delta) ?? (rows.production !== null && rows.branch !== null ? rows.branch - rows.production : null);
  const out: ReviewBeforeAfter[] = [
    { name: "rows", kind: "rows", ...rows, delta: rowDelta, delta_pct: percent(rowDelta, rows.production) },
  ];
  const measured = isMapping(diff.metrics) ? diff.metrics : {};
  const recorded = isMapping(extra.metrics) ? extra.metrics : {};
  const names = new Set([...Object.keys(isMapping(declared.metrics) ? declared.metrics : {}), ...Object.keys(measured)]);
  for (const name of sortByText(names)) {
    const body = Object.hasOwn(measured, name) && isMapping(measured[name]) ? (measured[name] as Mapping) : {};
    const numbers = Object.hasOwn(recorded, name) && isMapping(recorded[name]) ? (recorded[name] as Mapping) : {};
    const production = finite(numbers.production);
    const branch = finite(numbers.branch) ?? finite(body.value);
    const delta = production !== null && branch !== null ? branch - production : null;
    out.push({ name, kind: "metric", production, branch, delta, delta_pct: finite(body.delta_pct) ?? percent(delta, production) });
  }
  return out;
}

/** One entry per spec edge, in the spec's order (two that collapse to one text are one), with the unit tests naming it. */
function edgesOf(model: Model, inputs: ReviewInputs, sensitive: ReadonlySet<string>): ReviewEdge[] {
  const spec = inputs.context.spec(model);
  if (!spec || !isStringList(spec.known_edges)) return [];
  const units = inputs.context.unitTestsOf(model.name);
  const edges = [...new Set(spec.known_edges.map(collapseWhitespace))];
  return edges.map((edge) => ({
    edge,
    tests: units
      .filter((unit) => edgeClaim(unit) === edge)
      .map((unit) => ({
        name: unit.name,
        file: unit.file,
        status: inputs.unit.status.get(`${model.name}::${unit.name}`) ?? "not run",
        given: (Array.isArray(unit.entry.given) ? unit.entry.given : []).filter(isMapping).map((item) => ({
          input: pythonStr(item.input ?? ""),
          rows: rowsOf(item, sensitive),
        })),
        expect: rowsOf(isMapping(unit.entry.expect) ? unit.entry.expect : {}, sensitive),
      })),
  }));
}

/** A given's or expect's rows, as I5 counts them and as a table, sensitive cells hidden. */
function rowsOf(item: Mapping, sensitive: ReadonlySet<string>): ReviewRows {
  const count = rowCount(item.rows);
  const format = typeof item.format === "string" ? item.format : "dict";
  if (typeof item.fixture === "string" && item.rows === undefined) {
    return { count, format: "fixture", columns: [], rows: [], note: `rows in the fixture file ${item.fixture}` };
  }
  if (format === "sql") {
    return {
      count,
      format: "sql",
      columns: [],
      rows: [],
      note: "rows written as SQL: not shown here (they may name a sensitive column's value)",
    };
  }
  let records: Record<string, Value>[] = [];
  let kind: ReviewRows["format"] = "none";
  if (Array.isArray(item.rows)) {
    records = item.rows.filter(isMapping);
    kind = "rows";
  } else if (typeof item.rows === "string") {
    const [header = [], ...lines] = parseCsv(item.rows, { file: "(unit test rows)", fix: "write the rows as CSV with a header line" });
    records = lines.map((cells) => Object.fromEntries(header.map((column, i) => [column.trim(), cells[i]?.trim() ?? null])));
    kind = "csv";
  }
  const columns: string[] = [];
  for (const record of records) for (const column of Object.keys(record)) if (!columns.includes(column)) columns.push(column);
  const rows = records
    .slice(0, ROWS_SHOWN)
    .map((record) =>
      Object.fromEntries(
        columns.map((column) => [
          column,
          sensitive.has(column.toLowerCase())
            ? SENSITIVE_CELL
            : record[column] === undefined
              ? null
              : record[column] === null
                ? "null"
                : pythonStrCell(record[column]),
        ]),
      ),
    );
  const hidden = records.length - rows.length;
  return { count, format: kind, columns, rows, note: hidden > 0 ? `${hidden} more rows not shown` : null };
}

function pythonStrCell(value: Value | undefined): string {
  if (typeof value === "string") return value;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return typeof value === "number" ? String(value) : (JSON.stringify(value) ?? "");
}

/**
 * Every column name marked sensitive anywhere in the project (a spec's
 * sensitive_columns, a column's meta.sensitive), lower-cased: a value that
 * is personal data in one model is personal data in the rows of another.
 */
export function sensitiveColumns(context: CheckContext): Set<string> {
  const names = new Set<string>();
  for (const model of context.models) {
    for (const column of model.columns) if (column.sensitive) names.add(column.name.toLowerCase());
    const spec = context.spec(model);
    if (spec && isStringList(spec.sensitive_columns)) for (const column of spec.sensitive_columns) names.add(column.toLowerCase());
  }
  return names;
}
