/**
 * `slp diff`'s measurement of one model: its two relations resolved from the
 * templates, checked (they exist, the key and the window column are on both
 * sides, the window column has one type), the one aggregate query built and
 * run, and its one row turned into `diff.json` through the same converter as
 * `slp diff-from-row`. Duplicate or null keys make the diff undefined: exit 2
 * with their count. Only aggregates ever leave the engine.
 */
import { InputError } from "../core/errors.ts";
import { compareCodePoints, sortByText } from "../core/text.ts";
import { isMapping, isStringList, type Mapping, type Value } from "../core/values.ts";
import { diffFromRow } from "../project/artifacts/diff-row.ts";
import { sqlConfig } from "../project/dbt/node-config.ts";
import type { ModelDeclaration as Model } from "../project/model.ts";
import { stringLiteral, type Dialect } from "./dialect.ts";
import { type COUNT_COLUMNS, diffQuery, type ComparedColumn } from "./diff-query.ts";
import type { DataEngine, EngineColumn, ResultRow } from "./engine.ts";
import { metricPlans, type MetricPlan } from "./metrics.ts";
import { fileRelationExists, fillTemplate, missingRelation, parseRelation, relationSql, type Relation } from "./relation.ts";
import { windowPredicate, type Window } from "./window.ts";

/** A model slp diffs: its yml declaration and, for the event_time default, its SQL text and dbt_project.yml config. */
export interface DiffTarget {
  model: Model;
  sql: string | null;
  /** The model's config as dbt resolves it (dbt_project.yml's folder configs, its yml, its SQL). */
  projectConfig: Mapping;
  /** True when production cannot have it (new on this branch): the diff publishes values. */
  isNew: boolean;
}

/** A template and the folder its relative paths are resolved from. */
export interface Template {
  text: string;
  base: string;
}

export interface DiffSettings {
  prod: Template;
  pr: Template;
  window: Window | null;
  /** slp.yml `metrics:`. */
  metrics: Readonly<Record<string, string>>;
}

/** The model's primary key from its spec (a spec that has none cannot be diffed). */
function primaryKey(model: Model): string[] {
  const spec = isMapping(model.spec) ? model.spec : null;
  const key = spec?.primary_key;
  if (!isStringList(key) || key.length === 0) {
    throw new InputError(`${model.name}: the spec has no primary_key, and a diff matches rows by it`, {
      file: model.file,
      fix: "give the spec a primary_key (slp check reports what else it lacks)",
    });
  }
  return key;
}

export function specMetrics(model: Model): string[] {
  const spec = isMapping(model.spec) ? model.spec : null;
  return isMapping(spec?.metrics) ? Object.keys(spec.metrics) : [];
}

/**
 * The window column: the one --window names, else the model's dbt
 * `event_time`, with dbt's precedence: its SQL's config(), then its yml's
 * config:, then dbt_project.yml.
 */
export function windowColumn(target: DiffTarget, window: Window): string {
  if (window.column !== null) return window.column;
  const yml = isMapping(target.model.entry.config) ? target.model.entry.config : {};
  const candidates = [target.sql ? sqlConfig(target.sql).config.event_time : undefined, yml.event_time, target.projectConfig.event_time];
  const column = candidates.find((value): value is string => typeof value === "string" && value !== "") ?? null;
  if (column === null) {
    throw new InputError(`${target.model.name}: --window names no column and the model sets no event_time`, {
      file: target.model.file,
      fix: "set the model's event_time config (in its yml, its SQL or dbt_project.yml), or give the column: --window COLUMN:START:END",
    });
  }
  return column;
}

export interface Measured {
  model: string;
  diff: Mapping;
}

/** Measures one model on the engine. */
export async function measureModel(target: DiffTarget, settings: DiffSettings, engine: DataEngine): Promise<Measured> {
  const name = target.model.name;
  const d = engine.dialect;
  const key = primaryKey(target.model);
  const prodRelation = sideRelation(settings.prod, name, "--prod");
  const prRelation = sideRelation(settings.pr, name, "--pr");

  const pr = (await describe(
    engine,
    name,
    prRelation,
    "the branch's build",
    "build the model into the PR schema first, or correct --pr",
  )) as EngineColumn[];
  const prod = await describe(
    engine,
    name,
    prodRelation,
    "production",
    target.isNew ? "" : `correct --prod; if ${name} is new on this branch, pass --base so slp can see that production cannot have it`,
    target.isNew,
  );

  for (const [columns, relation, side] of [
    [prod, prodRelation, "production"],
    [pr, prRelation, "the branch"],
  ] as const) {
    if (columns === null) continue;
    const missing = key.filter((column) => !columns.some((c) => c.name === column));
    if (missing.length > 0) {
      throw new InputError(
        `${name}: the key column${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of the spec's primary_key ${missing.length > 1 ? "are" : "is"} not in ${relation.text} (${side})`,
        {
          file: target.model.file,
          fix: "build the model with its key, or correct the spec's primary_key",
        },
      );
    }
  }

  if (prod !== null) {
    for (const column of key) {
      const [a, b] = [typeOf(prod, column), typeOf(pr, column)];
      if (a !== b) {
        throw new InputError(
          `${name}: the key column ${column} is ${a} in ${prodRelation.text} (production) and ${b} in ${prRelation.text} (the branch), so keys cannot be matched as they are`,
          {
            file: target.model.file,
            fix: "build the branch with the key's production type",
          },
        );
      }
    }
  }

  let window: { predicate: string; column: string; start: string; end: string } | null = null;
  if (settings.window) {
    const column = windowColumn(target, settings.window);
    checkWindowColumn(name, column, settings.window, [
      [prod, prodRelation, "production"],
      [pr, prRelation, "the branch"],
    ]);
    window = {
      predicate: windowPredicate(settings.window, d.identifier(column), d.name),
      column,
      start: settings.window.start,
      end: settings.window.end,
    };
  }

  const prNames = pr.map((column) => column.name);
  const prodNames = prod?.map((column) => column.name) ?? prNames;
  const common = prNames.filter((column) => prodNames.includes(column));
  const compared: ComparedColumn[] = [];
  if (prod !== null) {
    for (const column of common) {
      if (key.includes(column)) continue;
      const a = typeOf(prod, column);
      const b = typeOf(pr, column);
      compared.push({ name: column, castTo: a === b ? null : d.name === "duckdb" ? "VARCHAR" : "text" });
    }
  }
  const metrics = metricPlans(name, specMetrics(target.model), settings.metrics, common, d);
  for (const metric of metrics) {
    for (const [relation, side] of [
      [prodRelation, "production"],
      [prRelation, "the branch"],
    ] as const) {
      if (side === "production" && prod === null) continue;
      await checkMetricBinds(engine, name, metric, relation, side);
    }
  }

  const sql = diffQuery({
    dialect: d,
    prod: prod === null ? null : relationSql(prodRelation, d),
    pr: relationSql(prRelation, d),
    key,
    compared,
    metrics,
    window,
    literal: (text) => stringLiteral(text, d.name),
  });
  const rows = await engine.run(sql, `diff ${name}`);
  const row = rows[0] as ResultRow;
  await refuseUndefinedKeys(engine, name, row, key, prod === null ? null : prodRelation, prRelation, window?.predicate ?? null);

  // A column on one side only changed on every key-matched row: from nothing to something, or back.
  const matched = Number(row.get("matched_rows"));
  const onlyProd = prod === null ? [] : prodNames.filter((column) => !prNames.includes(column) && !key.includes(column));
  const onlyPr = prod === null ? [] : prNames.filter((column) => !prodNames.includes(column) && !key.includes(column));
  const cells = new Map<string, Value>();
  for (const [column, value] of row) {
    // A metric with no value (an empty side) is reported without one, never as 0.
    if (value === null && column.endsWith("_value")) continue;
    cells.set(column, value);
  }
  for (const column of [...onlyProd, ...onlyPr]) cells.set(`${column}_changed`, String(matched));
  const diff = diffFromRow(name, cells, { file: `the diff query of ${name}` });

  const metricExtra: Mapping = {};
  for (const metric of metrics) {
    metricExtra[metric.name] = {
      branch: numberOrNull(row.get(`${metric.name}_value`)),
      expression: metric.expression,
      production: numberOrNull(row.get(`${metric.name}_production`) ?? null),
    };
  }
  diff.extra = sortedKeys({
    engine: engine.name,
    production: prodRelation.text,
    branch: prRelation.text,
    production_rows: Number(row.get("prod_rows")),
    branch_rows: Number(row.get("pr_rows")),
    metrics: metricExtra,
    columns_compared: compared.length,
    columns_compared_as_text: sortByText(compared.filter((column) => column.castTo !== null).map((column) => column.name)),
    columns_only_in_production: sortByText(onlyProd),
    columns_only_in_branch: sortByText(onlyPr),
    new_model: prod === null,
  });
  return { model: name, diff: sortedKeys(diff) };
}

/** The relation's columns; a relation that is not there is an error, unless it may be missing (then null). */
function sideRelation(template: Template, model: string, flag: string): Relation {
  return parseRelation(fillTemplate(template.text, { model }, flag), template.base);
}

async function describe(
  engine: DataEngine,
  model: string,
  relation: Relation,
  side: string,
  fix: string,
  mayBeMissing = false,
): Promise<EngineColumn[] | null> {
  const exists = relation.kind === "table" || fileRelationExists(relation);
  const columns = exists ? await engine.columns(relation, `columns of ${model} (${side})`) : null;
  if (columns === null && !mayBeMissing) throw missingRelation(model, side, relation, fix);
  return columns;
}

function typeOf(columns: readonly EngineColumn[], name: string): string {
  return (columns.find((column) => column.name === name) as EngineColumn).type;
}

const DATE_TYPES = /^(DATE|TIMESTAMP|DATETIME)/;
const NUMBER_TYPES =
  /^(TINYINT|SMALLINT|INTEGER|INT|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|DECIMAL|NUMERIC|REAL|FLOAT|DOUBLE)/;

function checkWindowColumn(
  model: string,
  column: string,
  window: Window,
  sides: readonly (readonly [EngineColumn[] | null, Relation, string])[],
): void {
  const types: string[] = [];
  for (const [columns, relation, side] of sides) {
    if (columns === null) continue;
    const found = columns.find((c) => c.name === column);
    if (!found) {
      throw new InputError(`${model}: the window column ${column} is not in ${relation.text} (${side})`, {
        fix: "name the model's event_time column in --window COLUMN:START:END",
      });
    }
    const fits = window.kind === "number" ? NUMBER_TYPES.test(found.type) : DATE_TYPES.test(found.type);
    if (!fits) {
      throw new InputError(
        `${model}: the window column ${column} is ${found.type} in ${relation.text} (${side}), which ${window.kind === "number" ? "numbers" : "dates"} cannot bound`,
        { fix: "window the model on a date or timestamp column (or a number column with number bounds)" },
      );
    }
    types.push(`${found.type} in ${relation.text} (${side})`);
  }
  const bare = types.map((text) => text.split(" in ")[0]);
  if (new Set(bare).size > 1) {
    throw new InputError(
      `${model}: the window column ${column} has another type on each side (${types.join(", ")}), so one window cannot mean the same rows on both`,
      {
        fix: "build the branch with the column's production type, or cast it in the model",
      },
    );
  }
}

async function checkMetricBinds(engine: DataEngine, model: string, metric: MetricPlan, relation: Relation, side: string): Promise<void> {
  try {
    await engine.run(
      `select (${metric.expression}) as m from (select * from ${relationSql(relation, engine.dialect)} where 1 = 0) slp__t`,
      `metric ${model}.${metric.name} (${side})`,
    );
  } catch (error) {
    throw new InputError(
      `${model}: metric ${metric.name} = ${JSON.stringify(metric.expression)} does not run on ${relation.text} (${side}): ${(error as Error).message.replace(/^[^:]*: [a-z]+ refused the query: /, "")}`,
      {
        file: metric.source === "slp.yml" ? "slp.yml" : undefined,
        fix: "write the metric over columns both sides have, in slp.yml's metrics",
      },
    );
  }
}

/** Null or duplicate keys make the diff undefined: exit 2 with the counts, exact ones for duplicates. */
async function refuseUndefinedKeys(
  engine: DataEngine,
  model: string,
  row: ResultRow,
  key: readonly string[],
  prod: Relation | null,
  pr: Relation,
  where: string | null,
): Promise<void> {
  const count = (column: (typeof COUNT_COLUMNS)[number]) => Number(row.get(column));
  const keyText = key.join(", ");
  for (const [side, relation] of [
    ["prod", prod],
    ["pr", pr],
  ] as const) {
    if (relation === null) continue;
    const nulls = count(`${side}_null_keys`);
    if (nulls > 0) {
      throw new InputError(
        `${model}: ${nulls} row${nulls === 1 ? "" : "s"} of ${relation.text} ha${nulls === 1 ? "s" : "ve"} a null in the primary key (${keyText}), so they match no row and the diff is undefined`,
        {
          fix: "fix the model so its key is never null (the spec's uniqueness and not_null tests say so too)",
        },
      );
    }
  }
  const found: string[] = [];
  for (const [side, relation] of [
    ["prod", prod],
    ["pr", pr],
  ] as const) {
    if (relation === null || count(`${side}_duplicate_keys`) === 0) continue;
    const d = engine.dialect;
    const keys = key.map((column) => d.identifier(column));
    const exact = await engine.run(
      `select count(*) - ${d.countDistinct(keys, "true")} as extra_rows from ${relationSql(relation, d)}${where ? ` where ${where}` : ""}`,
      `duplicate keys of ${model} (${side === "prod" ? "production" : "the branch"})`,
    );
    const extra = Number((exact[0] as ResultRow).get("extra_rows"));
    found.push(`${relation.text} has ${extra} row${extra === 1 ? "" : "s"} more than it has distinct keys`);
  }
  if (found.length > 0) {
    throw new InputError(`${model}: the primary key (${keyText}) is not unique, so the diff is undefined: ${found.join("; ")}`, {
      fix: "fix the model's grain (or the spec's primary_key) so each key is one row",
    });
  }
}

function numberOrNull(text: string | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

function sortedKeys<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareCodePoints(a, b))) as T;
}

/**
 * The query for the user to run in their warehouse (`--emit-sql`): the same
 * text slp runs, built from what the project declares, since no connection
 * is opened. The compared columns are the model's declared columns, so a
 * model that declares none is refused rather than compared on nothing.
 */
export function emittedQuery(target: DiffTarget, settings: DiffSettings, d: Dialect): string {
  const name = target.model.name;
  const key = primaryKey(target.model);
  const declared = target.model.columns.map((column) => column.name);
  if (declared.length === 0) {
    throw new InputError(`${name}: the yml declares no columns, and the emitted query compares the declared ones`, {
      file: target.model.file,
      fix: "list every column of the model under columns: (or run slp diff on DuckDB or PostgreSQL, which read them)",
    });
  }
  const prod = target.isNew ? null : relationSql(sideRelation(settings.prod, name, "--prod"), d);
  const pr = relationSql(sideRelation(settings.pr, name, "--pr"), d);
  const window = settings.window
    ? (() => {
        const column = windowColumn(target, settings.window as Window);
        return {
          predicate: windowPredicate(settings.window as Window, d.identifier(column), d.name),
          column,
          start: (settings.window as Window).start,
          end: (settings.window as Window).end,
        };
      })()
    : null;
  return diffQuery({
    dialect: d,
    prod,
    pr,
    key,
    compared: prod === null ? [] : declared.filter((column) => !key.includes(column)).map((column) => ({ name: column, castTo: null })),
    metrics: metricPlans(name, specMetrics(target.model), settings.metrics, declared, d),
    window,
    literal: (text) => stringLiteral(text, d.name),
  });
}
