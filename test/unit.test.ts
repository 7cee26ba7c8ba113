/**
 * `slp unit` against real dbt projects: every folder under test/fixtures/unit/
 * is a project with an `expected` file (exit code, stdout), run in-process;
 * the examples run too, and the real CLI runs as a subprocess.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Envelope } from "../src/schemas/envelope.ts";
import { UnitData } from "../src/schemas/unit.ts";
import { isValid } from "../src/schemas/validate.ts";
import { runCli, runMain } from "./support/cli.ts";
import { expectFixtureOutput, FIXTURES } from "./support/fixtures.ts";
import { commitAll } from "./support/git-repo.ts";
import { quickstartRepo } from "./support/tcr.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

const UNIT = join(FIXTURES, "unit");
const ROOT = join(import.meta.dir, "..");
const cases = readdirSync(UNIT)
  .filter((name) => statSync(join(UNIT, name)).isDirectory())
  .sort();

function argsOf(dir: string): string[] {
  const file = join(dir, "args");
  if (!existsSync(file)) return ["unit"];
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

const ARTIFACTS = ["manifest.json", "catalog.json"];

/** A copy whose target/manifest.json and catalog.json are newer than every source, as after a `dbt compile` and `dbt docs generate`. */
function withFreshManifest(dir: string) {
  const copy = copyToTemp(dir, "slp-unit-");
  const later = new Date(Date.now() + 60_000);
  for (const file of ARTIFACTS) if (existsSync(join(copy.path, "target", file))) utimesSync(join(copy.path, "target", file), later, later);
  return copy;
}

describe("unit fixtures", () => {
  for (const name of cases) {
    test(name, async () => {
      const dir = join(UNIT, name);
      const fresh = ARTIFACTS.some((file) => existsSync(join(dir, "target", file))) ? withFreshManifest(dir) : null;
      try {
        const result = await runMain(argsOf(dir), fresh?.path ?? dir);
        expectFixtureOutput(dir, result);
      } finally {
        fresh?.[Symbol.dispose]();
      }
    });
  }
});

describe("verdicts", () => {
  test("a test that fails on purpose exits 1 and shows the rows only in expected and only in actual", async () => {
    const result = await runMain(["unit"], join(UNIT, "fails_on_purpose"));
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("FAIL\tfct_orders::cancelled_orders_are_excluded\tstatus='cancelled' → row excluded");
    expect(result.stdout).toMatch(/--- \| 2 +\| 9\.0/);
    expect(result.stdout).toContain("5.0→0.05");
  });

  test("an error is never a pass: any error makes exit 2, even next to passes", async () => {
    const result = await runMain(["unit"], join(UNIT, "incremental_rules"));
    expect(result.stdout).toContain("PASS\tfct_events::override_false");
    expect(result.stdout).toContain("ERROR\tfct_events::no_override");
    expect(result.exitCode).toBe(2);
  });

  test("a column nothing types that the model reads shows the types it ran as; a test that gives every column stays as it was", async () => {
    const result = await runMain(["unit", "--format", "json"], join(UNIT, "untyped_typings"));
    const tests = JSON.parse(result.stdout).data.tests as {
      name: string;
      status: string;
      fixtures: { columns: { name: string; type: string; from: string }[] }[];
    }[];
    const columnsOf = (name: string) => tests.find((test) => test.name === name)?.fixtures[0]?.columns ?? [];
    const shipped = columnsOf("every_typing_passes").find((column) => column.name === "shipped_on");
    expect(shipped?.from).toBe("typings");
    expect(shipped?.type.split(" | ")).toContain("DATE");
    expect(shipped?.type.split(" | ").length).toBeGreaterThan(1);
    const events = columnsOf("only_typings_that_bind_count").find((column) => column.name === "cancelled_at");
    expect(events?.type).toBe("DATE | TIMESTAMP | TIMESTAMPTZ");
    expect(columnsOf("every_column_given").some((column) => column.from === "typings")).toBe(false);
  });

  test("--format json is one envelope whose data holds every verdict and matches schemas/unit.schema.json", async () => {
    const result = await runMain(["unit", "--format", "json"], join(UNIT, "select_and_formats"));
    const envelope = JSON.parse(result.stdout);
    expect(isValid(Envelope, envelope)).toBe(true);
    expect(isValid(UnitData, envelope.data)).toBe(true);
    expect(envelope.status).toBe("error");
    expect(envelope.exit_code).toBe(2);
    expect(envelope.data.tests.map((t: { name: string; status: string }) => `${t.name}:${t.status}`)).toEqual([
      "errors:error",
      "fails:fail",
      "passes:pass",
    ]);
    expect(envelope.data.tests[1].failures).toBe(1);
    expect(envelope.errors).toHaveLength(1);
    expect(envelope.errors[0].code).toBe("E_UNIT");
    expect(result.exitCode).toBe(2);
  });

  test("a fresh target/manifest.json is used, and the report says so; a stale one is not", async () => {
    const dir = join(UNIT, "manifest_fresh");
    {
      using fresh = withFreshManifest(dir);
      const result = await runMain(["unit", "--format", "json"], fresh.path);
      expect(JSON.parse(result.stdout).data.tests[0].sql_from).toBe("manifest");
      const rendered = await runMain(["unit", "--no-manifest", "--format", "json"], fresh.path);
      expect(JSON.parse(rendered.stdout).data.tests[0].sql_from).toBe("rendered");
    }
    using stale = copyToTemp(dir, "slp-unit-");
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(stale.path, "target", "manifest.json"), past, past);
    const result = await runMain(["unit", "--format", "json"], stale.path);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.data.tests[0].sql_from).toBe("rendered");
    expect(envelope.notes.join("\n")).toContain("older than the project's sources");
  });
});

describe("upstream schemas", () => {
  test("a catalog older than the model's files is not read: the types come from the SQL again", async () => {
    const dir = join(UNIT, "upstream_catalog");
    {
      using fresh = withFreshManifest(dir);
      const result = await runMain(["unit", "--format", "json"], fresh.path);
      expect(
        JSON.parse(result.stdout).data.tests[0].fixtures[0].columns.map((c: { type: string; from: string }) => `${c.type}/${c.from}`),
      ).toEqual(["INTEGER/catalog", "DECIMAL(10,2)/catalog", "VARCHAR/catalog"]);
    }
    using stale = copyToTemp(dir, "slp-unit-");
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(stale.path, "target", "catalog.json"), past, past);
    const result = await runMain(["unit"], stale.path);
    // Read from its SQL, stg_amounts has no column note, and amount is an INTEGER (1.5 is cast to 2).
    expect(result.stdout).toContain("Invalid column name: 'note' in unit test fixture for ref('stg_amounts')");
    expect(result.exitCode).toBe(2);
  });

  test("a source's columns come from a fresh catalog; a stale one types nothing and the test is left to its own values", async () => {
    const dir = join(UNIT, "source_columns_catalog");
    {
      using fresh = withFreshManifest(dir);
      const result = await runMain(["unit", "--format", "json"], fresh.path);
      expect(result.exitCode).toBe(0);
      expect(
        JSON.parse(result.stdout).data.tests[0].fixtures[0].columns.map(
          (c: { name: string; type: string; from: string }) => `${c.name} ${c.type} ${c.from}`,
        ),
      ).toEqual(["payment_id INTEGER inferred", "amount DECIMAL(10,2) inferred"]);
    }
    using stale = copyToTemp(dir, "slp-unit-");
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(stale.path, "target", "catalog.json"), past, past);
    const result = await runMain(["unit"], stale.path);
    expect(result.stdout).toContain("FAIL\tfct_payments::amount_keeps_its_scale");
    expect(result.exitCode).toBe(1);
  });

  test("a manifest older than the project's files types nothing: its decimals are gone and the tests fail", async () => {
    using stale = copyToTemp(join(UNIT, "upstream_manifest"), "slp-unit-");
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(stale.path, "target", "manifest.json"), past, past);
    const result = await runMain(["unit", "--format", "json"], stale.path);
    const tests = JSON.parse(result.stdout).data.tests as {
      status: string;
      sql_from: string;
      fixtures: { columns: { name: string; type: string; from: string }[] }[];
    }[];
    // With no data_type anywhere, amount is typed by the test's own value 1.5 (a DOUBLE), which prints as 1.5.
    expect(tests.map((t) => [t.status, t.sql_from, t.fixtures[0]?.columns.find((c) => c.name === "amount")?.from])).toEqual([
      ["fail", "rendered", "values"],
      ["fail", "rendered", "values"],
    ]);
    expect(result.exitCode).toBe(1);
  });

  test("declared types go before what the SQL gives, column by column; the rest is inferred", async () => {
    using copy = copyToTemp(join(UNIT, "upstream_inferred"), "slp-unit-");
    writeFileSync(
      join(copy.path, "models", "intermediate", "int_orders.yml"),
      "version: 2\nmodels:\n  - name: int_orders\n    columns:\n      - {name: amount_cents, data_type: 'decimal(12,2)'}\n      - {name: is_large}\n",
    );
    const result = await runMain(["unit", "--format", "json", "--select", "empty_rows_keep_the_schema"], copy.path);
    const columns = JSON.parse(result.stdout).data.tests[0].fixtures[0].columns.map(
      (c: { name: string; type: string; from: string }) => `${c.name} ${c.type} ${c.from}`,
    );
    expect(columns).toEqual([
      "order_id INTEGER inferred",
      "customer_id INTEGER inferred",
      "amount_cents decimal(12,2) declared",
      "placed_at TIMESTAMP inferred",
      "placed_on DATE inferred",
      "is_large BOOLEAN inferred",
    ]);
  });

  test("a warm run reads each model's typings from the cache and gives the same verdicts", async () => {
    using cache = tempDir("slp-cache-");
    const env = { SLP_CACHE_DIR: cache.path };
    const cold = await runMain(["unit"], join(UNIT, "untyped_typings"), env);
    const file = readdirSync(cache.path).find((name) => name.startsWith("typings-")) as string;
    const entries = Object.values(JSON.parse(readFileSync(join(cache.path, file), "utf8")).entries) as object[];
    expect(entries.length).toBe(5); // one per model that reads a column nothing types (two tests share fct_order_dates)
    const warm = await runMain(["unit"], join(UNIT, "untyped_typings"), env);
    expect(warm.stdout).toBe(cold.stdout);
  });

  test("a warm run reads inferred schemas from the cache, and a changed upstream is read again", async () => {
    using cache = copyToTemp(join(UNIT, "fails_on_purpose"), "slp-cache-");
    using copy = copyToTemp(join(UNIT, "upstream_inferred"), "slp-unit-");
    const env = { SLP_CACHE_DIR: cache.path };
    await runMain(["unit"], copy.path, env);
    const file = readdirSync(cache.path).find((name) => name.startsWith("schemas-")) as string;
    const entries = () =>
      Object.values(JSON.parse(readFileSync(join(cache.path, file), "utf8")).entries) as { columns: [string, string][] }[];
    expect(entries().length).toBe(2); // stg_orders and int_orders
    writeFileSync(
      join(copy.path, "models", "staging", "stg_orders.sql"),
      "select id as order_id, customer_id, amount_cents, placed_at, cast(placed_at as date) as placed_on, 'web' as channel\nfrom {{ source('shop', 'orders') }}\n",
    );
    const result = await runMain(["unit", "--format", "json", "--select", "empty_rows_keep_the_schema"], copy.path, env);
    expect(JSON.parse(result.stdout).data.tests[0].fixtures[0].columns.map((c: { name: string }) => c.name)).toContain("channel");
  });
});

describe("selection", () => {
  const GRAPH = join(UNIT, "select_graph");
  const selected = async (...args: string[]) => {
    const result = await runMain(["unit", "--format", "json", ...args], GRAPH);
    if (result.exitCode === 2) return { error: `${result.stderr}` };
    return JSON.parse(result.stdout).data.tests.map((t: { model: string; name: string }) => `${t.model}::${t.name}`);
  };
  const cases: [string[], string[]][] = [
    [
      ["--select", "fct_revenue"],
      ["fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty"],
    ],
    [
      ["--select", "+fct_revenue"],
      ["fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty", "stg_orders::t_stg"],
    ],
    [
      ["--select", "stg_orders+"],
      ["fct_order_count::t_count", "fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty", "rpt_revenue::t_rpt", "stg_orders::t_stg"],
    ],
    [
      ["--select", "stg_orders+1"],
      ["fct_order_count::t_count", "fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty", "stg_orders::t_stg"],
    ],
    [
      ["--select", "1+rpt_revenue"],
      ["fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty", "rpt_revenue::t_rpt"],
    ],
    [
      ["--select", "@fct_revenue"],
      ["fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty", "rpt_revenue::t_rpt", "stg_orders::t_stg"],
    ],
    [["--select", "tag:critical"], ["fct_revenue::t_fct_empty"]],
    [
      ["--select", "tag:finance"],
      ["fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty", "rpt_revenue::t_rpt"],
    ],
    [["--select", "path:models/marts/ops"], ["fct_order_count::t_count"]],
    [["--select", "models/staging"], ["stg_orders::t_stg"]],
    [
      ["--select", "config.materialized:table"],
      ["fct_order_count::t_count", "fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty", "rpt_revenue::t_rpt"],
    ],
    [["--select", "package:pkg"], ["pkg_model::t_pkg"]],
    [
      ["--select", "test_name:t_fct_*"],
      ["fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty"],
    ],
    [["--select", "unit_test:t_count"], ["fct_order_count::t_count"]],
    [["--select", "t_rpt"], ["rpt_revenue::t_rpt"]],
    [["--select", "fct_revenue::t_fct_amount"], ["fct_revenue::t_fct_amount"]],
    [["--select", "fct_revenue,tag:critical"], ["fct_revenue::t_fct_empty"]],
    [
      ["--select", "fct_revenue", "fct_order_count"],
      ["fct_order_count::t_count", "fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty"],
    ],
    [
      ["--select", "fct_revenue", "--select", "fct_order_count"],
      ["fct_order_count::t_count", "fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty"],
    ],
    [
      ["--select", "fct_revenue fct_order_count"],
      ["fct_order_count::t_count", "fct_revenue::t_fct_amount", "fct_revenue::t_fct_empty"],
    ],
    [
      ["--select", "marts", "--exclude", "tag:critical"],
      ["fct_order_count::t_count", "fct_revenue::t_fct_amount", "rpt_revenue::t_rpt"],
    ],
    [["--exclude", "stg_orders+"], ["pkg_model::t_pkg"]],
    [
      ["--select", "test_type:unit", "--exclude", "package:pkg", "marts.finance"],
      ["fct_order_count::t_count", "stg_orders::t_stg"],
    ],
  ];
  for (const [args, expected] of cases) {
    test(`${args.join(" ")}`, async () => {
      expect(await selected(...args)).toEqual(expected);
    });
  }

  test("an unknown method, a criterion that matches nothing, and a selection with no unit test are exit 2 with the reason", async () => {
    expect(await selected("--select", "colour:red")).toEqual({ error: expect.stringContaining("'colour' is not a valid method name") });
    expect(await selected("--select", "fct_revenue", "no_such_model")).toEqual({
      error: expect.stringContaining("The selection criterion 'no_such_model' does not match any enabled nodes"),
    });
    expect(await selected("--select", "source:shop")).toEqual({
      error: expect.stringContaining("no unit test is selected by --select source:shop"),
    });
    expect(await selected("--select", "@fct_revenue+")).toEqual({
      error: expect.stringContaining('"@" prefix and "+" suffix are incompatible'),
    });
  });
});

describe("examples", () => {
  for (const example of ["quickstart", "unit-features", "snowflake-shop"]) {
    test(`every unit test of examples/${example} passes`, async () => {
      const result = await runMain(["unit", "--project-dir", join(ROOT, "examples", example), "--format", "json"], ROOT);
      const envelope = JSON.parse(result.stdout);
      expect(envelope.data.tests.length).toBeGreaterThan(0);
      expect(envelope.data.tests.filter((t: { status: string }) => t.status !== "pass")).toEqual([]);
      expect(result.exitCode).toBe(0);
    });
  }

  test("a changed expectation in the quickstart fails (its tests can fail)", async () => {
    using copy = copyToTemp(join(ROOT, "examples", "quickstart"), "slp-unit-");
    const yml = join(copy.path, "models", "marts", "fct_orders.yml");
    const text = readFileSync(yml, "utf8");
    expect(text).toContain("order_total: 19.99}");
    await Bun.write(yml, text.replace("order_total: 19.99}", "order_total: 19.98}"));
    const result = await runMain(["unit"], copy.path);
    expect(result.stdout).toContain("FAIL\tfct_orders::cents_become_currency_units");
    expect(result.exitCode).toBe(1);
  });
});

describe("the real CLI", () => {
  test("slp unit as a subprocess: the quickstart passes, junit is a JUnit document", () => {
    const result = runCli(["unit", "--project-dir", join(ROOT, "examples", "quickstart")], ROOT);
    expect(result.stdout).toMatch(/^slp unit: \d+ passed - OK/m);
    expect(result.exitCode).toBe(0);
    const junit = runCli(["unit", "--format", "junit"], join(UNIT, "fails_on_purpose"));
    expect(junit.stdout).toStartWith(
      '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="slp unit" tests="1" failures="1" errors="0">',
    );
    expect(junit.exitCode).toBe(1);
  });

  test("slp unit as a subprocess: dbt-redshift's fixture rule errors the test that has no row free of nulls, naming the fixture; Postgres has none", () => {
    const redshift = runCli(["unit", "--project-dir", join(UNIT, "dialect_redshift_fixture_rules"), "--format", "json"], ROOT);
    const tests = JSON.parse(redshift.stdout).data.tests as { name: string; status: string; error: { message: string } | null }[];
    const status = Object.fromEntries(tests.map((test) => [test.name, test.status]));
    expect(status).toEqual({
      a_column_a_row_leaves_out_is_no_null: "pass",
      a_row_free_of_nulls_is_moved_first: "pass",
      a_sql_fixture_is_not_checked: "pass",
      csv_no_row_free_of_nulls: "error",
      csv_row_free_of_nulls: "pass",
      no_row_free_of_nulls: "error",
    });
    expect(tests.find((test) => test.name === "no_row_free_of_nulls")?.error?.message).toStartWith(
      "Unit test fixture 'none_value_base' in none_value_base does not have any row free of null values, which may cause type mismatch errors during unit test execution.",
    );
    expect(redshift.exitCode).toBe(2);
    const postgres = runCli(["unit", "--project-dir", join(UNIT, "dialect_postgres_no_fixture_rules")], ROOT);
    expect(postgres.stdout).toContain("PASS\tnone_value_model::no_row_free_of_nulls");
    expect(postgres.exitCode).toBe(0);
  });

  test("slp unit as a subprocess: a disabled twin is set aside, two enabled ones are refused naming both, --vars decide enabled=var()", () => {
    const twins = runCli(["unit", "--project-dir", join(UNIT, "disabled_twins")], ROOT);
    expect(twins.stdout).toContain("PASS\tint_orders::joins_the_enabled_copies");
    expect(twins.exitCode).toBe(0);
    const flipped = runCli(["unit", "--project-dir", join(UNIT, "disabled_twins"), "--vars", "{use_new_orders: true}"], ROOT);
    expect(flipped.stdout).toContain("PASS\tint_orders::joins_the_enabled_copies");
    const both = runCli(["unit", "--project-dir", join(UNIT, "disabled_twins_both_enabled")], ROOT);
    expect(both.stderr).toContain("model stg_orders is defined twice: models/a/stg_orders.sql and models/b/stg_orders.sql");
    expect(both.exitCode).toBe(2);
  });

  test("slp unit as a subprocess: warehouse JSON (Postgres jsonb, Redshift SUPER, BigQuery JSON) passes where the warehouse prints the same text, fails where it does not", () => {
    const jsonb = runCli(["unit", "--project-dir", join(UNIT, "postgres_jsonb")], ROOT);
    expect(jsonb.stdout).toContain("PASS\torder_facts::fields_of_jsonb_orders");
    expect(jsonb.stdout).toContain('{"name": "Ann", "id": 42}→{"id": 42, "name": "Ann"}');
    expect(jsonb.stdout).toContain("ERROR\torder_facts::a_mapping_for_a_jsonb_column_is_refused");
    expect(jsonb.exitCode).toBe(2);
    const superValues = runCli(["unit", "--project-dir", join(UNIT, "redshift_super")], ROOT);
    expect(superValues.stdout).toContain("PASS\tevent_facts::super_from_json_parse_in_a_sql_fixture");
    expect(superValues.stdout).toContain("FAIL\tevent_facts::serialized_super_is_compact");
    expect(superValues.stdout).toContain("PASS\tevent_facts::text_for_a_super_column_is_a_super_string");
    const bigquery = runCli(["unit", "--project-dir", join(UNIT, "bigquery_json")], ROOT);
    expect(bigquery.stdout).toContain("PASS\tevent_fields::fields_of_a_json_column");
    expect(bigquery.stdout).toContain("FAIL\tevent_fields::json_subscripts_count_from_zero");
  });

  test("slp unit as a subprocess: Snowflake VARIANT columns from dict, csv and sql fixtures are read by path, a wrong expectation fails", () => {
    const result = runCli(["unit", "--project-dir", join(UNIT, "snowflake_semi_structured")], ROOT);
    expect(result.stdout).toContain("PASS\tevents_flat::dict_rows_read_by_path\t\ttranslated");
    expect(result.stdout).toContain("PASS\tevents_flat::csv_text_in_a_variant_is_a_string_with_no_fields\t\ttranslated");
    expect(result.stdout).toContain("PASS\tevents_flat::sql_rows_built_with_snowflake_functions\t\ttranslated");
    expect(result.stdout).toContain("FAIL\tevents_flat::dict_rows_with_a_wrong_expectation_fail\t\ttranslated");
    expect(result.exitCode).toBe(2);
  });

  test("slp unit as a subprocess: Databricks arrays, maps and structs from dict and sql fixtures, Spark's text of a map, an ANSI index error", () => {
    const result = runCli(["unit", "--project-dir", join(UNIT, "dialect_databricks_nested")], ROOT);
    expect(result.stdout).toContain("PASS\tnested_values::nested_values_from_dict");
    expect(result.stdout).toContain("PASS\tnested_values::nested_values_from_sql");
    expect(result.stdout).toContain("→  | 1  | {color -> 9, size -> 2}→{size -> 2, color -> 9}");
    expect(result.stdout).toContain("[INVALID_ARRAY_INDEX] The index … is out of bounds. The array has … elements.");
    expect(result.exitCode).toBe(2);
  });

  test("slp unit as a subprocess: a package packages.yml names but dbt deps never installed says to run dbt deps", () => {
    const result = runCli(["unit", "--project-dir", join(UNIT, "package_not_installed")], ROOT);
    expect(result.stdout).toContain(
      "models/stg_orders.sql:1: the model calls dbt_utils.deduplicate, but package dbt_utils is not installed: packages.yml:2 names it (dbt-labs/dbt_utils), and dbt_packages/dbt_utils/ does not exist; run `dbt deps`",
    );
    expect(result.exitCode).toBe(2);
    expect(runCli(["unit", "--project-dir", join(UNIT, "package_installed")], ROOT).exitCode).toBe(0);
  });

  test("slp unit as a subprocess: a given input with a keyword of its own runs through the project's ref macro only under support_custom_ref_kwargs", () => {
    const flagged = runCli(["unit", "--project-dir", join(UNIT, "custom_ref_kwargs")], ROOT);
    expect(flagged.stdout).toContain("PASS\tmodel_b::my_unit_test");
    expect(flagged.stdout).toContain("FAIL\tmodel_b::fails_on_purpose");
    expect(flagged.exitCode).toBe(1);
    const unflagged = runCli(["unit", "--project-dir", join(UNIT, "custom_ref_kwargs_no_flag")], ROOT);
    expect(unflagged.stdout).toContain(
      "Unit test given inputs must be either a 'ref', 'source' or 'this' call. Got: 'ref('model_a', label='staging')'",
    );
    expect(unflagged.stdout).toContain("PASS\tmodel_b::plain_input_still_runs");
    expect(unflagged.exitCode).toBe(2);
  });

  test("slp unit as a subprocess: sources of one table name are two inputs; a source column the yml omits is taken, a seed's is refused; missing source columns are asked for once", () => {
    const same = runCli(["unit", "--project-dir", join(UNIT, "sources_same_table_name")], ROOT);
    expect(same.stdout).toContain("slp unit: 3 passed - OK");
    expect(same.exitCode).toBe(0);
    const unioned = runCli(["unit", "--project-dir", join(UNIT, "dbt_sources_same_names")], ROOT);
    expect(unioned.stdout).toContain("slp knows the columns of source('seed_sources_2', 'raw_customers')");
    expect(unioned.exitCode).toBe(2);
    const open = runCli(["unit", "--project-dir", join(UNIT, "source_columns_open")], ROOT);
    expect(open.stdout).toContain("PASS\tstg_orders::source_column_not_in_yml");
    expect(open.stdout).toContain("Invalid column name: 'capital' in unit test fixture for ref('countries')");
    const asked = runCli(["unit", "--project-dir", join(UNIT, "source_columns_asked")], ROOT);
    // One warning for all three tests, whatever their number: the columns of every source, as YAML for its file.
    expect(asked.stderr.match(/^WARNING /gm)?.length).toBe(1);
    expect(asked.stderr).toContain("WARNING 3 unit tests could not run for want of 3 source columns");
    expect(asked.stderr).toContain(
      "        - name: events\n          columns:\n            - {name: happened_at, data_type: <warehouse type>}",
    );
    expect(asked.exitCode).toBe(2);
    const inferred = runCli(["unit", "--project-dir", join(UNIT, "source_columns_inferred")], ROOT);
    expect(inferred.stderr).toBe("");
    expect(inferred.stdout).toContain("slp unit: 5 passed - OK");
  });

  test("slp check never loads DuckDB or any part of the Jinja adapter (a config() of literals is read without it)", () => {
    const probe = `
      const { main } = await import(${JSON.stringify(join(ROOT, "src", "cli.ts"))});
      await main(["check", "--project-dir", ${JSON.stringify(join(ROOT, "examples", "quickstart"))}], { stdout() {}, stderr() {}, cwd: process.cwd(), env: {} });
      const loaded = Object.keys(require.cache).filter((path) => /@duckdb|src[/]sql[/]jinja/.test(path));
      console.log(JSON.stringify(loaded));
    `;
    // The quickstart marks sensitive columns, so S6 renders its models when its lineage cache is cold
    // or was written under other environment values; the first run, in this same environment, warms it.
    Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const result = Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(result.stderr.toString()).toBe("");
    expect(JSON.parse(result.stdout.toString())).toEqual([]);
  });
});

describe("slp unit reads git only to tell who wrote a failing test", () => {
  const gitLoadedBy = (argv: string[]) => {
    const probe = `
      const { main } = await import(${JSON.stringify(join(ROOT, "src", "cli.ts"))});
      const code = await main(${JSON.stringify(argv)}, { stdout() {}, stderr() {}, cwd: process.cwd(), env: { ...process.env, SLP_NO_CACHE: "1" } });
      console.log(JSON.stringify({ code, git: Object.keys(require.cache).some((path) => /isomorphic-git/.test(path)) }));
    `;
    const result = Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(result.stderr.toString()).toBe("");
    return JSON.parse(result.stdout.toString());
  };

  test("every test passing: no git module is loaded (a failure's fix kind is the only reason to read the base)", () => {
    expect(gitLoadedBy(["unit", "--project-dir", join(ROOT, "examples", "quickstart")])).toEqual({ code: 0, git: false });
  });

  test("a failing test: git is read, to tell a test this branch wrote from one it did not", () => {
    using copy = copyToTemp(join(ROOT, "examples", "quickstart"));
    const yml = join(copy.path, "models", "marts", "fct_orders.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("order_total: 19.99}", "order_total: 19.98}"));
    expect(gitLoadedBy(["unit", "--project-dir", copy.path])).toEqual({ code: 1, git: true });
  });
});

describe("a command that renders nothing loads no template engine", () => {
  /** The modules a command loaded, run in a process of its own in `dir`: the template engine's, DuckDB's. */
  const loadedBy = (dir: string, argv: string[]) => {
    const probe = `
      const { main } = await import(${JSON.stringify(join(ROOT, "src", "cli.ts"))});
      const code = await main(${JSON.stringify(argv)}, { stdout() {}, stderr() {}, cwd: ${JSON.stringify(dir)}, env: { ...process.env, SLP_NO_CACHE: "1" } });
      const loaded = Object.keys(require.cache).filter((path) => /@duckdb|sql[/]jinja[/](lexer|parser|interpreter)[.]ts/.test(path));
      console.log(JSON.stringify({ code, engine: loaded.some((path) => /jinja/.test(path)), duckdb: loaded.some((path) => /@duckdb/.test(path)) }));
    `;
    const result = Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(result.stderr.toString()).toBe("");
    return JSON.parse(result.stdout.toString());
  };

  // The quickstart's models call ref() and source() with literals only: nothing in them needs rendering.
  test("check, gate, guard, compare, unit and tcr on the quickstart; unit and tcr's unit step load DuckDB, no other command does", () => {
    using repo = quickstartRepo();
    const dir = repo.path;
    writeFileSync(join(dir, "NOTES.md"), "a step of the loop\n");
    expect(loadedBy(dir, ["tcr", "a note", "--dry-run"])).toEqual({ code: 0, engine: false, duckdb: true });
    expect(loadedBy(dir, ["check"])).toEqual({ code: 0, engine: false, duckdb: false });
    expect(loadedBy(dir, ["unit"])).toEqual({ code: 0, engine: false, duckdb: true });
    expect(loadedBy(dir, ["guard", "models/marts/fct_orders.sql"])).toEqual({ code: 0, engine: false, duckdb: false });
    expect(loadedBy(dir, ["compare", "diff/fct_orders.json", "diff/fct_revenue_daily.json"])).toEqual({
      code: 0,
      engine: false,
      duckdb: false,
    });
    const staging = join(dir, "models", "staging", "stg_orders.sql");
    writeFileSync(staging, `${readFileSync(staging, "utf8")}-- a note\n`);
    commitAll(dir, "a note on a staging model");
    // Blocked: the marts downstream of the change owe a pre-registration (a verdict; a refusal would be exit 2).
    expect(loadedBy(dir, ["gate", "--base", "main"])).toEqual({ code: 1, engine: false, duckdb: false });
  });

  test("a model whose Jinja is more than literal calls is rendered, and the engine is loaded for it", () => {
    using repo = quickstartRepo();
    const model = join(repo.path, "models", "marts", "fct_orders.sql");
    writeFileSync(model, `{% set cents = 100.0 %}\n${readFileSync(model, "utf8")}`);
    expect(loadedBy(repo.path, ["unit"])).toEqual({ code: 0, engine: true, duckdb: true });
  });
});

describe("warehouse dialects", () => {
  const SHOP = join(ROOT, "examples", "snowflake-shop");

  test("the Snowflake example warm loads neither the transpiler nor the template engine (its dateadd is a call of literals)", () => {
    using cache = tempDir("slp-cache-");
    const probe = `
      const { main } = await import(${JSON.stringify(join(ROOT, "src", "cli.ts"))});
      const env = { ...process.env, SLP_CACHE_DIR: ${JSON.stringify(cache.path)} };
      const code = await main(["unit", "--project-dir", ${JSON.stringify(SHOP)}], { stdout() {}, stderr() {}, cwd: process.cwd(), env });
      console.log(JSON.stringify({ code, loaded: Object.keys(require.cache).filter((path) => /polyglot|sql[/]jinja[/](lexer|parser|interpreter)[.]ts/.test(path)).length > 0 }));
    `;
    const run = () => {
      const result = Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      expect(result.stderr.toString()).toBe("");
      return JSON.parse(result.stdout.toString());
    };
    // The first run translates (and keeps the translations); the next reads them.
    expect(run()).toEqual({ code: 0, loaded: true });
    expect(run()).toEqual({ code: 0, loaded: false });
  });

  test("a warm run keeps its refusals too: the same untranslatable verdicts, without loading the transpiler", () => {
    using cache = tempDir("slp-cache-");
    const project = join(UNIT, "dialect_untranslatable");
    const probe = `
      const { main } = await import(${JSON.stringify(join(ROOT, "src", "cli.ts"))});
      const env = { ...process.env, SLP_CACHE_DIR: ${JSON.stringify(cache.path)} };
      let out = "";
      const code = await main(["unit", "--project-dir", ${JSON.stringify(project)}], { stdout(text) { out += text; }, stderr() {}, cwd: process.cwd(), env });
      console.log(JSON.stringify({ code, out, loaded: Object.keys(require.cache).some((path) => /polyglot/.test(path)) }));
    `;
    const run = () => {
      const result = Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      expect(result.stderr.toString()).toBe("");
      return JSON.parse(result.stdout.toString());
    };
    const cold = run();
    expect(cold).toMatchObject({ code: 2, loaded: true });
    expect(cold.out).toContain("untranslatable: flatten() in snowflake SQL");
    const warm = run();
    expect(warm).toEqual({ ...cold, loaded: false });
  });

  test("the Snowflake example's tests run translated, and a changed expectation fails", async () => {
    const passing = await runMain(["unit", "--project-dir", SHOP], ROOT);
    expect(passing.stdout).toContain("dialect snowflake: 3 translated");
    using copy = copyToTemp(SHOP, "slp-unit-");
    const yml = join(copy.path, "models", "marts", "fct_customer_orders.yml");
    const text = readFileSync(yml, "utf8");
    expect(text).toContain("discount_share: 0.025");
    await Bun.write(yml, text.replace("discount_share: 0.025", "discount_share: 0.25"));
    const result = await runMain(["unit"], copy.path);
    expect(result.stdout).toContain("FAIL\tfct_customer_orders::latest_order_and_totals");
    expect(result.exitCode).toBe(1);
  });

  test("the same Snowflake SQL read as DuckDB is not green: --dialect overrides the profile", async () => {
    const result = await runMain(["unit", "--project-dir", SHOP, "--dialect", "duckdb"], ROOT);
    expect(result.stdout).toContain("dialect duckdb");
    expect(result.exitCode).not.toBe(0);
  });

  test("slp.yml's dialect wins over the profile; an unknown dialect is exit 2", async () => {
    using copy = copyToTemp(SHOP, "slp-unit-");
    mkdirSync(join(copy.path, ".git"));
    writeFileSync(join(copy.path, "slp.yml"), "dialect: bigquery\n");
    const result = await runMain(["unit", "--format", "json"], copy.path);
    expect(JSON.parse(result.stdout).data.dialect).toEqual({ name: "bigquery", from: "slp.yml" });
    const unknown = await runMain(["unit", "--dialect", "oracle"], copy.path);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("dialect 'oracle' is not one slp runs");
  });

  test("profiles.yml: $DBT_PROFILES_DIR first, $DBT_TARGET picks the output, credentials never reach the output", async () => {
    using copy = copyToTemp(SHOP, "slp-unit-");
    using profiles = copyToTemp(join(UNIT, "dialect_untranslatable"), "slp-profiles-");
    writeFileSync(
      join(profiles.path, "profiles.yml"),
      "snowflake_shop:\n  target: dev\n  outputs:\n    dev: {type: snowflake, password: \"{{ env_var('SECRET_PASSWORD') }}\"}\n    pg: {type: postgres}\n    odd: {type: oracle}\n",
    );
    const env = { DBT_PROFILES_DIR: profiles.path, SECRET_PASSWORD: "hunter2-secret" };
    const dev = await runMain(["unit", "--format", "json"], copy.path, env);
    expect(JSON.parse(dev.stdout).data.dialect).toEqual({
      name: "snowflake",
      from: "$DBT_PROFILES_DIR/profiles.yml, profile snowflake_shop, target dev",
    });
    const pg = await runMain(["unit", "--format", "json"], copy.path, { ...env, DBT_TARGET: "pg" });
    expect(JSON.parse(pg.stdout).data.dialect.name).toBe("postgres");
    const odd = await runMain(["unit"], copy.path, { ...env, DBT_TARGET: "odd" });
    expect(odd.exitCode).toBe(2);
    expect(odd.stderr).toContain("adapter type 'oracle'");
    for (const run of [dev, pg, odd]) expect(run.stdout + run.stderr).not.toContain("hunter2-secret");
  });

  test("a project without profiles.yml runs as DuckDB and says why", async () => {
    const result = await runMain(["unit", "--format", "json"], join(UNIT, "fails_on_purpose"));
    expect(JSON.parse(result.stdout).data.dialect).toEqual({ name: "duckdb", from: "default: no profiles.yml for profile 'fx'" });
  });

  test("a warm run keeps each model's output columns by its SQL, and a changed model is described again", async () => {
    using cache = copyToTemp(join(UNIT, "fails_on_purpose"), "slp-cache-");
    using copy = copyToTemp(SHOP, "slp-shop-");
    const env = { SLP_CACHE_DIR: cache.path };
    const tests = async () => JSON.parse((await runMain(["unit", "--format", "json"], copy.path, env)).stdout).data.tests;
    const kept = () => {
      const file = readdirSync(cache.path).find((name) => name.startsWith("outputs-")) as string;
      return JSON.parse(readFileSync(join(cache.path, file), "utf8")).entries as Record<string, { name: string; type: string }[]>;
    };
    const cold = await tests();
    const first = kept();
    expect(Object.keys(first)).toHaveLength(3); // one DESCRIBE per tested model
    expect(Object.values(first).flat()).toContainEqual({ name: "discount_share", type: "DECIMAL(38,6)" });
    expect(await tests()).toEqual(cold);
    expect(kept()).toEqual(first);
    const model = join(copy.path, "models", "marts", "fct_customer_orders.sql");
    writeFileSync(model, readFileSync(model, "utf8").replace("/ 100 as revenue", "/ 1000 as revenue"));
    const changed = await tests();
    expect(changed.map((t: { status: string }) => t.status)).toEqual(["fail", "pass", "pass"]);
    const after = Object.keys(kept());
    // The changed model's new SQL is described again; its old SQL's entry stays for a few runs (an edit undone is warm).
    expect(after).toHaveLength(4);
    expect(after.filter((key) => key in first)).toHaveLength(3);
  });

  test("a warm run reads its translations from the cache", async () => {
    using cache = copyToTemp(join(UNIT, "fails_on_purpose"), "slp-cache-");
    const env = { SLP_CACHE_DIR: cache.path };
    await runMain(["unit", "--project-dir", SHOP], ROOT, env);
    const files = readdirSync(cache.path).filter((name) => name.startsWith("dialect-"));
    expect(files).toHaveLength(1);
    const entries = Object.keys(JSON.parse(readFileSync(join(cache.path, files[0] as string), "utf8")).entries);
    // One per SQL translated: the three tested models, and the two upstream models read for their columns.
    expect(entries.length).toBe(5);
    expect(readdirSync(cache.path).filter((name) => name.startsWith("schemas-"))).toHaveLength(1);
    const warm = await runMain(["unit", "--project-dir", SHOP], ROOT, env);
    expect(warm.stdout).toContain("3 passed");
  });
});
