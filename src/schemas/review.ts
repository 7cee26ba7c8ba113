/**
 * What `slp review --format json` puts in the envelope's `data`: the three
 * readings of Stage E for each model the branch pre-registered (the grain and
 * key, the numbers against their bands, one line per known edge with its
 * unit test, rows and surviving mutants). A sensitive column's value never
 * appears: its cells read "[sensitive]".
 */
import { Type, type Static } from "@sinclair/typebox";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const SENSITIVE_CELL = "[sensitive]";

export const ReviewRows = Type.Object(
  {
    count: Type.String({ description: "how many rows, as I5 counts them ('?' for a fixture file)" }),
    format: Type.Union([Type.Literal("rows"), Type.Literal("csv"), Type.Literal("sql"), Type.Literal("fixture"), Type.Literal("none")], {
      description: "how the rows are written in the yml",
    }),
    columns: Type.Array(Type.String(), { description: "the columns shown, in the order first written" }),
    rows: Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])), {
      description: `cells as text; a sensitive column's cell is "${SENSITIVE_CELL}"; empty for sql and fixture files`,
    }),
    note: Nullable(Type.String(), "why rows are not shown (SQL, a fixture file), or null"),
  },
  { additionalProperties: false },
);

export const ReviewEdgeTest = Type.Object(
  {
    name: Type.String(),
    file: Type.String({ description: "the yml that defines the unit test" }),
    status: Type.Union([Type.Literal("pass"), Type.Literal("fail"), Type.Literal("error"), Type.Literal("not run")], {
      description: "the verdict of slp unit on this test",
    }),
    given: Type.Array(Type.Object({ input: Type.String(), rows: ReviewRows }, { additionalProperties: false })),
    expect: ReviewRows,
  },
  { additionalProperties: false },
);

export const ReviewEdge = Type.Object(
  {
    edge: Type.String({ description: "the spec's edge, whitespace collapsed" }),
    tests: Type.Array(ReviewEdgeTest, { description: "the unit tests naming it in config.meta.edge; empty: no unit test proves it" }),
  },
  { additionalProperties: false },
);

export const ReviewNumber = Type.Object(
  {
    name: Type.String({ description: "row_delta, removed_pks, or the metric's name" }),
    kind: Type.Union([Type.Literal("row_delta"), Type.Literal("removed_pks"), Type.Literal("metric")]),
    by: Type.Union([Type.Literal("count"), Type.Literal("delta_pct"), Type.Literal("value")], { description: "what the band bounds" }),
    min: Nullable(Type.Number(), "the band's lower end (null for removed_pks, whose floor is 0)"),
    max: Type.Number({ description: "the band's upper end" }),
    measured: Nullable(Type.Number(), "the diff's number, or null when it does not measure it"),
    measured_note: Nullable(Type.String(), "why there is no number (not measured, production value 0), or null"),
    inside: Nullable(Type.Boolean(), "measured within [min, max], ends included; null without a number"),
    cannot_fail: Nullable(Type.String(), "why this band can never fail, said with its numbers; null when it can"),
    dead_end: Nullable(Type.String(), "an end of the band that can never be what fails, and why; null when both can"),
  },
  { additionalProperties: false },
);

export const ReviewReconciliation = Type.Object(
  {
    query: Nullable(Type.String(), "spec.reconciliation_query"),
    tolerance: Nullable(Type.String(), "spec.reconciliation_tolerance as written"),
    external_validation: Nullable(Type.String(), "spec.external_validation: the anchor outside the warehouse"),
    model_value: Nullable(Type.Number(), "the model's number, or null when the diff has none"),
    external_value: Nullable(Type.Number(), "the source of truth's number, or null when the diff has none"),
    drift_pct: Nullable(Type.Number(), "|model - truth| / |truth| x 100; null when there are no numbers or the truth is 0"),
    within: Nullable(Type.Boolean(), "drift within the tolerance; null when it cannot be read"),
    anchor_value: Nullable(Type.Number(), "the number spec.external_validation states, or null when it states no single number"),
    anchor_agrees: Nullable(
      Type.Boolean(),
      "the source of truth says the anchor's number (to the decimals it is written with); null without both numbers",
    ),
  },
  { additionalProperties: false },
);

export const ReviewBeforeAfter = Type.Object(
  {
    name: Type.String({ description: "rows, or the metric's name" }),
    kind: Type.Union([Type.Literal("rows"), Type.Literal("metric")]),
    production: Nullable(Type.Number(), "production's value inside the window, or null when the diff does not record it"),
    branch: Nullable(Type.Number(), "the branch's value inside the window, or null when the diff does not record it"),
    delta: Nullable(Type.Number(), "branch - production (row_delta for rows), or null without both"),
    delta_pct: Nullable(Type.Number(), "delta / production x 100, or null when production's value is 0 or unknown"),
  },
  { additionalProperties: false },
);

export const ReviewMeasuredOn = Type.Object(
  {
    commit: Nullable(Type.String(), "HEAD's commit when the diff was measured, or null outside a repository"),
    dirty: Nullable(Type.Boolean(), "a measured file differed from that commit; null without a commit"),
    files: Type.Array(Type.String(), { description: "the files whose content the diff was measured on, all unchanged since" }),
  },
  { additionalProperties: false },
);

/** One thing the branch's history holds that the reviewer must read first (gate's I1, G17, G12, G13, and tcr's strikes). */
export const ReviewHistoryEntry = Type.Object(
  {
    commit: Nullable(Type.String(), "the commit's short id; null: not in git yet (the work tree, or tcr's ledger in the git directory)"),
    rule: Nullable(Type.String(), "the gate rule that reports the same (I1, G17, G12, G13), or null (strikes)"),
    kind: Type.Union(
      [
        Type.Literal("pre-registration-edited"),
        Type.Literal("pre-registration-uncommitted"),
        Type.Literal("strikes"),
        Type.Literal("strikes-pending"),
        Type.Literal("strike-reset"),
        Type.Literal("commit-outside-tcr"),
        Type.Literal("merge-by-hand"),
      ],
      { description: "what happened" },
    ),
    text: Type.String({ description: "what happened, in a sentence" }),
  },
  { additionalProperties: false },
);

export const ReviewHistory = Type.Object(
  {
    read: Type.Boolean({ description: "false: the history was not read (no --base, or no git repository); reason says why" }),
    reason: Nullable(Type.String(), "why the history was not read, or null"),
    merge_base: Nullable(Type.String(), "the merge-base of --base and HEAD, short id"),
    commits: Type.Integer({ description: "the commits the branch brings (side branches merged in included)" }),
    agent_branch: Type.Boolean({
      description: "slp tcr made a commit of the branch (or slp.yml on the base says tcr: required): G12 judges its commits, as gate does",
    }),
    branch: Type.Array(ReviewHistoryEntry, {
      description: "what belongs to the branch as a whole (commits, merges, strikes), oldest first",
    }),
    models: Type.Array(Type.Object({ model: Type.String(), entries: Type.Array(ReviewHistoryEntry) }, { additionalProperties: false }), {
      description: "what belongs to one model (its pre-registration's edits), by model name, oldest first",
    }),
  },
  { additionalProperties: false },
);

/** A test on the model beyond the edges: a unit test naming no spec edge, or a data test, with what it asserts. */
export const ReviewOtherTests = Type.Object(
  {
    unit: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          file: Type.String({ description: "the yml that defines the unit test" }),
          status: Type.Union([Type.Literal("pass"), Type.Literal("fail"), Type.Literal("error"), Type.Literal("not run")]),
          edge: Nullable(Type.String(), "the edge it names in meta.edge that the spec does not list, or null when it names none"),
          given: Type.Array(Type.String({ description: "each given input with its row count" })),
          expect: Type.String({ description: "the expected row count" }),
        },
        { additionalProperties: false },
      ),
      { description: "the model's unit tests that name no edge of its spec, by name" },
    ),
    data: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: "the test as written (unique, accepted_values, dbt_utils.expression_is_true)" }),
          column: Nullable(Type.String(), "the column it sits on, or null for a model-level test"),
          arguments: Type.String({ description: "its arguments as written, {} when none" }),
          asserts: Type.String({ description: "what it asserts, in a sentence" }),
          cannot_fail: Nullable(Type.String(), "why it cannot fail the build (disabled, warns, thresholds), or null"),
          line: Type.Integer({ description: "its line in the model's yml" }),
        },
        { additionalProperties: false },
      ),
      { description: "the data tests declared on the model and its columns, in the yml's order" },
    ),
  },
  { additionalProperties: false },
);

export const ReviewModel = Type.Object(
  {
    model: Type.String(),
    file: Type.String({ description: "the yml declaring it" }),
    tier: Nullable(Type.String(), "spec.tier"),
    grain: Nullable(Type.String(), "spec.grain as the spec states it"),
    primary_key: Nullable(Type.Array(Type.String()), "spec.primary_key"),
    uniqueness: Type.Object(
      {
        can_fail: Type.Boolean({ description: "a uniqueness test on the key can fail the build (T1's predicate)" }),
        tests: Type.Array(Type.String(), { description: "the matching uniqueness tests, by name" }),
        reason: Nullable(Type.String(), "why none can fail (disabled, warns, filters rows), or null"),
      },
      { additionalProperties: false },
    ),
    pre_registration: Type.Object(
      {
        type: Nullable(Type.String(), "data_change or refactoring"),
        reason: Nullable(Type.String(), "the declared reason"),
        inherited: Type.Boolean({ description: "identical to the merge-base's (--base): written for an earlier change" }),
      },
      { additionalProperties: false },
    ),
    diff: Nullable(Type.String(), "the diff.json read for this model, as given, or null when none was"),
    window: Nullable(Type.Object({ column: Type.String(), start: Type.String(), end: Type.String() }), "the diff's closed window"),
    numbers: Type.Array(ReviewNumber),
    measured_on: Nullable(
      ReviewMeasuredOn,
      "what the diff records it was measured on (extra.slp); null without a diff or when it records nothing, so nobody can tell whether it is current",
    ),
    before_after: Type.Array(ReviewBeforeAfter, {
      description: "rows and each metric, production's value and the branch's beside the delta; empty without a diff",
    }),
    altered_columns: Type.Object(
      {
        declared: Type.Array(Type.String()),
        measured: Nullable(Type.Array(Type.String()), "null without a diff"),
        undeclared: Type.Array(Type.String({ description: "changed and not pre-registered" })),
      },
      { additionalProperties: false },
    ),
    reconciliation: Nullable(ReviewReconciliation, "for a critical model (or a diff that brings the numbers); null otherwise"),
    edges: Type.Array(ReviewEdge),
    mutation: Type.Object(
      {
        file: Type.String({ description: "mutation/<model>.json, relative to the project" }),
        ran: Type.Boolean({ description: "false: the mutation check has not run (no file)" }),
        killed: Type.Integer(),
        survived: Type.Integer(),
        equivalent: Type.Integer(),
        survivors: Type.Array(
          Type.Object(
            { id: Type.String(), operator: Type.String(), original: Type.String(), replacement: Type.String(), line: Type.Integer() },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    compare: Type.Array(Type.String({ description: "compare's BLOCK messages about this model" })),
    other_tests: ReviewOtherTests,
  },
  { additionalProperties: false },
);

export const ReviewData = Type.Object(
  {
    project: Type.String({ description: "the project directory as given" }),
    base: Nullable(Type.String(), "--base as given"),
    diffs: Type.Array(Type.String(), { description: "the diff files read, as given" }),
    compare: Nullable(Type.String(), "compare's summary line over those diffs, or null when none was given"),
    unit: Type.String({ description: "slp unit's summary line" }),
    history: ReviewHistory,
    models: Type.Array(ReviewModel, { description: "each model with a pre-registration of this branch or a diff, by name" }),
    unreviewed: Type.Array(Type.String(), { description: "marts models with a spec and nothing to review on this branch" }),
  },
  {
    $id: "review.schema.json",
    title: "slp review data",
    additionalProperties: false,
    description: "The three readings of Stage E, as slp review --format json gives them in the envelope's data.",
  },
);
export type ReviewData = Static<typeof ReviewData>;
export type ReviewModel = Static<typeof ReviewModel>;
export type ReviewNumber = Static<typeof ReviewNumber>;
export type ReviewRows = Static<typeof ReviewRows>;
export type ReviewEdge = Static<typeof ReviewEdge>;
export type ReviewBeforeAfter = Static<typeof ReviewBeforeAfter>;
export type ReviewHistory = Static<typeof ReviewHistory>;
export type ReviewHistoryEntry = Static<typeof ReviewHistoryEntry>;
export type ReviewOtherTests = Static<typeof ReviewOtherTests>;
