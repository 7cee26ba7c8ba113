/**
 * A unit test named for a known edge that kills no mutant of its model: its
 * rows never reach the code that handles the edge, or its expect cannot tell
 * the model from a wrong one, so it proves nothing of the edge though T2 and
 * I5 count it. A block, with the mutants it lets through nearest the edge and
 * a row that would reach them; an incomplete run (budget, timeout) is exit 2,
 * never "killed nothing". A model with no mutant at all (no mutation site, or
 * only listed equivalents and mutants DuckDB refuses) has nothing to kill:
 * no finding.
 */
import type { ReportError } from "../core/report.ts";
import { collapseWhitespace, plural } from "../core/text.ts";
import type { Finding } from "../schemas/finding.ts";
import { survivorHint, type EdgeSource } from "./hints.ts";
import { treeOf, type EdgeTestRun, type ModelRun, type MutantResult } from "./run.ts";
import { MUTANT_RULE } from "../report/format.ts";

const rule = { rule: MUTANT_RULE.code, name: MUTANT_RULE.name } as const;

/** How many of the mutants a test lets through its message names. */
const NAMED = 3;

export function edgeTestVerdicts(
  model: ModelRun,
  knownEdges: readonly string[],
  edges: readonly EdgeSource[],
  warehouse: string,
): { findings: Finding[]; errors: ReportError[] } {
  const findings: Finding[] = [];
  const errors: ReportError[] = [];
  const known = new Set(knownEdges.map(collapseWhitespace));
  for (const run of model.edgeTests) {
    if (!known.has(run.edge) || run.killed.length > 0) continue;
    const test = model.tests.find((candidate) => candidate.name === run.test);
    const file = test?.file ?? model.file;
    const line = test?.line ?? null;
    const where = `${file}${line ? `, line ${line}` : ""}`;
    if (run.undecided.length > 0) {
      errors.push({
        code: "E_EDGE_INCOMPLETE",
        message: `the verdict on unit test '${run.test}' (edge '${run.edge}') is incomplete: it killed ${run.passed.length > 0 ? `none of the ${plural(run.passed.length, "mutant")} of ${model.model} it ran against` : `no mutant of ${model.model}`}, and ${undecidedText(run)}, so slp cannot say whether it tells the model from a wrong one`,
        file,
        line,
        fix: "raise --budget-ms (or --timeout-ms) and run slp mutate again",
      });
      continue;
    }
    if (run.passed.length === 0) continue; // nothing it could have killed
    findings.push({
      severity: "BLOCK",
      ...rule,
      file,
      model: model.model,
      line,
      message: blockMessage(model, run, where, edges, warehouse),
      // A test that kills no mutant of its edge asserts too little: the test is what to change.
      fix: "test",
    });
  }
  return { findings, errors };
}

function undecidedText(run: EdgeTestRun): string {
  const notRun = run.undecided.filter((item) => item.why === "not_run").map((item) => item.id);
  const timedOut = run.undecided.filter((item) => item.why === "timeout").map((item) => item.id);
  return [
    notRun.length ? `${plural(notRun.length, "mutant")} never ran against it, the time budget having run out (${notRun.join(", ")})` : "",
    timedOut.length ? `its query timed out on ${plural(timedOut.length, "mutant")} (${timedOut.join(", ")})` : "",
  ]
    .filter(Boolean)
    .join(", and ");
}

function blockMessage(model: ModelRun, run: EdgeTestRun, where: string, edges: readonly EdgeSource[], warehouse: string): string {
  const passed = new Set(run.passed);
  // The kept mutants it let through, those the hints tie to its edge first, then survivors, then in site order.
  const through = model.mutants
    .filter((mutant) => passed.has(mutant.id))
    .map((mutant, order) => ({ mutant, order, hint: survivorHint(treeOf(mutant.sql, warehouse), mutant, edges) }))
    .sort(
      (a, b) =>
        Number(collapseWhitespace(b.hint.edge ?? "") === run.edge) - Number(collapseWhitespace(a.hint.edge ?? "") === run.edge) ||
        Number(b.mutant.verdict === "survived") - Number(a.mutant.verdict === "survived") ||
        a.order - b.order,
    );
  const named = through.slice(0, NAMED).map(({ mutant }) => describe(mutant));
  const more = run.passed.length - named.length;
  const list = named.length ? `: ${named.join("; ")}${more > 0 ? `; and ${more} more` : ""}` : "";
  const reach = through.find((item) => item.hint.row);
  const row = reach ? ` (${reach.hint.row} would reach ${reach.mutant.id})` : "";
  return (
    `unit test '${run.test}' (${where}) names the edge '${run.edge}' of ${model.model} but kills no mutant of it: it passes against ${plural(run.passed.length, "mutant")}${list}. ` +
    `A unit test that cannot tell the model from a wrong one proves nothing of its edge (README §3 Stage D). ` +
    `Fix: give it rows that reach the code that handles the edge${row}, and an expect that tells the right model from such a mutant`
  );
}

function describe(mutant: MutantResult): string {
  const fate =
    mutant.verdict === "survived"
      ? "it survived every unit test"
      : mutant.verdict === "killed"
        ? `only ${mutant.caughtBy.join(", ")} ${mutant.caughtBy.length === 1 ? "kills" : "kill"} it`
        : mutant.verdict === "timeout"
          ? "another test timed out on it"
          : "not every test ran against it";
  return `${mutant.id} (${mutant.operatorName}: ${mutant.original} -> ${mutant.replacement} at line ${mutant.line}; ${fate})`;
}
