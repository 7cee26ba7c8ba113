/**
 * The dialect contract (src/sql/dialect/constructs.ts): every documented
 * example of every construct slp runs, translated and run on DuckDB, gives
 * the vendor's documented result; every refused construct is refused by name.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { allConstructs, MACROS, macroStatements } from "../src/sql/dialect/constructs.ts";
import { duckdbSettings, type Dialect } from "../src/sql/dialect/dialects.ts";
import { translateSql } from "../src/sql/dialect/translate.ts";

const connections = new Map<Dialect, Promise<DuckDBConnection>>();
function connection(dialect: Dialect): Promise<DuckDBConnection> {
  let open = connections.get(dialect);
  if (!open) {
    open = (async () => {
      const instance = await DuckDBInstance.create(":memory:", { autoinstall_known_extensions: "false", autoload_known_extensions: "false" });
      const connection = await instance.connect();
      for (const sql of duckdbSettings(dialect)) await connection.run(sql);
      for (const sql of macroStatements(Object.keys(MACROS))) await connection.run(sql);
      return connection;
    })();
    connections.set(dialect, open);
  }
  return open;
}
afterAll(async () => {
  for (const open of connections.values()) (await open).closeSync();
});

/** Each documented value cast to the type DuckDB returned, compared as a unit test compares it. */
async function agrees(connection: DuckDBConnection, sql: string, expected: (string | null)[]): Promise<string | null> {
  const reader = await connection.runAndReadAll(sql);
  const row = reader.getRows()[0];
  if (!row) return "no row";
  const types = reader.columnTypes().map(String);
  if (row.length !== expected.length) return `${row.length} columns, documented ${expected.length}`;
  for (let i = 0; i < row.length; i++) {
    const actual = row[i] === null ? null : String(row[i]);
    const want = expected[i] ?? null;
    if (actual === null || want === null) {
      if (actual !== want) return `column ${i + 1}: ${actual} where the documentation gives ${want}`;
      continue;
    }
    const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
    const same = await connection.runAndReadAll(`select cast(${quote(want)} as ${types[i]}) is not distinct from cast(${quote(actual)} as ${types[i]})`);
    if (same.getRows()[0]?.[0] !== true) return `column ${i + 1}: ${actual} (${types[i]}) where the documentation gives ${want}`;
  }
  return null;
}

for (const [dialect, constructs] of allConstructs()) {
  describe(`${dialect} constructs`, () => {
    for (const construct of constructs) {
      if (construct.how === "refused") {
        test(`${construct.name} is refused`, () => expect(construct.why?.length ?? 0).toBeGreaterThan(0));
        continue;
      }
      test(`${construct.name} (${construct.how}) gives the documented results`, async () => {
        expect(construct.examples.length).toBeGreaterThan(0);
        for (const example of construct.examples) {
          expect(example.source).toMatch(/^https:\/\//);
          const result = await translateSql(example.sql, dialect);
          if (!result.ok) throw new Error(`${example.sql}: refused: ${JSON.stringify(result.untranslatable)}`);
          let problem: string | null;
          try {
            problem = await agrees(await connection(dialect), result.translation.sql, example.expect);
          } catch (error) {
            problem = `DuckDB: ${(error as Error).message.split("\n")[0]}`;
          }
          expect(`${example.sql} -> ${result.translation.sql}: ${problem ?? "ok"}`).toBe(`${example.sql} -> ${result.translation.sql}: ok`);
        }
      });
    }
  });
}

/** What a documented example (one row of values) cannot show: errors the warehouse raises, refusals, nesting. */
describe("errors and refusals the warehouses document", () => {
  async function run(dialect: Exclude<Dialect, "duckdb">, sql: string): Promise<(string | null)[] | string> {
    const result = await translateSql(sql, dialect);
    if (!result.ok) return `refused: ${result.untranslatable.construct}`;
    try {
      const reader = await (await connection(dialect)).runAndReadAll(result.translation.sql);
      return (reader.getRows()[0] ?? []).map((value) => (value === null ? null : String(value)));
    } catch (error) {
      return `error: ${(error as Error).message.split("\n")[0]}`;
    }
  }

  test("division by zero is an error in Snowflake, BigQuery, Redshift, Postgres and Databricks (ANSI), NULL in Spark without ANSI mode", async () => {
    for (const dialect of ["snowflake", "bigquery", "redshift", "postgres", "databricks"] as const) {
      expect(await run(dialect, "select 1 / 0")).toMatch(/^error: .*Division by zero/);
      expect(await run(dialect, "select cast(null as int) / 0")).toEqual([null]);
    }
    expect(await run("spark", "select 1 / 0")).toEqual([null]);
  });

  test("nested divisions over columns keep the scale at each step (Snowflake: 1/3 -> NUMBER(38,6), then /3 -> 12 decimals)", async () => {
    expect(await run("snowflake", "select (a / b) / b, a / b * 3 from (select 1::number(38,0) as a, 3::number(38,0) as b)")).toEqual(["0.111111000000", "0.999999"]);
    expect(await run("snowflake", "select sum(a) / count(*) from (select 1::number(10,2) as a union all select 2::number(10,2))")).toEqual(["1.50000000"]);
  });

  test("a division of text is refused with the types named, never guessed", async () => {
    expect(await run("snowflake", "select 'a' / 2")).toMatch(/^error: .*SLP_CANNOT_DIVIDE_VARCHAR_BY_INTEGER/);
  });

  test("Postgres numeric quotients that need more decimals than slp holds are an error, not a rounded value", async () => {
    expect(await run("postgres", "select 1 / 3000000000.0")).toMatch(/^error: .*decimals, more than the 24/);
  });

  test("Databricks (ANSI mode) CAST of text it cannot convert is an error; TRY_CAST and Spark without ANSI mode give NULL", async () => {
    expect(await run("databricks", "select cast('a' as int)")).toMatch(/^error: .*CAST_INVALID_INPUT/);
    expect(await run("databricks", "select cast('2.7' as int)")).toMatch(/^error: .*CAST_INVALID_INPUT/);
    expect(await run("databricks", "select try_cast('a' as int)")).toEqual([null]);
    expect(await run("spark", "select cast('2.7' as int), cast('a' as int)")).toEqual(["2", null]);
  });

  test("Databricks split_part with part 0 is the error INVALID_INDEX_OF_ZERO (its documented example)", async () => {
    expect(await run("databricks", "select split_part('Hello,World,!', ',', 0)")).toMatch(/^error: .*INVALID_INDEX_OF_ZERO/);
  });

  test("Databricks :: is refused by name (the transpiler would make it a TRY_CAST)", async () => {
    expect(await run("databricks", "select '1'::int")).toBe("refused: ::");
  });

  test("Redshift refuses the average of a DECIMAL, whose rounding slp has not verified", async () => {
    expect(await run("redshift", "select avg(x) from (select 1.5 as x) as t")).toMatch(/^error: .*SLP_CANNOT_AVERAGE_A_DECIMAL_IN_REDSHIFT/);
  });
});
