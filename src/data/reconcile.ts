/**
 * `slp reconcile` (framework Stage E step 4): a critical model's
 * `reconciliation_query` rendered with dbt's Jinja (`ref()` is the branch's
 * build, `source()` the source tables), run as exactly one SELECT, and its
 * one row (`model_value`, `external_value`; other columns such as `metric`
 * are ignored) put in the model's diff as `reconciliation`, for compare's C6
 * to judge against the spec's `reconciliation_tolerance`.
 */
import { InputError, SlpError } from "../core/errors.ts";
import { isMapping, type Mapping } from "../core/values.ts";
import type { ModelDeclaration as Model } from "../project/model.ts";
import { readText } from "../project/files/source.ts";
import type { UnitProject as DbtProject } from "../project/dbt/unit-project.ts";
import type { RelationCall } from "../project/dbt/relations.ts";
import type { RenderSession } from "../sql/dbt-context.ts";
import { TemplateFailure } from "../sql/jinja/errors.ts";
import { parseSql } from "../sql/parser.ts";
import type { Template } from "./diff.ts";
import type { Dialect } from "./dialect.ts";
import type { DataEngine, ResultRow } from "./engine.ts";
import { fillTemplate, parseRelation, relationSql, type Relation } from "./relation.ts";

export interface ReconcileSettings {
  pr: Template;
  /** Where source('s', 't') is: `{source}` and `{table}` filled in; default `{source}.{table}`. */
  sources: Template;
}

/** The spec's reconciliation query path, or an error: a critical model must name one (S2/S3 say so too). */
export function reconciliationQuery(model: Model): string {
  const spec = isMapping(model.spec) ? model.spec : {};
  const path = spec.reconciliation_query;
  if (typeof path !== "string" || path === "") {
    throw new InputError(`${model.name}: the spec names no reconciliation_query`, {
      file: model.file,
      fix: "a critical model's spec names its analyses/reconciliation_<model>.sql (slp check reports it)",
    });
  }
  // The spec's own pattern (S2): a path the spec may name, so none leads outside the project.
  if (!/^analyses\/reconciliation_[A-Za-z0-9_]+\.sql$/.test(path)) {
    throw new InputError(
      `${model.name}: the spec's reconciliation_query ${JSON.stringify(path)} is not analyses/reconciliation_<name>.sql`,
      {
        file: model.file,
        fix: "name the query analyses/reconciliation_<model>.sql, as the spec schema asks",
      },
    );
  }
  return path;
}

export interface RenderedReconciliation {
  sql: string;
  /** Every relation the query reads, for the engine's allowed files. */
  relations: Relation[];
  /** The models it reads with ref(), and where: what the output guard watches. */
  refs: { model: string; relation: Relation }[];
}

/** Renders the query file with dbt's context, `ref` and `source` pointing at the relations the settings name. */
export async function renderReconciliation(
  project: DbtProject,
  file: string,
  settings: ReconcileSettings,
  d: Dialect,
  env: Record<string, string | undefined>,
): Promise<RenderedReconciliation> {
  const { DbtRenderer } = await import("../sql/dbt-context.ts");
  const renderer = new DbtRenderer(project, { cliVars: {}, env, startedAt: new Date(0) });
  const relations: Relation[] = [];
  const refs: { model: string; relation: Relation }[] = [];
  const session: RenderSession = {
    testName: "reconciliation",
    relation(call: RelationCall): string {
      const relation =
        call.kind === "ref"
          ? parseRelation(fillTemplate(settings.pr.text, { model: call.name }, "--pr"), settings.pr.base)
          : parseRelation(
              fillTemplate(settings.sources.text, { source: call.source, table: call.table }, "--sources"),
              settings.sources.base,
            );
      relations.push(relation);
      if (call.kind === "ref") refs.push({ model: call.name, relation });
      return relationSql(relation, d);
    },
    thisRelation: null,
    overrides: { macros: {}, vars: {}, envVars: {} },
    isIncremental: null,
    config: {},
  };
  let text: string;
  try {
    text = readText(project.dir, file);
  } catch {
    throw new InputError("the reconciliation query does not exist", { file, fix: "write the query the spec's reconciliation_query names" });
  }
  let sql: string;
  try {
    sql = renderer.renderText(text, file, session);
  } catch (error) {
    // A template the Jinja interpreter refuses is the query's problem, named where it is: never "a bug in slp".
    if (!(error instanceof TemplateFailure)) throw error;
    const origin = error.origin instanceof SlpError ? error.origin : null;
    throw new InputError(`the reconciliation query cannot be rendered: ${error.message}`, {
      file: error.file,
      line: error.line,
      fix: origin?.fix ?? "fix the Jinja there: the query is rendered with dbt's context, ref() and source() included",
    });
  }
  return { sql, relations, refs };
}

/** Runs the rendered query (one SELECT, nothing else) and reads its one row's two numbers. */
export async function runReconciliation(
  model: string,
  file: string,
  rendered: string,
  engine: DataEngine,
  statementKinds: ((sql: string) => Promise<string[]>) | null,
): Promise<{ model_value: number; external_value: number }> {
  const fail = (why: string): never => {
    throw new InputError(`${model}: the reconciliation query ${why}`, {
      file,
      fix: "write it as one SELECT returning one row with model_value and external_value",
    });
  };
  let kinds: string[];
  try {
    kinds = statementKinds ? await statementKinds(rendered) : postgresStatementKinds(rendered);
  } catch (error) {
    return fail(`cannot be prepared: ${await engine.refusal(error)}`);
  }
  if (kinds.length !== 1 || kinds[0] !== "SELECT")
    fail(`must be exactly one SELECT; it holds ${kinds.length === 0 ? "no statement" : kinds.join(", ")}`);
  const rows = await engine.run(rendered, `reconcile ${model}`);
  if (rows.length !== 1) fail(`returned ${rows.length} rows`);
  const row = rows[0] as ResultRow;
  const number = (column: string): number => {
    if (!row.has(column)) fail(`returns no ${column} column (it returns ${[...row.keys()].join(", ")})`);
    const cell = row.get(column);
    if (cell === null || cell === undefined) return fail(`returned no ${column} (NULL): nothing to reconcile against`);
    const value = Number(cell);
    if (!Number.isFinite(value)) fail(`returned a ${column} that is not a finite number`);
    return value;
  };
  return { external_value: number("external_value"), model_value: number("model_value") };
}

/** PostgreSQL has no parse-only call from a client: the statements as the SQL parser reads them. */
function postgresStatementKinds(sql: string): string[] {
  const outcome = parseSql(sql, "postgres");
  if ("error" in outcome) return [`something the SQL parser cannot read (${outcome.error})`];
  return (outcome.root.statements as { type: string }[])
    .filter((statement) => statement.type !== "empty")
    .map((statement) => (statement.type === "select_stmt" || statement.type === "compound_select_stmt" ? "SELECT" : statement.type));
}

/** The diff with its reconciliation set, keys sorted. */
export function withReconciliation(diff: Mapping, numbers: { model_value: number; external_value: number }): Mapping {
  const next: Mapping = { ...diff, reconciliation: { external_value: numbers.external_value, model_value: numbers.model_value } };
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
