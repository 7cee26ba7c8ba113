/**
 * `slp mutate --dry-run` (the reference's dry run, spec/rules.md §7.3): each
 * selected model's mutants as a real run would plant them (slp's operator
 * ids, the cap round robin), listed and not run: no unit test is read, no
 * equivalents, no DuckDB, nothing written. The model is rendered as a unit
 * test that mocks every input and overrides nothing runs it.
 */
import { EXIT } from "../core/exit-codes.ts";
import type { Report, ReportError } from "../core/report.ts";
import { plural } from "../core/text.ts";
import type { UnitRunOptions } from "../unit/run.ts";
import { renderModelsUntested } from "../unit/render.ts";
import type { RefNode, UnitProject as DbtProject } from "../project/dbt/unit-project.ts";
import { readText } from "../project/files/source.ts";
import type { MutateDryRun } from "../schemas/mutation.ts";
import { operators } from "./operators/index.ts";
import { capMutants, modelMutants } from "./sites.ts";

export interface DryRunOptions extends Omit<UnitRunOptions, "select" | "database" | "closeDatabase"> {
  project: DbtProject;
  /** The models to list, sorted. */
  models: string[];
  warehouse: string;
  maxMutants: number;
  /** "models changed since main", or "selected with --select". */
  selectedBy: string;
  /** Chosen by change against the base (the summary says "changed"), else by --select. */
  byChange: boolean;
  notes: string[];
}

const NAMES = new Map(operators.map((operator) => [operator.code, operator.name]));

export function dryRunReport(options: DryRunOptions): Report {
  const nodes = options.models.map(
    (name) => options.project.refNodes.find((node) => node.kind === "model" && node.name === name && node.latest) as RefNode,
  );
  const rendered = renderModelsUntested(options.project, nodes, options);
  const data: MutateDryRun = { dry_run: true, selected_by: options.selectedBy, max_mutants: options.maxMutants, models: [] };
  const lines: string[] = [];
  const errors: ReportError[] = [];
  for (const node of nodes) {
    const file = node.file as string;
    const sql = rendered.get(node.name);
    if (!sql || "error" in sql) {
      const error = sql && "error" in sql ? sql.error : { message: "it has no SQL file", file, line: null, fix: null };
      errors.push({
        code: "E_INPUT",
        message: `${node.name} cannot be rendered, so its mutants cannot be listed: ${error.message}`,
        file: error.file ?? file,
        line: error.line,
        fix: error.fix,
      });
      continue;
    }
    const { mutants, finder } = modelMutants(readText(options.project.dir, file), [[sql.sql, null]], options.warehouse);
    const { kept, elided } = capMutants(mutants, options.maxMutants);
    const records = kept.map((mutant) => ({
      id: mutant.id,
      operator: mutant.planned.operator,
      operator_name: NAMES.get(mutant.planned.operator) ?? mutant.planned.operator,
      original: mutant.planned.original,
      replacement: mutant.planned.replacement,
      line: mutant.position.line,
      column: mutant.position.column,
      occurrence: mutant.occurrence,
    }));
    const sitesFrom = finder ?? { kind: "parser" as const, grammar: null, reason: null };
    data.models.push({
      model: node.name,
      file,
      sql_from: sql.sqlFrom,
      mutants: records,
      sites: mutants.length,
      elided,
      sites_from: sitesFrom,
    });
    // The reference's line (model, id in 14 columns, line in 4, original -> replacement), then the operator's name.
    for (const record of records) {
      lines.push(
        `${node.name}\t${record.id.padEnd(14)} line ${String(record.line).padEnd(4)} ${record.original} -> ${record.replacement}\t${record.operator_name}`,
      );
    }
    const cut = Object.entries(elided).sort(([a], [b]) => (a < b ? -1 : 1));
    const scanner =
      sitesFrom.kind === "scanner"
        ? `; sites found by the masked-text scanner (the reference's classes only): the SQL parser cannot read this SQL (${sitesFrom.reason})`
        : "";
    lines.push(
      `${node.name}: ${plural(records.length, "mutant")} to plant of ${plural(mutants.length, "site")}${cut.length ? `; the cap of ${options.maxMutants} leaves out ${cut.map(([code, n]) => `${code} ${n}`).join(", ")}` : ""}${scanner}`,
    );
  }
  const which = options.byChange ? "changed" : "selected";
  const report: Report = {
    command: "mutate",
    findings: [],
    lines,
    summary: `slp mutate: ${options.models.length} ${which} model(s) listed, nothing run`,
    exitCode: EXIT.ok,
    data,
    notes: options.notes,
    errors,
  };
  if (errors.length > 0) {
    report.exitCode = EXIT.cannotJudge;
    report.summary = `slp mutate: ERROR ${errors.map((error) => error.message).join("; ")} (dry run, nothing run)`;
  }
  return report;
}
