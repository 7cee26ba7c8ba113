/**
 * Files generated from code, committed, and checked for freshness by a test:
 * the JSON Schemas under schemas/ and the rule table in README.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { allRules } from "../rules/index.ts";
import { allConstructs } from "../sql/dialect/constructs.ts";
import { Config } from "../schemas/config.ts";
import { Diff } from "../schemas/diff.ts";
import { Envelope } from "../schemas/envelope.ts";
import { MutateDryRun, MutationArtifact, MutationEquivalents } from "../schemas/mutation.ts";
import { PreRegistration } from "../schemas/pre-registration.ts";
import { ReviewData } from "../schemas/review.ts";
import { Spec } from "../schemas/spec.ts";
import { TcrData } from "../schemas/tcr.ts";
import { UnitData } from "../schemas/unit.ts";

export const EXPORTED_SCHEMAS: Record<string, TSchema> = {
  "schemas/spec.schema.json": Spec,
  "schemas/pre_registration.schema.json": PreRegistration,
  "schemas/diff.schema.json": Diff,
  "schemas/envelope.schema.json": Envelope,
  "schemas/config.schema.json": Config,
  "schemas/unit.schema.json": UnitData,
  "schemas/tcr.schema.json": TcrData,
  "schemas/mutation.schema.json": MutationArtifact,
  "schemas/mutation_equivalents.schema.json": MutationEquivalents,
  "schemas/mutate_dry_run.schema.json": MutateDryRun,
  "schemas/review.schema.json": ReviewData,
};

const RULES_START = "<!-- rules:start -->";
const RULES_END = "<!-- rules:end -->";
const DIALECTS_START = "<!-- dialects:start -->";
const DIALECTS_END = "<!-- dialects:end -->";

/** The dialect contract: per dialect, each construct, how it runs on DuckDB, and its documented examples. */
export function dialectsTable(): string {
  const rows = allConstructs().flatMap(([dialect, constructs]) =>
    constructs.map((construct) => {
      const pages = [...new Set(construct.examples.map((example) => example.source))].map((page, i) => `[${i + 1}](${page})`).join(" ");
      return `| ${dialect} | \`${construct.name.replace(/\|/g, "\\|")}\` | ${construct.how} | ${(construct.note ?? "").replace(/\|/g, "\\|")} | ${construct.examples.length} ${pages} |`;
    }),
  );
  return ["| Dialect | Construct | Runs as | Note | Documented examples |", "| --- | --- | --- | --- | --- |", ...rows].join("\n");
}

/** Every generated file's path (repository-relative) and its expected content. */
export function generatedFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [path, schema] of Object.entries(EXPORTED_SCHEMAS)) {
    const document = { $schema: "https://json-schema.org/draft/2020-12/schema", ...schema };
    files.set(path, `${JSON.stringify(document, null, 2)}\n`);
  }
  const readme = readFileSync(join(root, "README.md"), "utf8");
  files.set(
    "README.md",
    replaceBetween(replaceBetween(readme, RULES_START, RULES_END, rulesTable()), DIALECTS_START, DIALECTS_END, dialectsTable()),
  );
  return files;
}

/** The rule table: one row per rule, in registry order. */
export function rulesTable(): string {
  const rows = allRules.map(
    (rule) => `| ${rule.code} | \`${rule.name}\` | ${rule.command} | ${rule.severities().join(" + ")} | ${rule.docs.summary} |`,
  );
  return ["| Code | Name | Command | Severity | What it checks |", "| --- | --- | --- | --- | --- |", ...rows].join("\n");
}

function replaceBetween(text: string, start: string, end: string, body: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md lacks the ${start} ... ${end} markers`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}
