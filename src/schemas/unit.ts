/**
 * What `slp unit --format json` puts in the envelope's `data`: one verdict per
 * unit test, with the diff of a failure and the error of a test that could
 * not run. Fixture rows are invented data, so a diff may show them.
 */
import { Type, type Static } from "@sinclair/typebox";
import { FixKind } from "./finding.ts";

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const UnitTestError = Type.Object(
  {
    message: Type.String({ description: "what could not be rendered or run, in words" }),
    file: Nullable(Type.String(), "the file it is in (the model's .sql, a macro, the unit test's yml), or null"),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "the line in that file, or null" }),
    column: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description:
        "the column on that line, or null: where DuckDB places a parse or binder error in the model's SQL, mapped back through slp's query around it, the dialect translation and the Jinja rendering (text a Jinja tag produced is placed at the tag)",
    }),
    fix: Nullable(Type.String(), "what to do about it, or null"),
  },
  { additionalProperties: false },
);

export const FixtureColumnInfo = Type.Object(
  {
    name: Type.String(),
    type: Type.String({ description: "the DuckDB type the fixture's values are cast to" }),
    from: Type.Union(
      [
        Type.Literal("catalog"),
        Type.Literal("manifest"),
        Type.Literal("declared"),
        Type.Literal("inferred"),
        Type.Literal("seed"),
        Type.Literal("snapshot"),
        Type.Literal("values"),
        Type.Literal("typings"),
      ],
      {
        description:
          "catalog: target/catalog.json; manifest: a data_type in target/manifest.json; declared: the upstream's yml data_type (a contract, a seed's column_types); inferred: DuckDB's reading of the upstream's own SQL over empty inputs; seed: inferred from the seed's CSV; snapshot: a column dbt's snapshot adds; values: inferred from the fixture's own values (or, when it has none, a NULL the model never reads by name); typings: a NULL nothing types that the model reads, run as each type listed (A | B | ...), every run giving this verdict",
      },
    ),
  },
  { additionalProperties: false },
);

export const UnitTestResult = Type.Object(
  {
    id: Type.String({ description: "unit_test.<package>.<model>.<name>" }),
    model: Type.String(),
    name: Type.String({ description: "the test's name (with _v<N> for a model version)" }),
    file: Type.String({ description: "the yml that defines the test" }),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "the line of the test in that yml" }),
    edge: Nullable(Type.String(), "config.meta.edge: the spec edge the test proves, or null"),
    status: Type.Union([Type.Literal("pass"), Type.Literal("fail"), Type.Literal("error")]),
    failures: Type.Integer({ description: "1 for a failed test (however many rows differ), else 0, as dbt counts" }),
    sql_from: Type.Union([Type.Literal("rendered"), Type.Literal("manifest"), Type.Null()], {
      description:
        "rendered: slp rendered the model's Jinja; manifest: dbt's compiled code from target/manifest.json; null: the test stopped before",
    }),
    ran: Type.Union([Type.Literal("native"), Type.Literal("translated"), Type.Literal("untranslatable"), Type.Null()], {
      description:
        "native: DuckDB ran the model's SQL as written (a DuckDB project); translated: slp translated it from the project's dialect; untranslatable: it uses a construct slp cannot run with the warehouse's meaning (the test is an error); null: the test stopped before",
    }),
    error: Type.Union([UnitTestError, Type.Null()]),
    diff: Type.Union(
      [
        Type.Object(
          {
            columns: Type.Array(Type.String(), { description: "the compared columns" }),
            rows: Type.Array(
              Type.Object(
                {
                  side: Type.Union([Type.Literal("expected"), Type.Literal("actual")], {
                    description: "expected: a row expected but not returned; actual: a row returned but not expected",
                  }),
                  values: Type.Array(Type.Union([Type.String(), Type.Null()]), { description: "as DuckDB prints them" }),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: "the rows only in expected and only in actual, for a failed test" },
    ),
    fixtures: Type.Array(
      Type.Object(
        {
          input: Type.String({ description: "the given's input as written" }),
          relation: Type.String({ description: "the CTE the model reads instead" }),
          columns: Type.Array(FixtureColumnInfo, { description: "empty for format: sql (its SELECT is used as written)" }),
        },
        { additionalProperties: false },
      ),
    ),
    rendered_sql: Nullable(Type.String(), "the model's SQL as run, when DuckDB refused it; else null"),
    fix: Type.Union([FixKind, Type.Null()], {
      description:
        "whose move a failure or an error is: test when this branch added or changed the test (its entry against the merge-base of HEAD and the base branch: SLP_BASE, slp.yml's base, else main), else sql (also when the base cannot be read); null for a pass",
    }),
  },
  { additionalProperties: false },
);

export const UnitData = Type.Object(
  {
    tests: Type.Array(UnitTestResult, { description: "sorted by model, then test name" }),
    counts: Type.Object(
      {
        pass: Type.Integer(),
        fail: Type.Integer(),
        error: Type.Integer(),
        disabled: Type.Integer(),
      },
      { additionalProperties: false },
    ),
    dialect: Type.Object(
      {
        name: Type.String({
          description:
            "the warehouse dialect the models are written in (duckdb, snowflake, bigquery, databricks, spark, redshift, postgres)",
        }),
        from: Type.String({ description: "where slp read it: --dialect, slp.yml, profiles.yml (profile and target), or a default" }),
      },
      { additionalProperties: false },
    ),
    disabled: Type.Array(
      Type.Object(
        { id: Type.String(), model: Type.String(), name: Type.String(), file: Type.String(), reason: Type.String() },
        { additionalProperties: false },
      ),
      { description: "tests left out: config.enabled false, or their model is disabled" },
    ),
  },
  {
    $id: "unit.schema.json",
    title: "slp unit data",
    additionalProperties: false,
    description: "The data of `slp unit --format json`: per-test verdicts.",
  },
);
export type UnitData = Static<typeof UnitData>;
