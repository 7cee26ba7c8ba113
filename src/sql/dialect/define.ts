/**
 * One warehouse dialect as data, in sqlglot's shape: everything slp knows of
 * a warehouse (how it reads its SQL's text, its types, the constructs it runs
 * on DuckDB, the SQL its dbt adapter writes, its arithmetic) in one
 * `defineDialect({...})` per file under warehouses/, and a registry
 * (warehouses/index.ts) every reader goes through.
 *
 * A dialect that `extends` another takes each of the parent's parts and
 * overrides it entry by entry, by name (Spark is Databricks with ANSI mode
 * off; Redshift names its types as Postgres, but for those it overrides or
 * has not). A part listed in `notInherited` is the dialect's own whole: a
 * Postgres function is not Redshift's until Redshift's documentation says so,
 * so Redshift's constructs are its own.
 */
import type { Macro } from "./adapter-sql.ts";
import type { Division } from "./arithmetic.ts";
import type { Construct } from "./construct.ts";
import type { Warehouse } from "./dialects.ts";
import type { LexicalRules } from "./lexical-rules.ts";
import type { FormatTable } from "./rewrites.ts";
import type { Scalar } from "./type-names.ts";

/** Where an ORDER BY without NULLS FIRST / LAST puts NULLs, in DuckDB's words (its `default_null_order`). */
export type NullOrder = "nulls_first_on_asc_last_on_desc" | "nulls_last_on_asc_first_on_desc";

/** A warehouse's format elements, for the functions that format dates and times. */
export interface Formats {
  /** A date format's elements (longest first) as strftime codes; a format with anything else is refused. */
  datetime?: FormatTable;
}

/** A fixture as a rule reads it: the input's node name (dbt's fixture model is named after it), its format and its rows as given. */
export interface FixtureToCheck {
  name: string;
  format: "dict" | "csv";
  rows: readonly Record<string, unknown>[];
}

/** A rule a dbt adapter applies to a unit test's fixture rows before the warehouse runs anything (fixture-rules.ts). */
export interface FixtureRule {
  /** kebab-case, as messages name it. */
  name: string;
  /** The adapter macro that raises it. */
  macro: string;
  /** The adapter's error when the fixture's rows break the rule, else null. */
  check(fixture: FixtureToCheck): string | null;
  /** The adapter's code or documentation the rule is from. */
  source: string;
}

/** The parts a dialect inherits from the one it extends, each entry by entry. */
export interface DialectParts {
  lexical: LexicalRules;
  /** Where NULLs sort when an ORDER BY does not say. */
  nullOrder: NullOrder;
  /** Whether an integer divided by an integer is an integer (DuckDB's `integer_division`). */
  integerDivision: boolean;
  /** Type names as the DuckDB types that hold them (on top of type-names.ts's COMMON_TYPES); null: not a type of this dialect (one its parent has). */
  types: Record<string, Scalar | null>;
  /** The construct table: each construct, how it runs on DuckDB, and its documented examples (a later entry of a name replaces an earlier one). */
  constructs: Construct[];
  /** The cross-database macros the adapter writes its own way (cross-db.ts). */
  crossDbMacros: Record<string, Macro>;
  formats: Formats;
  division: Division;
  fixtureRules: FixtureRule[];
}

type Part = keyof DialectParts;

interface Naming {
  name: Warehouse;
  /** The dialect the transpiler reads for this one. */
  transpiler: string;
  /** The dbt adapters whose macros this adapter's `adapter.dispatch` falls back to, before `default` (dbt-redshift: postgres). */
  adapterInherits: string[];
}

/** A child's parts: each overrides the parent's entry by entry (an object part key by key). */
type Overrides = {
  [K in Part]?: DialectParts[K] extends unknown[]
    ? DialectParts[K]
    : DialectParts[K] extends object
      ? Partial<DialectParts[K]>
      : DialectParts[K];
};

export type DialectDefinition = (Naming & DialectParts) | (Naming & Overrides & { extends: WarehouseDialect; notInherited?: Part[] });

export interface WarehouseDialect extends Naming, DialectParts {
  extends: WarehouseDialect | null;
  /** The parts taken from the parent, entry by entry. */
  inherited: Part[];
  /** The constructs this dialect's own file writes (all of them, unless it inherits the parent's). */
  ownConstructs: Construct[];
}

const PARTS: Part[] = [
  "lexical",
  "nullOrder",
  "integerDivision",
  "types",
  "constructs",
  "crossDbMacros",
  "formats",
  "division",
  "fixtureRules",
];

export function defineDialect(definition: DialectDefinition): WarehouseDialect {
  const own: Naming & Overrides = definition;
  const parent = "extends" in definition ? definition.extends : null;
  const inherited = parent ? PARTS.filter((part) => !("notInherited" in definition && definition.notInherited?.includes(part))) : [];
  /** One part: the parent's (when inherited) with this dialect's entries over it. */
  function part<K extends Part>(name: K): DialectParts[K] {
    const from: unknown = parent && inherited.includes(name) ? parent[name] : undefined;
    const over: unknown = own[name];
    if (over === undefined) {
      if (from === undefined) throw new Error(`the ${own.name} dialect defines no ${name}`);
      return from as DialectParts[K];
    }
    if (from === undefined) return over as DialectParts[K];
    if (name === "fixtureRules") {
      const mine = over as FixtureRule[];
      return [...(from as FixtureRule[]).filter((rule) => !mine.some((kept) => kept.name === rule.name)), ...mine] as DialectParts[K];
    }
    if (Array.isArray(from)) return [...from, ...(over as unknown[])] as DialectParts[K];
    if (typeof from === "object" && from !== null) return { ...from, ...(over as object) } as DialectParts[K];
    return over as DialectParts[K];
  }
  return {
    name: own.name,
    transpiler: own.transpiler,
    adapterInherits: own.adapterInherits,
    extends: parent,
    inherited,
    lexical: part("lexical"),
    nullOrder: part("nullOrder"),
    integerDivision: part("integerDivision"),
    types: part("types"),
    constructs: part("constructs"),
    ownConstructs: own.constructs ?? [],
    crossDbMacros: part("crossDbMacros"),
    formats: part("formats"),
    division: part("division"),
    fixtureRules: part("fixtureRules"),
  };
}
