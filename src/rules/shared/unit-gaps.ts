/**
 * The gaps between a marts model's spec and its unit tests that T2, T3 and
 * I7 report: an edge no unit test names, a unit test naming an edge the spec
 * lacks, an input a unit test does not mock.
 */
import { collapseWhitespace, sortByText } from "../../core/text.ts";
import { isMapping, isStringList, pythonStr, type Value } from "../../core/values.ts";
import { sqlInputs } from "../../project/dbt/sql-inputs.ts";
import { unitTestDisabled } from "../../project/dbt/data-tests.ts";
import type { CheckContext, Model, UnitTest } from "../context/check.ts";

/** Rule 2, cited after a gap that blocks (T2, T3) and after a reading (I7). */
export const RULE_2 = " (framework Stage C, Rule 2)";

/**
 * The gap sentences, written once: T2 and T3 add the Rule 2 citation, I7 adds
 * that the model carries no pre-registration (spec/rules.md §2.1 I7: the same
 * sentence without the suffix, then the reading's tail).
 */
export const GAP_SENTENCES = {
  untestedEdge:
    "no unit test names the edge '{edge}' in config.meta.edge; each edge becomes a unit test, and the name is what lets a machine tell which",
  disabledEdge:
    "the edge '{edge}' is named only by unit test '{unit}', which {by} disables (enabled: false); a test that does not run proves nothing",
  unknownEdge: "unit test '{unit}' names an edge the spec does not have: '{claim}'",
  unmocked:
    "unit test '{unit}' has no given rows for {input}, which the model reads; dbt has nothing to mock it with, and a unit test that reads a relation is not a unit test",
} as const;

/** A gap, with where its finding points. */
export type UnitGap =
  | { kind: "untestedEdge"; file: string; model: string; line: number; edge: string }
  | { kind: "disabledEdge"; file: string; model: string; line: number; edge: string; unit: string; by: string }
  | { kind: "unknownEdge"; file: string; model: string; line: number; unit: string; claim: string }
  | { kind: "unmockedInput"; file: string; model: string; line: number; unit: string; input: string };

/** The spec's edges, collapsed, when the model is marts with a mapping spec and a list of strings. */
export function specEdges(ctx: CheckContext, model: Model): string[] | null {
  const spec = ctx.spec(model);
  if (!ctx.isMarts(model) || !spec || !isStringList(spec.known_edges)) return null;
  return spec.known_edges;
}

const claims = new WeakMap<UnitTest, string | null>();

/** The edge a unit test claims in `config.meta.edge`, collapsed; null when it claims none. Read once per unit test (T2, I5 and I7 all ask). */
export function edgeClaim(unit: UnitTest): string | null {
  let claim = claims.get(unit);
  if (claim === undefined) {
    const config = unit.entry.config;
    const meta = isMapping(config) ? config.meta : undefined;
    const edge = isMapping(meta) ? meta.edge : undefined;
    claim = edge === undefined || edge === null ? null : collapseWhitespace(pythonStr(edge));
    claims.set(unit, claim);
  }
  return claim;
}

/** T2's gaps: spec edges without a unit test, then unit tests naming unknown edges. */
export function edgeGaps(ctx: CheckContext, model: Model): UnitGap[] {
  const edges = specEdges(ctx, model);
  if (!edges) return [];
  // Two edges that collapse to one text are one edge, quoted as last written, at the line of the first.
  const lastWritten = new Map<string, string>();
  const firstIndex = new Map<string, number>();
  edges.forEach((edge, index) => {
    const collapsed = collapseWhitespace(edge);
    lastWritten.set(collapsed, edge);
    if (!firstIndex.has(collapsed)) firstIndex.set(collapsed, index);
  });
  const units = ctx.unitTestsOf(model.name);
  const claims = new Set<string>();
  for (const unit of units) {
    const claim = edgeClaim(unit);
    if (claim !== null) claims.add(claim);
  }
  const gaps: UnitGap[] = [];
  for (const [collapsed, written] of lastWritten) {
    if (claims.has(collapsed)) continue;
    const line = model.lineOf([...model.specKey, "known_edges", firstIndex.get(collapsed) ?? 0]);
    const disabled = ctx.disabledUnitTestsOf(model.name).find((unit) => edgeClaim(unit) === collapsed);
    if (disabled) {
      // Its own config, else (as the project model reads it) a unit_tests: folder config.
      const by = unitTestDisabled(disabled.entry) ? "its config" : "a unit_tests: folder config in dbt_project.yml";
      gaps.push({ kind: "disabledEdge", file: model.file, model: model.name, line, edge: written, unit: disabled.name, by });
    } else gaps.push({ kind: "untestedEdge", file: model.file, model: model.name, line, edge: written });
  }
  for (const unit of units) {
    const claim = edgeClaim(unit);
    if (claim !== null && !lastWritten.has(claim)) {
      gaps.push({
        kind: "unknownEdge",
        file: unit.file,
        model: model.name,
        line: unit.lineOf(["config", "meta", "edge"]),
        unit: unit.name,
        claim,
      });
    }
  }
  return gaps;
}

/** T3's gaps: for each unit test, each ref/source the model's sql reads that `given` does not mock. */
export function mockGaps(ctx: CheckContext, model: Model): UnitGap[] {
  const sqlPath = ctx.project.martsSql.get(model.name);
  if (!ctx.isMarts(model) || sqlPath === undefined) return [];
  const units = ctx.unitTestsOf(model.name);
  if (units.length === 0) return [];
  const inputs = sortByText(sqlInputs(ctx.text(sqlPath)));
  const gaps: UnitGap[] = [];
  for (const unit of units) {
    const mocked = mockedInputs(unit.entry.given);
    for (const input of inputs) {
      if (!mocked.has(input))
        gaps.push({ kind: "unmockedInput", file: unit.file, model: model.name, line: unit.lineOf(["given"]), unit: unit.name, input });
    }
  }
  return gaps;
}

function mockedInputs(given: Value | undefined): Set<string> {
  const mocked = new Set<string>();
  if (!Array.isArray(given)) return mocked;
  for (const item of given) {
    if (!isMapping(item) || item.input === undefined) continue;
    for (const input of sqlInputs(pythonStr(item.input))) mocked.add(input);
  }
  return mocked;
}

/** I5's G: the row count of each mapping item of `given`, joined with " + "; `no` when there is none. */
export function givenRows(given: Value | undefined): string {
  if (!Array.isArray(given)) return "no";
  const counts = given.filter(isMapping).map((item) => rowCount(item.rows));
  return counts.length > 0 ? counts.join(" + ") : "no";
}

/** A rows list counts its items; a CSV or SQL string counts non-blank lines after the header; else unknown. */
export function rowCount(rows: Value | undefined): string {
  if (Array.isArray(rows)) return String(rows.length);
  if (typeof rows === "string") {
    const lines = rows.split(/\r?\n/).filter((line) => line.trim() !== "").length;
    return String(Math.max(0, lines - 1));
  }
  return "?";
}
