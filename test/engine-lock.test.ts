/**
 * The embedded DuckDB is locked: model, fixture and expected SQL reach no
 * file, no extension, no setting, run as exactly one SELECT, and stop at
 * their time, memory and row limits. Each attempt runs through the real
 * `slp unit`, must end as that test's error naming what it reached for, and
 * must leave no trace: no file written, no file content in the output.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { configureLimits } from "../src/core/limits.ts";
import { Database } from "../src/engine/duckdb.ts";
import { runMain } from "./support/cli.ts";
import { tempDir, writeTree } from "./support/temp.ts";

const workspace = tempDir("slp-engine-");
afterAll(() => workspace[Symbol.dispose]());
const WRITTEN = join(workspace.path, "written");

interface Attempt {
  /** The model's SQL (Jinja allowed). */
  sql: string;
  /** The given's format and rows, when the attempt is in the fixture. */
  given?: string;
  /** The expect block, when the attempt is in the expected output. */
  expect?: string;
  /** What the error must say. */
  says: string;
}

const ATTEMPTS: Record<string, Attempt> = {
  read_text_passwd: {
    sql: "select content as x from read_text('/etc/passwd')",
    says: "the SQL reads read_text(), and a unit test reads nothing but its given rows",
  },
  read_environ: { sql: "select content as x from read_text('/proc/self/environ')", says: "the SQL reads read_text()" },
  read_csv: { sql: "select * from read_csv('/etc/passwd')", says: "the SQL reads read_csv()" },
  replacement_scan: { sql: "select * from '/etc/passwd'", says: "DuckDB rejected the SQL of model replacement_scan" },
  glob: { sql: "select file as x from glob('/etc/*')", says: "the SQL reads glob()" },
  copy_smuggled: {
    sql: `select 1 as x) as y; copy (select 42) to '${WRITTEN}-copy.csv'; select * from (select 1 as x`,
    says: "statements, and slp runs exactly one SELECT per query",
  },
  attach_smuggled: {
    sql: `select 1 as x) as y; attach '${WRITTEN}-attach.db'; select * from (select 1 as x`,
    says: "exactly one SELECT per query",
  },
  install_smuggled: { sql: "select 1 as x) as y; install httpfs; select * from (select 1 as x", says: "exactly one SELECT per query" },
  set_smuggled: { sql: "select 1 as x) as y; set threads = 64; select * from (select 1 as x", says: "exactly one SELECT per query" },
  query_function: { sql: `select * from query('copy (select 1) to ''${WRITTEN}-query.csv''')`, says: "Expected a single SELECT statement" },
  getenv: { sql: "select getenv('HOME') as x", says: "getenv does not exist" },
  fixture_smuggled: {
    sql: "select id as x from {{ ref('stg') }}",
    given: `format: sql\n        rows: "select 1 as id) select 1 as x; copy (select 1) to '${WRITTEN}-fixture.csv'; with z as (select 1 as id"`,
    says: "exactly one SELECT per query",
  },
  expect_smuggled: {
    sql: "select 1 as x",
    expect: `format: sql\n      rows: "select 1 as x) as e) select 1 as x; copy (select 1) to '${WRITTEN}-expect.csv'; with z as (select * from (select 1 as x"`,
    says: "exactly one SELECT per query",
  },
};

function project(name: string, attempts: Record<string, Attempt>): string {
  const dir = join(workspace.path, name);
  const files: Record<string, string> = {
    "dbt_project.yml": "name: locked\nversion: '1.0'\nprofile: locked\n",
    "models/stg.sql": "select 1 as id\n",
  };
  const tests: string[] = [];
  for (const [model, attempt] of Object.entries(attempts)) {
    files[`models/${model}.sql`] = `${attempt.sql}\n`;
    tests.push(
      `  - name: t\n    model: ${model}\n    given:\n      - input: ref('stg')\n        ${attempt.given ?? "rows: [{id: 1}]"}\n    expect:\n      ${attempt.expect ?? "rows: [{x: 1}]"}`,
    );
  }
  files["models/_unit.yml"] = `unit_tests:\n${tests.join("\n")}\n`;
  writeTree(dir, files);
  return dir;
}

async function verdicts(dir: string, env: Record<string, string> = {}) {
  const result = await runMain(["unit", "--format", "json"], dir, env);
  const tests = JSON.parse(result.stdout).data.tests as {
    model: string;
    status: string;
    error: { message: string; fix: string } | null;
    diff: unknown;
  }[];
  return { result, byModel: new Map(tests.map((t) => [t.model, t])) };
}

describe("the locked database", () => {
  test("files, extensions, settings and smuggled statements are each that test's error, and leave no trace", async () => {
    const { result, byModel } = await verdicts(project("attempts", ATTEMPTS), { SLP_ENGINE_CANARY: "TOP-SECRET-VALUE" });
    expect(result.exitCode).toBe(2);
    for (const [model, attempt] of Object.entries(ATTEMPTS)) {
      const verdict = byModel.get(model);
      expect({ model, status: verdict?.status }).toEqual({ model, status: "error" });
      expect({ model, message: verdict?.error?.message.includes(attempt.says) ? "ok" : verdict?.error?.message }).toEqual({
        model,
        message: "ok",
      });
    }
    for (const suffix of ["copy.csv", "attach.db", "query.csv", "fixture.csv", "expect.csv"])
      expect(existsSync(`${WRITTEN}-${suffix}`)).toBe(false);
    expect(result.stdout).not.toContain("root:");
    expect(result.stdout).not.toContain("TOP-SECRET-VALUE");
    expect(byModel.get("read_text_passwd")?.error?.fix).toContain("mock that input with a given instead");
  });

  test("a query past unit_query_seconds is interrupted, and the error names the limit", async () => {
    const { byModel } = await verdicts(project("slow", { slow: { sql: "select count(*) as x from range(1000000000000)", says: "" } }), {
      SLP_LIMIT_UNIT_QUERY_SECONDS: "0.3",
    });
    const verdict = byModel.get("slow");
    expect(verdict?.status).toBe("error");
    expect(verdict?.error?.message).toContain(
      "the query ran longer than 0.3 seconds and was interrupted (limit unit_query_seconds = 0.3 seconds)",
    );
    expect(verdict?.error?.fix).toContain("SLP_LIMIT_UNIT_QUERY_SECONDS=<seconds>");
  });

  test("a query past duckdb_memory_mb fails at once (nothing spills to disk), naming the limit", async () => {
    const { byModel } = await verdicts(
      project("hungry", { hungry: { sql: "select max(len(x)) as x from (select list(range) as x from range(200000000))", says: "" } }),
      { SLP_LIMIT_DUCKDB_MEMORY_MB: "64" },
    );
    const verdict = byModel.get("hungry");
    expect(verdict?.status).toBe("error");
    expect(verdict?.error?.message).toContain("the query needs more memory than 64 MiB (limit duckdb_memory_mb = 64 MiB)");
  });

  test("each query runs on one thread, and queries side by side are at most duckdb_threads", async () => {
    configureLimits({ SLP_LIMIT_DUCKDB_THREADS: "1" });
    try {
      const database = await Database.open();
      await database.widen(4);
      expect(database.width).toBe(1);
      expect((await database.query("select current_setting('threads') as threads")).rows).toEqual([["1"]]);
      database.close();
    } finally {
      configureLimits({});
    }
    const database = await Database.open();
    await database.widen(4);
    expect(database.width).toBe(2);
    database.close();
  });

  test("a failure table past unit_result_rows is an error naming the limit, not millions of rows read", async () => {
    const { byModel } = await verdicts(project("wide", { wide: { sql: "select range as x from range(1000)", says: "" } }), {
      SLP_LIMIT_UNIT_RESULT_ROWS: "10",
    });
    const verdict = byModel.get("wide");
    expect(verdict?.status).toBe("error");
    expect(verdict?.error?.message).toContain("the query returns more than 10 rows (limit unit_result_rows = 10 rows)");
    expect(verdict?.diff).toBeNull();
  });
});
