/**
 * Stage E (slp diff, slp reconcile, slp stage-e): the window, metric
 * expressions and the models that owe a diff on their own; the emitted query
 * of every dialect parsed by a real parser of that dialect; the DuckDB one
 * run and held against slp diff's own result; the engine's sandbox; the query
 * ledger; nothing partial written; and the real CLI for each command.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dialect, DIALECTS } from "../src/data/dialect.ts";
import { windowColumn } from "../src/data/diff.ts";
import { checkMetricExpression } from "../src/data/metrics.ts";
import { owedDiffs } from "../src/project/history/owed-diffs.ts";
import { parseWindow, windowPredicate } from "../src/data/window.ts";
import { Database } from "../src/engine/duckdb.ts";
import { diffFromRow, readRow } from "../src/project/artifacts/diff-row.ts";
import type { InputError } from "../src/core/errors.ts";
import type { ModelDeclaration } from "../src/project/model.ts";
import { openWorkTree } from "../src/project/open.ts";
import { readCheckProject } from "../src/rules/context/check.ts";
import { runCli, runMain } from "./support/cli.ts";
import { parseErrors } from "./support/dialect-parsers.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { commitAll, initRepo } from "./support/git-repo.ts";
import { copyToTemp, writeTree } from "./support/temp.ts";

const SALES = join(FIXTURES, "commands", "diff", "measures_one_model");
const DIFF_FIXTURES = join(FIXTURES, "commands", "diff");

/** The SQL of an emit_sql_<dialect> fixture's expected output: its comment lines and final semicolon dropped. */
function emittedSql(name: string): string {
  const text = readFileSync(join(DIFF_FIXTURES, `emit_sql_${name}`, "expected"), "utf8");
  return text
    .split("\n")
    .filter((line) => !line.startsWith("# exit") && !line.startsWith("--"))
    .join("\n")
    .trim()
    .replace(/;$/, "");
}

/** The rows of a small CSV file as VALUES, so a test database is built without the engine reading any file. */
function csvTable(path: string, name: string, types: Record<string, string>): string {
  const [header, ...lines] = readFileSync(path, "utf8").trim().split("\n") as [string, ...string[]];
  const columns = header.split(",");
  const values = lines.map(
    (line) =>
      `(${line
        .split(",")
        .map((cell, i) => (cell === "" ? "null" : `cast('${cell}' as ${types[columns[i] as string]})`))
        .join(", ")})`,
  );
  return `create table ${name} as select * from (values ${values.join(", ")}) t(${columns.join(", ")})`;
}

const SALES_TYPES = { sale_id: "INTEGER", amount: "DOUBLE", status: "VARCHAR", sold_on: "DATE" };

/** Everything of a diff but `extra` (which names where the data was read from). */
function measured(diff: Record<string, unknown>): Record<string, unknown> {
  const { extra: _extra, ...rest } = diff;
  return rest;
}

describe("diff-from-row's refusals", () => {
  test("name the line of the cell at fault: a JSON key's own line, a CSV row's line", () => {
    const refusal = (text: string, file: string) => {
      const { row, lineOf } = readRow(text, { file });
      try {
        diffFromRow("fct_orders", row, { file, lineOf });
      } catch (error) {
        return error as InputError;
      }
      throw new Error("the row was not refused");
    };
    const json = refusal('{\n  "row_delta": 1,\n  "removed_pks": 0,\n  "status_changed": 0.5\n}\n', "row.json");
    expect([json.file, json.line]).toEqual(["row.json", 4]);
    const csv = refusal("\nrow_delta,removed_pks\n\n8400.5,0\n", "row.csv");
    expect([csv.file, csv.line, csv.message]).toEqual(["row.csv", 4, 'row_delta is "8400.5", which is not a whole number']);
  });
});

describe("window", () => {
  test("[COLUMN:]START:END with dates, timestamps (colons and all) or numbers", () => {
    expect(parseWindow("2025-12-01:2025-12-03")).toEqual({ column: null, start: "2025-12-01", end: "2025-12-03", kind: "date" });
    expect(parseWindow("ordered_at:2025-12-01:2025-12-03").column).toBe("ordered_at");
    expect(parseWindow("ts:2025-12-01 10:00:00:2025-12-03T08:00")).toEqual({
      column: "ts",
      start: "2025-12-01 10:00:00",
      end: "2025-12-03T08:00",
      kind: "timestamp",
    });
    expect(parseWindow("day_key:20250101:20250131").kind).toBe("number");
  });

  test("a date end covers its whole day; a timestamp end is included as written", () => {
    expect(windowPredicate(parseWindow("2025-12-01:2025-12-31"), "d", "postgres")).toBe("d >= '2025-12-01' and d < '2026-01-01'");
    expect(windowPredicate(parseWindow("2025-12-01 00:00:00:2025-12-31 23:59:59"), "t", "duckdb")).toBe(
      "t >= '2025-12-01 00:00:00' and t <= '2025-12-31 23:59:59'",
    );
    expect(windowPredicate(parseWindow("k:1:9"), "k", "bigquery")).toBe("k >= 1 and k <= 9");
  });

  test("no COLUMN: the model's event_time, its SQL's config() over its yml's over dbt_project.yml's", () => {
    const window = parseWindow("2025-12-01:2025-12-03");
    // Only the name, file and entry's config matter to the window column.
    const model = (config: Record<string, string>) =>
      ({ name: "m", file: "m.yml", entry: { name: "m", config } }) as unknown as ModelDeclaration;
    const target = (sql: string | null, yml: Record<string, string>, project: Record<string, string>) => ({
      model: model(yml),
      sql,
      projectConfig: project,
      isNew: false,
    });
    expect(
      windowColumn(
        target("{{ config(event_time='from_sql') }} select 1", { event_time: "from_yml" }, { event_time: "from_project" }),
        window,
      ),
    ).toBe("from_sql");
    expect(windowColumn(target("select 1", { event_time: "from_yml" }, { event_time: "from_project" }), window)).toBe("from_yml");
    expect(windowColumn(target(null, {}, { event_time: "from_project" }), window)).toBe("from_project");
    expect(() => windowColumn(target(null, {}, {}), window)).toThrow(/sets no event_time/);
    expect(windowColumn(target(null, {}, {}), parseWindow("d:2025-12-01:2025-12-03"))).toBe("d");
  });

  test("refuses what is not a closed window", () => {
    for (const text of ["2025-12-01", "2025-12-01:2025-13-01", "a:b:c", "2025-12-03:2025-12-01", "2025-12-01:5"]) {
      expect(() => parseWindow(text)).toThrow(/argument --window/);
    }
  });
});

describe("metric expressions", () => {
  const duck = dialect("duckdb");
  test("one aggregate expression passes, in the dialect's own spelling", () => {
    for (const expression of [
      "sum(order_total)",
      "count(distinct customer_id)",
      "sum(a) / nullif(count(*), 0)",
      "sum(x) filter (where y > 0)",
      "count(case when status = 'it''s (open' then 1 end)",
    ]) {
      expect(() => checkMetricExpression("m", "x", expression, duck)).not.toThrow();
    }
    expect(() => checkMetricExpression("m", "x", "countif(`flag`)", dialect("bigquery"))).not.toThrow();
  });

  test("anything else is refused, naming the model and the metric", () => {
    const cases: [string, RegExp][] = [
      ["order_total", /is not an aggregate/],
      ["sum(order_total", /does not parse/],
      ["sum(a) from other", /does not parse/],
      ["sum(a)) from other join (select 1", /does not parse|is not one expression/],
      ["(select sum(a) from other)", /holds a subquery/],
      ["sum(a); drop table x", /semicolon/],
      ["sum(a) -- comment", /comment/],
      ["sum(a), count(*)", /is not one expression|does not parse/],
    ];
    for (const [expression, why] of cases) {
      expect(() => checkMetricExpression("fct_orders", "gross_revenue", expression, duck)).toThrow(why);
      expect(() => checkMetricExpression("fct_orders", "gross_revenue", expression, duck)).toThrow(/fct_orders: metric gross_revenue/);
    }
  });

  test("a parse error says what is wrong with the user's own text, never a token of slp's wrapping query", () => {
    const cases: [string, string][] = [
      ["sum(amount", "does not parse as SQL: it has an unclosed parenthesis"],
      ["sum(coalesce(amount, 0", "does not parse as SQL: it has 2 unclosed parentheses"],
      ["sum(amount))", "does not parse as SQL: it has a ) that closes no ("],
      ["count(case when s = 'x then 1 end)", "does not parse as SQL: it has an unclosed quote (')"],
      ["sum(amount) +", "does not parse as SQL: the expression ends before it is complete"],
      ["sum(amount frob x)", 'does not parse as SQL (Unexpected "frob" at column 12)'],
      ["sum(a)\n+ sum(b c)", 'does not parse as SQL (Unexpected "c" at line 2, column 9)'],
    ];
    for (const [expression, why] of cases) {
      expect(() => checkMetricExpression("fct_orders", "gross_revenue", expression, duck)).toThrow(why);
      expect(() => checkMetricExpression("fct_orders", "gross_revenue", expression, duck)).not.toThrow(/slp__metric_input|"from"/);
    }
  });
});

describe("which models owe a diff", () => {
  test("every pre-registered model, and each marts or critical model downstream of a changed one (critical only, or none, as lineage narrows it)", async () => {
    using dir = copyToTemp(join(import.meta.dir, "..", "examples", "quickstart"));
    const spec = (tier: string) =>
      `      spec: {grain: g, primary_key: [id], tier: ${tier}, metrics: {}, known_edges: [], sensitive_columns: []${
        tier === "critical"
          ? ", reconciliation_query: analyses/reconciliation_x.sql, reconciliation_tolerance: '1%', external_validation: v"
          : ""
      }}\n`;
    writeTree(dir.path, {
      "models/marts/chain.yml": `version: 2\nmodels:\n  - name: fct_a\n    meta:\n${spec("standard")}  - name: fct_b\n    meta:\n${spec("critical")}  - name: fct_c\n    meta:\n${spec("standard")}  - name: fct_d\n    meta:\n${spec("critical")}\n`,
      "models/marts/fct_a.sql": "select * from {{ ref('fct_orders') }}",
      "models/marts/fct_b.sql": "select * from {{ ref('fct_a') }}",
      "models/marts/fct_c.sql": "select * from {{ ref('fct_b') }}",
      "models/marts/fct_d.sql": "select * from {{ ref('stg_customers') }}",
    });
    const project = await readCheckProject(openWorkTree(dir.path, { SLP_NO_CACHE: "1" }), dir.path, dir.path, ["models/marts/"]);
    // The quickstart pre-registers fct_orders (and fct_revenue_daily): fct_a, fct_b and fct_c are marts downstream of it; fct_d is downstream of nothing changed.
    const owed = await owedDiffs(project, null, new Set(), "all");
    expect(owed.models).toEqual(["fct_a", "fct_b", "fct_c", "fct_orders", "fct_revenue_daily"]);
    expect(owed.reasons.get("fct_b")).toEqual({ kind: "downstream", of: ["fct_orders"], critical: true });
    expect(owed.reasons.get("fct_c")).toEqual({ kind: "downstream", of: ["fct_orders"], critical: false });
    // critical-only: fct_b is critical; fct_a and fct_c are standard.
    expect((await owedDiffs(project, null, new Set(), "critical-only")).models).toEqual(["fct_b", "fct_orders", "fct_revenue_daily"]);
    expect((await owedDiffs(project, null, new Set(), "off")).models).toEqual(["fct_orders", "fct_revenue_daily"]);
    // What git says changed (unique ids) stands for the pre-registrations: stg_customers feeds fct_d and, through fct_orders, the critical fct_b and fct_revenue_daily.
    expect(
      (await owedDiffs(project, new Set(["model.quickstart.stg_customers"]), new Set(["fct_orders", "fct_revenue_daily"]), "critical-only"))
        .models,
    ).toEqual(["fct_b", "fct_d", "fct_revenue_daily"]);
    expect((await owedDiffs(project, null, new Set(["fct_orders", "fct_revenue_daily"]), "all")).models).toEqual([]);
  });
});

describe("emitted SQL", () => {
  for (const name of DIALECTS) {
    test(`${name}: the golden query parses with a real ${name} parser, and a broken copy does not`, async () => {
      const sql = emittedSql(name);
      const { parser, errors } = await parseErrors(sql, name);
      expect({ parser, errors }).toEqual({ parser, errors: [] });
      const broken = await parseErrors(sql.replace("full outer join", "full outer join join ("), name);
      expect(broken.errors.length).toBeGreaterThan(0);
    });
  }

  test("duckdb: the emitted query, run on the same data, gives what slp diff measures", async () => {
    using dir = copyToTemp(SALES);
    // The unlocked test database: the unit-test one reads no file and creates nothing.
    const db = await Database.openFile(":memory:");
    try {
      for (const [schema, folder] of [
        ["analytics", "prod"],
        ["ci_pr_7", "pr"],
      ]) {
        await db.query(`create schema ${schema}`);
        await db.query(csvTable(join(dir.path, "data", folder as string, "fct_sales.csv"), `${schema}.fct_sales`, SALES_TYPES));
      }
      const result = await db.query(emittedSql("duckdb"));
      const row = new Map(result.columns.map((column, i) => [column.name, result.rows[0]?.[i] ?? null]));
      const fromRow = diffFromRow("fct_sales", row, { file: "row" });
      const run = await runMain(["diff", "--format", "json"], dir.path);
      expect(run.exitCode).toBe(0);
      const own = (JSON.parse(run.stdout) as { data: { diffs: Record<string, Record<string, unknown>> } }).data.diffs.fct_sales as Record<
        string,
        unknown
      >;
      expect(fromRow).toEqual(measured(own) as typeof fromRow);
      expect(fromRow.altered_columns).toEqual(["amount"]);
    } finally {
      db.close();
    }
  });
});

describe("slp diff on a DuckDB database file", () => {
  async function salesDatabase(dir: string): Promise<string> {
    const path = join(dir, "warehouse.duckdb");
    const db = await Database.openFile(path);
    for (const [schema, folder] of [
      ["prod", "prod"],
      ["ci_pr_7", "pr"],
    ]) {
      await db.query(`create schema ${schema}`);
      await db.query(csvTable(join(dir, "data", folder as string, "fct_sales.csv"), `${schema}.fct_sales`, SALES_TYPES));
    }
    db.close();
    return path;
  }

  test("relations by name (--database, schema.{model}) measure what the CSV files measure", async () => {
    using dir = copyToTemp(SALES);
    await salesDatabase(dir.path);
    const fromFiles = await runMain(["diff", "--format", "json", "--out", "files"], dir.path);
    const fromTables = await runMain(
      [
        "diff",
        "--format",
        "json",
        "--database",
        "warehouse.duckdb",
        "--prod",
        "prod.{model}",
        "--pr",
        "ci_pr_7.{model}",
        "--out",
        "tables",
      ],
      dir.path,
    );
    expect(fromTables.stderr).toBe("");
    expect(fromTables.exitCode).toBe(0);
    const diffOf = (stdout: string) =>
      (JSON.parse(stdout) as { data: { diffs: Record<string, Record<string, unknown>> } }).data.diffs.fct_sales as Record<string, unknown>;
    expect(measured(diffOf(fromTables.stdout))).toEqual(measured(diffOf(fromFiles.stdout)));
    expect(JSON.parse(readFileSync(join(dir.path, "tables", "fct_sales.json"), "utf8")).row_delta).toBe(1);
  });

  test("Parquet files, one per model or a partitioned folder read through a glob, measure what the CSV files measure", async () => {
    using dir = copyToTemp(SALES);
    const db = await Database.openFile(join(dir.path, "convert.duckdb"));
    for (const side of ["prod", "pr"]) {
      const table = csvTable(join(dir.path, "data", side, "fct_sales.csv"), `${side}_sales`, SALES_TYPES);
      await db.query(table);
      await db.query(`copy ${side}_sales to '${join(dir.path, "data", side, "fct_sales.parquet")}' (format parquet)`);
      mkdirSync(join(dir.path, "parts", side, "fct_sales"), { recursive: true });
      await db.query(
        `copy (select * from ${side}_sales where sale_id <= 2) to '${join(dir.path, "parts", side, "fct_sales", "a.parquet")}' (format parquet)`,
      );
      await db.query(
        `copy (select * from ${side}_sales where sale_id > 2) to '${join(dir.path, "parts", side, "fct_sales", "b.parquet")}' (format parquet)`,
      );
    }
    db.close();
    const diffOf = (stdout: string) =>
      (JSON.parse(stdout) as { data: { diffs: Record<string, Record<string, unknown>> } }).data.diffs.fct_sales as Record<string, unknown>;
    const csv = await runMain(["diff", "--format", "json", "--out", "csv"], dir.path);
    const parquet = await runMain(
      ["diff", "--format", "json", "--prod", "data/prod/{model}.parquet", "--pr", "data/pr/{model}.parquet", "--out", "pq"],
      dir.path,
    );
    const parts = await runMain(
      ["diff", "--format", "json", "--prod", "parts/prod/{model}/*.parquet", "--pr", "parts/pr/{model}/*.parquet", "--out", "parts-out"],
      dir.path,
    );
    expect(parquet.stderr + parts.stderr).toBe("");
    expect(measured(diffOf(parquet.stdout))).toEqual(measured(diffOf(csv.stdout)));
    expect(measured(diffOf(parts.stdout))).toEqual(measured(diffOf(csv.stdout)));
  });

  test("a relation the database does not have is exit 2 naming the model, the relation and the fix", async () => {
    using dir = copyToTemp(SALES);
    await salesDatabase(dir.path);
    const run = await runMain(["diff", "--database", "warehouse.duckdb", "--prod", "prod.{model}", "--pr", "ci_pr_8.{model}"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      "ERROR fct_sales: the relation ci_pr_8.fct_sales (the branch's build) does not exist; build the model into the PR schema first, or correct --pr\n",
    );
  });
});

describe("PostgreSQL settings", () => {
  test("a credential written in slp.yml is refused before any connection, naming the keys", async () => {
    using dir = copyToTemp(SALES);
    writeTree(dir.path, {
      "slp.yml": `${readFileSync(join(dir.path, "slp.yml"), "utf8")}  engine: postgres\n  postgres: {host: localhost, database: analytics, password: hunter2}\n`,
    });
    const run = await runMain(["diff"], dir.path, { PGUSER: "someone" });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("diff.postgres sets password: a credential is never written in slp.yml");
    expect(run.stderr).not.toContain("hunter2");
  });
});

describe("the Stage E engine", () => {
  test("reads only the files it was given, writes nothing, and cannot be unlocked", async () => {
    using dir = copyToTemp(SALES);
    const allowed = join(dir.path, "data", "prod", "fct_sales.csv");
    const db = await Database.openForData({ files: [allowed], directories: [], databases: [], memoryLimit: "256MiB" });
    try {
      expect((await db.query(`select count(*) from read_csv('${allowed}')`)).rows).toEqual([["4"]]);
      const refused = [
        `select count(*) from read_csv('${join(dir.path, "data", "pr", "fct_sales.csv")}')`,
        `copy (select 1) to '${join(dir.path, "out.csv")}'`,
        `copy (select 1) to '${allowed}' (use_tmp_file false)`,
        "set enable_external_access = true",
        "install httpfs",
        `attach '${join(dir.path, "other.duckdb")}' as other`,
      ];
      for (const sql of refused) await expect(db.query(sql)).rejects.toThrow();
      expect(readFileSync(allowed, "utf8")).toStartWith("sale_id,amount");
      expect(existsSync(join(dir.path, "out.csv"))).toBe(false);
    } finally {
      db.close();
    }
  });
});

describe("composite keys", () => {
  test("rows match on every key column, and a duplicate pair is refused with its count", async () => {
    using dir = copyToTemp(SALES);
    const yml = join(dir.path, "models", "marts", "fct_sales.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("primary_key: [sale_id]", "primary_key: [sale_id, status]"));
    const ok = await runMain(["diff", "--format", "json"], dir.path);
    expect(ok.stderr).toBe("");
    const diff = (JSON.parse(ok.stdout) as { data: { diffs: Record<string, Record<string, unknown>> } }).data.diffs.fct_sales as Record<
      string,
      unknown
    >;
    expect([diff.row_delta, diff.removed_pks, diff.altered_columns]).toEqual([1, 0, ["amount"]]);

    // Sale 3 changes status: by (sale_id, status) that is one key removed and one added, not an altered column.
    writeFileSync(
      join(dir.path, "data", "pr", "fct_sales.csv"),
      readFileSync(join(dir.path, "data", "pr", "fct_sales.csv"), "utf8").replace("3,30.0,refunded", "3,30.0,paid"),
    );
    const moved = await runMain(["diff", "--format", "json"], dir.path);
    const movedDiff = (JSON.parse(moved.stdout) as { data: { diffs: Record<string, Record<string, unknown>> } }).data.diffs
      .fct_sales as Record<string, unknown>;
    expect([movedDiff.row_delta, movedDiff.removed_pks, movedDiff.altered_columns]).toEqual([1, 1, ["amount"]]);

    writeFileSync(
      join(dir.path, "data", "pr", "fct_sales.csv"),
      `${readFileSync(join(SALES, "data", "pr", "fct_sales.csv"), "utf8")}2,9.0,paid,2025-01-09\n`,
    );
    const twice = await runMain(["diff"], dir.path);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain("the primary key (sale_id, status) is not unique");
    expect(twice.stderr).toContain("data/pr/fct_sales.csv has 1 row more than it has distinct keys");
  });
});

describe("limits", () => {
  // A key repeated 100,000 times on each side joins into 10^10 rows: no machine finishes that in a second.
  test("a query that outlives diff.timeout_seconds is stopped: exit 2 naming the limit", async () => {
    using dir = copyToTemp(SALES);
    const rows = Array.from({ length: 100_000 }, (_, i) => `1,${i}.0,paid,2025-01-02`).join("\n");
    writeTree(dir.path, {
      "data/prod/fct_sales.csv": `sale_id,amount,status,sold_on\n${rows}\n`,
      "data/pr/fct_sales.csv": `sale_id,amount,status,sold_on\n${rows}\n`,
      "slp.yml": `${readFileSync(join(dir.path, "slp.yml"), "utf8")}  timeout_seconds: 1\n`,
    });
    const run = await runMain(["diff"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("the query ran longer than 1 s (diff.timeout_seconds in slp.yml)");
    expect(existsSync(join(dir.path, "diff", "fct_sales.json"))).toBe(false);
  }, 60_000);

  test("a query that needs more than diff.memory_limit is exit 2 naming the limit", async () => {
    using dir = copyToTemp(SALES);
    const rows = Array.from({ length: 200_000 }, (_, i) => `${i},${i}.5,status_${i % 997}_${"x".repeat(40)},2025-01-02`).join("\n");
    writeTree(dir.path, {
      "data/prod/fct_sales.csv": `sale_id,amount,status,sold_on\n${rows}\n`,
      "data/pr/fct_sales.csv": `sale_id,amount,status,sold_on\n${rows}\n`,
      "slp.yml": `${readFileSync(join(dir.path, "slp.yml"), "utf8")}  memory_limit: 1MB\n`,
    });
    const run = await runMain(["diff"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("needed more memory than 1MB (diff.memory_limit in slp.yml)");
  }, 60_000);
});

describe("slp diff writes", () => {
  test("every diff or none: a model that cannot be measured leaves the folder as it was", async () => {
    using dir = copyToTemp(SALES);
    const second = readFileSync(join(dir.path, "models", "marts", "fct_sales.yml"), "utf8").replaceAll("fct_sales", "fct_sales_b");
    writeTree(dir.path, {
      "models/marts/fct_sales_b.yml": second,
      "data/prod/fct_sales_b.csv": "sale_id,amount,status,sold_on\n1,1.0,paid,2025-01-02\n",
      // fct_sales_b's branch build lost its key column: the run must stop before writing fct_sales.json.
      "data/pr/fct_sales_b.csv": "id,amount,status,sold_on\n1,1.0,paid,2025-01-02\n",
      "diff/fct_sales.json": '{"kept": true}\n',
    });
    const run = await runMain(["diff"], dir.path);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("fct_sales_b: the key column sale_id");
    expect(readFileSync(join(dir.path, "diff", "fct_sales.json"), "utf8")).toBe('{"kept": true}\n');
    expect(existsSync(join(dir.path, "diff", "fct_sales_b.json"))).toBe(false);
  });

  test("every query goes to .slp/queries.jsonl with its engine, duration and row count, and no value of the data", async () => {
    using dir = copyToTemp(SALES);
    expect((await runMain(["diff"], dir.path)).exitCode).toBe(0);
    const lines = readFileSync(join(dir.path, ".slp", "queries.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(["at", "duration_ms", "engine", "error", "purpose", "rows", "sql"]);
      expect(line.engine).toBe("duckdb");
      expect(typeof line.duration_ms).toBe("number");
    }
    expect(lines.map((line) => line.purpose)).toContain("diff fct_sales");
    expect(lines.find((line) => line.purpose === "diff fct_sales").rows).toBe(1);
    const text = readFileSync(join(dir.path, ".slp", "queries.jsonl"), "utf8");
    for (const value of ["refunded", "paid"]) expect(text).not.toContain(value);
  });
});

describe("a model production does not have (--base)", () => {
  test("is measured by value: row_delta is its row count, no delta, nothing removed or altered", async () => {
    using dir = copyToTemp(SALES);
    initRepo(dir.path);
    const sql = readFileSync(join(dir.path, "models", "marts", "fct_sales.sql"), "utf8");
    writeFileSync(join(dir.path, "models", "marts", "fct_sales.yml"), "version: 2\n");
    rmSync(join(dir.path, "models", "marts", "fct_sales.sql"));
    commitAll(dir.path, "main without fct_sales");
    writeFileSync(join(dir.path, "models", "marts", "fct_sales.sql"), sql);
    const yml = readFileSync(join(SALES, "models", "marts", "fct_sales.yml"), "utf8").replace(
      "revenue: {delta_pct: {min: 0, max: 20}}",
      "revenue: {value: {min: 60, max: 70}}",
    );
    writeFileSync(join(dir.path, "models", "marts", "fct_sales.yml"), yml);
    commitAll(dir.path, "fct_sales is new");
    const run = await runMain(["diff", "--base", "HEAD~1", "--prod", "data/nowhere/{model}.csv", "--format", "json"], dir.path);
    expect(run.stderr).toBe("");
    const diff = (JSON.parse(run.stdout) as { data: { diffs: Record<string, Record<string, unknown>> } }).data.diffs.fct_sales as Record<
      string,
      unknown
    >;
    expect(measured(diff)).toEqual({
      altered_columns: [],
      metrics: { revenue: { delta_pct: null, value: 68 } },
      model: "fct_sales",
      removed_pks: 0,
      row_delta: 4,
      window: { column: "sold_on", end: "2025-01-31", start: "2025-01-01" },
    });
    // Without --base nothing says production cannot have it: a missing relation is a missing relation.
    const without = await runMain(["diff", "--prod", "data/nowhere/{model}.csv"], dir.path);
    expect(without.exitCode).toBe(2);
    expect(without.stderr).toContain("pass --base so slp can see that production cannot have it");
  });
});

describe("which models owe a diff, with --base", () => {
  test("an inherited pre-registration owes none; a critical model downstream of changed SQL does", async () => {
    using dir = copyToTemp(join(import.meta.dir, "..", "examples", "quickstart"));
    initRepo(dir.path);
    commitAll(dir.path, "main: both marts pre-registered");
    // The branch edits fct_orders' SQL only: both pre-registrations are main's (inherited, not this branch's).
    const sql = join(dir.path, "models", "marts", "fct_orders.sql");
    writeFileSync(sql, `${readFileSync(sql, "utf8")}\n-- a comment is a change\n`);
    commitAll(dir.path, "branch: touch fct_orders");
    const run = await runMain(["diff", "--base", "HEAD~1", "--format", "json"], dir.path);
    expect(run.stderr).toBe("");
    const data = (JSON.parse(run.stdout) as { data: { models: string[]; reasons: Record<string, string> } }).data;
    expect(data.models).toEqual(["fct_revenue_daily"]);
    expect(data.reasons).toEqual({ fct_revenue_daily: "critical, downstream of fct_orders" });
  });
});

describe("the real CLI", () => {
  test("slp diff, slp reconcile and slp compare, then slp stage-e, on the quickstart", () => {
    using dir = copyToTemp(join(import.meta.dir, "..", "examples", "quickstart"));
    const diff = runCli(["diff"], dir.path);
    expect(diff.stderr).toBe("");
    expect(diff.stdout).toEndWith("slp diff: OK (2 models measured on duckdb, written to diff)\n");
    const reconcile = runCli(["reconcile"], dir.path);
    expect(reconcile.stdout).toBe(
      "fct_revenue_daily: the model says 307.99, the source of truth 307.99 -> diff/fct_revenue_daily.json\nslp reconcile: OK (1 model reconciled on duckdb)\n",
    );
    const compare = runCli(["compare", "diff/fct_orders.json", "diff/fct_revenue_daily.json"], dir.path);
    expect(compare.exitCode).toBe(0);
    expect(compare.stdout).toEndWith("slp compare: 14 infos - OK (2 files)\n");
    const stage = runCli(["stage-e"], dir.path);
    expect(stage.exitCode).toBe(0);
    expect(stage.stdout).toEndWith("slp stage-e: 14 infos - OK (3 stages)\n");
    // The committed diffs are exactly what the example's data measures, less the record of what it was measured on
    // (extra.slp: no commit here, the copy is no repository), which the committed ones leave out as the reference does.
    for (const model of ["fct_orders", "fct_revenue_daily"]) {
      const written = JSON.parse(readFileSync(join(dir.path, "diff", `${model}.json`), "utf8"));
      expect(written.extra.slp.commit).toBeNull();
      expect(written.extra.slp.content[`models/marts/${model === "fct_orders" ? "" : "finance/"}${model}.sql`]).toMatch(/^[0-9a-f]{40}$/);
      delete written.extra.slp;
      expect(`${JSON.stringify(written, null, 2)}\n`).toBe(
        readFileSync(join(import.meta.dir, "..", "examples", "quickstart", "diff", `${model}.json`), "utf8"),
      );
    }
  });
});
