/**
 * The dialect contract (src/sql/dialect/constructs.ts): every documented
 * example of every construct slp runs, translated and run on DuckDB, gives
 * the vendor's documented result; every refused construct is refused by name.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as duckdb from "@duckdb/node-api";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { registerJsonFunctions, registerJsonText, registerNestedFunctions, registerSparkHash } from "../src/engine/duckdb.ts";
import { allConstructs } from "../src/sql/dialect/constructs.ts";
import { dialectMacros, macroStatements } from "../src/sql/dialect/macros.ts";
import type { Dialect, Warehouse } from "../src/sql/dialect/dialects.ts";
import { duckdbSettings } from "../src/sql/dialect/settings.ts";
import { WAREHOUSES } from "../src/sql/dialect/warehouses/index.ts";
import { translateSql } from "../src/sql/dialect/translate.ts";
import { mapType } from "../src/sql/dialect/types.ts";

const connections = new Map<Dialect, Promise<DuckDBConnection>>();
function connection(dialect: Dialect): Promise<DuckDBConnection> {
  let open = connections.get(dialect);
  if (!open) {
    open = (async () => {
      const instance = await DuckDBInstance.create(":memory:", {
        autoinstall_known_extensions: "false",
        autoload_known_extensions: "false",
      });
      const connection = await instance.connect();
      for (const sql of duckdbSettings(dialect)) await connection.run(sql);
      // slp's functions before the macros that call them (DuckDB binds a macro's functions when it is created).
      registerJsonText(connection, duckdb);
      registerJsonFunctions(connection, duckdb);
      registerSparkHash(connection, duckdb);
      registerNestedFunctions(connection, duckdb);
      for (const sql of macroStatements(Object.keys(dialectMacros()))) await connection.run(sql);
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
    const same = await connection.runAndReadAll(
      `select cast(${quote(want)} as ${types[i]}) is not distinct from cast(${quote(actual)} as ${types[i]})`,
    );
    if (same.getRows()[0]?.[0] !== true) return `column ${i + 1}: ${actual} (${types[i]}) where the documentation gives ${want}`;
  }
  return null;
}

for (const [dialect, constructs] of allConstructs()) {
  describe(`${dialect} constructs`, () => {
    for (const construct of constructs) {
      if (construct.how === "refused") {
        test(`${construct.name} is refused`, async () => {
          expect(construct.why?.length ?? 0).toBeGreaterThan(0);
          // A function is refused by name when a model calls it (syntax is refused in the tests below).
          if (/^\w+$/.test(construct.name)) {
            const result = await translateSql(`select ${construct.name}(1)`, dialect);
            expect(result.ok ? "translated" : result.untranslatable.construct.toLowerCase().replace(/\(\)$/, "")).toBe(construct.name);
          }
        });
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

describe("lexical rules: the documentation's examples of literals, comments and LIKE escapes give the documented values", () => {
  for (const [dialect, { lexical: rules }] of Object.entries(WAREHOUSES) as [Warehouse, (typeof WAREHOUSES)[Warehouse]][]) {
    test(`${dialect} reads its literals and comments as documented`, async () => {
      expect(rules.examples.length).toBeGreaterThan(0);
      for (const example of rules.examples) {
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

  test("Databricks xxhash64() hashes each argument by the Spark type its writing shows, skips a NULL, and refuses a type it cannot see", async () => {
    // Spark: xxhash64(NULL, 'a') = xxhash64('a'); a boolean is the int 1 (xxhash64(true) = xxhash64(1)); 1L is a BIGINT, 1 an INT.
    expect(await run("databricks", "select xxhash64(null, 'a'), xxhash64('a'), xxhash64(true), xxhash64(1), xxhash64(1L)")).toEqual([
      "-8582455328737087284",
      "-8582455328737087284",
      "-6698625589789238999",
      "-6698625589789238999",
      "-7001672635703045582",
    ]);
    // An array's NULL element is skipped too: array('a', NULL) hashes as array('a'), and as 'a'.
    expect(await run("databricks", "select xxhash64(array('a', null)), xxhash64(cast(null as string))")).toEqual([
      "-8582455328737087284",
      "42",
    ]);
    expect(await run("databricks", "select xxhash64(x) from (select 1 as x)")).toBe("refused: xxhash64()");
    expect(await run("databricks", "select xxhash64(cast(x as double)) from (select 1 as x)")).toBe("refused: xxhash64()");
    expect(await run("databricks", "select xxhash64(array(1.5))")).toBe("refused: xxhash64()");
    expect(await run("databricks", "select xxhash64(12345678901234567890)")).toBe("refused: xxhash64()");
    // A name every definition of which is row_number() is Spark's INT; one defined otherwise too is refused.
    expect(await run("databricks", "select row_number() over (order by 1) as n, xxhash64(n)")).toEqual(["1", "-6698625589789238999"]);
    expect(await run("databricks", "select xxhash64(n) from (select 1 as n union all select row_number() over (order by 1) as n)")).toBe(
      "refused: xxhash64()",
    );
  });

  test("Databricks names an unaliased cast(column as T) after the column (Spark's analyzer), and nothing else after it", async () => {
    const names = async (sql: string) => {
      const result = await translateSql(sql, "databricks");
      if (!result.ok) throw new Error(JSON.stringify(result.untranslatable));
      const reader = await (await connection("databricks")).runAndReadAll(result.translation.sql);
      return reader.columnNames();
    };
    const from = "from (select 1 as id, 2 as b) as t";
    expect(await names(`select cast(id as string), cast(t.b as int) ${from}`)).toEqual(["id", "b"]);
    expect(await names(`select cast(id as string) as x, cast(b as int) + 1 as y ${from}`)).toEqual(["x", "y"]);
    expect(await names(`select coalesce(cast(b as int), 1) ${from}`)).not.toEqual(["b"]);
  });

  test("nested divisions over columns keep the scale at each step (Snowflake: 1/3 -> NUMBER(38,6), then /3 -> 12 decimals)", async () => {
    expect(await run("snowflake", "select (a / b) / b, a / b * 3 from (select 1::number(38,0) as a, 3::number(38,0) as b)")).toEqual([
      "0.111111000000",
      "0.999999",
    ]);
    expect(await run("snowflake", "select sum(a) / count(*) from (select 1::number(10,2) as a union all select 2::number(10,2))")).toEqual([
      "1.50000000",
    ]);
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
    expect(await run("redshift", "select avg(x) from (select 1.5 as x) as t")).toMatch(
      /^error: .*SLP_CANNOT_AVERAGE_A_DECIMAL_IN_REDSHIFT/,
    );
  });

  test("an ordered window without a frame is refused for first_value/last_value/nth_value in Snowflake and Redshift (their default frame is not DuckDB's); a frame or no ORDER BY runs", async () => {
    expect(await run("snowflake", "select last_value(x) over (order by x) from (select 1 as x)")).toBe("refused: last_value()");
    expect(await run("redshift", "select first_value(x) over (order by x) from (select 1 as x) as t")).toBe("refused: first_value()");
    expect(
      await run(
        "snowflake",
        "select last_value(x) over (order by x rows between unbounded preceding and current row) from (select 1 as x)",
      ),
    ).toEqual(["1"]);
    expect(await run("postgres", "select last_value(x) over (order by x) from (select 1 as x) as t")).toEqual(["1"]);
  });

  test("date_trunc to a century or millennium is refused in Redshift and Postgres (they start in year 1: Redshift documents 2001-01-01 for 2020)", async () => {
    expect(await run("redshift", "select date_trunc('millennium', timestamp '2020-04-30 04:05:06.789')")).toBe("refused: date_trunc()");
    expect(await run("postgres", "select date_trunc('century', timestamp '2020-04-30 04:05:06')")).toBe("refused: date_trunc()");
    expect(await run("redshift", "select date_trunc('week', timestamp '2022-04-30 04:05:06.789')")).toEqual(["2022-04-25 00:00:00"]);
  });

  test("BigQuery WEEK(<day>) is read where slp verified it (date_trunc) and refused elsewhere", async () => {
    expect(await run("bigquery", "select date_diff(date '2017-11-08', date '2017-11-01', week(monday))")).toBe("refused: date_diff()");
    expect(await run("bigquery", "select extract(week(monday) from date '2017-11-08')")).toBe("refused: extract()");
    expect(await run("bigquery", "select timestamp_trunc(timestamp '2017-11-08 00:00:00+00', week)")).toBe("refused: timestamp_trunc()");
    // UNNEST ... WITH OFFSET: offsets from 0; without an alias for the element it is refused.
    expect(await run("bigquery", "select x from unnest([1, 2]) as x with offset as o where o = 1")).toEqual(["2"]);
    expect(await run("bigquery", "select 1 from unnest([1, 2]) with offset as o where o = 1")).toBe("refused: with offset");
  });

  test("NULL handling differs by vendor and is kept: concat, concat_ws, greatest/least, string_agg", async () => {
    expect(await run("snowflake", "select concat_ws(',', 'a', null), greatest(1, null), 'a' || null")).toEqual([null, null, null]);
    expect(await run("postgres", "select concat_ws(',', 'a', null), concat('a', null), greatest(1, null)")).toEqual(["a", "a", "1"]);
    expect(await run("redshift", "select concat('a', null), greatest(1, null), least(null, 2)")).toEqual([null, "1", "2"]);
    expect(await run("databricks", "select concat_ws(',', 'a', null), concat('a', null), greatest(1, null)")).toEqual(["a", null, "1"]);
    expect(await run("bigquery", "select concat('a', null), greatest(1, null), string_agg(x) from unnest(['a', null, 'b']) as x")).toEqual([
      null,
      null,
      "a,b",
    ]);
  });

  test("an argument form slp has not verified is refused by name: initcap's delimiters, sha2's other sizes, timestamp_diff by month, Redshift months_between of timestamps", async () => {
    expect(await run("snowflake", "select initcap('a-b', '-')")).toBe("refused: initcap()");
    expect(await run("snowflake", "select sha2('a', 512)")).toBe("refused: sha2()");
    expect(
      await run("bigquery", "select timestamp_diff(timestamp '2020-01-01 00:00:00+00', timestamp '2019-01-01 00:00:00+00', month)"),
    ).toBe("refused: timestamp_diff()");
    expect(await run("redshift", "select months_between(timestamp '2020-01-01 10:00:00', timestamp '2019-01-01 00:00:00')")).toMatch(
      /^error: .*verified it for dates only/,
    );
  });

  test("FROM VALUES names its columns column1, column2, ... as Snowflake and Databricks do, with or without an alias", async () => {
    expect(await run("snowflake", "select column2 from values (1, 'a') as v where column1 = 1")).toEqual(["a"]);
    expect(await run("snowflake", "select count(*) from values (1), (2), (3)")).toEqual(["3"]);
    expect(await run("databricks", "select sum(col) from values (1), (2) as tab(col)")).toEqual(["3"]);
  });

  test("Redshift string literals read backslash escapes, as its documented patterns are written ('\\\\.' is a dot); Postgres' standard strings keep the backslash", async () => {
    expect(await run("redshift", "select regexp_count('a.b.c', '\\\\.'), length('a\\\\b')")).toEqual(["2", "3"]);
    expect(await run("postgres", "select length('a\\\\b'), regexp_count('a.b.c', '\\.')")).toEqual(["4", "2"]);
  });

  test("Redshift LAG and LEAD take no default value; regexp_replace's PCRE parameter is refused", async () => {
    expect(await run("redshift", "select lag(x, 1, 0) over (order by x) from (select 1 as x) as t")).toBe("refused: lag()");
    expect(await run("redshift", "select regexp_replace('a1', '(?=a)a', 'b', 1, 'p')")).toBe("refused: regexp_replace()");
  });

  test("Snowflake JSON_EXTRACT_PATH_TEXT: an object, an array or a fraction at the path is an error, not a text of slp's own; a path slp cannot read is refused", async () => {
    const doc = `'{"level_1_key": {"level_2_key": ["zero", "one", "two"]}, "n": 1.5, "i": -12, "t": true}'`;
    expect(await run("snowflake", `select json_extract_path_text(${doc}, 'level_1_key')`)).toMatch(
      /^error: .*JSON_EXTRACT_PATH_TEXT of a JSON object value/,
    );
    expect(await run("snowflake", `select json_extract_path_text(${doc}, 'level_1_key.level_2_key')`)).toMatch(
      /^error: .*JSON_EXTRACT_PATH_TEXT of a JSON array value/,
    );
    expect(await run("snowflake", `select json_extract_path_text(${doc}, 'n')`)).toMatch(
      /^error: .*JSON_EXTRACT_PATH_TEXT of a JSON double value/,
    );
    expect(
      await run(
        "snowflake",
        `select json_extract_path_text(${doc}, 'i'), json_extract_path_text(${doc}, 't'), json_extract_path_text(${doc}, 'level_1_key:level_2_key[2]')`,
      ),
    ).toEqual(["-12", "true", "two"]);
    expect(
      await run(
        "snowflake",
        `select json_extract_path_text(${doc}, 'level_1_key.level_2_key[9]'), json_extract_path_text(${doc}, 'i[0]'), json_extract_path_text(${doc}, 'Level_1_key')`,
      ),
    ).toEqual([null, null, null]);
    expect(await run("snowflake", "select json_extract_path_text('{}', p) from (select 'a' as p)")).toBe(
      "refused: json_extract_path_text()",
    );
    expect(await run("snowflake", "select json_extract_path_text('{}', 'a[-1]')")).toBe("refused: json_extract_path_text()");
    expect(await run("snowflake", "select json_extract_path_text('{}', 'a b')")).toBe("refused: json_extract_path_text()");
  });

  test("Snowflake TRY_PARSE_JSON is a VARIANT anywhere; JSON_EXTRACT_PATH_TEXT of a VARIANT string (which Snowflake reads as text) is an error slp names", async () => {
    expect(await run("snowflake", `select try_parse_json('{"b": 1, "a": 2}'), try_parse_json('{')`)).toEqual(['{"a":2,"b":1}', null]);
    expect(
      await run("snowflake", "select json_extract_path_text(try_parse_json(''), 'a'), json_extract_path_text(try_parse_json(null), 'a')"),
    ).toEqual([null, null]);
    expect(await run("snowflake", `select json_extract_path_text(try_parse_json('"x"'), 'a')`)).toMatch(
      /^error: .*VARIANT string: slp has not verified/,
    );
    expect(await run("snowflake", `select json_extract_path_text('"x"', 'a')`)).toEqual([null]);
  });

  test("BigQuery SUBSTR and SUBSTRING of a negative length are an error; a NULL argument gives NULL", async () => {
    expect(await run("bigquery", "select substr('apple', 2, -1)")).toMatch(/^error: .*negative length is an error in BigQuery/);
    expect(await run("bigquery", "select substring('apple', 1, -1)")).toMatch(/^error: .*negative length is an error in BigQuery/);
    expect(await run("bigquery", "select substring(cast(null as string), 1), substr('apple', null), substr('apple', 1, null)")).toEqual([
      null,
      null,
      null,
    ]);
  });

  test("Postgres NUMERIC(p, s) and NUMERIC(p) (scale 0) are exact DECIMALs; a cast to unconstrained NUMERIC keeps each value's own scale", async () => {
    expect(await run("postgres", "select cast(1.25 as numeric(28,6)), cast(2.4 as numeric(5)), cast(3 as decimal(10, 2))")).toEqual([
      "1.250000",
      "2",
      "3.00",
    ]);
    // Exact at the value's scale: 1.50 keeps both decimals, an integer none; NULL stays NULL. Equal by value, as dbt compares:
    // round to more decimals than the value has (Postgres prints 1.500) and a quotient (select_div_scale's 20 decimals) are held at
    // DuckDB's scale.
    expect(
      await run(
        "postgres",
        "select 1::numeric, cast(1.50 as decimal), (1.50)::numeric * 3, round(2.675::numeric, 2), round(1.5::numeric, 3), 2::numeric / 3, null::numeric",
      ),
    ).toEqual(["1", "1.50", "4.50", "2.68", "1.5", "0.666666666666666666670000", null]);
    // 38 digits hold; past them, and a float's or a text's numeric (whose scale depends on the value), is an error naming it.
    expect(await run("postgres", "select 12345678901234567890123456789012345678::numeric")).toEqual([
      "12345678901234567890123456789012345678",
    ]);
    expect(await run("postgres", "select 12345678901234567890123456789012345678::numeric * 10")).toMatch(/^error: .*Overflow/);
    expect(await run("postgres", "select (0.5::float8)::numeric")).toMatch(
      /^error: .*SLP_CANNOT_CAST_DOUBLE_TO_POSTGRES_UNCONSTRAINED_NUMERIC/,
    );
    expect(await run("postgres", "select x::numeric from (values ('1.5')) as t(x)")).toMatch(
      /^error: .*SLP_CANNOT_CAST_VARCHAR_TO_POSTGRES_UNCONSTRAINED_NUMERIC/,
    );
    // A fixture's column of it has no one scale: refused by name; so is an array of it.
    expect(mapType("numeric", "postgres")).toMatchObject({ ok: false });
    expect(await run("postgres", "select array[1]::numeric[]")).toBe("refused: numeric[]");
  });

  test("Databricks and Spark TIMESTAMPADD by each unit; a fraction of a unit is an error, an unknown unit refused", async () => {
    for (const dialect of ["databricks", "spark"] as const) {
      expect(
        await run(
          dialect,
          "select timestampadd(hour, -1, timestamp'2022-03-01 00:30:00'), timestampadd(quarter, 1, timestamp'2022-11-30 00:00:00'), timestampadd(week, 1, timestamp'2022-02-28 00:00:00'), dateadd(year, 1, timestamp'2024-02-29 00:00:00')",
        ),
      ).toEqual(["2022-02-28 23:30:00", "2023-02-28 00:00:00", "2022-03-07 00:00:00", "2025-02-28 00:00:00"]);
      expect(await run(dialect, "select timestampadd(minute, 1.5, timestamp'2022-03-01 00:00:00')")).toMatch(
        /^error: .*a fraction of a unit/,
      );
      expect(await run(dialect, "select timestampadd(fortnight, 1, timestamp'2022-03-01 00:00:00')")).toBe("refused: timestampadd()");
    }
  });

  test("MAKE_DATE out of bounds: NULL in Spark (ANSI mode off), an error naming it in Databricks, whose SQL warehouses and ANSI clusters differ", async () => {
    expect(await run("spark", "select make_date(2024, 2, 29), make_date(2023, 2, 29), make_date(0, 1, 1)")).toEqual([
      "2024-02-29",
      null,
      null,
    ]);
    expect(await run("databricks", "select make_date(2024, 2, 29)")).toEqual(["2024-02-29"]);
    expect(await run("databricks", "select make_date(2019, 13, 1)")).toMatch(/^error: .*DATETIME_FIELD_OUT_OF_BOUNDS/);
  });

  test("Snowflake: a VARIANT path compared with a literal of its kind compares as VARIANTs; of another kind (the text 5 and the number 5) it is an error", async () => {
    const v = `(select parse_json('{"k": "click", "n": 5.0, "s": "5", "z": null}') as v) as t`;
    expect(
      await run(
        "snowflake",
        `select v:k = 'click', v:k <> 'click', v:n = 5, v:k in ('a', 'click'), v:k not in ('click'), v:missing = 'x' from ${v}`,
      ),
    ).toEqual(["true", "false", "true", "true", "false", null]);
    expect(await run("snowflake", `select v:s = 5 from ${v}`)).toMatch(
      /^error: .*comparing a VARIANT varchar with a ubigint: slp has not verified/,
    );
    expect(await run("snowflake", `select v:z = 'x' from ${v}`)).toMatch(/^error: .*comparing a VARIANT null with a varchar/);
    expect(await run("snowflake", `select v:k::string = 'click' from ${v}`)).toEqual(["true"]);
  });

  test("a NULL cast to a semi-structured type is an untyped NULL; text cast to an ARRAY is an error", async () => {
    expect(await run("snowflake", "select array_cat(cast(null as array), ['a'])")).toEqual([null]);
    // Text cast to an ARRAY: Snowflake's reading of it is not one slp has verified, so it is an error, never a value.
    expect(await run("snowflake", "select cast('[1]' as array)")).toMatch(/^error: .*Failed to cast variant value "\[1\]" to ARRAY/);
    expect(await run("snowflake", "select cast(null as variant) is null")).toEqual(["true"]);
  });

  test("Snowflake ARRAY_DISTINCT keeps the first of each element in order, one NULL, and NULL for NULL; ARRAY_CAT is NULL when either array is", async () => {
    expect(
      await run(
        "snowflake",
        "select array_distinct([3, 1, 3, null, null, 1]), array_distinct(array_cat([1], null)), array_distinct(['b', 'a'])",
      ),
    ).toEqual(["[3, 1, NULL]", null, "['b', 'a']"]);
  });
  test("LIKE escapes with the backslash where the warehouse does, for a pattern computed at run time too; Snowflake has no default escape, as DuckDB", async () => {
    const rows = "(select 'emergency_1' as slot, 'emergency\\\\_%' as p union all select 'emergencyx', 'emergency\\\\_%')";
    expect(
      await run("bigquery", `select countif(slot like 'emergency\\\\_%'), countif(slot like p), countif(slot not like p) from ${rows}`),
    ).toEqual(["1", "1", "1"]);
    expect(
      await run("databricks", "select count_if(slot like p) from (select 'a_c' as slot, 'a\\\\_c' as p union all select 'abc', 'a\\\\_c')"),
    ).toEqual(["1"]);
    expect(
      await run(
        "postgres",
        "select count(*) filter (where slot like p) from (select 'a_c' as slot, 'a\\_c' as p union all select 'abc', 'a\\_c') as t",
      ),
    ).toEqual(["1"]);
    expect(await run("redshift", "select 'a_c' ilike 'A\\\\_C', 'abc' ilike 'A\\\\_C'")).toEqual(["true", "false"]);
    expect(await run("snowflake", "select 'a_c' like 'a\\\\_c', 'a_c' ilike p from (select 'A\\\\_C' as p)")).toEqual(["false", "false"]);
  });

  test("a LIKE pattern the warehouse rejects is an error (or, where undocumented, refused): a trailing escape, an escape of another character in Databricks and BigQuery", async () => {
    expect(await run("postgres", "select 'a' like p from (select 'a\\' as p) as t")).toMatch(/^error: .*ends with the escape character/);
    expect(await run("postgres", "select 'ab' like p from (select 'a\\b' as p) as t")).toEqual(["true"]);
    expect(await run("databricks", "select 'ab' like 'a\\\\b'")).toMatch(/^error: .*escapes a character other than/);
    expect(await run("bigquery", "select 'ab' like p from (select 'a\\\\b' as p)")).toMatch(/^error: .*escapes a character other than/);
    expect(await run("bigquery", "select 'ab' like 'a\\\\b'")).toBe("refused: like");
  });

  test("a literal keeps the warehouse's value through the rewrites that write the SQL back (division, LIKE) and into DuckDB", async () => {
    const where = String.raw`where 4 / 2 = 2 and 'a_' like 'a\\_'`;
    expect(await run("bigquery", String.raw`select 'a\\b', "it's", 'x\ny', r'\d', '''q"''' from (select 1) ` + where)).toEqual([
      "a\\b",
      "it's",
      "x\ny",
      "\\d",
      'q"',
    ]);
    expect(
      await run("snowflake", String.raw`select 'a\\b', 'it''s', 'x\ny', $$\d$$ from (select 1) where 4 / 2 = 2 and 'a\\_' like 'a\\_'`),
    ).toEqual(["a\\b", "it's", "x\ny", "\\d"]);
    expect(await run("databricks", String.raw`select 'a\\b', "it's", 'x\ny', r'\d', '\%' from (select 1) ` + where)).toEqual([
      "a\\b",
      "it's",
      "x\ny",
      "\\d",
      "\\%",
    ]);
    expect(
      await run("postgres", String.raw`select 'a\b', 'it''s', E'x\ny', $$\d$$ from (select 1) as t where 4 / 2 = 2 and 'a_' like 'a\_'`),
    ).toEqual(["a\\b", "it's", "x\ny", "\\d"]);
    expect(await run("redshift", String.raw`select 'a\\b', 'x\ny' from (select 1) as t ` + where)).toEqual(["a\\b", "x\ny"]);
  });

  test("Redshift's writer escapes a quote its reader does not take: such a literal goes through the rewrites as a placeholder, and LIKE reads its value", async () => {
    expect(await run("redshift", "select '''CAT''' from (select 1) as t where 4 / 2 = 2")).toEqual(["'CAT'"]);
    expect(await run("redshift", "select '''CAT''' from (select 1) as t")).toEqual(["'CAT'"]);
    expect(await run("redshift", String.raw`select 'it''s_x' like 'it''s\\_%', 'it''sx' like 'it''s\\_%', 6 / 3`)).toEqual([
      "true",
      "false",
      "2",
    ]);
    // $$...$$ is not documented in a Redshift query: the transpiler reads a literal the lexer did not.
    expect(await run("redshift", "select $$a$$")).toBe("refused: string literal");
  });

  test("LIKE ANY / ALL are the ORs / ANDs of their patterns, in parentheses; NOT LIKE ANY / ALL is refused", async () => {
    expect(
      await run("snowflake", "select false and 'ab' like any ('x', 'a%'), 'ab' like all ('a%', '%b'), 'ab' like any ('x', null)"),
    ).toEqual(["false", "true", null]);
    expect(await run("postgres", "select 'ab' like any (array['x', 'a%']), 'ab' like all (array['x', 'a%'])")).toEqual(["true", "false"]);
    expect(await run("databricks", "select 'ab' not like all ('x', 'y')")).toBe("refused: not like any / all");
  });
  test("NULLs sort where the warehouse sorts them when the SQL does not say, inside an aggregate too (DuckDB puts them last either way)", async () => {
    expect(
      await run(
        "bigquery",
        "select array_agg(x order by x limit 1)[offset(0)], array_agg(x order by x desc limit 1)[offset(0)] from unnest([2, null, 1]) as x",
      ),
    ).toEqual([null, "2"]);
    expect(
      await run(
        "databricks",
        "select max_by(x, r) from (select x, row_number() over (order by x) as r from (select 2 as x union all select null) as t) as w",
      ),
    ).toEqual(["2"]);
    for (const dialect of ["postgres", "redshift", "snowflake"] as const)
      expect(
        await run(
          dialect,
          "select count(x) from (select x from (select 2 as x union all select null union all select 1) as t order by x desc limit 2) as w",
        ),
      ).toEqual(["1"]);
  });

  test("BigQuery ARRAY_AGG(... ORDER BY ... LIMIT n) keeps the first n, as dbt_utils.deduplicate reads it", async () => {
    expect(
      await run(
        "bigquery",
        "select array_to_string(array_agg(w order by v desc, w limit 2), ',') from (select 'b' as w, 2 as v union all select 'a', 2 union all select 'c', 1)",
      ),
    ).toEqual(["a,b"]);
    const rows = "(select 1 as k, 2 as v, 'a' as w union all select 1, 3, 'b' union all select 2, 5, 'c')";
    expect(
      await run(
        "bigquery",
        `select string_agg(w, ',' order by w) from (select unique.* from (select array_agg(original order by v desc limit 1)[offset(0)] unique from ${rows} original group by k))`,
      ),
    ).toEqual(["b,c"]);
  });
  test("BigQuery LEFT JOIN UNNEST without ON keeps a row whose array is empty or NULL, once, with NULL", async () => {
    const rows = "(select 1 as id, [1, 2] as l union all select 2, [] union all select 3, null)";
    expect(await run("bigquery", `select count(*), count(x), countif(x is null) from ${rows} as t left join unnest(t.l) as x`)).toEqual([
      "4",
      "2",
      "2",
    ]);
    expect(await run("bigquery", `select count(*) from ${rows} as t cross join unnest(t.l) as x`)).toEqual(["2"]);
  });

  test("BigQuery FULL UNION ALL BY NAME is DuckDB's UNION ALL BY NAME; its other modes and CORRESPONDING are refused by name", async () => {
    expect(
      await run(
        "bigquery",
        "select count(*), count(a), sum(b) from (select * from (select 1 as a, 2 as b) full union all by name (select 3 as b))",
      ),
    ).toEqual(["2", "1", "5"]);
    expect(await run("bigquery", "select * from (select 1 as a) union all by name (select 3 as a)")).toBe(
      "refused: union by name without a mode",
    );
    expect(await run("bigquery", "select * from (select 1 as a) left union all by name (select 3 as a)")).toBe(
      "refused: union by name left",
    );
    expect(await run("bigquery", "with p as (select 1 as a) select * from p full union all corresponding select * from p")).toBe(
      "refused: union corresponding",
    );
  });

  test("a set operation after an unnamed derived table stays outside it (the transpiler read `from (select ...) union all select 10` into the subquery)", async () => {
    for (const dialect of ["bigquery", "snowflake", "databricks"] as const)
      expect(await run(dialect, "select sum(x) from (select a + 1 as x from (select 1 as a) union all select 10)")).toEqual(["12"]);
  });

  test("BigQuery INTERVAL of a column's count, and a long CONCAT whose arguments the transpiler left untranslated", async () => {
    expect(await run("bigquery", "select cast(date_add(d, interval n day) as date) from (select date '2024-01-31' as d, 2 as n)")).toEqual([
      "2024-02-02",
    ]);
    expect(
      await run(
        "bigquery",
        "select concat('a', 'b', 'c', 'd', safe_cast(1 as string), 'e', 'f', 'g', 'h'), concat('a', 'b', 'c', 'd', 'e', null)",
      ),
    ).toEqual(["abcd1efgh", null]);
  });
  test("BigQuery PIVOT names an aliased aggregate's columns alias_value (by a value's alias too), in a FROM or a JOIN, under the PIVOT's alias", async () => {
    const produce = "(select 'Kale' as product, 51 as sales, 'Q1' as quarter, true as ok)";
    expect(
      await run("bigquery", `select p.total_Q1, product from ${produce} pivot(sum(sales) as total for quarter in ('Q1')) as p`),
    ).toEqual(["51", "Kale"]);
    expect(
      await run("bigquery", `select * from ${produce} pivot(max(sales) as s, logical_or(ok) as b for quarter in ('Q1' as first, 'Q2'))`),
    ).toEqual(["Kale", "51", "true", null, null]);
    expect(
      await run(
        "bigquery",
        `select k.n, s_first from (select 'Kale' as product, 2 as n) as k join ${produce} pivot(max(sales) as s for quarter in ('Q1' as first)) using (product)`,
      ),
    ).toEqual(["2", "51"]);
  });
  test("Redshift divides by an integer SUM as by its BIGINT (r_SUM): 100.0 * count / sum(count) has 21 decimals, not an overflow", async () => {
    const counts = "(select count(*) as n from (select 1 as x union all select 2 union all select 3) as t) as s";
    expect(await run("redshift", `select 100.0 * n / sum(n) over (), round(100.0 * n / sum(n) over (), 2) from ${counts}`)).toEqual([
      "100.000000000000000000000",
      "100.00",
    ]);
    expect(await run("redshift", "select 1.0 / cast(3 as numeric(38, 0))")).toEqual(["0.33333333333333333333333333333333333333"]);
  });
  test("BigQuery STRUCT names a field by its alias or its column, a typed STRUCT by its type (slp's mapping: NUMERIC keeps 9 decimals); an anonymous field is refused", async () => {
    expect(await run("bigquery", "select s.n, s.b from (select struct(1 as n, t.b) as s from (select 'x' as b) as t)")).toEqual(["1", "x"]);
    expect(await run("bigquery", "select struct<a int64, b numeric>(1, 2.5).b, array<numeric>[1.5][offset(0)]")).toEqual([
      "2.500000000",
      "1.500000000",
    ]);
    expect(await run("bigquery", "select struct(1, 2)")).toBe("refused: struct()");
    expect(await run("bigquery", "select struct(true as ok, null)")).toBe("refused: struct()");
    expect(await run("bigquery", "select struct<a int64>(1 as b)")).toBe("refused: struct<a int64>");
    expect(await run("bigquery", "select struct<a int64, b int64>(1)")).toBe("refused: struct<a int64, b int64>");
  });
  test("BigQuery list[safe_offset(n)].field and [safe_ordinal(n)].field: the element's field, NULL past the end", async () => {
    const h = "(select [struct(1 as a), struct(2 as a)] as h)";
    expect(await run("bigquery", `select h[safe_offset(1)].a, h[safe_offset(5)].a, h[safe_ordinal(1)].a from ${h}`)).toEqual([
      "2",
      null,
      "1",
    ]);
    expect(await run("bigquery", `select h[safe_offset(0)], h[offset(1)] from ${h}`)).toEqual(["{'a': 1}", "{'a': 2}"]);
  });
  test("BigQuery PIVOT and UNPIVOT are refused by name where DuckDB names or fills the columns otherwise", async () => {
    const produce = "(select 'Kale' as product, 51 as sales, 'Q1' as quarter)";
    expect(await run("bigquery", `select * from ${produce} pivot(sum(sales) as total, count(*) for quarter in ('Q1'))`)).toBe(
      "refused: pivot",
    );
    expect(await run("bigquery", `select * from ${produce} pivot(sum(sales) as total for quarter in ('Q 1'))`)).toBe("refused: pivot");
    expect(await run("bigquery", `select * from ${produce} pivot(sum(sales) as total for quarter in ('Q1', ''))`)).toBe("refused: pivot");
    expect(await run("bigquery", `select * from ${produce} pivot(sum(sales) for quarter in (''))`)).toBe("refused: pivot");
    expect(await run("bigquery", `select * from (select 'Kale' as product, 51 as sales, 1 as q) pivot(sum(sales) for q in (1))`)).toBe(
      "refused: pivot",
    );
    expect(await run("bigquery", `select * from ${produce} pivot(sum(sales) for quarter in ('Q1' as first))`)).toEqual(["Kale", "51"]);
    const wide = "(select 'Kale' as product, 51 as q1, 23 as q2)";
    expect(await run("bigquery", `select * from ${wide} unpivot(sales for quarter in (q1, q2))`)).toBe("refused: unpivot");
    expect(await run("bigquery", `select product from ${wide} unpivot((a, b) for k in ((q1, q2) as 'x'))`)).toBe("refused: unpivot");
    expect(
      await run("bigquery", `select quarter, sales from ${wide} unpivot(sales for quarter in (q1, q2)) order by sales limit 1`),
    ).toEqual(["q2", "23"]);
  });
  test("BigQuery ARRAY(subquery): SELECT AS STRUCT is refused, and an UNNEST the transpiler left a table alias (inside ARRAY within a call) is refused, never read as a row", async () => {
    expect(await run("bigquery", "select array(select as struct x as a from unnest([1]) as x)")).toBe("refused: array()");
    expect(await run("bigquery", "select array_length(array(select x from unnest([1, 2]) as x))")).toBe("refused: unnest");
    expect(await run("bigquery", "select 'unnest(a) as b', array(select x from unnest([2, 1]) as x order by x)")).toEqual([
      "unnest(a) as b",
      "[1, 2]",
    ]);
    expect(
      await run("bigquery", "select array(select h.id, from (select 2 as id union all select null) as h where h.id is not null)"),
    ).toEqual(["[2]"]);
  });
  test("Postgres and Redshift POSIX patterns: features RE2 reads otherwise are refused by name; a pattern must be a literal; a class or case folding beyond ASCII is an error in Postgres, ASCII text runs", async () => {
    for (const pattern of ["(a)\\1", "a(?=b)", "\\mabc", "[[:<:]]a", "(?<=a)b", "***=a", "a{300}", "[[.hyphen.]]"])
      expect(await run("postgres", `select 'abc' ~ '${pattern}'`)).toBe("refused: ~");
    expect(await run("postgres", "select 'abc' ~ x from (select 'b' as x) as t")).toBe("refused: ~");
    expect(await run("postgres", "select 'abc' ~* x from (select 'b' as x) as t")).toBe("refused: ~*");
    expect(await run("postgres", "select regexp_like('abc', 'B', 'x'), 1")).toBe("refused: regexp_like()");
    expect(await run("postgres", "select regexp_like('abc', '(a)\\1')")).toBe("refused: regexp_like()");
    // Where POSIX's longest match and RE2's first can differ (an alternation of texts one of which starts another), the matched text is refused.
    expect(await run("postgres", "select regexp_replace('ab', 'a|ab', 'x')")).toBe("refused: regexp_replace()");
    expect(await run("postgres", "select regexp_replace('abab', 'a+?', 'x')")).toBe("refused: regexp_replace()");
    expect(
      await run(
        "postgres",
        "select regexp_replace('ab', '(a|ab)$', 'x'), regexp_replace('a.org', '\\.(org|edu)', ''), regexp_replace('foobarbaz', 'b(..)', 'X\\&Y', 'g')",
      ),
    ).toEqual(["x", "a", "fooXbarYXbazY"]);
    expect(await run("postgres", "select regexp_replace('abc', 'b', x) from (select 'y' as x) as t")).toBe("refused: regexp_replace()");
    expect(await run("redshift", "select regexp_count('ab', 'a|ab'), 1")).toBe("refused: regexp_count()");
    expect(await run("redshift", "select regexp_substr('the fox', 'FOX'), regexp_substr('k=v', '(\\\\w)=', 1, 1, 'e')")).toEqual([
      null,
      "k",
    ]);
    expect(await run("redshift", "select regexp_substr('the fox', 'fox', 1, 1, 'p')")).toBe("refused: regexp_substr()");
    expect(await run("postgres", "select regexp_substr('abc', '^b', 2)")).toBe("refused: regexp_substr()");
    expect(await run("postgres", "select regexp_instr('ABCDEFGHI', '(c..)(...)', 1, 1, 0, 'i', 2)")).toBe("refused: regexp_instr()");
    expect(await run("postgres", "select regexp_instr('abc', 'x*')")).toMatch(/^error: .*empty text/);
    expect(await run("postgres", "select regexp_instr('a,b,c', '[^,]+', 2, 2), regexp_instr(cast(null as text), 'a')")).toEqual([
      "5",
      null,
    ]);
    expect(await run("redshift", "select regexp_instr('the fox', 'fox', 1, 1, 0, 'p')")).toBe("refused: regexp_instr()");
    expect(await run("postgres", "select substring('foobar' from '%#\"o_b#\"%' for '#')")).toBe("refused: substring()");
    expect(await run("postgres", "select substring('Thomas' from 2 for 3), substring('Thomas', 'o(.)a')")).toEqual(["hom", "m"]);
    expect(await run("postgres", "select regexp_substr('abc', '(b)', 1, 1, 'c', 2)")).toBe("refused: regexp_substr()");
    // \b is a backspace in POSIX (RE2's word boundary), \y the word boundary; . and [^a] match a newline.
    expect(await run("postgres", "select 'a b' ~ 'a\\bb', 'a b' ~ 'a\\y', 'a' || chr(10) || 'b' ~ 'a.b', 'a' || chr(11) ~ 'a\\s'")).toEqual(
      ["false", "true", "true", "true"],
    );
    expect(await run("postgres", "select 'été' ~ '\\w'")).toMatch(/^error: .*beyond ASCII/);
    expect(await run("postgres", "select 'ÉTÉ' ~* 'é'")).toMatch(/^error: .*beyond ASCII/);
    expect(await run("postgres", "select 'été' ~ 'ét', 'abc' ~* 'B'")).toEqual(["true", "true"]);
    // Redshift documents its classes as ASCII only (RE2's reading): no check; ~* is not documented there.
    expect(await run("redshift", "select 'é' ~ '[[:alpha:]]'")).toEqual(["false"]);
    expect(await run("redshift", "select 'abc' ~* 'B'")).toBe("refused: ~*");
    expect(await run("postgres", "select 'abc' similar to '%\\mabc%'")).toBe("refused: similar to");
    expect(await run("postgres", "select 'a%c' similar to 'a#%c' escape '#', 'abc' similar to 'a#%c' escape '#'")).toEqual([
      "true",
      "false",
    ]);
  });

  test("to_char: an element slp does not implement is refused by name; what the documented examples leave open is an error when it runs", async () => {
    for (const format of [
      "HH24:MI TZ",
      "FXYYYY",
      "TMMonth",
      "DDSP",
      "999D99",
      "9G999",
      "L999",
      "RN",
      "PL999",
      "9.99EEEE",
      "99V9",
      "9MI99",
      "YYYY Q Z",
    ])
      expect(await run("postgres", `select to_char(timestamp '2024-03-05 13:04:05', '${format}')`)).toBe("refused: to_char()");
    expect(await run("postgres", "select to_char(x, 'YYYY') from (select timestamp '2024-03-05' as x) as t")).toEqual(["2024"]);
    expect(await run("postgres", "select to_char(timestamp '2024-03-05', x) from (select 'YYYY' as x) as t")).toBe("refused: to_char()");
    expect(await run("postgres", "select to_char(12345, '999')")).toMatch(/^error: .*more integer digits/);
    expect(await run("postgres", "select to_char(-0.001, '9.99')")).toMatch(/^error: .*rounds to zero/);
    expect(await run("postgres", "select to_char(interval '1 hour', 'HH24')")).toMatch(/^error: /);
    expect(
      await run(
        "postgres",
        "select to_char(2.5::float8, '9'), to_char(2.5, '9'), to_char(cast(null as numeric), '9'), to_char(cast(null as date), 'YYYY')",
      ),
    ).toEqual([" 2", " 3", null, null]);
    expect(await run("redshift", "select to_char(125.8, '999D99'), to_char(date '2024-03-05', 'TZ')")).toBe("refused: to_char()");
    expect(await run("redshift", "select to_char(125.8, '999D99')")).toEqual([" 125.80"]);
    expect(await run("snowflake", "select to_char(12.5, '99.9')")).toBe("refused: to_char()");
    expect(await run("snowflake", "select to_char('2024-03-05 13:04:05.123456'::timestamp, 'hh24:mi:ss.FF6')")).toEqual([
      "13:04:05.123456",
    ]);
    expect(await run("snowflake", "select to_char('2024-03-05'::date, 'yyyy-mm-dd QQ')")).toBe("refused: to_char()");
  });

  test("Postgres and Redshift to_date / to_timestamp: a pattern slp does not read is refused by name; where the warehouse is lenient (June 31, another separator) DuckDB errors, never another date", async () => {
    for (const format of ["YY-MM-DD", "IYYY-IW", "J", "YYYY-MM-DD TZ", "FXYYYY", "DDth Mon YYYY", "HH12:MI"])
      expect(await run("postgres", `select to_date('2024-03-05', '${format}')`)).toBe("refused: to_date()");
    expect(await run("postgres", "select to_date(x, 'YYYY') from (select '2024' as x) as t")).toEqual(["2024-01-01"]);
    expect(await run("postgres", "select to_date('2024', x) from (select 'YYYY' as x) as t")).toBe("refused: to_date()");
    expect(await run("redshift", "select to_date('20010631', 'YYYYMMDD', true)")).toMatch(/^error: .*out of range/);
    expect(await run("redshift", "select to_date('20010631', 'YYYYMMDD')")).toMatch(/^error: /);
    expect(await run("postgres", "select to_date('2024/03/05', 'YYYY-MM-DD')")).toMatch(/^error: /);
  });

  test("Postgres and Redshift to_number: the locale's D and G are refused in Postgres, read as . and , in Redshift; text the format's digits do not hold is an error", async () => {
    expect(await run("postgres", "select to_number('12,454.8-', '99G999D9S')")).toBe("refused: to_number()");
    expect(await run("postgres", "select to_number('$12', 'L99')")).toBe("refused: to_number()");
    expect(await run("redshift", "select to_number('12,454.8-', '99G999D9S'), to_char(12454.8, '99G999D9')")).toEqual([
      "-12454.8",
      " 12,454.8",
    ]);
    expect(await run("postgres", "select to_number('12345', '999')")).toMatch(/^error: .*format's digits/);
    expect(await run("postgres", "select to_number('1.234', '9.99')")).toMatch(/^error: .*format's digits/);
    expect(await run("postgres", "select to_number('', '999')")).toMatch(/^error: /);
    expect(await run("postgres", "select to_number(x, '999.9') from (select ' 12.5 ' as x) as t")).toEqual(["12.5"]);
  });

  test("Snowflake REGEXP_SUBSTR / REPLACE / COUNT: the occurrence and the parameters (c, i, m, e, s) are read (the transpiler dropped them); another position, an N-th replacement or another parameter is refused", async () => {
    expect(
      await run("snowflake", "select regexp_replace('abcabc', 'b', 'x', 1, 1), regexp_replace('abcabc', 'B', 'x', 1, 0, 'i')"),
    ).toEqual(["axcabc", "axcaxc"]);
    expect(await run("snowflake", "select regexp_substr('a\\nb', 'a.b'), regexp_substr('a\\nb', 'a.b', 1, 1, 's') is not null")).toEqual([
      null,
      "true",
    ]);
    expect(
      await run("snowflake", "select regexp_substr('x1 y2', '([a-z])([0-9])', 1, 2, 'e', 2), regexp_substr('x1', '[a-z]', 1, 3)"),
    ).toEqual(["2", null]);
    expect(await run("snowflake", "select regexp_replace('abcabc', 'b', 'x', 1, 2)")).toBe("refused: regexp_replace()");
    expect(await run("snowflake", "select regexp_replace('abcabc', 'b', 'x', 2)")).toBe("refused: regexp_replace()");
    expect(await run("snowflake", "select regexp_substr('abc', 'b', 2)")).toBe("refused: regexp_substr()");
    expect(await run("snowflake", "select regexp_substr('abc', 'b', 1, 1, 'x')")).toBe("refused: regexp_substr()");
    expect(await run("snowflake", "select regexp_count('abc', 'b', 1, 'e')")).toBe("refused: regexp_count()");
  });

  test("Snowflake split_part with a NUMBER part (a NUMBER(38, 0) column) runs; a part with a fraction is an error naming it", async () => {
    expect(await run("snowflake", "select split_part(s, '-', n) from (select 'a-b-c' as s, 2::number(38, 0) as n)")).toEqual(["b"]);
    expect(
      await run("snowflake", "select split_part('a-b-c', '-', -1::number), split_part('a-b-c', '-', 0), split_part('a-b-c', '-', 9)"),
    ).toEqual(["c", "a", ""]);
    expect(await run("snowflake", "select split_part('a-b-c', '-', 1.5)")).toMatch(/^error: .*fraction/);
  });

  test("BigQuery UNPIVOT of several value columns runs with INCLUDE NULLS; EXCLUDE NULLS (the default) of several is refused", async () => {
    const wide = "(select 'Kale' as product, 51 as q1, cast(null as int64) as q2, cast(null as int64) as q3, cast(null as int64) as q4)";
    expect(
      await run("bigquery", `select count(*) from ${wide} unpivot include nulls ((a, b) for k in ((q1, q2) as 'x', (q3, q4) as 'y'))`),
    ).toEqual(["2"]);
    expect(
      await run("bigquery", `select count(*) from ${wide} unpivot exclude nulls ((a, b) for k in ((q1, q2) as 'x', (q3, q4) as 'y'))`),
    ).toBe("refused: unpivot");
    expect(await run("bigquery", `select count(*) from ${wide} unpivot include nulls ((a, b) for k in ((q1, q2, q3) as 'x'))`)).toBe(
      "refused: unpivot",
    );
  });
});

/** JSON read and printed as each warehouse does (src/engine/json-values.ts), and what slp refuses of it. */
describe("JSON in Postgres, Redshift and BigQuery", () => {
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

  test("Postgres jsonb prints its own text (keys shorter first, then by bytes; the last duplicate; numbers as numeric), json its text as written", async () => {
    expect(
      await run(
        "postgres",
        `select ('{"bb": {"d": 1, "c": [1.50, 2e1]}, "a": 0, "a": 3}'::jsonb -> 'bb')::text, '{"bb": 1, "a": 2}'::jsonb::text`,
      ),
    ).toEqual(['{"c": [1.50, 20], "d": 1}', '{"a": 2, "bb": 1}']);
    expect(
      await run("postgres", `select '{"a": {"x" :  1}}'::json ->> 'a', '{"a": {"x" :  1}}'::jsonb ->> 'a', '{"a": null}'::jsonb ->> 'a'`),
    ).toEqual(['{"x" :  1}', '{"x": 1}', null]);
    expect(
      await run("postgres", `select '[1, [2, 3]]'::jsonb #>> '{1,-1}', '[1, [2, 3]]'::jsonb -> 1 ->> 0, '{"a": 1}'::jsonb -> 0`),
    ).toEqual(["3", "2", null]);
  });

  test("Postgres JSON operators with a key or path that is not a literal, and @> or || whose operands slp cannot type, are refused by name", async () => {
    expect(await run("postgres", "select x -> k from (select '{}'::jsonb as x, 'a' as k) as t")).toBe("refused: ->");
    expect(await run("postgres", "select x #>> p from (select '{}'::jsonb as x, '{a}' as p) as t")).toBe("refused: #>>");
    expect(await run("postgres", "select x @> y from (select '{}'::jsonb as x, '{}'::jsonb as y) as t")).toBe("refused: @>");
    expect(await run("postgres", "select (x -> 'a') || y from (select '{}'::jsonb as x, 'b' as y) as t")).toBe("refused: ||");
    // Typed operands run: text || text, jsonb @> jsonb, array containment.
    expect(
      await run("postgres", `select x::jsonb @> y::jsonb, 'a' || y, array[1, 2] @> array[2] from (select '{"a": 1}' as x, '{}' as y) as t`),
    ).toEqual(["true", "a{}", "true"]);
    expect(await run("postgres", "select json_array_length('{}')")).toMatch(/^error: .*cannot get the array length of a JSON object/);
    // || of two values slp cannot type: text and arrays concatenate; two jsonb values (as a fixture's columns hold them) are refused when met.
    const pair = (a: string, b: string) => `select a || b from (select ${a} as a, ${b} as b) as t`;
    expect(await run("postgres", pair("'x'", "'y'"))).toEqual(["xy"]);
    expect(await run("postgres", pair("array[1]", "array[2]"))).toEqual(["[1, 2]"]);
    expect(await run("postgres", pair(`'{"a": 1}'::jsonb`, `'{"b": 2}'::jsonb`))).toMatch(/^error: .*\|\| of two JSON values/);
    expect(await run("redshift", pair("json_parse('[1]')", "json_parse('[2]')"))).toMatch(/^error: .*\|\| of two JSON values/);
    expect(await run("redshift", pair("'x'", "'y'"))).toEqual(["xy"]);
  });

  test("Redshift SUPER: JSON_PARSE holds compact text; keys out of order, a fraction, a JSON null read as text, a cast to SUPER and PartiQL [] are refused", async () => {
    expect(
      await run(
        "redshift",
        `select json_serialize(json_parse('{"a": [1, {"b": "x"}], "c": true}')), json_extract_path_text('{"a": {"b": [1, 2]}}', 'a')`,
      ),
    ).toEqual(['{"a":[1,{"b":"x"}],"c":true}', '{"b": [1, 2]}']);
    expect(await run("redshift", `select json_parse('{"b": 1, "a": 2}')`)).toMatch(/^error: .*keys are not in ascending order/);
    expect(await run("redshift", `select json_parse('[1.5]')`)).toMatch(/^error: .*the number 1.5/);
    expect(await run("redshift", `select json_extract_path_text('{"a": null}', 'a')`)).toMatch(/^error: .*a JSON null/);
    expect(await run("redshift", `select json_extract_path_text('{"a": 1}', x) from (select 'a' as x) as t`)).toBe(
      "refused: json_extract_path_text()",
    );
    expect(await run("redshift", `select '{"a": 1}'::super`)).toBe("refused: super");
    expect(await run("redshift", `select c[0] from (select json_parse('[1]') as c) as t`)).toBe("refused: []");
    expect(await run("redshift", "select json_serialize(cast(null as super))")).toEqual(["null"]);
    // PartiQL: navigation (DuckDB would run it as its own case-sensitive JSON field access) and unnesting.
    const events = '(select 1 as id, json_parse(\'{"name": "a"}\') as payload) as e';
    expect(await run("redshift", `select e.payload.name from ${events}`)).toBe("refused: c.a.b");
    expect(await run("redshift", `select payload.name from ${events}`)).toBe("refused: payload.name");
    expect(await run("redshift", "select x from events as c, c.arr as x")).toBe("refused: from c.arr");
    expect(await run("redshift", `select e.id, json_serialize(e.payload) from ${events}`)).toEqual(["1", '{"name":"a"}']);
  });

  test("BigQuery: a JSON value's subscript is 0-based, an array's OFFSET too (an error past the end, NULL for SAFE_); field access; paths and numbers slp cannot read are refused", async () => {
    const j = `(select json '{"a": {"b": [10, 20]}, "k": "v"}' as j)`;
    expect(await run("bigquery", `select j.a.b[0], j['a']['b'][1], j.a.b[5], j.k from ${j}`)).toEqual(["10", "20", null, '"v"']);
    expect(await run("bigquery", "select [10, 20][offset(1)], [10, 20][1], [10, 20][ordinal(1)], [10, 20][safe_offset(2)]")).toEqual([
      "20",
      "20",
      "10",
      null,
    ]);
    expect(await run("bigquery", "select [10, 20][offset(2)]")).toMatch(/^error: .*out of bounds/);
    expect(await run("bigquery", 'select to_json_string(json \'{"b": 1, "a": [1.50, 2]}\')')).toEqual(['{"a":[1.5,2],"b":1}']);
    expect(await run("bigquery", "select parse_json('{\"id\": 922337203685477580701}')")).toMatch(/^error: .*922337203685477580701/);
    expect(await run("bigquery", "select json_value('{\"a\": [1]}', '$.a[*]')")).toBe("refused: json_value()");
    expect(await run("bigquery", "select json_query('{\"a.b\": 1}', \"$['a.b']\")")).toBe("refused: json_query()");
    expect(await run("bigquery", "select json_value('{\"a\": 1.5}', '$.a')")).toMatch(/^error: .*the number 1.5/);
    expect(await run("bigquery", "select int64(json '\"3\"')")).toMatch(/^error: .*INT64 of a JSON string/);
  });
});
