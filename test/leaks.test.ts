/**
 * No value leaves through an error's text, the environment or a link
 * (issue 24): every engine message passes one sanitizer; Stage E's output is
 * checked before it is printed or written (rows of data, a sensitive
 * column's value: exit 2 naming it); env_var() values are masked in every
 * output and kept off the caches, DBT_ENV_SECRET_* is refused; Stage E's
 * data paths may not lead out of the project through a link; a Jinja error
 * in a reconciliation query names its file and line. The projects are
 * test/fixtures/leaks/ (stage-e with overlays/, env-unit, env-secret).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { engineMessage } from "../src/core/engine-message.ts";
import { rowShapedAt } from "../src/data/output-guard.ts";
import { Database } from "../src/engine/duckdb.ts";
import { runCli, runMain } from "./support/cli.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

const LEAKS = join(FIXTURES, "leaks");
const STAGE_E = join(LEAKS, "stage-e");

/** Every value of the fixture's sensitive columns: none may be in any output. */
const SENSITIVE = ["ana@example.com", "zedsecret", "987654321", "246813579", "quillfeather"];

/** A copy of the Stage E project with one overlay laid over it. */
function project(overlay?: string) {
  const dir = copyToTemp(STAGE_E, "slp-leaks-");
  if (overlay) cpSync(join(LEAKS, "overlays", overlay), dir.path, { recursive: true });
  return dir;
}

/** Everything slp left behind in the project (the ledger, the diffs) as one text. */
function filesOf(dir: string): string {
  const texts: string[] = [];
  for (const folder of [".slp", "diff"]) {
    const path = join(dir, folder);
    if (!existsSync(path)) continue;
    for (const name of readdirSync(path)) texts.push(readFileSync(join(path, name), "utf8"));
  }
  return texts.join("\n");
}

function expectNoSensitiveValue(...texts: string[]): void {
  for (const text of texts) for (const value of SENSITIVE) expect(text).not.toContain(value);
}

describe("one sanitizer for every engine message", () => {
  test("DuckDB's messages on real queries: values withheld, class, columns, functions and positions kept", async () => {
    const db = await Database.open();
    const message = async (sql: string) => {
      try {
        await db.query(sql);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`${sql} ran`);
    };
    try {
      expect(await message("select cast(x as integer) from (select 'ana@example.com' as x)")).toBe(
        "Conversion Error: Could not convert string '…' to INT32 when casting from source column x",
      );
      expect(await message("select cast('2025-13-45' as date)")).toBe('Conversion Error: date field value out of range: "…"');
      expect(await message("select 300::tinyint")).toStartWith("Conversion Error: Type INT32 with value … can't be cast");
      expect(await message("select 9223372036854775807 + 1")).toBe("Out of Range Error: Overflow in addition of INT64 (…)!");
      expect(await message("select cast('ana@example.com' as decimal(10,2))")).toBe(
        'Conversion Error: Could not convert string "…" to DECIMAL(10,2)',
      );
      // Silent: what names the SQL, not a row, stays as DuckDB says it.
      expect(await message("select nosuch from (select 1 as x)")).toBe(
        'Binder Error: Referenced column "nosuch" not found in FROM clause!',
      );
      expect(await message("select 1 + 'ana@example.com'")).toStartWith(
        'Binder Error: Could not choose a best candidate function for the function call "+(INTEGER_LITERAL, STRING_LITERAL)"',
      );
    } finally {
      db.close();
    }
    // error()'s text is the user's own: withheld whole where the database holds Stage E's data.
    expect(engineMessage("Invalid Input Error: ana@example.com", "duckdb")).toBe(
      "Invalid Input Error: … (its text is withheld: it can be a value, as error() gives it)",
    );
    expect(engineMessage('Invalid Input Error: Malformed JSON at byte 1 of input: unexpected character.  Input: "{ana"', "duckdb")).toBe(
      'Invalid Input Error: Malformed JSON at byte … of input: unexpected character.  Input: "…"',
    );
  }, 120_000);

  test("PostgreSQL's messages: the DETAIL line and quoted values go, identifiers stay", () => {
    expect(engineMessage('invalid input syntax for type integer: "ana@example.com"', "postgres", "22P02")).toBe(
      'invalid input syntax for type integer: "…" (SQLSTATE 22P02)',
    );
    expect(engineMessage('invalid input syntax for type json\nDETAIL:  Token "zedsecret" is invalid.', "postgres", "22P02")).toBe(
      "invalid input syntax for type json (SQLSTATE 22P02)",
    );
    expect(engineMessage('column "nosuch" does not exist', "postgres", "42703")).toBe('column "nosuch" does not exist (SQLSTATE 42703)');
  }, 120_000);
});

describe("Stage E's output is checked before it is printed or written", () => {
  test("error(customer_email) in a reconciliation query: exit 2, the e-mail in no output, JSON envelope or ledger (real CLI)", () => {
    using dir = project("error_of_a_sensitive_value");
    expect(runCli(["diff"], dir.path).exitCode).toBe(0);
    const text = runCli(["reconcile"], dir.path);
    expect(text.exitCode).toBe(2);
    expect(text.stderr).toContain("duckdb refused the query: Invalid Input Error: … (its text is withheld");
    const json = runCli(["reconcile", "--format", "json"], dir.path);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout).errors[0].message).toContain("Invalid Input Error: …");
    expect(filesOf(dir.path)).toContain('"purpose":"reconcile fct_sales"');
    expectNoSensitiveValue(text.stdout, text.stderr, json.stdout, json.stderr, filesOf(dir.path));
  }, 120_000);

  test("a failed cast of a sensitive column names the column, not the cell", async () => {
    using dir = project("cast_of_a_sensitive_value");
    await runMain(["diff"], dir.path);
    const run = await runMain(["reconcile"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("Conversion Error: Could not convert string '…' to INT32 when casting from source column nickname");
    expectNoSensitiveValue(run.stdout, run.stderr, filesOf(dir.path));
  }, 120_000);

  test("max() of a sensitive column, an aggregate that returns one customer's value: exit 2 naming the column, nothing written", async () => {
    using dir = project("max_of_a_sensitive_column");
    await runMain(["diff"], dir.path);
    const before = readFileSync(join(dir.path, "diff", "fct_sales.json"), "utf8");
    const run = await runMain(["reconcile", "--format", "json"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(JSON.parse(run.stdout).errors[0].message).toBe(
      "the output of slp reconcile holds a value of the sensitive column fct_sales.tax_id (the branch's build); nothing of it is printed or written",
    );
    expect(readFileSync(join(dir.path, "diff", "fct_sales.json"), "utf8")).toBe(before);
    expectNoSensitiveValue(run.stdout, run.stderr, filesOf(dir.path));
  }, 120_000);

  test("a metric of max() over a sensitive column: slp diff exits 2 and writes no diff", async () => {
    using dir = project("max_metric_of_a_sensitive_column");
    const run = await runMain(["diff"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("the output of slp diff holds a value of the sensitive column fct_sales.tax_id (production)");
    expect(existsSync(join(dir.path, "diff", "fct_sales.json"))).toBe(false);
    expectNoSensitiveValue(run.stdout, run.stderr, filesOf(dir.path));
  }, 120_000);

  test("an engine refusal quoting a sensitive value (a column named like it) is a hard failure, not a message", async () => {
    using dir = project("sensitive_value_in_a_refusal");
    await runMain(["diff"], dir.path);
    const run = await runMain(["reconcile"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("holds a value of the sensitive column fct_sales.nickname (the branch's build), in the engine's refusal");
    expectNoSensitiveValue(run.stdout, run.stderr, filesOf(dir.path));
  }, 120_000);

  test("silent: a count of a sensitive column, a column that is not there, and the project as written all pass the guard", async () => {
    {
      using dir = project();
      const run = runCli(["stage-e"], dir.path);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toEndWith("slp stage-e: 7 infos - OK (3 stages)\n");
      expectNoSensitiveValue(run.stdout, run.stderr, filesOf(dir.path));
    }
    {
      using dir = project("count_of_a_sensitive_column");
      await runMain(["diff"], dir.path);
      const run = await runMain(["reconcile"], dir.path);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain("fct_sales: the model says 4, the source of truth 4");
    }
    {
      using dir = project("column_named_in_a_refusal");
      await runMain(["diff"], dir.path);
      const run = await runMain(["reconcile"], dir.path);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('Binder Error: Referenced column "no_such_amount" not found in FROM clause!');
    }
  }, 120_000);

  test("a table that is not there is still 'does not exist': the guard looks at a refusal once, never at its own", async () => {
    using dir = project();
    const db = await Database.openFile(join(dir.path, "shop.duckdb"));
    await db.query(`create table fct_sales as select * from read_csv('${join(dir.path, "data", "prod", "fct_sales.csv")}')`);
    db.close();
    const missing = await runMain(["diff", "--database", "shop.duckdb", "--prod", "fct_sales", "--pr", "nowhere_{model}"], dir.path);
    expect(missing.stderr).toStartWith("ERROR fct_sales: the relation nowhere_fct_sales (the branch's build) does not exist");
    expect(missing.exitCode).toBe(2);
    const measured = await runMain(["diff", "--database", "shop.duckdb", "--prod", "fct_sales"], dir.path);
    expect(measured.exitCode).toBe(0);
    expectNoSensitiveValue(missing.stderr, measured.stdout, filesOf(dir.path));
  }, 120_000);

  test("rows of data in an output are found where they are; a diff's own shape holds none", async () => {
    const columns = new Set(["sale_id", "customer_email", "amount"]);
    expect(rowShapedAt({ diffs: { fct_sales: { sample: [{ sale_id: 1, customer_email: "x" }] } } }, columns)).toBe(
      "data.diffs.fct_sales.sample[0]",
    );
    using dir = project();
    const run = await runMain(["diff", "--format", "json"], dir.path);
    expect(run.exitCode).toBe(0);
    expect(rowShapedAt(JSON.parse(run.stdout).data, columns)).toBeNull();
  }, 120_000);

  test("a Jinja error in a reconciliation query is exit 2 naming the file and line, never a bug in slp", async () => {
    using dir = project("jinja_error");
    await runMain(["diff"], dir.path);
    const run = await runMain(["reconcile"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      "ERROR analyses/reconciliation_fct_sales.sql:3: the reconciliation query cannot be rendered: unexpected '}', expected ')'; fix the Jinja there: the query is rendered with dbt's context, ref() and source() included\n",
    );
  }, 120_000);
});

describe("Stage E's data paths do not lead out of the project", () => {
  test("a data file named in slp.yml that is a link out of the project is refused; a link inside it is read", async () => {
    using outside = tempDir("slp-leaks-outside-");
    {
      using dir = project();
      const file = join(dir.path, "data", "pr", "fct_sales.csv");
      renameSync(file, join(outside.path, "fct_sales.csv"));
      symlinkSync(join(outside.path, "fct_sales.csv"), file);
      const run = await runMain(["diff"], dir.path);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toBe(
        "ERROR data/pr/fct_sales.csv: is a symbolic link (or is reached through one) that leads outside the repository, and slp reads nothing outside it; copy the data into the repository instead of linking it, or pass its real path on the command line (--prod, --pr, --sources, --database)\n",
      );
      expect(existsSync(join(dir.path, "diff", "fct_sales.json"))).toBe(false);
    }
    {
      // A folder on the path that is a link out is refused as well.
      using dir = project();
      const folder = join(dir.path, "data", "pr");
      cpSync(folder, join(outside.path, "pr"), { recursive: true });
      rmSync(folder, { recursive: true });
      symlinkSync(join(outside.path, "pr"), folder);
      const run = await runMain(["diff"], dir.path);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toStartWith("ERROR data/pr/fct_sales.csv: is a symbolic link (or is reached through one)");
    }
    {
      // Each file a glob matches is judged, as the walk judges each file of a folder.
      using dir = project();
      const parts = join(dir.path, "data", "parts");
      cpSync(join(dir.path, "data", "pr"), parts, { recursive: true });
      cpSync(join(dir.path, "data", "prod", "fct_sales.csv"), join(outside.path, "more.csv"));
      symlinkSync(join(outside.path, "more.csv"), join(parts, "more.csv"));
      const run = await runMain(["diff", "--pr", "data/parts/*.csv"], dir.path);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toStartWith("ERROR data/parts/more.csv: is a symbolic link (or is reached through one)");
      rmSync(join(parts, "more.csv"));
      expect((await runMain(["diff", "--pr", "data/parts/*.csv"], dir.path)).exitCode).toBe(0);
    }
    {
      // reconcile reads the diff back and writes it again: a diff that is a link out is refused too.
      using dir = project();
      expect((await runMain(["diff"], dir.path)).exitCode).toBe(0);
      const diff = join(dir.path, "diff", "fct_sales.json");
      renameSync(diff, join(outside.path, "fct_sales.json"));
      symlinkSync(join(outside.path, "fct_sales.json"), diff);
      const run = await runMain(["reconcile"], dir.path);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toStartWith("ERROR diff/fct_sales.json: is a symbolic link (or is reached through one)");
    }
    {
      using dir = project();
      const file = join(dir.path, "data", "pr", "fct_sales.csv");
      renameSync(file, join(dir.path, "data", "shared.csv"));
      symlinkSync(join("..", "shared.csv"), file);
      const run = await runMain(["diff"], dir.path);
      expect(run.stderr).toBe("");
      expect(run.exitCode).toBe(0);
    }
  }, 120_000);
});

describe("no environment variable's value in any output or cache", () => {
  const PASSWORD = "hunter2-correct-horse";

  test("env_var('DBT_PASSWORD') in a model: the failure table, the JSON and the translation cache never hold the value (real CLI)", () => {
    using dir = copyToTemp(join(LEAKS, "env-unit"), "slp-leaks-env-");
    using cache = tempDir("slp-leaks-cache-");
    const env = { DBT_PASSWORD: PASSWORD, SLP_CACHE_DIR: cache.path };
    const text = runCli(["unit"], dir.path, env);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain("→  | 1        | none→<env_var('DBT_PASSWORD')>");
    const json = runCli(["unit", "--format", "json"], dir.path, env);
    expect(json.exitCode).toBe(1);
    expect(json.stdout).toContain("<env_var('DBT_PASSWORD')>");
    const cached = readdirSync(cache.path).map((name) => readFileSync(join(cache.path, name), "utf8"));
    expect(cached.length).toBeGreaterThan(0);
    for (const output of [text.stdout, text.stderr, json.stdout, json.stderr, ...cached]) expect(output).not.toContain(PASSWORD);
  }, 120_000);

  test("silent: unset, the model renders its default and the test passes, with its translation cached", async () => {
    using dir = copyToTemp(join(LEAKS, "env-unit"), "slp-leaks-env-");
    using cache = tempDir("slp-leaks-cache-");
    const run = await runMain(["unit"], dir.path, { SLP_CACHE_DIR: cache.path });
    expect(run.stdout).toContain("PASS\torders::token_is_the_default");
    expect(run.exitCode).toBe(0);
    expect(readdirSync(cache.path).some((name) => name.startsWith("dialect-"))).toBe(true);
  }, 120_000);

  test("env_var('DBT_ENV_SECRET_TOKEN') in a model is refused, set or not, naming the model, its file and line", async () => {
    using dir = copyToTemp(join(LEAKS, "env-unit"), "slp-leaks-env-");
    cpSync(join(LEAKS, "env-secret"), dir.path, { recursive: true });
    for (const env of [{}, { DBT_ENV_SECRET_TOKEN: PASSWORD }] as Record<string, string>[]) {
      const run = await runMain(["unit"], dir.path, env);
      expect(run.exitCode).toBe(2);
      expect(run.stdout).toContain(
        "ERROR\torders::token_is_the_default\t\n\tmodels/orders.sql:4: env_var('DBT_ENV_SECRET_TOKEN') reads a secret (DBT_ENV_SECRET_*), which slp never hands a model, a test or a query it renders; use a var() instead",
      );
      expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    }
  }, 120_000);
});
