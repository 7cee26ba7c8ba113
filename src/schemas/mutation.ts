/**
 * `mutation/<model>.json`, the mutation artifact (spec/rules.md §4.9), and
 * `tests/mutation_equivalents.yml`. slp extends the reference's artifact,
 * documented here: three more verdicts (rejected, timeout, not_run), the
 * tests that caught each mutant, where it sits in the model's own .sql, the
 * baseline, the cap, and how the sites were found. `review` reads it.
 */
import { Type, type Static } from "@sinclair/typebox";

export const MutantVerdict = Type.Union(
  [
    Type.Literal("killed"),
    Type.Literal("survived"),
    Type.Literal("equivalent"),
    Type.Literal("rejected"),
    Type.Literal("timeout"),
    Type.Literal("not_run"),
  ],
  {
    description:
      "killed: a unit test failed (or errored) on it; survived: every unit test passed; equivalent: survived and listed in tests/mutation_equivalents.yml on the base; rejected: DuckDB refused the mutant's SQL (not counted as killed); timeout: a test's query ran past the limit; not_run: the time budget ran out first",
  },
);

export const MutantRecord = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      pattern: "^[a-z]+/[1-9][0-9]*$",
      description: "<operator code>/<n>, n counting per operator in site order",
    }),
    operator: Type.String({ minLength: 1, description: "the operator's code (cmp, where, agg, ...)" }),
    operator_name: Type.String({ minLength: 1, description: "the operator's kebab-case name (comparison-flipped, ...)" }),
    original: Type.String({ description: "the compiled SQL text the mutant replaces" }),
    replacement: Type.String({ description: "what replaces it" }),
    line: Type.Integer({ minimum: 1, description: "the line in the model's own .sql file" }),
    column: Type.Integer({ minimum: 1, description: "the column in that line" }),
    occurrence: Type.Integer({ minimum: 1, description: "the n-th time this operator meets this exact original text in the model" }),
    verdict: MutantVerdict,
    caught_by: Type.Array(Type.String(), { description: "the unit tests that failed on a killed mutant (sorted); [] otherwise" }),
    reason: Type.Optional(
      Type.String({ minLength: 1, description: "equivalent: the reason listed; rejected or timeout: what DuckDB said" }),
    ),
  },
  { additionalProperties: false },
);

const SitesFrom = Type.Object(
  {
    kind: Type.Union([Type.Literal("parser"), Type.Literal("scanner")], {
      description: "parser: sql-parser-cst's syntax tree; scanner: the masked-text fallback (the reference's classes only)",
    }),
    grammar: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()], { description: "why the parser was not used" }),
  },
  { additionalProperties: false },
);

export const MutationArtifact = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    file: Type.String({ description: "the model's .sql, relative to the project dir" }),
    mutants: Type.Array(MutantRecord, { description: "the mutants run, in site order" }),
    killed: Type.Integer({ minimum: 0 }),
    survived: Type.Integer({ minimum: 0, description: "unlisted survivors only" }),
    equivalent: Type.Integer({ minimum: 0 }),
    rejected: Type.Integer({ minimum: 0 }),
    timeout: Type.Integer({ minimum: 0 }),
    not_run: Type.Integer({ minimum: 0 }),
    score: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: "killed / (killed + survived) in percent; null when neither",
    }),
    baseline: Type.Object(
      {
        passed: Type.Array(Type.String(), { description: "the unit tests every mutant was run against" }),
        excluded: Type.Array(Type.Object({ test: Type.String(), reason: Type.String() }, { additionalProperties: false }), {
          description: "unit tests that did not pass unmutated, left out of every verdict",
        }),
      },
      { additionalProperties: false },
    ),
    cap: Type.Object(
      {
        max_mutants: Type.Integer({ minimum: 0 }),
        sites: Type.Integer({ minimum: 0, description: "every mutant the operators found" }),
        elided: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description: "operator code -> mutants the cap left out" }),
      },
      { additionalProperties: false },
    ),
    sites_from: SitesFrom,
  },
  {
    $id: "mutation.schema.json",
    title: "slp mutation artifact",
    additionalProperties: false,
    description: "mutation/<model>.json: what slp mutate planted in one model and what its unit tests made of it.",
  },
);
export type MutationArtifact = Static<typeof MutationArtifact>;
export type MutantRecord = Static<typeof MutantRecord>;

const PlannedMutantRecord = Type.Omit(MutantRecord, ["verdict", "caught_by", "reason"], { additionalProperties: false });

export const MutateDryRun = Type.Object(
  {
    dry_run: Type.Literal(true),
    selected_by: Type.String({ description: "models changed since <base>, or selected with --select" }),
    max_mutants: Type.Integer({ minimum: 1 }),
    models: Type.Array(
      Type.Object(
        {
          model: Type.String({ minLength: 1 }),
          file: Type.String({ description: "the model's .sql, relative to the project dir" }),
          sql_from: Type.Union([Type.Literal("rendered"), Type.Literal("manifest")], {
            description:
              "rendered by slp as a unit test with nothing overridden runs it, or dbt's compiled code from a fresh target/manifest.json",
          }),
          mutants: Type.Array(PlannedMutantRecord, { description: "the mutants a real run would plant, in site order, after the cap" }),
          sites: Type.Integer({ minimum: 0, description: "every mutant the operators found" }),
          elided: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description: "operator code -> mutants the cap leaves out" }),
          sites_from: SitesFrom,
        },
        { additionalProperties: false },
      ),
      { description: "each selected model, sorted, with or without unit tests (none is looked up)" },
    ),
  },
  {
    $id: "mutate_dry_run.schema.json",
    title: "slp mutate --dry-run data",
    additionalProperties: false,
    description: "The data of `slp mutate --dry-run --format json`: what a real run would plant, nothing run.",
  },
);
export type MutateDryRun = Static<typeof MutateDryRun>;

export const MutationEquivalent = Type.Object(
  {
    model: Type.String({ minLength: 1, description: "must name the model" }),
    operator: Type.String({ minLength: 1, description: "must be the operator's code (cmp, join, ...)" }),
    original: Type.String({ description: "must be the mutant's original text, exactly" }),
    occurrence: Type.Integer({ minimum: 1, description: "must be the occurrence of that text for that operator (never a line)" }),
    reason: Type.String({ minLength: 1, description: "must say why no unit test can tell the mutant from the model" }),
  },
  { additionalProperties: false },
);

export const MutationEquivalents = Type.Array(MutationEquivalent, {
  $id: "mutation_equivalents.schema.json",
  title: "tests/mutation_equivalents.yml",
  description: "Survivors a human judged equivalent, read from the base branch only.",
});
export type MutationEquivalent = Static<typeof MutationEquivalent>;
