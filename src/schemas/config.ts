/**
 * `slp.yml`, the optional settings file at the repository root. `gate` reads
 * it from the base commit, so a branch cannot loosen the rules that judge it.
 */
import { Type, type Static } from "@sinclair/typebox";
import { LIMIT_NAMES, LIMITS } from "../core/limits.ts";

const Path = Type.String({ minLength: 1, description: "must be a path relative to the repository root" });

const Template = (what: string) =>
  Type.String({
    minLength: 1,
    description: `must name ${what}: a relation (schema.{model}) or a CSV/Parquet file (data/{model}.csv), {model} standing for each model`,
  });

/** Stage E's settings (slp diff, slp reconcile, slp stage-e); each is the default of the flag of the same name. */
const DiffSettings = Type.Object(
  {
    prod: Type.Optional(Template("production's copy of each model")),
    pr: Type.Optional(Template("this branch's build of each model")),
    sources: Type.Optional(
      Type.String({
        minLength: 1,
        description: "must name each source table for reconciliation queries, {source} and {table} standing for its parts",
      }),
    ),
    window: Type.Optional(
      Type.String({ minLength: 1, description: "must be the closed window both sides are measured over: [COLUMN:]START:END" }),
    ),
    out: Type.Optional(Type.String({ minLength: 1, description: "must be the folder diff files are written to (default diff)" })),
    engine: Type.Optional(
      Type.Union([Type.Literal("duckdb"), Type.Literal("postgres")], { description: "must be duckdb (embedded, the default) or postgres" }),
    ),
    databases: Type.Optional(
      Type.Array(Type.String({ minLength: 1, description: "must be a DuckDB database file" }), {
        description: "must list the DuckDB database files the relations live in (opened read-only, each named by its file stem)",
      }),
    ),
    postgres: Type.Optional(
      Type.Object(
        {
          host: Type.Optional(
            Type.String({ minLength: 1, description: "must be the server's host name or socket folder (default localhost)" }),
          ),
          port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: "must be the server's port (default 5432)" })),
          database: Type.String({ minLength: 1, description: "must name the database" }),
          user_env: Type.Optional(
            Type.String({
              pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
              description: "must name the environment variable holding the user (default PGUSER)",
            }),
          ),
          password_env: Type.Optional(
            Type.String({
              pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
              description: "must name the environment variable holding the password (default PGPASSWORD); a password is never written here",
            }),
          ),
        },
        {
          additionalProperties: false,
          description: "must say where the PostgreSQL server is; credentials come only from environment variables",
        },
      ),
    ),
    memory_limit: Type.Optional(
      Type.String({
        pattern: "^[0-9]+(\\.[0-9]+)?\\s*(KB|MB|GB|KiB|MiB|GiB)$",
        description: "must be the embedded engine's memory limit, e.g. 2GiB (default 2GiB)",
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({ minimum: 1, description: "must be how long one query may run, in seconds (default 600)" }),
    ),
  },
  {
    additionalProperties: false,
    description: "must configure Stage E: where production and the branch's build are, and the engine that measures them",
  },
);

export const Config = Type.Object(
  {
    marts_paths: Type.Optional(
      Type.Array(Path, {
        minItems: 1,
        description: "must list the folders whose models are marts (default [models/marts]); --marts-path replaces it",
      }),
    ),
    protected_paths: Type.Optional(
      Type.Array(Path, {
        description: "must list extra paths only a human may change (a trailing / protects a folder), added to the built-in set",
      }),
    ),
    base: Type.Optional(Type.String({ minLength: 1, description: "must name the branch pull requests target (default main)" })),
    tcr: Type.Optional(
      Type.Union(
        [
          Type.Literal("required", { description: "short for { required: true }" }),
          Type.Object(
            {
              steps: Type.Optional(
                Type.Array(Type.String({ minLength: 1, description: "must name a task" }), {
                  minItems: 1,
                  description: "must list the tasks the loop runs, in order (default [check, gate, unit, mutate])",
                }),
              ),
              required: Type.Optional(
                Type.Boolean({
                  description:
                    "must say whether every commit of an agent branch must be a green tcr step: gate then re-runs check and unit at each commit (as --verify-commits) and blocks on G11-G13 (read from the base branch)",
                }),
              ),
            },
            { additionalProperties: false },
          ),
        ],
        { description: "must configure the TCR loop (slp tcr): `required`, or a mapping of steps and required" },
      ),
    ),
    mutate: Type.Optional(
      Type.Object(
        {
          max_mutants: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 20,
              description: "must be the most mutants per model, at most 20 (default 20); --max-mutants may only lower it",
            }),
          ),
          min_score: Type.Optional(
            Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 100 }), {
              description:
                "must map a spec tier (critical, standard, ...) to the lowest mutation score, in percent, its models may have; a tier it does not name keeps the default, where every survivor blocks",
            }),
          ),
        },
        { additionalProperties: false, description: "must configure slp mutate (read from the base branch)" },
      ),
    ),
    lineage: Type.Optional(
      Type.Union([Type.Literal("all"), Type.Literal("critical-only"), Type.Literal("off"), Type.Literal(false)], {
        description:
          "must say how far gate and compare follow a change downstream (read from the base): all (the default: every marts model downstream of a changed model, seed, source or macro owes a fresh pre-registration and a diff), critical-only (only critical models), or off (only a model whose own SQL changed, as the reference does; YAML reads a bare off as false, which is off too)",
      }),
    ),
    band_ceilings: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1 }),
        Type.Object(
          {
            rows_pct: Type.Optional(
              Type.Number({
                minimum: 0,
                description:
                  "must be the widest row_delta band (max - min) a pre-registration may declare, in percent of the model's production rows (read from the diff's extra.production_rows)",
              }),
            ),
            delta_pct: Type.Optional(
              Type.Number({
                minimum: 0,
                description:
                  "must be the widest delta_pct band (max - min) a pre-registration may declare for a metric, in percentage points",
              }),
            ),
          },
          { additionalProperties: false, description: "must set a tier's ceilings: rows_pct, delta_pct, or both" },
        ),
        {
          description:
            "must map a spec tier (critical, standard, ...) to the widest intervals a pre-registration of that tier may declare; wider blocks in compare (C8); a tier it does not name has no ceiling",
        },
      ),
    ),
    dialect: Type.Optional(
      Type.Union(
        ["duckdb", "snowflake", "bigquery", "databricks", "spark", "redshift", "postgres"].map((name) => Type.Literal(name)),
        {
          description:
            "must name the warehouse dialect the models are written in; default: the adapter type of the project's profile in profiles.yml, else duckdb",
        },
      ),
    ),
    limits: Type.Optional(
      Type.Object(
        Object.fromEntries(
          LIMIT_NAMES.map((name) => [
            name,
            Type.Optional(
              Type.Number({
                description: `must be a number of ${LIMITS[name].unit}: ${LIMITS[name].bounds} (default ${LIMITS[name].default})`,
              }),
            ),
          ]),
        ),
        {
          additionalProperties: false,
          description: "must raise or lower slp's resource limits (the README's Limits section); SLP_LIMIT_<NAME> in the environment wins",
        },
      ),
    ),
    metrics: Type.Optional(
      Type.Record(
        Type.String({ pattern: "^[^.]+\\.[^.]+$" }),
        Type.String({ minLength: 1, description: "must be one aggregate SQL expression over the model's columns, e.g. sum(order_total)" }),
        {
          description:
            "must map model.metric to the aggregate slp diff measures it with; a metric named like a column needs none (it is sum(column))",
        },
      ),
    ),
    diff: Type.Optional(DiffSettings),
    tasks: Type.Optional(
      Type.Record(
        Type.String(),
        Type.String({ minLength: 1, description: "must be a shell command (run with Bun Shell at the repository root)" }),
        { description: "must map each task name to the shell command it runs; `slp run <name>` runs it" },
      ),
    ),
  },
  {
    $id: "config.schema.json",
    title: "slp.yml",
    additionalProperties: false,
    description: "Settings for slp, at the repository root. Every key is optional.",
  },
);
export type Config = Static<typeof Config>;
