/**
 * `meta.pre_registration`: the numbers the agent commits to before it writes
 * code (framework Stage B; spec/rules.md §4.7). Every interval is closed:
 * an open one cannot be written, because both ends are required.
 */
import { Type, type Static } from "@sinclair/typebox";

const ColumnName = Type.String({ minLength: 1, description: "must be a column name" });

function interval(what: string) {
  return Type.Object(
    {
      min: Type.Number({ description: `must be the lowest ${what} the change may produce, a number` }),
      max: Type.Number({ description: `must be the highest ${what} the change may produce, a number` }),
    },
    { additionalProperties: false, description: `must be a closed interval {min, max} of the ${what}` },
  );
}

const MetricInterval = Type.Object(
  {
    delta_pct: Type.Optional(interval("percentage change against production (0.8 means +0.8 %)")),
    value: Type.Optional(interval("value inside the diff's window, for a model production does not have")),
  },
  {
    additionalProperties: false,
    oneOf: [{ required: ["delta_pct"] }, { required: ["value"] }],
    description: "must declare exactly one of delta_pct (a model production has) or value (a model production does not have)",
  },
);

const pinnedToZero = (what: string) => ({ const: 0, description: `a refactoring may not change any number, so ${what} must be 0` });

export const PreRegistration = Type.Object(
  {
    type: Type.Unsafe<"data_change" | "refactoring">({
      enum: ["data_change", "refactoring"],
      description: 'must be "data_change" (the numbers must move) or "refactoring" (no number may move)',
    }),
    reason: Type.String({
      minLength: 1,
      description: "must explain in one sentence why the numbers will change, for the Author to judge the intervals",
    }),
    row_delta: Type.Object(
      {
        min: Type.Integer({ description: "must be the fewest rows the model may gain (negative for a loss), a whole number" }),
        max: Type.Integer({ description: "must be the most rows the model may gain, a whole number" }),
      },
      { additionalProperties: false, description: "must be a closed interval {min, max} of rows gained against production" },
    ),
    removed_pks: Type.Object(
      {
        max: Type.Integer({
          minimum: 0,
          description: "must be the most primary keys production has that the new version may lose, a whole number, 0 or more",
        }),
      },
      { additionalProperties: false, description: "must be {max: N}: how many production keys may disappear" },
    ),
    altered_columns: Type.Array(ColumnName, {
      uniqueItems: true,
      description: "must list exactly the columns whose values will change, each named once ([] when none)",
    }),
    metrics: Type.Record(Type.String(), MetricInterval, {
      description: "must give every metric of the spec an interval, by delta_pct or by value",
    }),
  },
  {
    $id: "pre_registration.schema.json",
    title: "meta.pre_registration",
    additionalProperties: false,
    description:
      "The numbers this change commits to before any code is written (framework Stage B): type, reason, row_delta, removed_pks, altered_columns and metrics.",
    if: { properties: { type: { const: "refactoring" } }, required: ["type"] },
    then: {
      description: "a refactoring may not change any number, so every declared delta is 0",
      properties: {
        row_delta: { properties: { min: pinnedToZero("row_delta.min"), max: pinnedToZero("row_delta.max") } },
        removed_pks: { properties: { max: pinnedToZero("removed_pks.max") } },
        altered_columns: {
          maxItems: 0,
          description: "a refactoring may not change any number, so altered_columns must be empty",
        },
        metrics: {
          additionalProperties: {
            not: { required: ["value"] },
            description: "a refactoring keeps every metric where it is, so each is pre-registered by delta_pct, not value",
            properties: {
              delta_pct: { properties: { min: pinnedToZero("delta_pct.min"), max: pinnedToZero("delta_pct.max") } },
            },
          },
        },
      },
    },
  },
);
export type PreRegistration = Static<typeof PreRegistration>;
