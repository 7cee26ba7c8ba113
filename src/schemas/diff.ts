/**
 * `diff.json`: one model's measured difference between production and the
 * branch, inside a closed window (framework Stage E; spec/rules.md §4.8).
 * Its keys mirror the pre-registration; an unknown key is an error, because a
 * typo must not read as "nothing changed".
 */
import { Type, type Static } from "@sinclair/typebox";

const NonEmpty = (description: string) => Type.String({ minLength: 1, description });

export const Diff = Type.Object(
  {
    model: NonEmpty("must name the model this diff measures"),
    row_delta: Type.Integer({ description: "must be the branch's rows minus production's rows inside the window, a whole number" }),
    removed_pks: Type.Integer({
      minimum: 0,
      description: "must be how many primary keys production has that the branch does not, a whole number, 0 or more",
    }),
    altered_columns: Type.Array(NonEmpty("must be a column name"), {
      uniqueItems: true,
      description: "must list each column with at least one key-matched row whose value differs, each named once",
    }),
    metrics: Type.Record(
      Type.String(),
      Type.Object(
        {
          delta_pct: Type.Unsafe<number | null>({
            type: ["number", "null"],
            description: "must be the percentage change against production, or null when production's value is 0",
          }),
          value: Type.Optional(Type.Number({ description: "must be the metric's value on the branch inside the window" })),
        },
        { additionalProperties: false, description: "must measure one metric: delta_pct, and value for a new model" },
      ),
      { description: "must map each measured metric to its numbers ({} when the spec has none)" },
    ),
    reconciliation: Type.Optional(
      Type.Object(
        {
          model_value: Type.Number({ description: "must be the model's number from the reconciliation query" }),
          external_value: Type.Number({ description: "must be the source of truth's number from the reconciliation query" }),
        },
        { additionalProperties: false, description: "must hold the reconciliation query's two numbers" },
      ),
    ),
    window: Type.Optional(
      Type.Object(
        {
          column: NonEmpty("must name the event_time column the window is taken on"),
          start: NonEmpty("must be where the window starts"),
          end: NonEmpty("must be where the window ends"),
        },
        { additionalProperties: false, description: "must describe the closed window both sides were measured over" },
      ),
    ),
    // Its description is printed for an extra that is not an object, as the reference prints it: unchanged. slp's own record
    // of what the diff was measured on lives in extra.slp (DiffProvenance below).
    extra: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "may hold anything; slp ignores it" })),
  },
  {
    $id: "diff.schema.json",
    title: "diff.json",
    additionalProperties: false,
    description: "One model's measured difference between production and this branch inside a closed window (framework Stage E).",
  },
);
export type Diff = Static<typeof Diff>;

/** Where slp keeps its own record in a diff: inside `extra`, the one object the reference contract leaves open. */
export const SLP_EXTRA_KEY = "slp";

const ContentId = Type.String({ pattern: "^[0-9a-f]{40}$", description: "must be a git blob id (40 hexadecimal digits)" });

/**
 * `extra.slp` of a diff slp wrote: the commit and the content it was measured
 * on, so that compare and review can refuse a diff whose model has changed
 * since. A diff without it (the reference's) is read as before.
 */
export const DiffProvenance = Type.Object(
  {
    commit: Type.Union([Type.String({ pattern: "^[0-9a-f]{40}$" }), Type.Null()], {
      description: "must be HEAD's commit id when the diff was measured, or null outside a repository",
    }),
    dirty: Type.Union([Type.Boolean(), Type.Null()], {
      description: "must say whether a measured file differed from that commit (uncommitted changes), or null without a commit",
    }),
    content: Type.Record(Type.String({ minLength: 1 }), ContentId, {
      minProperties: 1,
      description:
        "must map each project file the model's rows depend on (its SQL, and the models, seeds and snapshots upstream of it) to its content id when measured",
    }),
  },
  {
    $id: "diff_provenance.schema.json",
    title: "diff.json extra.slp",
    additionalProperties: false,
    description: "What slp diff measured a model on: the commit, whether the work tree differed from it, and each file's content id.",
  },
);
export type DiffProvenance = Static<typeof DiffProvenance>;
