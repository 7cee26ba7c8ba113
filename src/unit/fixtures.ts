/**
 * The fixtures stage: a `given`'s rows as the relation the model reads,
 * built the way dbt's get_fixture_sql builds it (spec/dbt-unit-tests.md
 * §2.3, §3.2): every column of the upstream relation in its order, the
 * omitted ones typed NULLs, each value cast to its column's type, and a key
 * that is not a column of the relation refused with the accepted columns.
 * Also where rows come from: inline dict or CSV, a fixture file, a seed's
 * own CSV; and the expected rows, read the same way.
 */
import { SlpError } from "../core/errors.ts";
import { isMapping, type Value } from "../core/values.ts";
import { parseCsv } from "../project/files/csv.ts";
import { readText } from "../project/files/source.ts";
import type { UnitProject } from "../project/dbt/unit-project.ts";
import type { UnitTestDefinition } from "../project/dbt/unit-test-definitions.ts";
import { RenderRefusal, type DbtRenderer } from "../sql/dbt-context.ts";
import type { Dialect } from "../sql/dialect/dialects.ts";
import { fixtureRuleError } from "../sql/dialect/fixture-rules.ts";
import { warehouse } from "../sql/dialect/warehouses/index.ts";
import type { PlannedInput } from "./plan.ts";
import { parseSession } from "./render.ts";
import type { RelationSchema } from "./schemas.ts";
import { isJsonType, jsonValue, type JsonText } from "./json-values.ts";
import { selectRows, trimStatement } from "./sql.ts";
import type { Fixture, FixtureColumn, FixtureRow } from "./types.ts";

/** A fixture column whose declared warehouse type slp has no faithful DuckDB type for: the test ran `untranslatable`. */
export class UntranslatableType extends SlpError {
  constructor(message: string, file: string | undefined, line: number | undefined) {
    super("E_RENDER", message, {
      file,
      line,
      fix: "declare a type slp maps (see the README's dialect table), or mock the input with format: sql",
    });
  }
}

/** The relation standing in for one input of one test. */
export function buildFixture(
  input: PlannedInput,
  schema: RelationSchema | null,
  test: UnitTestDefinition,
  owner: UnitProject,
  renderer: DbtRenderer,
  dialect: Dialect = "duckdb",
): Fixture {
  const { given, label, node } = input;
  const text = fixtureText(given.format, given.rows, given.fixture, label, test, owner);
  const base = { key: node.uniqueId, input: label, relation: input.relation };
  if (given.format === "sql") {
    const file = given.fixture ? fixtureFile(given.fixture, owner, "sql", test) : test.file;
    const sql = renderer.renderText(text as string, file, parseSession(test.name), test.package);
    return {
      ...base,
      fromSql: true,
      sql: trimStatement(sql),
      columns: [],
      typedOnlySql: null,
      untyped: [],
      untypedWhy: {},
      open: null,
      declaredIn: null,
    };
  }
  if (node.kind === "model" && node.materialized === "ephemeral" && !input.isThis) {
    throw new RenderRefusal(
      `${label} is an ephemeral model, which dbt cannot introspect for a ${given.format} fixture`,
      "mock it with format: sql (a SELECT that yields its columns)",
    );
  }
  let rows: FixtureRow[];
  let csv = given.format === "csv";
  if (given.format === "dict" && given.rows === undefined && given.fixture === null) {
    if (node.kind !== "seed") {
      throw new RenderRefusal(
        `Unable to find seed '${node.package}.${node.name}' for unit tests: ${label} has neither rows nor fixture`,
        "give the input rows (rows: [] for an empty input)",
      );
    }
    // A seed with no rows: its CSV file, every value a string, "" kept (dbt's _load_rows_from_seed).
    const table = csvTable(readText(owner.dir, node.file as string), node.file as string);
    rows = table.rows.map((row) => Object.fromEntries(table.header.map((column, i) => [column, row[i] ?? null])));
    csv = true;
  } else if (given.format === "dict") rows = dictRows(text, label);
  else rows = csvRows(text as string, label, given.fixture ? fixtureFile(given.fixture, owner, "csv", test) : test.file);
  // The adapter's own checks of the rows (dbt-redshift: a row free of nulls), raised where its get_fixture_sql raises them.
  const rules = dialect === "duckdb" ? [] : warehouse(dialect).fixtureRules;
  const broken = fixtureRuleError(rules, { name: node.name, format: csv ? "csv" : "dict", rows });
  if (broken !== null)
    throw new RenderRefusal(broken, `give ${label} one row with a value in every column its rows name (dbt moves that row first)`);
  const fixture = { ...base, fromSql: false, ...typedRows(label, schema, rows, csv) };
  const byName = new Map(fixture.columns.map((column) => [column.name.toLowerCase(), column]));
  for (const row of rows)
    for (const [key, value] of Object.entries(row)) {
      const column = byName.get(key.toLowerCase());
      if (column) refuseTextForNested(dialect, label, column, value);
    }
  return fixture;
}

/** The rows as SQL over the relation's columns (spec §3.2): unknown keys refused when the columns are complete. */
function typedRows(
  label: string,
  schema: RelationSchema | null,
  rows: FixtureRow[],
  csv: boolean,
): Pick<Fixture, "sql" | "columns" | "typedOnlySql" | "untyped" | "untypedWhy" | "open" | "declaredIn"> {
  const known = schema?.columns ?? [];
  const columns: { name: string; type: string | null; from: FixtureColumn["from"] | null; jsonText?: JsonText }[] = known.map((column) => {
    if (column.refused)
      throw new UntranslatableType(
        `untranslatable: column '${column.name}' of ${label} ${column.refused}`,
        schema?.file ?? undefined,
        column.line ?? undefined,
      );
    return { name: column.name, type: column.type, from: column.from, ...(column.jsonText ? { jsonText: column.jsonText } : {}) };
  });
  const byLower = new Map(columns.map((column, i) => [column.name.toLowerCase(), i]));
  const keyToColumn = new Map<string, number>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (keyToColumn.has(key)) continue;
      let index = byLower.get(key.toLowerCase());
      if (index === undefined) {
        if (schema?.complete) {
          throw new RenderRefusal(
            `Invalid column name: '${key}' in unit test fixture for ${label}. Accepted columns for ${label} are: [${columns.map((c) => `'${c.name}'`).join(", ")}]`,
            "use the upstream relation's column names",
          );
        }
        index = columns.length;
        columns.push({ name: key, type: null, from: null });
        byLower.set(key.toLowerCase(), index);
      }
      keyToColumn.set(key, index);
    }
  }
  const values: Value[][] = rows.map((row) => {
    const out: Value[] = columns.map(() => null);
    for (const [key, value] of Object.entries(row)) {
      const index = keyToColumn.get(key) as number;
      const column = columns[index] as (typeof columns)[number];
      // A warehouse's semi-structured column (its jsonText says how it reads text); DuckDB's own JSON stays as dbt-duckdb casts it.
      out[index] = column.jsonText && isJsonType(column.type) ? jsonValue(value, column.jsonText, column.name, label) : value;
    }
    return out;
  });
  const untyped: string[] = [];
  const typed: FixtureColumn[] = columns.map((column, i) => {
    if (column.type !== null) return { name: column.name, type: column.type, from: column.from ?? "declared" };
    const given = values.map((row) => row[i] ?? null);
    if (given.every((value) => value === null)) {
      // Nothing types it and nothing gives it: a NULL whose type cannot change a verdict, as long as the model never reads it by name.
      untyped.push(column.name);
      return { name: column.name, type: "VARCHAR", from: "values" };
    }
    const inferred = inferType(given, csv);
    if (inferred.type === null) {
      throw new RenderRefusal(
        `cannot type column '${column.name}' of ${label}: ${inferred.why}`,
        `declare data_type for ${column.name} in the yml of ${label}, or give it values of one type`,
      );
    }
    return { name: column.name, type: inferred.type, from: "values" };
  });
  const sql = selectRows(typed, values);
  let typedOnlySql: string | null = null;
  if (untyped.length > 0) {
    const keep = typed.map((column) => !untyped.includes(column.name));
    typedOnlySql = selectRows(
      typed.filter((_, i) => keep[i]),
      values.map((row) => row.filter((_, i) => keep[i])),
    );
  }
  const open = schema?.complete
    ? null
    : {
        why: schema?.gap ?? `slp knows only the columns the yml of ${label} declares`,
        fix: schema?.fix ?? `declare {column} (with its data_type) in the yml of ${label}, or give it a value in the test's rows`,
      };
  const untypedWhy: Record<string, string> = {};
  for (const column of known) if (column.untypedWhy && untyped.includes(column.name)) untypedWhy[column.name] = column.untypedWhy;
  return { sql, columns: typed, typedOnlySql, untyped, untypedWhy, open, declaredIn: schema?.file ?? null };
}

/**
 * dbt writes a fixture's value in a cast to its column's type: text given to an
 * ARRAY, MAP or STRUCT column (every CSV value is text) is a cast from STRING
 * the warehouse refuses (BigQuery "Invalid cast from STRING to ARRAY", Databricks
 * DATATYPE_MISMATCH), where DuckDB would parse it. dbt-duckdb parses it too.
 */
export function refuseTextForNested(
  dialect: Dialect,
  label: string,
  column: { name: string; type: string },
  value: Value | undefined,
): void {
  if (!NESTED_FROM_TEXT_REFUSED.has(dialect) || typeof value !== "string") return;
  if (!/^(MAP|STRUCT)\(|\]$/i.test(column.type.trim())) return;
  throw new RenderRefusal(
    `column '${column.name}' of ${label} holds arrays, maps or structs (${column.type} in DuckDB) and is given the text '${value}': ${dialect} cannot cast a STRING to it (dbt writes the value in a cast), so the test errors there`,
    "give the value as a YAML list or mapping in a dict fixture, or build it in a format: sql fixture",
  );
}

const NESTED_FROM_TEXT_REFUSED = new Set<Dialect>(["bigquery", "databricks", "spark"]);

/**
 * The rows a dict or csv `given` writes (inline or in a fixture file), read as the test reads them, and
 * whether they are CSV text; null for a `format: sql` given, one without rows, or rows that do not read.
 * What another test gives an input is what slp knows of that relation's columns besides its yml.
 */
export function givenRows(
  given: UnitTestDefinition["given"][number],
  test: UnitTestDefinition,
  owner: UnitProject,
): { rows: FixtureRow[]; csv: boolean } | null {
  if (given.format === "sql" || (given.rows === undefined && given.fixture === null)) return null;
  const label = given.input.trim();
  try {
    const text = fixtureText(given.format, given.rows, given.fixture, label, test, owner);
    if (given.format === "dict") return { rows: dictRows(text, label), csv: false };
    const file = given.fixture ? fixtureFile(given.fixture, owner, "csv", test) : test.file;
    return { rows: csvRows(text as string, label, file), csv: true };
  } catch {
    return null;
  }
}

/** The expected rows of a dict or csv expectation. */
export function expectedRows(test: UnitTestDefinition, owner: UnitProject): FixtureRow[] {
  const { expect } = test;
  const label = "expected output";
  const text = fixtureText(expect.format, expect.rows, expect.fixture, label, test, owner);
  if (expect.format === "csv")
    return csvRows(text as string, label, expect.fixture ? fixtureFile(expect.fixture, owner, "csv", test) : test.file);
  return dictRows(text, label);
}

/** A `format: sql` expectation's SELECT. */
export function expectedSql(test: UnitTestDefinition, owner: UnitProject): string {
  return trimStatement(String(fixtureText("sql", test.expect.rows, test.expect.fixture, "expected output", test, owner)));
}

function fixtureText(
  format: string,
  rows: Value | undefined,
  fixture: string | null,
  label: string,
  test: UnitTestDefinition,
  owner: UnitProject,
): Value | undefined {
  if (format === "dict") {
    if (fixture !== null)
      throw new RenderRefusal(`${label} names fixture '${fixture}' with format dict`, "a fixture file needs format: csv or format: sql");
    return rows;
  }
  if (fixture !== null) return readText(owner.dir, fixtureFile(fixture, owner, format, test));
  if (typeof rows !== "string")
    throw new RenderRefusal(
      `${label} has rows which do not match format ${format}. Expected string.`,
      `write rows: | followed by the ${format === "csv" ? "CSV lines" : "SELECT"}, or name a fixture file`,
    );
  return rows;
}

function fixtureFile(name: string, owner: UnitProject, format: string, test: UnitTestDefinition): string {
  const files = owner.fixtures.get(name) ?? [];
  if (files.length === 0) {
    throw new RenderRefusal(
      `File not found for fixture '${name}' in unit tests in ${test.file}`,
      `add ${owner.prefix}${owner.testPaths[0] ?? "tests"}/fixtures/${name}.${format === "sql" ? "sql" : "csv"}`,
    );
  }
  if (files.length > 1)
    throw new RenderRefusal(
      `fixture name '${name}' is used by ${files.length} files: ${files.join(", ")}`,
      "fixture names must be unique across tests/fixtures/ and its subfolders",
    );
  const file = files[0] as string;
  if (!file.endsWith(`.${format}`))
    throw new RenderRefusal(
      `fixture '${name}' is ${file}, but the test reads it as format ${format}`,
      `use format: ${file.endsWith(".csv") ? "csv" : "sql"} for it`,
    );
  return file;
}

function dictRows(rows: Value | undefined, label: string): FixtureRow[] {
  if (!Array.isArray(rows) || !rows.every(isMapping)) {
    throw new RenderRefusal(
      `${label} has rows which do not match format dict`,
      "write rows as a list of mappings ({column: value}), or set format: csv or sql",
    );
  }
  for (const row of rows as FixtureRow[])
    for (const [column, value] of Object.entries(row)) {
      const rounded = roundedInteger(value);
      if (rounded !== null)
        throw new RenderRefusal(
          `${label} gives column '${column}' an integer past 2^53, which slp reads rounded (as ${rounded}) where dbt (Python) keeps every digit`,
          "quote the number ('...'): dbt casts the text to the column's type, so the test means the same",
        );
    }
  return rows as FixtureRow[];
}

/** An integer a YAML number cannot have kept exactly (beyond 2^53), anywhere in a value, as read; else null. */
function roundedInteger(value: Value): number | null {
  if (typeof value === "number") return Number.isInteger(value) && !Number.isSafeInteger(value) ? value : null;
  if (Array.isArray(value)) return value.map(roundedInteger).find((found) => found !== null) ?? null;
  if (isMapping(value))
    return (
      Object.values(value)
        .map(roundedInteger)
        .find((found) => found !== null) ?? null
    );
  return null;
}

/** CSV records read as Python's csv.DictReader yields them: a row shorter than the header is padded with null. */
export function csvTable(text: string, file: string): { header: string[]; rows: (string | null)[][]; overlong: number } {
  const [header = [], ...records] = parseCsv(text, { file, fix: "write the fixture as CSV: a header line, then one line per row" });
  const overlong = records.findIndex((record) => record.length > header.length);
  return { header, rows: records.map((record) => header.map((_, i) => record[i] ?? null)), overlong };
}

function csvRows(text: string, label: string, file: string): FixtureRow[] {
  const table = csvTable(text, file);
  if (table.overlong >= 0)
    throw new RenderRefusal(
      `CSV row ${table.overlong + 1} of ${label} has more fields than its header`,
      "give every row the header's columns",
    );
  // An empty CSV cell is NULL for every type (dbt #9881); the text `null` stays text.
  return table.rows.map((row) => Object.fromEntries(table.header.map((column, i) => [column, row[i] === "" ? null : (row[i] ?? null)])));
}

const INT = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const TIMESTAMPTZ = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[-+]\d{2}(:?\d{2})?)$/;

/**
 * The type a column's values imply. For CSV text, dbt's seed inference
 * (integer, double, boolean, date, timestamp, else varchar); for YAML values,
 * their YAML type (dates as written in YAML arrive as ISO text).
 */
export function inferType(values: readonly Value[], csv: boolean): { type: string | null; why: string } {
  const kinds = new Set<string>();
  for (const value of values) {
    if (value === null) continue;
    kinds.add(kindOf(value, csv));
  }
  if (kinds.size === 0) return { type: null, why: "no row gives it a value and its yml declares no data_type" };
  if (kinds.has("LIST")) return { type: null, why: "its values are lists or mappings, whose element types slp does not guess" };
  const has = (...names: string[]) => [...kinds].every((kind) => names.includes(kind));
  if (kinds.size === 1) return { type: [...kinds][0] as string, why: "" };
  if (has("INTEGER", "BIGINT")) return { type: "BIGINT", why: "" };
  if (has("INTEGER", "BIGINT", "DOUBLE")) return { type: "DOUBLE", why: "" };
  if (has("DATE", "TIMESTAMP")) return { type: "TIMESTAMP", why: "" };
  if (csv && has("INTEGER", "BIGINT", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP", "TIMESTAMPTZ", "VARCHAR"))
    return { type: "VARCHAR", why: "" };
  if (has("DATE", "TIMESTAMP", "TIMESTAMPTZ", "VARCHAR")) return { type: "VARCHAR", why: "" };
  return { type: null, why: `its values mix ${[...kinds].sort().join(" and ")}` };
}

function kindOf(value: Value, csv: boolean): string {
  if (typeof value === "boolean") return "BOOLEAN";
  if (typeof value === "number") return Number.isInteger(value) ? (Math.abs(value) < 2 ** 31 ? "INTEGER" : "BIGINT") : "DOUBLE";
  if (typeof value === "string") {
    if (csv) {
      if (INT.test(value)) return Math.abs(Number(value)) < 2 ** 31 ? "INTEGER" : "BIGINT";
      if (DECIMAL.test(value)) return "DOUBLE";
      if (/^(true|false)$/i.test(value)) return "BOOLEAN";
    }
    if (DATE.test(value)) return "DATE";
    if (TIMESTAMP.test(value)) return "TIMESTAMP";
    if (TIMESTAMPTZ.test(value)) return "TIMESTAMPTZ";
    return "VARCHAR";
  }
  return "LIST";
}
