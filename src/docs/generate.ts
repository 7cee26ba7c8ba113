/**
 * Files generated from code, committed, and checked for freshness by a test:
 * the JSON Schemas under schemas/, the rule table in README.md, and one page
 * per warehouse dialect under docs/dialects/ (linked from README.md).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { allRules } from "../rules/index.ts";
import { allConstructs } from "../sql/dialect/constructs.ts";
import type { WarehouseDialect } from "../sql/dialect/define.ts";
import type { EscapeRules, LexicalRules } from "../sql/dialect/lexical-rules.ts";
import { WAREHOUSES } from "../sql/dialect/warehouses/index.ts";
import { Config } from "../schemas/config.ts";
import { Diff, DiffProvenance } from "../schemas/diff.ts";
import { Envelope } from "../schemas/envelope.ts";
import { MutateDryRun, MutationArtifact, MutationEquivalents } from "../schemas/mutation.ts";
import { PreRegistration } from "../schemas/pre-registration.ts";
import { ReviewData } from "../schemas/review.ts";
import { Spec } from "../schemas/spec.ts";
import { TcrData } from "../schemas/tcr.ts";
import { UnitData } from "../schemas/unit.ts";
import { FIX_KINDS } from "../schemas/finding.ts";

export const EXPORTED_SCHEMAS: Record<string, TSchema> = {
  "schemas/spec.schema.json": Spec,
  "schemas/pre_registration.schema.json": PreRegistration,
  "schemas/diff.schema.json": Diff,
  "schemas/diff_provenance.schema.json": DiffProvenance,
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

/** Text for a Markdown table cell. */
const cell = (text: string) => text.replace(/\|/g, "\\|");

/** The construct table of one dialect: each construct, how it runs on DuckDB, and its documented examples. */
function constructsTable(constructs: readonly { name: string; how: string; note?: string; examples: { source: string }[] }[]): string {
  const rows = constructs.map((construct) => {
    const pages = [...new Set(construct.examples.map((example) => example.source))].map((page, i) => `[${i + 1}](${page})`).join(" ");
    return `| \`${cell(construct.name)}\` | ${construct.how} | ${cell(construct.note ?? "")} | ${construct.examples.length} ${pages} |`;
  });
  return ["| Construct | Runs as | Note | Documented examples |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

const PART_WORDS: Record<WarehouseDialect["inherited"][number], string> = {
  lexical: "lexical rules",
  nullOrder: "NULL order",
  integerDivision: "integer division",
  types: "types",
  constructs: "constructs",
  crossDbMacros: "cross-database macros",
  formats: "formats",
  division: "division",
  fixtureRules: "fixture rules",
};

const LIKE_ESCAPE: Record<string, string> = {
  itself: "the backslash; before another character it is that character",
  error: "the backslash; before a character other than `\\`, `_` or `%` it is an error",
  unverified: "the backslash; before a character other than `\\`, `_` or `%` it is refused (not documented)",
};

const CASE_WORDS: Record<LexicalRules["unquotedCase"], string> = {
  upper: "fold to upper case",
  lower: "fold to lower case",
  insensitive: "match without regard to case",
};

/** A warehouse's string literals and comments, as its lexical rules read them (src/sql/dialect/lexer.ts). */
function lexicalLines(rules: LexicalRules): string[] {
  const code = (text: string) => (text.includes("`") ? `\`\` ${text} \`\`` : `\`${text}\``);
  const escapes = (escaping: EscapeRules) => {
    const named = Object.keys(escaping.named)
      .map((char) => code(`\\${char}`))
      .join(" ");
    const numeric = [escaping.octal && "octal", escaping.hex && "hex", escaping.unicode && "Unicode"].filter(Boolean).join(", ");
    const kept = escaping.kept.map((char) => code(`\\${char}`)).join(" ");
    const unverified = escaping.unverified ? ` (refused before ${[...escaping.unverified].map(code).join(" ")}: not documented)` : "";
    return `backslash escapes ${named}${numeric ? `, ${numeric} escapes` : ""}${kept ? `; ${kept} keep their backslash` : ""}; a backslash before another character is ${escaping.other === "itself" ? "that character" : "an error"}${unverified}`;
  };
  const forms = [
    rules.raw && "raw `r'...'`",
    rules.tripleQuoted && "triple-quoted `'''...'''`",
    rules.escapeStrings && `\`E'...'\` with ${escapes(rules.escapeStrings)}`,
    rules.unicodeStrings && "`U&'...'`",
    rules.dollarQuoted && (rules.dollarQuoted === "tagged" ? "`$tag$...$tag$`" : "`$$...$$`"),
    rules.bytes && "bytes `b'...'` (plain ones only)",
  ].filter(Boolean);
  const pages = [...new Set(rules.examples.map((example) => example.source))].map((page, i) => `[${i + 1}](${page})`).join(" ");
  const nesting =
    rules.nestedComments === true
      ? "nested"
      : rules.nestedComments === false
        ? "not nested"
        : "a `/*` inside one is refused: nesting not documented";
  return [
    `- \`'...'\`: ${rules.singleQuoted === "standard" ? "a backslash is itself" : escapes(rules.singleQuoted)}; \`''\` is ${rules.doubledQuote === true ? "a quote" : `refused (${cell(rules.doubledQuote)})`}; \`"..."\` is ${rules.doubleQuoted === "string" ? "a string" : "a quoted identifier"}`,
    ...(forms.length > 0 ? [`- Also: ${forms.join("; ")}`] : []),
    `- Comments: \`--\`${rules.lineComments.map((start) => `, ${code(start)}`).join("")}, \`/* */\` (${nesting})`,
    `- Documented examples of these rules: ${rules.examples.length} ${pages}`,
  ];
}

/** One warehouse's page: what slp knows of it, all from its file under src/sql/dialect/warehouses/. */
export function dialectPage(
  dialect: WarehouseDialect,
  constructs: readonly { name: string; how: string; note?: string; examples: { source: string }[] }[],
): string {
  const parent = dialect.extends;
  const types = Object.entries(dialect.types).map(([name, scalar]) => {
    const held =
      scalar === null
        ? "not a type of this dialect"
        : "duckdb" in scalar
          ? `\`${scalar.duckdb}\``
          : "decimal" in scalar
            ? `\`DECIMAL(${scalar.decimal.join(",")})\``
            : "json" in scalar
              ? `\`JSON\` (semi-structured; a fixture's text ${scalar.json.kind === "string" ? "is a JSON string" : scalar.json.kind === "parsed" ? "is parsed" : `is refused: ${cell(scalar.json.why)}`})`
              : `refused: ${cell(scalar.refuse)}${scalar.unlessSized ? " (with a precision: that DECIMAL)" : ""}`;
    return `| \`${cell(name)}\` | ${held} |`;
  });
  return [
    `# ${dialect.name}`,
    "",
    `Generated from \`src/sql/dialect/warehouses/${dialect.name}.ts\` (\`bun run gen\`); do not edit.`,
    "",
    ...(parent
      ? [
          `Extends [${parent.name}](${parent.name}.md): inherits its ${dialect.inherited.map((part) => PART_WORDS[part]).join(", ")}, entry by entry, with its own entries over them.`,
          "",
        ]
      : []),
    "## Reading the SQL",
    "",
    `- Transpiler dialect: \`${dialect.transpiler}\``,
    `- Identifiers are quoted with \`\` ${dialect.lexical.identifierQuote} \`\`; unquoted ones ${CASE_WORDS[dialect.lexical.unquotedCase]}`,
    ...lexicalLines(dialect.lexical),
    `- LIKE's default escape: ${dialect.lexical.likeEscape === null ? "none (as DuckDB's)" : LIKE_ESCAPE[dialect.lexical.likeEscape]}`,
    `- An ORDER BY without NULLS FIRST / LAST: \`${dialect.nullOrder}\``,
    `- Integer divided by integer: ${dialect.integerDivision ? "an integer" : "not an integer"}; by zero: ${dialect.division.byZero === "null" ? "NULL" : "an error"}`,
    `- Multiplication: ${dialect.division.product ? "the product's scale is capped as the warehouse caps it" : "as DuckDB's"}`,
    `- adapter.dispatch tries: ${[dialect.name, ...dialect.adapterInherits, "default"].map((prefix) => `\`${prefix}__\``).join(", ")}`,
    `- Cross-database macros the adapter writes its own way: ${
      Object.keys(dialect.crossDbMacros)
        .sort()
        .map((name) => `\`${name}\``)
        .join(", ") || "none"
    }`,
    ...(dialect.formats.datetime
      ? [`- Date format elements: ${dialect.formats.datetime.map(([element]) => `\`${element}\``).join(", ")}`]
      : []),
    dialect.fixtureRules.length > 0
      ? `- Fixture rules (the adapter's, an error naming the fixture): ${dialect.fixtureRules.map((rule) => `\`${rule.name}\` (${rule.macro}, [source](${rule.source}))`).join(", ")}`
      : "- Fixture rules: none (the adapter's validate_fixture_rows is dbt's default, which checks nothing)",
    "",
    "## Types",
    "",
    types.length > 0
      ? [
          "The names this dialect maps its own way (others: the common names in `src/sql/dialect/type-names.ts`).",
          "",
          "| Type | DuckDB |",
          "| --- | --- |",
          ...types,
        ].join("\n")
      : `As ${parent?.name ?? "the common names"}.`,
    "",
    "## Constructs",
    "",
    ...(parent && dialect.inherited.includes("constructs")
      ? [`Where it differs from [${parent.name}](${parent.name}.md); everything else runs as there.`, ""]
      : []),
    constructsTable(constructs),
    "",
  ].join("\n");
}

/** README's paragraph: a link to each warehouse's page. */
export function dialectLinks(): string {
  return `One page per warehouse dialect, generated from its file under src/sql/dialect/warehouses/: ${Object.keys(WAREHOUSES)
    .map((name) => `[${name}](docs/dialects/${name}.md)`)
    .join(", ")}.`;
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
    replaceBetween(replaceBetween(readme, RULES_START, RULES_END, rulesTable()), DIALECTS_START, DIALECTS_END, dialectLinks()),
  );
  for (const [name, constructs] of allConstructs()) files.set(`docs/dialects/${name}.md`, dialectPage(WAREHOUSES[name], constructs));
  return files;
}

/** The rule table: one row per rule, in registry order, then what each fix kind asks of whom. */
export function rulesTable(): string {
  const rows = allRules.map(
    (rule) =>
      `| ${rule.code} | \`${rule.name}\` | ${rule.command} | ${rule.severities().join(" + ")} | ${rule.fixes().join(" + ")} | ${rule.docs.summary} |`,
  );
  const kinds = Object.entries(FIX_KINDS).map(([kind, words]) => `- \`${kind}\`: ${words}.`);
  return [
    "| Code | Name | Command | Severity | Fix | What it checks |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    "Every finding carries a `fix` (the rule's own kind first; a message may carry another, `slp explain` says which), in JSON and at the end of a BLOCK's text line; a failed unit test is `test` when this branch added or changed it (against the merge-base with the base branch), else `sql`; mutate's findings ask for a `test`. `slp tcr` builds its advice after a red from these kinds, one `next:` line each:",
    "",
    ...kinds,
  ].join("\n");
}

function replaceBetween(text: string, start: string, end: string, body: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md lacks the ${start} ... ${end} markers`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}
