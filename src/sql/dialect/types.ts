/**
 * Warehouse type names as the DuckDB types that hold the same values: the
 * types fixtures are cast to (a column's `data_type`) and the types in a
 * model's casts. A type with no such DuckDB type (Snowflake VARIANT, Redshift
 * SUPER, BigQuery BIGNUMERIC, geography) is refused by name, never approximated.
 */
import type { Dialect } from "./dialects.ts";
import { COMMON_TYPES, type JsonText } from "./type-names.ts";
import { warehouse } from "./warehouses/index.ts";

export type { JsonText } from "./type-names.ts";

/** The DuckDB type every warehouse JSON-backed (semi-structured) type is held as. */
export const JSON_TYPE = "JSON";

/** `jsonText`: for a JSON-backed type, how it reads a fixture's value. */
export type MappedType = { ok: true; type: string; jsonText?: JsonText } | { ok: false; why: string };

/** Whether dbt writes a fixture's mapping or list for the dialect's semi-structured types as Python prints it (JsonText.pythonContainers). */
export function pythonContainers(dialect: Dialect): boolean {
  if (dialect === "duckdb") return false;
  return Object.values(warehouse(dialect).types).some((entry) => entry !== null && "json" in entry && entry.json.pythonContainers === true);
}

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
  /** How the JSON-backed type read reads a fixture's value, when the type read is one. */
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
    const own = this.#dialect === "duckdb" ? undefined : warehouse(this.#dialect).types[name];
    // null: a name the dialect's parent has and it has not.
    const entry = own === null ? undefined : (own ?? COMMON_TYPES[name]);
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
