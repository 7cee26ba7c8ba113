/**
 * The dialect contract (src/sql/dialect/constructs.ts): every documented
 * example of every construct slp runs, translated and run on DuckDB, gives
 * the vendor's documented result; every refused construct is refused by name.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { allConstructs, MACROS } from "../src/sql/dialect/constructs.ts";
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
      for (const sql of Object.values(MACROS)) await connection.run(sql);
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
