/** What every Stage E task shares: its flags, and how diff files are written (all of them or none). */
import { Type } from "@sinclair/typebox";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.ts";
import { makeOutputDir } from "../core/output-dir.ts";
import type { Mapping } from "../core/values.ts";
import { diffJsonText } from "../project/artifacts/diff-row.ts";
import { MartsPathOption, ProjectDirOption } from "../project/slp/options.ts";

export const StageOptions = {
  prod: Type.Optional(
    Type.String({
      metavar: "TEMPLATE",
      description: "production's copy of each model: a relation (analytics.{model}) or a file (data/prod/{model}.parquet)",
    }),
  ),
  pr: Type.Optional(Type.String({ metavar: "TEMPLATE", description: "this branch's build of each model, written like --prod" })),
  window: Type.Optional(
    Type.String({
      metavar: "[COLUMN:]START:END",
      description: "the closed window both sides are read over; no COLUMN: each model's event_time",
    }),
  ),
  out: Type.Optional(
    Type.String({ metavar: "DIR", description: "the folder diff/<model>.json files go to (default the project's diff/)" }),
  ),
  database: Type.Optional(
    Type.Array(Type.String(), { metavar: "FILE", description: "a DuckDB database file the relations live in, opened read-only" }),
  ),
  engine: Type.Optional(
    Type.Union([Type.Literal("duckdb"), Type.Literal("postgres")], {
      metavar: "ENGINE",
      description: "duckdb (embedded, the default) or postgres (diff.postgres in slp.yml)",
    }),
  ),
  base: Type.Optional(
    Type.String({
      metavar: "REF",
      description: "the branch this one targets: what changed, which pre-registrations are this branch's, which models are new",
    }),
  ),
  projectDir: ProjectDirOption,
  martsPath: MartsPathOption,
};

/** Writes every diff, or none: each goes to a temporary name first and is renamed once all are written. */
export function writeDiffs(folder: string, shown: string, diffs: readonly { model: string; diff: Mapping }[]): void {
  try {
    makeOutputDir(folder);
    const staged = diffs.map(({ model, diff }) => {
      const target = join(folder, `${model}.json`);
      const temporary = join(folder, `.${model}.json.slp-tmp`);
      writeFileSync(temporary, diffJsonText(diff));
      return { temporary, target };
    });
    for (const { temporary, target } of staged) renameSync(temporary, target);
  } catch (error) {
    throw new InputError(`cannot be written: ${(error as Error).message}`, { file: shown, fix: "choose an --out folder you can write to" });
  }
}
