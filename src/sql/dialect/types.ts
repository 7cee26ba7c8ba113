/**
 * Warehouse type names as the DuckDB types that hold the same values: the
 * types fixtures are cast to (a column's `data_type`) and the types in a
 * model's casts. A type with no such DuckDB type (Snowflake VARIANT, Redshift
 * SUPER, BigQuery BIGNUMERIC, geography) is refused by name, never approximated.
 */
import type { Dialect } from "./dialects.ts";

/** The DuckDB type every warehouse JSON-backed (semi-structured) type is held as. */
export const JSON_TYPE = "JSON";

/** How a warehouse's JSON-backed type reads a text value a fixture gives it (dbt casts the quoted text to the column's type). */
export type JsonText =
  /** The text is a JSON string (Snowflake VARIANT: dbt-snowflake writes cast('<text>' as VARIANT), which holds it as a string). */
  | { kind: "string" }
  /**
   * The text is JSON, parsed (a cast from text that parses it, as Postgres casts text to json). `held`: the text
   * the warehouse then holds, which slp's JSON functions read (src/engine/json-values.ts): jsonb's own text
   * (Postgres jsonb), the text as written (Postgres json); else compact.
   */
  | { kind: "parsed"; held?: "jsonb" | "as written" }
  /** slp does not reproduce how the type reads text: why. */
  | { kind: "refused"; why: string };

/** `jsonText`: for a JSON-backed type, how it reads a fixture's text. */
export type MappedType = { ok: true; type: string; jsonText?: JsonText } | { ok: false; why: string };

/** `unlessSized`: a refusal for the bare name only; with a precision (and scale, else 0) it is that DECIMAL. */
type Scalar =
  | { duckdb: string }
  | { json: JsonText }
  | { decimal: [precision: number, scale: number] }
  | { refuse: string; unlessSized?: true };

const TEXT: Scalar = { duckdb: "VARCHAR" };
const DOUBLE: Scalar = { duckdb: "DOUBLE" };
const SEMI = (what: string): Scalar => ({ refuse: `${what} holds semi-structured values DuckDB has no faithful type for` });
const SPATIAL: Scalar = { refuse: "DuckDB has no built-in spatial type (slp loads no extensions)" };

/** Names shared by most warehouses, each dialect's own entries on top. */
const COMMON: Record<string, Scalar> = {
  boolean: { duckdb: "BOOLEAN" },
  bool: { duckdb: "BOOLEAN" },
  date: { duckdb: "DATE" },
  time: { duckdb: "TIME" },
  timestamp: { duckdb: "TIMESTAMP" },
  varchar: TEXT,
  char: TEXT,
  character: TEXT,
  "character varying": TEXT,
  text: TEXT,
  string: TEXT,
  smallint: { duckdb: "SMALLINT" },
  int: { duckdb: "INTEGER" },
  integer: { duckdb: "INTEGER" },
  bigint: { duckdb: "BIGINT" },
  real: { duckdb: "FLOAT" },
  float: DOUBLE,
  double: DOUBLE,
  "double precision": DOUBLE,
  decimal: { decimal: [18, 0] },
  numeric: { decimal: [18, 0] },
  geography: SPATIAL,
  geometry: SPATIAL,
};

const NUMBER_38: Scalar = { decimal: [38, 0] };

/** dbt-snowflake's safe_cast writes try_cast('<text>' as OBJECT) for text: a reading slp has not verified. */
const SNOWFLAKE_CONTAINER_TEXT = (type: string): JsonText => ({
  kind: "refused",
  why: `it is text, for which dbt-snowflake writes try_cast('<text>' as ${type}), a reading slp has not verified`,
});

const DIALECT_TYPES: Record<Dialect, Record<string, Scalar>> = {
  // https://docs.snowflake.com/en/sql-reference-data-types: integers are NUMBER(38,0); FLOAT is 64-bit.
  snowflake: {
    number: NUMBER_38,
    decimal: NUMBER_38,
    numeric: NUMBER_38,
    int: NUMBER_38,
    integer: NUMBER_38,
    bigint: NUMBER_38,
    smallint: NUMBER_38,
    tinyint: NUMBER_38,
    byteint: NUMBER_38,
    float: DOUBLE,
    float4: DOUBLE,
    float8: DOUBLE,
    real: DOUBLE,
    datetime: { duckdb: "TIMESTAMP" },
    timestamp_ntz: { duckdb: "TIMESTAMP" },
    timestamp_ltz: { duckdb: "TIMESTAMPTZ" },
    timestamp_tz: { duckdb: "TIMESTAMPTZ" },
    binary: { duckdb: "BLOB" },
    varbinary: { duckdb: "BLOB" },
    // https://docs.snowflake.com/en/sql-reference/data-types-semistructured: held as DuckDB JSON (the values of each).
    variant: { json: { kind: "string" } },
    object: { json: SNOWFLAKE_CONTAINER_TEXT("OBJECT") },
    array: { json: SNOWFLAKE_CONTAINER_TEXT("ARRAY") },
    vector: { refuse: "VECTOR has no DuckDB type with the same operations" },
  },
  // https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types
  bigquery: {
    int64: { duckdb: "BIGINT" },
    int: { duckdb: "BIGINT" },
    integer: { duckdb: "BIGINT" },
    smallint: { duckdb: "BIGINT" },
    tinyint: { duckdb: "BIGINT" },
    byteint: { duckdb: "BIGINT" },
    float64: DOUBLE,
    numeric: { decimal: [38, 9] },
    decimal: { decimal: [38, 9] },
    bignumeric: { refuse: "BIGNUMERIC has 76 digits of precision; DuckDB's DECIMAL has at most 38" },
    bigdecimal: { refuse: "BIGDECIMAL has 76 digits of precision; DuckDB's DECIMAL has at most 38" },
    bytes: { duckdb: "BLOB" },
    datetime: { duckdb: "TIMESTAMP" },
    // An absolute instant; slp's DuckDB runs in UTC, as BigQuery's functions do by default.
    timestamp: { duckdb: "TIMESTAMPTZ" },
    interval: { duckdb: "INTERVAL" },
    // JSON text, held compact with its keys sorted, as BigQuery prints a JSON value; dbt-bigquery casts a fixture's
    // text with safe_cast('<text>' as json), a reading slp has not verified.
    json: {
      json: {
        kind: "refused",
        why: "it is text, for which dbt-bigquery writes safe_cast('<text>' as json), a reading slp has not verified",
      },
    },
    range: { refuse: "RANGE has no DuckDB type" },
  },
  // https://docs.databricks.com/en/sql/language-manual/sql-ref-datatypes.html
  databricks: {
    tinyint: { duckdb: "TINYINT" },
    byte: { duckdb: "TINYINT" },
    short: { duckdb: "SMALLINT" },
    long: { duckdb: "BIGINT" },
    float: { duckdb: "FLOAT" },
    real: { duckdb: "FLOAT" },
    dec: { decimal: [10, 0] },
    decimal: { decimal: [10, 0] },
    numeric: { decimal: [10, 0] },
    binary: { duckdb: "BLOB" },
    timestamp: { duckdb: "TIMESTAMPTZ" },
    timestamp_ntz: { duckdb: "TIMESTAMP" },
    timestamp_ltz: { duckdb: "TIMESTAMPTZ" },
    time: { refuse: "Databricks has no TIME type" },
    variant: SEMI("VARIANT"),
    object: SEMI("OBJECT"),
    interval: { refuse: "Databricks year-month and day-time intervals have no one DuckDB type" },
  },
  spark: {},
  // https://docs.aws.amazon.com/redshift/latest/dg/c_Supported_data_types.html
  redshift: {
    int2: { duckdb: "SMALLINT" },
    int4: { duckdb: "INTEGER" },
    int8: { duckdb: "BIGINT" },
    float4: { duckdb: "FLOAT" },
    float8: DOUBLE,
    float: DOUBLE,
    nchar: TEXT,
    bpchar: TEXT,
    nvarchar: TEXT,
    timestamptz: { duckdb: "TIMESTAMPTZ" },
    "timestamp with time zone": { duckdb: "TIMESTAMPTZ" },
    "timestamp without time zone": { duckdb: "TIMESTAMP" },
    timetz: { duckdb: "TIMETZ" },
    varbyte: { duckdb: "BLOB" },
    // SUPER's objects and arrays as their JSON text (compact, as JSON_SERIALIZE prints it); a cast to SUPER is refused where it is written (translate.ts).
    // A text cast to SUPER is a SUPER string (json_parse parses text).
    super: { json: { kind: "string" } },
    hllsketch: { refuse: "HLLSKETCH has no DuckDB type" },
  },
  // https://www.postgresql.org/docs/current/datatype.html
  postgres: {
    int2: { duckdb: "SMALLINT" },
    int4: { duckdb: "INTEGER" },
    int8: { duckdb: "BIGINT" },
    float4: { duckdb: "FLOAT" },
    float8: DOUBLE,
    float: DOUBLE,
    bpchar: TEXT,
    timestamptz: { duckdb: "TIMESTAMPTZ" },
    "timestamp with time zone": { duckdb: "TIMESTAMPTZ" },
    "timestamp without time zone": { duckdb: "TIMESTAMP" },
    timetz: { duckdb: "TIMETZ" },
    "time with time zone": { duckdb: "TIMETZ" },
    "time without time zone": { duckdb: "TIME" },
    bytea: { duckdb: "BLOB" },
    uuid: { duckdb: "UUID" },
    interval: { duckdb: "INTERVAL" },
    // Unconstrained numeric holds any precision; no DuckDB DECIMAL does. NUMERIC(p) has scale 0, NUMERIC(p, s) is exact (PostgreSQL's datatype-numeric page).
    numeric: {
      refuse:
        "numeric without a precision keeps each value's own scale (1.50 stays 1.50, 2 stays 2, and a quotient's scale follows its operands') and any number of digits, where DuckDB's DECIMAL has one scale per column and at most 38 digits (write numeric(p, s))",
      unlessSized: true,
    },
    decimal: {
      refuse:
        "decimal without a precision keeps each value's own scale (1.50 stays 1.50, 2 stays 2, and a quotient's scale follows its operands') and any number of digits, where DuckDB's DECIMAL has one scale per column and at most 38 digits (write decimal(p, s))",
      unlessSized: true,
    },
    // json keeps its text as written; jsonb is held as its own text (keys sorted, ": " and ", "), which a cast to jsonb prints (json.ts).
    json: { json: { kind: "parsed", held: "as written" } },
    jsonb: { json: { kind: "parsed", held: "jsonb" } },
    money: { refuse: "MONEY depends on the server's locale" },
  },
  duckdb: {},
};
DIALECT_TYPES.spark = DIALECT_TYPES.databricks;

/** The DuckDB type holding the values of warehouse type `written`, or why there is none. */
export function mapType(written: string, dialect: Dialect): MappedType {
  if (dialect === "duckdb") return { ok: true, type: written };
  const parser = new TypeParser(written, dialect);
  try {
    const type = parser.type();
    parser.end();
    if (parser.jsonText === null) return { ok: true, type };
    // A JSON-backed type inside a list or a struct would need its fixture values written inside another literal.
    if (type !== JSON_TYPE) return { ok: false, why: `slp holds a semi-structured type only as a whole column, not inside '${written}'` };
    return { ok: true, type, jsonText: parser.jsonText };
  } catch (error) {
    if (error instanceof TypeRefusal) return { ok: false, why: error.message };
    throw error;
  }
}

/** The field names of a `struct<a T, ...>` type as written (without quotes), or null for another type or one slp cannot read. */
export function structFieldNames(written: string, dialect: Dialect): string[] | null {
  if (!/^\s*struct\s*</i.test(written) || !mapType(written, dialect).ok) return null;
  const parser = new TypeParser(written.replace(/^\s*struct/i, ""), dialect);
  return parser.fieldNames();
}

class TypeRefusal extends Error {}

/** A small recursive reader of type names: `name[(p, s)]`, `array<T>`, `struct<a T, ...>`, `map<K, V>`, `T[]`. */
class TypeParser {
  readonly #tokens: string[];
  #at = 0;
  readonly #dialect: Dialect;
  readonly #written: string;
  /** How the JSON-backed type read reads text, when the type read is one. */
  jsonText: JsonText | null = null;

  constructor(written: string, dialect: Dialect) {
    this.#written = written;
    this.#dialect = dialect;
    this.#tokens = written.match(/"(?:[^"]|"")*"|`[^`]*`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),:[\]]/g) ?? [];
  }

  end(): void {
    if (this.#at < this.#tokens.length) throw new TypeRefusal(`slp cannot read the type '${this.#written}'`);
  }

  type(): string {
    const words: string[] = [];
    while (this.#peek() !== undefined && /^[A-Za-z_]/.test(this.#peek() as string)) {
      const word = (this.#peek() as string).toLowerCase();
      if (words.length > 0 && !["precision", "varying", "with", "without", "time", "zone", "local"].includes(word)) break;
      words.push(word);
      this.#at++;
    }
    if (words.length === 0) throw new TypeRefusal(`slp cannot read the type '${this.#written}'`);
    const name = words.join(" ");
    let type: string;
    if (name === "array" && this.#peek() === "<") type = `${this.#between(() => this.type())}[]`;
    else if (name === "map" && this.#peek() === "<") {
      const [key, value] = this.#list(() => this.type());
      if (key === undefined || value === undefined) throw new TypeRefusal(`map<...> in '${this.#written}' needs a key and a value type`);
      type = `MAP(${key}, ${value})`;
    } else if (name === "struct" && this.#peek() === "<") {
      const fields = this.#list(() => {
        const field = this.#take();
        if (field === undefined) throw new TypeRefusal(`a struct field in '${this.#written}' has no name`);
        if (this.#peek() === ":") this.#at++;
        return `${quoteField(field)} ${this.type()}`;
      });
      type = `STRUCT(${fields.join(", ")})`;
    } else {
      const args = this.#peek() === "(" ? this.#parenthesized() : [];
      type = this.#scalar(name, args);
    }
    while (this.#peek() === "[" && this.#tokens[this.#at + 1] === "]") {
      this.#at += 2;
      type = `${type}[]`;
    }
    return type;
  }

  /** `<a T, ...>`: the field names, each type read past. */
  fieldNames(): string[] {
    return this.#list(() => {
      const field = (this.#take() as string).replace(/^[`"]|[`"]$/g, "");
      if (this.#peek() === ":") this.#at++;
      this.type();
      return field;
    });
  }

  #scalar(name: string, args: number[]): string {
    const entry = DIALECT_TYPES[this.#dialect][name] ?? COMMON[name];
    if (!entry) throw new TypeRefusal(`slp has no DuckDB type for the ${this.#dialect} type '${name}'`);
    if ("refuse" in entry && !(entry.unlessSized && args.length > 0)) throw new TypeRefusal(entry.refuse);
    if ("json" in entry) {
      if (args.length > 0) throw new TypeRefusal(`slp cannot read the type '${this.#written}'`);
      this.jsonText = entry.json;
      return JSON_TYPE;
    }
    if ("decimal" in entry || "refuse" in entry) {
      const defaults: [number, number] = "decimal" in entry ? entry.decimal : [38, 0];
      const [precision, scale] = [args[0] ?? defaults[0], args[1] ?? (args.length > 0 ? 0 : defaults[1])];
      if (precision > 38) throw new TypeRefusal(`${name}(${args.join(", ")}) has more digits than DuckDB's DECIMAL holds (38)`);
      return `DECIMAL(${precision},${scale})`;
    }
    // A length on text (varchar(20)) limits what the warehouse stores; DuckDB's VARCHAR holds every such value.
    return entry.duckdb;
  }

  #peek(): string | undefined {
    return this.#tokens[this.#at];
  }

  #take(): string | undefined {
    return this.#tokens[this.#at++];
  }

  #between<T>(read: () => T): T {
    const [only, ...rest] = this.#list(read);
    if (only === undefined || rest.length > 0) throw new TypeRefusal(`array<...> in '${this.#written}' takes one element type`);
    return only;
  }

  /** `<a, b, ...>` read with `read` for each item. */
  #list<T>(read: () => T): T[] {
    if (this.#take() !== "<") throw new TypeRefusal(`slp cannot read the type '${this.#written}'`);
    const items: T[] = [];
    for (;;) {
      items.push(read());
      const next = this.#take();
      if (next === ">") return items;
      if (next !== ",") throw new TypeRefusal(`slp cannot read the type '${this.#written}'`);
    }
  }

  #parenthesized(): number[] {
    this.#at++;
    const args: number[] = [];
    for (;;) {
      const token = this.#take();
      if (token === undefined) throw new TypeRefusal(`slp cannot read the type '${this.#written}'`);
      if (token === ")") return args;
      if (token === ",") continue;
      if (!/^\d+$/.test(token)) {
        // varchar(max), number(*, 2): only a length-like word is accepted, and it means no limit.
        if (/^(max|\*)$/i.test(token)) continue;
        throw new TypeRefusal(`slp cannot read the type '${this.#written}'`);
      }
      args.push(Number(token));
    }
  }
}

function quoteField(name: string): string {
  const bare = name.replace(/^[`"]|[`"]$/g, "");
  return `"${bare.replace(/"/g, '""')}"`;
}
