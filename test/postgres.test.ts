/**
 * Stage E on a real PostgreSQL server: slp diff and slp reconcile through
 * Bun's SQL client, held against the embedded DuckDB's result on the same
 * data, and the emitted PostgreSQL query run on the server and read back
 * through diff-from-row. `.ci/run` installs PostgreSQL from Debian; the
 * suite starts a throwaway server from it (or uses SLP_TEST_POSTGRES_URL).
 */
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PostgresDatabase } from "../src/engine/postgres.ts";
import { diffFromRow } from "../src/project/artifacts/diff-row.ts";
import { runCli, runMain } from "./support/cli.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { startPostgres } from "./support/postgres.ts";
import { copyToTemp } from "./support/temp.ts";

// A real server for the whole file: SLP_TEST_POSTGRES_URL's, else a throwaway one (test/support/postgres.ts).
// Without PostgreSQL installed this fails, saying what to install: a skipped test proves nothing.
const server = await startPostgres();
const URL_TEXT = server.url;
afterAll(() => server.stop());

const SALES = join(FIXTURES, "commands", "diff", "measures_one_model");
const RECONCILE = join(FIXTURES, "commands", "reconcile", "reconciles_a_critical_model");
/** Schemas of this run only, so two runs on one server never meet. */
const TAG = `slp_t${process.pid}`;

describe("PostgreSQL", () => {
  const url = new URL(URL_TEXT);
  let admin: SQL;
  const env = { SLP_PG_USER: decodeURIComponent(url.username), SLP_PG_PASSWORD: decodeURIComponent(url.password) };
  const slpYml = (extra = "") =>
    [
      "metrics:",
      '  fct_sales.revenue: "sum(amount)"',
      "diff:",
      "  engine: postgres",
      `  prod: "${TAG}_prod.{model}"`,
      `  pr: "${TAG}_pr.{model}"`,
      `  sources: "${TAG}_{source}.{table}"`,
      '  window: "2025-01-01:2025-01-31"',
      "  postgres:",
      `    host: ${url.hostname}`,
      `    port: ${url.port || 5432}`,
      `    database: ${url.pathname.slice(1)}`,
      "    user_env: SLP_PG_USER",
      "    password_env: SLP_PG_PASSWORD",
      extra,
    ].join("\n");

  async function load(schema: string, table: string, csv: string, types: Record<string, string>): Promise<void> {
    const [header, ...lines] = csv.trim().split("\n") as [string, ...string[]];
    const columns = header.split(",");
    await admin.unsafe(`create schema if not exists ${schema}`);
    await admin.unsafe(`create table ${schema}.${table} (${columns.map((c) => `${c} ${types[c]}`).join(", ")})`);
    for (const line of lines) {
      const cells = line.split(",").map((cell) => (cell === "" ? "null" : `'${cell}'`));
      await admin.unsafe(`insert into ${schema}.${table} values (${cells.join(", ")})`);
    }
  }

  beforeAll(async () => {
    admin = new SQL({ url: URL_TEXT, max: 1 });
    const types = { sale_id: "integer", amount: "double precision", status: "text", sold_on: "date" };
    for (const [schema, folder] of [
      [`${TAG}_prod`, "prod"],
      [`${TAG}_pr`, "pr"],
      [`${TAG}_analytics`, "prod"],
      [`${TAG}_ci`, "pr"],
    ]) {
      await load(schema as string, "fct_sales", readFileSync(join(SALES, "data", folder as string, "fct_sales.csv"), "utf8"), types);
    }
    await load(`${TAG}_ledger`, "monthly", readFileSync(join(RECONCILE, "data", "sources", "monthly.csv"), "utf8"), {
      month: "text",
      total: "numeric(12,2)",
    });
  });

  afterAll(async () => {
    for (const suffix of ["prod", "pr", "analytics", "ci", "ledger"]) await admin.unsafe(`drop schema if exists ${TAG}_${suffix} cascade`);
    await admin.close();
  });

  const diffOf = (stdout: string) =>
    (JSON.parse(stdout) as { data: { diffs: Record<string, Record<string, unknown>> } }).data.diffs.fct_sales as Record<string, unknown>;
  const measured = (diff: Record<string, unknown>) => {
    const { extra: _extra, ...rest } = diff;
    return rest;
  };

  test("slp diff on PostgreSQL measures what the embedded DuckDB measures on the same data", async () => {
    using dir = copyToTemp(SALES);
    const onDuck = await runMain(["diff", "--format", "json", "--out", "duck"], dir.path);
    writeFileSync(join(dir.path, "slp.yml"), slpYml());
    const onPostgres = await runMain(["diff", "--format", "json"], dir.path, env);
    expect(onPostgres.stderr).toBe("");
    expect(onPostgres.exitCode).toBe(0);
    expect(measured(diffOf(onPostgres.stdout))).toEqual(measured(diffOf(onDuck.stdout)));
    expect((diffOf(onPostgres.stdout).extra as { engine: string }).engine).toBe("postgres");
    const ledger = readFileSync(join(dir.path, ".slp", "queries.jsonl"), "utf8");
    expect(ledger).toContain('"engine":"postgres"');
    expect(ledger).not.toContain("refunded");
  });

  test("the emitted PostgreSQL query, run on the server, reads back through diff-from-row as slp diff's own result", async () => {
    using dir = copyToTemp(SALES);
    const emitted = await runMain(
      ["diff", "--emit-sql", "--dialect", "postgres", "--prod", `${TAG}_analytics.{model}`, "--pr", `${TAG}_ci.{model}`],
      dir.path,
    );
    expect(emitted.exitCode).toBe(0);
    const [row] = (await admin.unsafe(emitted.stdout)) as Record<string, unknown>[];
    const cells = new Map(
      Object.entries(row as Record<string, unknown>).map(([key, value]) => [key, value === null ? null : String(value)]),
    );
    const fromRow = diffFromRow("fct_sales", cells, { file: "row" });
    const own = await runMain(["diff", "--format", "json"], dir.path);
    expect(fromRow).toEqual(measured(diffOf(own.stdout)) as typeof fromRow);
  });

  test("slp stage-e on PostgreSQL: diff, reconcile against the ledger, compare (real CLI)", () => {
    using dir = copyToTemp(RECONCILE);
    writeFileSync(join(dir.path, "slp.yml"), slpYml());
    const run = runCli(["stage-e"], dir.path, env);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("reconcile: slp reconcile: OK (1 model reconciled on postgres)\n");
    expect(run.stdout).toEndWith("slp stage-e: 7 infos - OK (3 stages)\n");
    expect(JSON.parse(readFileSync(join(dir.path, "diff", "fct_sales.json"), "utf8")).reconciliation).toEqual({
      external_value: 68,
      model_value: 68,
    });
  });

  test("fails closed: a relation the server does not have, a missing credential, a query that is not one SELECT", async () => {
    using dir = copyToTemp(RECONCILE);
    writeFileSync(join(dir.path, "slp.yml"), slpYml());
    const missing = await runMain(["diff", "--pr", `${TAG}_nowhere.{model}`], dir.path, env);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`the relation ${TAG}_nowhere.fct_sales (the branch's build) does not exist`);

    const noUser = await runMain(["diff"], dir.path, { SLP_PG_PASSWORD: env.SLP_PG_PASSWORD });
    expect(noUser.exitCode).toBe(2);
    expect(noUser.stderr).toContain("the environment variable SLP_PG_USER, which is not set");

    expect((await runMain(["diff"], dir.path, env)).exitCode).toBe(0);
    writeFileSync(
      join(dir.path, "analyses", "reconciliation_fct_sales.sql"),
      `select 68 as model_value, 68 as external_value; drop table ${TAG}_prod.fct_sales`,
    );
    const twoStatements = await runMain(["reconcile"], dir.path, env);
    expect(twoStatements.exitCode).toBe(2);
    expect(twoStatements.stderr).toContain("must be exactly one SELECT");
    const [count] = (await admin.unsafe(`select count(*)::int as n from ${TAG}_prod.fct_sales`)) as { n: number }[];
    expect(count?.n).toBe(4);
  });

  test("the server's messages pass the one sanitizer: a cell quoted by a failed cast, a DETAIL line, a sensitive value named by a refusal", async () => {
    using dir = copyToTemp(RECONCILE);
    writeFileSync(join(dir.path, "slp.yml"), slpYml());
    expect((await runMain(["diff"], dir.path, env)).exitCode).toBe(0);
    const query = join(dir.path, "analyses", "reconciliation_fct_sales.sql");
    const reconcile = async (select: string) => {
      writeFileSync(query, select);
      const run = await runMain(["reconcile"], dir.path, env);
      expect(run.exitCode).toBe(2);
      const ledger = readFileSync(join(dir.path, ".slp", "queries.jsonl"), "utf8");
      for (const value of ["paid", "refunded"]) expect(run.stdout + run.stderr + ledger).not.toContain(value);
      return run.stderr;
    };
    expect(
      await reconcile("select (select cast(status as integer) from {{ ref('fct_sales') }} limit 1) as model_value, 1 as external_value"),
    ).toContain('postgres refused the query: invalid input syntax for type integer: "…" (SQLSTATE 22P02)');
    // PostgreSQL says the token in a DETAIL line: only the first line is kept.
    expect(
      await reconcile("select (select cast(status as json) from {{ ref('fct_sales') }} limit 1) as model_value, 1 as external_value"),
    ).toContain("postgres refused the query: invalid input syntax for type json (SQLSTATE 22P02)");
    // Silent: a column that is not there is named, as the server names it.
    expect(await reconcile("select sum(no_such_amount) as model_value, 1 as external_value from {{ ref('fct_sales') }}")).toContain(
      'postgres refused the query: column "no_such_amount" does not exist (SQLSTATE 42703)',
    );
    // The same refusal naming a value of a column the spec calls sensitive is the guard's hard failure.
    const yml = join(dir.path, "models", "marts", "fct_sales.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("sensitive_columns: []", "sensitive_columns: [status]"));
    expect(await reconcile("select sum(paid) as model_value, 1 as external_value from {{ ref('fct_sales') }}")).toContain(
      "the output of slp reconcile holds a value of the sensitive column fct_sales.status (the branch's build), in the engine's refusal",
    );
  }, 120_000);

  test("the server itself runs one statement per query: a second one that got past every check is refused, not run", async () => {
    const database = PostgresDatabase.open({
      hostname: url.hostname,
      port: Number(url.port || 5432),
      database: url.pathname.slice(1),
      username: env.SLP_PG_USER,
      password: env.SLP_PG_PASSWORD,
      timeoutSeconds: 10,
    });
    try {
      expect(await database.query("with x as (select 1 as a) select a from x")).toEqual([{ a: 1 }]);
      await expect(
        database.query(`select 1 as a; set default_transaction_read_only = off; drop table ${TAG}_prod.fct_sales`),
      ).rejects.toThrow("cannot insert multiple commands");
    } finally {
      await database.close();
    }
    const [count] = (await admin.unsafe(`select count(*)::int as n from ${TAG}_prod.fct_sales`)) as { n: number }[];
    expect(count?.n).toBe(4);
  });
});
