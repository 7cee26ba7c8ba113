/**
 * Where one side of a diff lives, from a template the user wrote once for
 * every model (`--prod 'analytics.{model}'`, `--pr 'data/pr/{model}.parquet'`):
 * a relation in the database (schema-qualified or not), or a CSV or Parquet
 * file (a glob reads a partitioned folder). Names go into SQL only quoted;
 * paths only as string literals.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { InputError, UsageError } from "../core/errors.ts";
import { type Dialect, stringLiteral } from "./dialect.ts";

export type Relation =
  | { kind: "table"; parts: string[]; text: string }
  | { kind: "file"; path: string; format: "csv" | "parquet"; glob: boolean; text: string };

const FILE = /\.(csv|tsv|csv\.gz|parquet)$/i;
const GLOB = /[*?[]/;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The template for one model: `{model}` (and, for sources, `{source}` /
 * `{table}`) filled in. The names come from the project's yml, which an agent
 * writes: each must be a plain name, so none can lead a path elsewhere.
 */
export function fillTemplate(template: string, values: Record<string, string>, flag: string): string {
  for (const [key, value] of Object.entries(values)) {
    if (!NAME.test(value)) {
      throw new InputError(
        `the ${key} name ${JSON.stringify(value)} is not a plain name (letters, digits, _), so slp does not put it in ${flag}`,
        {
          fix: "name models and sources with letters, digits and underscores, as dbt does",
        },
      );
    }
  }
  const filled = template.replace(/\{(\w+)\}/g, (_whole, key: string) => {
    const value = values[key];
    if (value === undefined) {
      throw new UsageError(
        `argument ${flag}: {${key}} is not a placeholder slp fills (${Object.keys(values)
          .map((k) => `{${k}}`)
          .join(", ")})`,
        `usage: ${flag} TEMPLATE`,
      );
    }
    return value;
  });
  return filled;
}

/** Several models read through one template need `{model}` in it, or they would all read one relation. */
export function assertTemplatePerModel(template: string, models: readonly string[], flag: string): void {
  if (models.length > 1 && !template.includes("{model}")) {
    throw new UsageError(
      `argument ${flag}: '${template}' has no {model}, so the ${models.length} models would all read one relation`,
      `usage: ${flag} 'schema.{model}'`,
    );
  }
}

/**
 * A filled template as a relation. A path (it ends in .csv, .tsv, .csv.gz or
 * .parquet) is resolved against `base`; anything else is a dotted relation name.
 */
export function parseRelation(text: string, base: string): Relation {
  if (FILE.test(text)) {
    const path = isAbsolute(text) ? text : resolve(base, text);
    return { kind: "file", path, format: /\.parquet$/i.test(text) ? "parquet" : "csv", glob: GLOB.test(text), text };
  }
  const parts = text.split(".");
  if (parts.length > 3 || parts.some((part) => !/^[A-Za-z_][A-Za-z0-9_$-]*$/.test(part))) {
    throw new UsageError(
      `'${text}' is neither a relation (schema.table, up to database.schema.table) nor a .csv/.parquet file`,
      "usage: --prod TEMPLATE --pr TEMPLATE, e.g. --prod 'analytics.{model}' --pr 'ci_pr_12.{model}'",
    );
  }
  return { kind: "table", parts, text };
}

/** The relation as a FROM item in `dialect`; a file only DuckDB reads. */
export function relationSql(relation: Relation, dialect: Dialect): string {
  if (relation.kind === "table") return relation.parts.map((part) => dialect.identifier(part)).join(".");
  if (dialect.name !== "duckdb") {
    throw new UsageError(
      `${relation.text} is a file, and only the embedded DuckDB reads files; for ${dialect.name} name the relation (schema.{model})`,
      "usage: --prod TEMPLATE --pr TEMPLATE",
    );
  }
  const reader = relation.format === "parquet" ? "read_parquet" : "read_csv";
  return `${reader}(${stringLiteral(relation.path, "duckdb")})`;
}

/** The folder a glob reads under (the part before its first wildcard), or the file's own path. */
export function readScope(relation: Extract<Relation, { kind: "file" }>): { file?: string; directory?: string } {
  if (!relation.glob) return { file: relation.path };
  const cut = relation.path.search(GLOB);
  return { directory: dirname(`${relation.path.slice(0, cut)}x`) };
}

/** Every file a glob relation matches (links included, for the caller to judge), absolute. */
export function globMatches(relation: Extract<Relation, { kind: "file" }>): string[] {
  const { directory } = readScope(relation);
  if (!relation.glob || !directory || !existsSync(directory)) return [];
  const pattern = relation.path.slice(directory.length + 1);
  return [...new Bun.Glob(pattern).scanSync({ cwd: directory, onlyFiles: false, followSymlinks: false, absolute: true })];
}

/** True when the file (or at least one file of the glob) is there. */
export function fileRelationExists(relation: Extract<Relation, { kind: "file" }>): boolean {
  if (!relation.glob) return existsSync(relation.path) && statSync(relation.path).isFile();
  const { directory } = readScope(relation);
  if (!directory || !existsSync(directory)) return false;
  const pattern = relation.path.slice((directory as string).length + 1);
  for (const _ of new Bun.Glob(pattern).scanSync({ cwd: directory, onlyFiles: true })) return true;
  return false;
}

/** An InputError for a relation that is not there, naming the model, the relation and the fix. */
export function missingRelation(model: string, side: string, relation: Relation, fix: string): InputError {
  const what = relation.kind === "file" ? `the file ${relation.text}` : `the relation ${relation.text}`;
  return new InputError(`${model}: ${what} (${side}) does not exist`, { fix });
}
