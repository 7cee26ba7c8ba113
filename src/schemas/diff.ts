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
