/**
 * `meta.spec`: what a marts model must do, written by a human before any code
 * (framework Stage A; spec/rules.md §4.6). Each description is the sentence
 * slp prints when that requirement fails.
 */
import { Type, type Static } from "@sinclair/typebox";

const ColumnName = Type.String({ minLength: 1, description: "must be a column name" });

export const CRITICAL_FIELDS = ["reconciliation_query", "reconciliation_tolerance", "external_validation"] as const;

export const Spec = Type.Object(
  {
    grain: Type.String({
      minLength: 1,
      description: 'must say in words what one row represents, e.g. "one row per order per day"',
    }),
    primary_key: Type.Array(ColumnName, {
      minItems: 1,
      uniqueItems: true,
      description: "must list the columns that together identify a row: at least one, each named once",
    }),
    tier: Type.Unsafe<"critical" | "standard">({
      enum: ["critical", "standard"],
      description: 'must be "critical" (feeds business decisions, financial reports or executive dashboards) or "standard"',
    }),
    metrics: Type.Record(
      Type.String(),
      Type.String({ minLength: 1, description: "must define the metric in words, as the diff will measure it" }),
      { description: "must map each metric the model computes to its definition in words ({} when it has none)" },
    ),
    known_edges: Type.Array(
      Type.String({
        minLength: 1,
        description: "must describe one known edge case as given -> expected result, in one line of text",
      }),
      { description: "must list the edge cases the Author already knows, each of which becomes a unit test ([] when none)" },
    ),
    sensitive_columns: Type.Array(ColumnName, {
      uniqueItems: true,
      description: "must list the columns that hold personal data, each named once ([] when none)",
    }),
    reconciliation_query: Type.Optional(
      Type.String({
        pattern: "^analyses/reconciliation_[A-Za-z0-9_]+\\.sql$",
        description:
          "must be the path of the query that compares the model with a source of truth outside the warehouse, analyses/reconciliation_<name>.sql",
      }),
    ),
    reconciliation_tolerance: Type.Optional(
      Type.String({
        pattern: "^[0-9]+(\\.[0-9]+)?%$",
        description: 'must be the largest acceptable difference from the source of truth, as a percentage such as "0.1%"',
      }),
    ),
    external_validation: Type.Optional(
      Type.String({
        minLength: 1,
        description: "must state a concrete number from outside the warehouse that anchors the model",
      }),
    ),
  },
  {
    $id: "spec.schema.json",
    title: "meta.spec",
    additionalProperties: false,
    description:
      "What a model should do, decided by a human before any code is written (framework Stage A). Every marts model needs one, with grain, primary_key, tier, metrics, known_edges and sensitive_columns.",
    if: { properties: { tier: { const: "critical" } }, required: ["tier"] },
    then: {
      required: [...CRITICAL_FIELDS],
      description: "a critical model also declares reconciliation_query, reconciliation_tolerance and external_validation",
    },
  },
);
export type Spec = Static<typeof Spec>;
