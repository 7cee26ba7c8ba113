/**
 * A model's SQL errors at the model file's line and column: DuckDB's place
 * read from its message, taken back through slp's query around the model,
 * the dialect translation and the Jinja rendering, and reported once per
 * model by unit, mutate, check and tcr, in text and JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { duckdbOffset } from "../src/core/engine-message.ts";
import { Database, DatabaseError } from "../src/engine/duckdb.ts";
import { Envelope } from "../src/schemas/envelope.ts";
import { UnitData } from "../src/schemas/unit.ts";
import { schemaErrors } from "../src/schemas/validate.ts";
import { placeInModel } from "../src/unit/sql-place.ts";
import { runMain } from "./support/cli.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { edit, quickstartRepo, tcrEnvelope } from "./support/tcr.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

const UNIT = join(FIXTURES, "unit");
const occurrences = (text: string, part: string) => text.split(part).length - 1;

function envelopeOf(stdout: string) {
  const envelope = JSON.parse(stdout);
  expect(schemaErrors(Envelope, envelope, "envelope")).toEqual([]);
  return envelope;
}

describe("DuckDB's place of an error", () => {
  let database: Database;
  beforeAll(async () => {
    await Database.load();
    database = await Database.open();
  });
  afterAll(() => database.close());

  const placeOf = async (sql: string) => {
    try {
      await database.describe(sql);
    } catch (error) {
      if (error instanceof DatabaseError) return error.offset;
      throw error;
    }
    throw new Error("the SQL was not refused");
  };

  test("is read from an excerpt DuckDB cut at both ends", async () => {
    const sql = `select '${"a".repeat(70)}', '${"b".repeat(70)}', (1 as y, '${"c".repeat(90)}' from (select 1 as x) t`;
    expect(await placeOf(sql)).toBe(sql.indexOf("as y"));
  });

  test("counts a wide character as DuckDB's caret does, and \\r\\n or a lone \\r as one line break", async () => {
    const wide = "select '日本語', zz from (select 1 as x) t";
    expect(await placeOf(wide)).toBe(wide.indexOf("zz"));
    const crlf = "select\r\n  x,\r\n  zz\r\nfrom (select 1 as x) t";
    expect(await placeOf(crlf)).toBe(crlf.indexOf("zz"));
    const cr = "select\r  x,\r  zz\rfrom (select 1 as x) t";
    expect(await placeOf(cr)).toBe(cr.indexOf("zz"));
  });

  test("is null where DuckDB names no place", () => {
    expect(duckdbOffset("Parser Error: syntax error at end of input", "select (1")).toBeNull();
  });
});

describe("the place in the model's file", () => {
  const binder = (offset: number, queryLength: number) => {
    const error = new DatabaseError('Binder Error: Referenced column "z" not found in FROM clause!');
    error.offset = offset;
    error.queryLength = queryLength;
    return error;
  };
  const TAIL = "\n) as __slp_model";

  test("a place the translation moved is the statement's start, said as such; one it kept is exact", async () => {
    using dir = tempDir("slp-place-");
    const rendered = "-- the model\nselect\n  a::numeric as b,\n  z\nfrom t";
    writeFileSync(join(dir.path, "m.sql"), rendered);
    const ran = "-- the model\nselect\n  cast(a as decimal) as b,\n  z\nfrom t";
    const query = `with f as (select 1)\nselect * from (\n${ran}${TAIL}`;
    const input = { ran, rendered, projectDir: dir.path, file: "m.sql", database: undefined as never, lane: 0 };
    const start = query.length - TAIL.length - ran.length;
    const moved = await placeInModel(binder(start + ran.indexOf("decimal"), query.length), input);
    expect(moved).toEqual({ line: 2, column: 1, statementStart: true, message: expect.any(String) });
    const kept = await placeInModel(binder(start + ran.indexOf("z\n"), query.length), input);
    expect(kept).toEqual({ line: 4, column: 3, statementStart: false, message: expect.any(String) });
    // A place in slp's own text (a fixture's CTE) is not the model's.
    expect(await placeInModel(binder(query.indexOf("select 1"), query.length), input)).toBeNull();
  });
});

describe("unit", () => {
  test("a missing ) is at the model's line and column, once for the model's three tests, in JSON and text", async () => {
    const dir = join(UNIT, "sql_error_missing_paren");
    const json = await runMain(["unit", "--format", "json"], dir);
    const envelope = envelopeOf(json.stdout);
    expect(schemaErrors(UnitData, envelope.data, "data")).toEqual([]);
    expect(envelope.exit_code).toBe(2);
    expect(envelope.errors).toEqual([
      {
        code: "E_UNIT",
        message: 'orders: DuckDB rejected the SQL of model orders: Parser Error: syntax error at or near "as"',
        file: "models/orders.sql",
        line: 5,
        column: 44,
        fix: "fix the model's SQL there (data.tests[].rendered_sql in --format json is the SQL as run)",
      },
    ]);
    expect(envelope.data.tests).toHaveLength(3);
    for (const test of envelope.data.tests) {
      expect(test.status).toBe("error");
      expect([test.error.file, test.error.line, test.error.column]).toEqual(["models/orders.sql", 5, 44]);
    }
    const text = await runMain(["unit"], dir);
    expect(text.stdout).toContain(
      '\tmodels/orders.sql:5:44: DuckDB rejected the SQL of model orders: Parser Error: syntax error at or near "as"; ',
    );
    expect(occurrences(text.stdout, "syntax error")).toBe(1);
    expect(occurrences(text.stdout, "not run: the SQL of model orders is refused, as under orders::cents_become_units above")).toBe(2);
  });

  test("an unknown column, and errors in Jinja-rendered text, are at the model file's place", async () => {
    const unknown = envelopeOf((await runMain(["unit", "--format", "json"], join(UNIT, "sql_error_unknown_column"))).stdout);
    expect(unknown.errors.map((error: { line: number; column: number }) => [error.line, error.column])).toEqual([[6, 11]]);
    expect(unknown.errors[0].message).toContain('Binder Error: Table "raw" does not have a column named "shiping_cents"');
    const jinja = envelopeOf((await runMain(["unit", "--format", "json"], join(UNIT, "sql_error_in_jinja"))).stdout);
    const places = jinja.errors.map((error: { file: string; line: number; column: number }) => [error.file, error.line, error.column]);
    // orders: the macro's output is placed at its {{ to_units(...) }} tag; totals: below a for loop, at its own place.
    expect(places).toEqual([
      ["models/orders.sql", 9, 5],
      ["models/totals.sql", 7, 33],
    ]);
  });

  test("a Postgres model: through the translation (a binder error) and the transpiler (a parse error)", async () => {
    const envelope = envelopeOf((await runMain(["unit", "--format", "json"], join(UNIT, "sql_error_dialect"))).stdout);
    const places = envelope.errors.map((error: { file: string; line: number; column: number }) => [error.file, error.line, error.column]);
    expect(places).toEqual([
      ["models/orders.sql", 5, 29],
      ["models/totals.sql", 4, 1],
    ]);
    expect(envelope.errors[1].message).toBe(
      "totals: the postgres SQL of model totals does not parse: Expected RParen, got From ('from') near [100     as amount_total from __dbt__cte__raw_orders group by]",
    );
  });

  test("silent: an error in a test's own rows has no place in the model", async () => {
    const envelope = envelopeOf((await runMain(["unit", "--format", "json"], join(UNIT, "sql_error_none"))).stdout);
    expect(envelope.errors).toHaveLength(1);
    expect(envelope.errors[0]).toMatchObject({ file: "models/orders.yml", line: 28, column: null });
    expect(envelope.data.tests.map((test: { error: { column: number | null } | null }) => test.error?.column ?? null)).toEqual([
      null,
      null,
      null,
    ]);
  });
});

describe("mutate", () => {
  test("the model's refused SQL is one finding at its line, and the baseline error points at its column", async () => {
    using copy = copyToTemp(join(UNIT, "sql_error_missing_paren"), "slp-place-");
    const envelope = envelopeOf((await runMain(["mutate", "--select", "orders", "--format", "json"], copy.path)).stdout);
    expect(envelope.findings).toEqual([
      {
        severity: "INFO",
        rule: "MUTANT",
        name: "mutation-check",
        file: "models/orders.sql",
        model: "orders",
        line: 5,
        fix: "sql",
        message:
          'unit tests cents_become_units, shipping_is_added, status_is_kept are left out of every verdict: DuckDB rejected the SQL of model orders: Parser Error: syntax error at or near "as" (line 5, column 44)',
      },
    ]);
    expect(envelope.errors).toEqual([
      {
        code: "E_BASELINE",
        message: "no unit test of orders passes unmutated, so no mutant can be judged",
        file: "models/orders.sql",
        line: 5,
        column: 44,
        fix: "fix the model's SQL there, then run slp mutate",
      },
    ]);
    const text = await runMain(["mutate", "--select", "orders"], copy.path);
    expect(occurrences(text.stdout, "syntax error")).toBe(1);
  });
});

describe("check", () => {
  test("S6's refusal of SQL the parser cannot read is at the file's line, below Jinja that renders to fewer lines", async () => {
    const envelope = envelopeOf(
      (await runMain(["check", "--format", "json"], join(FIXTURES, "S6", "fires", "parse_error_after_jinja"))).stdout,
    );
    const s6 = envelope.findings.filter((finding: { rule: string }) => finding.rule === "S6");
    expect(s6).toHaveLength(1);
    expect(s6[0].line).toBe(9);
    expect(s6[0].message).toContain('the SQL parser cannot read it: Unexpected "as" (line 9, column 38)');
  });
});

describe("tcr", () => {
  test("a syntax error the change makes is one finding at the model's line and column, red at unit", async () => {
    using repo = quickstartRepo(["unit"]);
    const model = "models/marts/finance/fct_revenue_daily.sql";
    edit(repo.path, model, (text) => text.replace("sum(order_total) as gross_revenue", "sum(order_total as gross_revenue"));
    const json = await runMain(["tcr", "a missing paren", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(json.stdout);
    expect(envelope.exit_code).toBe(1);
    expect(envelope.data.red_step).toBe("unit");
    expect(envelope.findings).toEqual([
      {
        severity: "BLOCK",
        rule: "E_UNIT",
        name: "cannot-judge",
        file: model,
        model: "fct_revenue_daily",
        line: 4,
        fix: "sql",
        message:
          'unit tests days_without_orders_have_no_row, orders_of_one_day_add_up cannot run: DuckDB rejected the SQL of model fct_revenue_daily: Parser Error: syntax error at or near "as" (line 4, column 21); fix the model\'s SQL there (data.tests[].rendered_sql in --format json is the SQL as run)',
      },
    ]);
    const unit = envelope.data.steps.find((step: { name: string }) => step.name === "unit");
    expect(unit.errors.map((error: { line: number; column: number }) => [error.line, error.column])).toEqual([[4, 21]]);
    // The change is reverted; made again, the text names the place as compilers do.
    edit(repo.path, model, (text) => text.replace("sum(order_total) as gross_revenue", "sum(order_total as gross_revenue"));
    const text = await runMain(["tcr", "a missing paren again"], repo.path);
    expect(text.stdout).toContain(
      `\t${model}:4:21: DuckDB rejected the SQL of model fct_revenue_daily: Parser Error: syntax error at or near "as"`,
    );
    expect(occurrences(text.stdout, "\tnot run: the SQL of model fct_revenue_daily is refused")).toBe(1);
  });
});
