/**
 * dbt's Jinja context for a unit test (spec/dbt-unit-tests.md §4): `ref`,
 * `source` and `this` resolve to the fixture relations, `config()` is inert,
 * `var`/`env_var` read the test's overrides first, `is_incremental()` is the
 * override, and the project's macros, installed packages' macros and the dbt
 * macros models commonly call are there by name. Anything else a model
 * reaches for is a named refusal, never a guess.
 */
import { noteEnvValue } from "../core/env-values.ts";
import { SlpError } from "../core/errors.ts";
import { isMapping, pythonStr, type Mapping, type Value } from "../core/values.ts";
import { readText } from "../project/files/source.ts";
import type { UnitProject as DbtProject } from "../project/dbt/unit-project.ts";
import { parseYaml } from "../project/files/yaml.ts";
import { DateTime, dbtModules, UTC_ZONE } from "./dbt-modules.ts";
import { duckdbListagg } from "./dialect/adapter-sql.ts";
import { adapterMacros, dispatchPrefixes } from "./dialect/cross-db.ts";
import type { Dialect } from "./dialect/dialects.ts";
import { notInstalled } from "../project/dbt/package-entries.ts";
import { parseRelationCall, type RelationCall } from "../project/dbt/relations.ts";
import {
  evaluateExpression,
  exposeMembers,
  JinjaTemplate,
  macroReturn,
  printable,
  pythonRange,
  renderedVar,
  splitArgs,
  TEMPLATE_LOOKUP,
  TemplateFailure,
  toJson,
  tuple,
  iterate,
  type JinjaCallable,
  type Scope,
  Undefined,
  Unknowable,
} from "./jinja.ts";

/** A construct a unit test cannot render, with what to do about it. */
export class RenderRefusal extends SlpError {
  constructor(message: string, fix: string) {
    super("E_RENDER", message, { fix });
  }
}

/** What one render of one template needs from the unit test it belongs to. */
export interface RenderSession {
  /** The unit test's name (`model.name` in dbt's unit-test context). */
  testName: string;
  /** The relation a ref/source stands for in this test (a CTE name); throws a RenderRefusal when not mocked. */
  relation(call: RelationCall): string;
  /** `__dbt__cte__<model>` when the test gives `input: this`, else null. */
  thisRelation: string | null;
  overrides: { macros: Mapping; vars: Mapping; envVars: Mapping };
  /** The boolean override of is_incremental, or null when the test sets none. */
  isIncremental: boolean | null;
  /** The unit test's config (tags, meta, enabled). */
  config: Mapping;
  /**
   * Set when a node is rendered as dbt builds it rather than unit tested
   * (reading an upstream's columns): `model` and `config.get` are the node's,
   * `is_incremental()` is false (a first build), and
   * `adapter.get_columns_in_relation` answers for the relations it reads.
   */
  building?: {
    name: string;
    resourceType: string;
    uniqueId: string;
    config: Mapping;
    columnsOf(relation: string): { name: string; type: string }[] | null;
  };
  /** Filled with every env_var() the render reads and what it got (a cached reading is only as good as these). */
  envRead?: Map<string, string | null>;
}

/** What templates may read of a relation (the sandbox shows them nothing else). */
const RELATION_MEMBERS = [
  "information_schema",
  "schema",
  "database",
  "is_cte",
  "identifier",
  "name",
  "table",
  "include",
  "incorporate",
  "quote",
  "render",
  "get",
];

/** A CTE standing in for a relation: prints as its name, has a relation's attributes. */
export class Relation {
  readonly schema = null;
  readonly database = null;
  readonly is_cte = true;
  constructor(readonly identifier: string) {}
  get name(): string {
    return this.identifier;
  }
  get table(): string {
    return this.identifier;
  }
  include(): Relation {
    return this;
  }
  incorporate(): Relation {
    return this;
  }
  quote(): Relation {
    return this;
  }
  render(): string {
    return this.identifier;
  }
  toString(): string {
    return this.identifier;
  }
  /**
   * dbt's relations are mappings of their fields (FakeAPIObject), and
   * `metadata.type` names the class: dbt_utils' _is_relation reads both.
   */
  get(key: unknown, fallback: unknown = null): unknown {
    const name = printable(key);
    if (name === "metadata") return { type: "BaseRelation" };
    const value = exposeMembers(this, RELATION_MEMBERS)(name);
    return value === undefined || name === "get" ? fallback : value;
  }
  /** dbt's relation.information_schema(view): the warehouse's catalog of the relation's database, which a unit test has not got. */
  information_schema(view: unknown = null): never {
    const named = view === null || view === undefined ? "" : `'${printable(view)}'`;
    throw new RenderRefusal(
      `relation.information_schema(${named}) names the warehouse's catalog, which a unit test has not got`,
      "override the macro that reads it in the test's overrides.macros",
    );
  }
  /** What templates may read of a relation; a CTE's schema and database print as nothing (Undefined), not as None. */
  readonly [TEMPLATE_LOOKUP] = (name: string): unknown => exposeMembers(this, RELATION_MEMBERS)(name) ?? undefined;
}

interface MacroFile {
  file: string;
  package: string;
  template?: JinjaTemplate;
  macros?: Map<string, JinjaCallable>;
}

/** The dbt macros slp provides itself, written for DuckDB (dbt-duckdb's behaviour). */
const BUILTINS: Record<string, (...args: any[]) => string> = {
  current_timestamp: () => "now()",
  current_timestamp_backcompat: () => "now()",
  type_string: () => "VARCHAR",
  type_int: () => "INTEGER",
  type_bigint: () => "BIGINT",
  type_float: () => "DOUBLE",
  type_numeric: () => "DECIMAL(28,6)",
  type_timestamp: () => "TIMESTAMP",
  type_boolean: () => "BOOLEAN",
  date_trunc: (datepart, date) => `date_trunc('${datepart}', ${date})`,
  dateadd: (datepart, interval, from) => `date_add(${from}, cast(${interval} as bigint) * interval 1 ${datepart})`,
  datediff: (first, second, datepart) => `date_diff('${datepart}', ${first}, ${second})`,
  concat: (fields) => (Array.isArray(fields) ? fields.map(printable).join(" || ") : printable(fields)),
  safe_cast: (field, type) => `cast(${field} as ${type})`,
  cast: (field, type) => `cast(${field} as ${type})`,
  hash: (field) => `md5(cast(${field} as VARCHAR))`,
  split_part: (text, delimiter, part) => `split_part(${text}, ${delimiter}, ${part})`,
  string_literal: (value) => `'${printable(value)}'`,
  escape_single_quotes: (value) => printable(value).replace(/'/g, "''"),
  // dbt applies a model's sql_header in a unit test only behind a flag (require_sql_header_in_test_configs).
  set_sql_header: () => "",
  any_value: (expression) => `any_value(${expression})`,
  bool_or: (expression) => `bool_or(${expression})`,
  length: (expression) => `length(${expression})`,
  position: (substring, text) => `position(${substring} in ${text})`,
  replace: (field, old, replacement) => `replace(${field}, ${old}, ${replacement})`,
  right: (text, length) => `right(${text}, ${length})`,
  listagg: duckdbListagg,
  intersect: () => "intersect",
  except: () => "except",
};

/**
 * The parameters of each dbt macro slp provides, as dbt declares them (its
 * global project's `macros/utils`): a keyword argument binds by these names,
 * as Jinja binds a macro's, and one the macro does not take is an error.
 */
const PARAMETERS: Record<string, readonly string[]> = {
  date_trunc: ["datepart", "date"],
  dateadd: ["datepart", "interval", "from_date_or_timestamp"],
  datediff: ["first_date", "second_date", "datepart"],
  concat: ["fields"],
  safe_cast: ["field", "type"],
  cast: ["field", "type"],
  hash: ["field"],
  split_part: ["string_text", "delimiter_text", "part_number"],
  string_literal: ["value"],
  escape_single_quotes: ["expression"],
  set_sql_header: ["config"],
  any_value: ["expression"],
  bool_or: ["expression"],
  length: ["expression"],
  position: ["substring_text", "string_text"],
  replace: ["field", "old_chars", "new_chars"],
  right: ["string_text", "length_expression"],
  listagg: ["measure", "delimiter_text", "order_by_clause", "limit_num"],
  intersect: [],
  except: [],
  last_day: ["date", "datepart"],
  cast_bool_to_text: ["field"],
};

/**
 * dbt's macros that compose others (global project, macros/utils): written
 * over the adapter's own dateadd, date_trunc and type_string, as dbt's
 * default__ versions call `dbt.dateadd(...)`, so each adapter's SQL comes out.
 */
function composedMacros(builtins: Record<string, (...args: any[]) => string>): Record<string, (...args: any[]) => string> {
  const call = (name: string, ...args: unknown[]) => (builtins[name] as (...args: unknown[]) => string)(...args);
  return {
    // default_last_day; postgres__last_day adds 3 months for a quarter (Postgres has no quarter interval),
    // which is the same day everywhere, so it is written that way for every adapter.
    last_day: (date, datepart) => {
      const part = printable(datepart);
      const next =
        part === "quarter"
          ? call("dateadd", "month", "3", call("date_trunc", part, date))
          : call("dateadd", part, "1", call("date_trunc", part, date));
      return `cast(${call("dateadd", "day", "-1", next)} as date)`;
    },
    cast_bool_to_text: (field) => `cast(${printable(field)} as ${call("type_string")})`,
  };
}

/** A macro slp provides, called as Jinja calls a macro: positional arguments, then keyword ones by dbt's parameter names. */
function boundByName(name: string, macro: (...args: any[]) => string): (...args: unknown[]) => string {
  const parameters = PARAMETERS[name] ?? [];
  return (...args) => {
    const { positional, keywords } = splitArgs(args);
    if (positional.length > parameters.length) {
      throw new RenderRefusal(
        `macro '${name}' takes not more than ${parameters.length} argument(s)`,
        `pass ${name} at most ${parameters.length} argument(s)${parameters.length > 0 ? ` (${parameters.join(", ")})` : ""}, as dbt's macro declares them`,
      );
    }
    const bound = [...positional];
    for (const [key, value] of Object.entries(keywords)) {
      // A {% call %} block hands the macro its body as `caller`, Jinja's special argument, not one of dbt's.
      if (key === "caller") continue;
      const at = parameters.indexOf(key);
      if (at === -1) {
        const takes = parameters.length === 0 ? "none" : parameters.join(", ");
        throw new RenderRefusal(
          `macro '${name}' takes no keyword argument '${key}' (its parameters: ${takes})`,
          parameters.length === 0
            ? `call ${name} without keyword arguments`
            : `name the argument by one of ${name}'s parameters, as dbt's macro declares them`,
        );
      }
      if (at < positional.length)
        throw new RenderRefusal(`macro '${name}' got multiple values for argument '${key}'`, `give '${key}' once, by position or by name`);
      bound[at] = value;
    }
    return macro(...bound);
  };
}

/** What a model may not do in a unit test, and what to do instead. */
const INTROSPECTION: Record<string, string> = {
  run_query: "run_query runs SQL against the warehouse, which a unit test has not got",
  statement: "{% call statement() %} runs SQL against the warehouse, which a unit test has not got",
  load_result: "load_result reads the result of a statement, which a unit test cannot run",
};

const NODE_CONFIG_DEFAULTS: Mapping = {
  materialized: "unit",
  unique_key: null,
  on_schema_change: "ignore",
  on_configuration_change: "apply",
  incremental_strategy: null,
  full_refresh: null,
  alias: null,
  schema: null,
  database: null,
  persist_docs: {},
  "post-hook": [],
  "pre-hook": [],
  quoting: {},
  column_types: {},
  tags: [],
  meta: {},
  enabled: true,
  grants: {},
  packages: [],
  contract: { enforced: false },
  docs: { show: true },
  sql_header: null,
  batch_size: null,
  lookback: 1,
};

export interface RendererOptions {
  /** `--vars`: above the project's vars, below a test's overrides. */
  cliVars: Mapping;
  /** The process environment env_var() reads. */
  env: Record<string, string | undefined>;
  /** When the run started (run_started_at). */
  startedAt: Date;
  /** The adapter the project runs on (target.type); its cross-database macros are the ones rendered. Default duckdb. */
  adapter?: Dialect;
}

/**
 * Renders the project's templates with dbt's context. One per run: compiled
 * templates and instantiated macros are shared, and the current unit test is
 * set around each render (rendering is synchronous, so one is current at a time).
 */
export class DbtRenderer {
  readonly project: DbtProject;
  readonly #options: RendererOptions;
  readonly #templates = new Map<string, Compiled>();
  /** package -> macro name -> the file defining it. */
  readonly #macroIndex = new Map<string, Map<string, MacroFile>>();
  #session: RenderSession | null = null;
  readonly #scopes = new Map<string, Scope>();
  readonly #namespaces = new Map<string, object>();
  /** dbt's macros slp provides, as the project's adapter writes them. */
  readonly #builtins: Record<string, (...args: any[]) => string>;
  readonly #adapterType: Dialect;

  constructor(project: DbtProject, options: RendererOptions) {
    this.project = project;
    this.#options = options;
    this.#adapterType = options.adapter ?? "duckdb";
    const own = { ...BUILTINS, ...adapterMacros(this.#adapterType) };
    this.#builtins = Object.fromEntries(
      Object.entries({ ...own, ...composedMacros(own) }).map(([name, macro]) => [name, boundByName(name, macro)]),
    );
    this.#indexMacros(project);
    for (const pkg of project.packages.values()) this.#indexMacros(pkg);
  }

  /** Renders a project file (a model) for one unit test; `pkg` is the package it belongs to (its macros come first). */
  renderFile(file: string, session: RenderSession, pkg = this.project.name): string {
    let template = this.#templates.get(file);
    if (!template) {
      template = compileTemplate(readText(this.project.dir, file), file);
      this.#templates.set(file, template);
    }
    return this.#renderWith(template, file, session, pkg);
  }

  /** Renders a text (a `format: sql` fixture, a yml value, a snapshot's body) as if it were in `file`. */
  renderText(text: string, file: string, session: RenderSession, pkg = this.project.name): string {
    return this.#renderWith(compileTemplate(text, file), file, session, pkg);
  }

  /** The value of one Jinja expression written in `file` (a config() argument), in this context, for package `pkg`. */
  evaluate(text: string, file: string, session: RenderSession, pkg = this.project.name): unknown {
    return this.#with(session, () => evaluateExpression(text, file, this.#scope(pkg)).value);
  }

  #renderWith(template: Compiled, file: string, session: RenderSession, pkg: string): string {
    if (
      template instanceof JinjaTemplate ||
      Object.hasOwn(session.overrides.macros, "ref") ||
      Object.hasOwn(session.overrides.macros, "source") ||
      this.#overridesRelations(pkg)
    ) {
      const jinja = template instanceof JinjaTemplate ? template : template.jinja();
      return this.#with(session, () => jinja.render(this.#scope(pkg)));
    }
    // A call of one of dbt's macros slp provides, with literal arguments, is rendered as Jinja would call it when the
    // name means that macro here: no project or package macro of that name, and no test override of it.
    const builtinCalls = template.parts.filter((part) => typeof part !== "string" && "macro" in part) as MacroCall[];
    if (builtinCalls.some((part) => !this.#meansBuiltin(part.macro, session, pkg))) {
      return this.#with(session, () => template.jinja().render(this.#scope(pkg)));
    }
    // A template whose only Jinja is literal ref() and source() calls: dbt's static parser reads it, and so does slp.
    return template.parts
      .map((part) => {
        if (typeof part === "string") return part;
        if ("macro" in part) {
          try {
            return printable((this.#builtins[part.macro] as (...args: unknown[]) => string)(...part.args));
          } catch (error) {
            throw new TemplateFailure((error as Error).message, file, part.line, error);
          }
        }
        try {
          return session.relation(part.call);
        } catch (error) {
          if (error instanceof SlpError) throw new TemplateFailure(error.message, file, part.line, error);
          throw error;
        }
      })
      .join("");
  }

  /**
   * True when the project (or package `pkg`) defines its own `ref` or `source` macro: every call goes through it
   * (dbt then skips its static parser too), so a template of literal calls is rendered by the Jinja engine.
   */
  #overridesRelations(pkg: string): boolean {
    const defines = (owner: string) => this.#macroIndex.get(owner)?.has("ref") || this.#macroIndex.get(owner)?.has("source");
    return Boolean(defines(this.project.name) || (pkg !== this.project.name && defines(pkg)));
  }

  /** True when `name`, called from a template of package `pkg`, is the dbt macro slp provides (as #lookup would find it). */
  #meansBuiltin(name: string, session: RenderSession, pkg: string): boolean {
    const overrides = session.overrides.macros;
    if (Object.hasOwn(overrides, name) || Object.hasOwn(overrides, `dbt.${name}`)) return false;
    return Object.hasOwn(this.#builtins, name) && this.#with(session, () => this.#resolve(name, pkg)) === this.#builtins[name];
  }

  /** A digest of every macro file's text: what a cached rendering depends on besides the model itself. */
  get macroDigest(): string {
    return this.#macroDigest;
  }

  #with<T>(session: RenderSession, run: () => T): T {
    const previous = this.#session;
    this.#session = session;
    try {
      return run();
    } finally {
      this.#session = previous;
    }
  }

  get #current(): RenderSession {
    if (!this.#session) throw new Error("no unit test is being rendered");
    return this.#session;
  }

  #macroDigest = "";

  #indexMacros(project: DbtProject): void {
    const index = new Map<string, MacroFile>();
    for (const file of project.macroFiles) {
      const text = readText(project.dir, file);
      this.#macroDigest = digest(`${this.#macroDigest}\0${file}\0${text}`);
      const entry: MacroFile = { file, package: project.name };
      for (const match of text.matchAll(/\{%-?\s*(macro|test)\s+(\w+)\s*\(/g)) {
        const name = match[1] === "test" ? `test_${match[2]}` : (match[2] as string);
        if (!index.has(name)) index.set(name, entry);
      }
    }
    this.#macroIndex.set(project.name, index);
  }

  /** The macro `name` of package `pkg`, instantiated on first use. */
  #macro(pkg: string, name: string): JinjaCallable | undefined {
    const entry = this.#macroIndex.get(pkg)?.get(name);
    if (!entry) return undefined;
    if (!entry.macros) {
      const owner = pkg === this.project.name ? this.project : this.project.packages.get(pkg);
      // The engine reads dbt's own tags: `{% test %}` defines the macro test_<name>, `{% materialization %}` is skipped.
      const text = readText(owner?.dir ?? this.project.dir, entry.file);
      entry.template ??= new JinjaTemplate(text, entry.file);
      entry.macros = entry.template.macros(this.#scope(pkg));
    }
    return entry.macros.get(name);
  }

  #scope(pkg: string): Scope {
    let scope = this.#scopes.get(pkg);
    if (!scope) {
      scope = { lookup: (name: string) => this.#lookup(name, pkg) };
      this.#scopes.set(pkg, scope);
    }
    return scope;
  }

  /** A bare name, as seen from templates of package `pkg` (spec §4 and §4.1). */
  #lookup(name: string, pkg: string): unknown {
    const session = this.#current;
    const overrides = session.overrides.macros;
    const bare = Object.hasOwn(overrides, name)
      ? name
      : this.#builtins[name] && Object.hasOwn(overrides, `dbt.${name}`)
        ? `dbt.${name}`
        : null;
    const found = this.#resolve(name, pkg);
    if (bare !== null && found !== undefined) return overrideOf(found, overrides[bare] as Value);
    if (found !== undefined) return found;
    // An override's package (dbt_utils in `dbt_utils.star`) is a namespace even when the package is not installed;
    // so is a package packages.yml names but `dbt deps` never installed, whose macros then say so.
    if (
      Object.keys(overrides).some((key) => key.startsWith(`${name}.`)) ||
      this.project.missingPackages.some((entry) => entry.names.includes(name))
    )
      return this.#namespace(name);
    return undefined;
  }

  #resolve(name: string, pkg: string): unknown {
    if (pkg !== this.project.name) {
      const own = this.#macro(pkg, name);
      if (own) return own;
    }
    const macro = this.#macro(this.project.name, name);
    if (macro) return macro;
    const member = this.#member(name, pkg);
    if (member !== undefined) return member;
    if (name === "dbt" || this.project.packages.has(name) || name === this.project.name) return this.#namespace(name);
    if (Object.hasOwn(this.#builtins, name)) return this.#builtins[name];
    // dbt's load_relation(relation) is adapter.get_relation(relation.database, relation.schema, relation.identifier).
    if (name === "load_relation") return () => warehouseAnswer("load_relation");
    if (Object.hasOwn(INTROSPECTION, name))
      return refuser(INTROSPECTION[name] as string, `override the macro that calls ${name} in the test's overrides.macros`);
    return undefined;
  }

  /** `dbt`, an installed package or the project itself, as `pkg.macro`. */
  #namespace(pkg: string): object {
    let namespace = this.#namespaces.get(pkg);
    if (!namespace) {
      // Reached through the sandbox's lookup only: `dbt.x`, `pkg.macro`.
      namespace = { [TEMPLATE_LOOKUP]: (name: string) => this.#qualified(pkg, name) };
      this.#namespaces.set(pkg, namespace);
    }
    return namespace;
  }

  #qualified(pkg: string, name: string): unknown {
    const overrides = this.#current.overrides.macros;
    const real =
      pkg === "dbt"
        ? Object.hasOwn(this.#builtins, name)
          ? this.#builtins[name]
          : name === "is_incremental"
            ? this.#member(name, pkg)
            : undefined
        : this.#macro(pkg, name);
    // A bare-name override wins over the qualified one; both reach dbt.X (spec §4.1).
    const key =
      pkg === "dbt" && Object.hasOwn(overrides, name) ? name : Object.hasOwn(overrides, `${pkg}.${name}`) ? `${pkg}.${name}` : null;
    if (key !== null) return overrideOf(real ?? (() => ""), overrides[key] as Value);
    if (real !== undefined) return real;
    if (pkg === "dbt") {
      return refuser(
        `dbt.${name} is not one of the dbt macros slp provides`,
        `override it in the test's overrides.macros (dbt.${name}: "<SQL>"), or call the DuckDB function directly`,
      );
    }
    if (pkg === "dbt_utils" && name === "star") {
      return refuser(
        "dbt_utils.star cannot list the columns of a fixture (dbt refuses it on a CTE too)",
        'override it: overrides: {macros: {dbt_utils.star: "col_a, col_b"}}',
      );
    }
    const missing = this.#installed(pkg) ? null : notInstalled(pkg, this.project.missingPackages, this.project.packagesInstallPath);
    if (missing) return refuser(`the model calls ${pkg}.${name}, but ${missing.message}`, missing.fix);
    // dbt's namespace of an installed package is a dict: a name it lacks is Jinja's undefined (`is defined` is false),
    // and calling it fails, naming it.
    const installed = this.#installed(pkg);
    const message = installed ? `package ${pkg} has no macro ${name}` : `${pkg}.${name}: no installed package is named ${pkg}`;
    const fix = installed
      ? `call a macro ${pkg} defines, or override ${pkg}.${name} in overrides.macros`
      : `install the package under dbt_packages/ (dbt deps), or override ${pkg}.${name} in overrides.macros`;
    return new Undefined(message, () => {
      throw new RenderRefusal(message, fix);
    });
  }

  /** The context members that are not macros. */
  #member(name: string, pkg: string): unknown {
    const session = this.#current;
    switch (name) {
      case "ref":
        return (...args: unknown[]) => new Relation(session.relation(refCall(args)));
      case "source":
        return (...args: unknown[]) => {
          const { positional } = splitArgs(args);
          if (positional.length !== 2)
            throw new RenderRefusal(
              `source() takes a source name and a table name, got ${positional.length} arguments`,
              "write source('source_name', 'table_name')",
            );
          return new Relation(session.relation({ kind: "source", source: printable(positional[0]), table: printable(positional[1]) }));
        };
      case "this":
        // A relation with attributes, as dbt gives it since dbt-core #12313 (macros read this.identifier).
        return session.thisRelation === null ? MISSING_THIS : new Relation(session.thisRelation);
      case "is_incremental":
        return () => {
          if (session.building) return false;
          if (session.isIncremental === null) {
            throw new RenderRefusal(
              "is_incremental() is reached (through a macro) but the test sets no boolean overrides.macros.is_incremental",
              "add overrides: {macros: {is_incremental: true}} (or false) to the test",
            );
          }
          return session.isIncremental;
        };
      case "config":
        return this.#config(session);
      case "var":
        return (...args: unknown[]) => this.#var(session, args, pkg);
      case "env_var":
        return (...args: unknown[]) => this.#envVar(session, args);
      case "model":
        if (session.building)
          return {
            name: session.building.name,
            resource_type: session.building.resourceType,
            config: session.building.config,
            unique_id: session.building.uniqueId,
          };
        return {
          name: session.testName,
          resource_type: "unit_test",
          config: { materialized: "unit" },
          unique_id: `unit_test.${this.project.name}.${session.testName}`,
        };
      case "execute":
        return true;
      case "target":
        return {
          name: "dev",
          type: this.#adapterType,
          schema: "main",
          database: "memory",
          profile_name: this.project.name,
          threads: 1,
          target_name: "dev",
        };
      case "database":
        return "memory";
      case "schema":
        return "main";
      case "adapter":
        return this.#adapter();
      case "return":
        return macroReturn;
      case "exceptions":
        return {
          raise_compiler_error: (message: unknown) => {
            throw new RenderRefusal(
              // A message built in a {% set %} block starts and ends with its block's newlines.
              `the model raised a compiler error: ${printable(message).trim()}`,
              "give the test inputs or overrides that satisfy the macro's check",
            );
          },
          warn: () => "",
          raise_not_implemented: (message: unknown) => {
            throw new RenderRefusal(`not implemented: ${printable(message)}`, "override the macro in overrides.macros");
          },
        };
      case "log":
      case "print":
        return () => "";
      case "tojson":
        // dbt's tojson(value, default=None, sort_keys=False): json.dumps, Python's separators.
        return (...args: unknown[]) => {
          const { positional, keywords } = splitArgs(args);
          return toJson(positional[0], undefined, Boolean(positional[2] ?? keywords.sort_keys ?? false));
        };
      case "fromjson":
        return (text: unknown) => JSON.parse(printable(text));
      case "fromyaml":
        return (text: unknown) => parseYaml(printable(text), { file: "<fromyaml>" });
      case "zip":
        // Python's zip: tuples, as long as the shortest iterable (none given: none).
        return (...args: unknown[]) => {
          const lists = splitArgs(args).positional.map(iterate);
          const length = lists.length === 0 ? 0 : Math.min(...lists.map((list) => list.length));
          return Array.from({ length }, (_, i) => tuple(lists.map((list) => list[i])));
        };
      case "range":
        return pythonRange;
      case "dict":
        return (...args: unknown[]) => splitArgs(args).keywords;
      case "list":
        return (value: unknown) => (Array.isArray(value) ? [...value] : typeof value === "string" ? [...value] : Object.keys(value ?? {}));
      case "run_started_at":
        return runStartedAt(this.#options.startedAt);
      case "invocation_id":
        return "00000000-0000-0000-0000-000000000000";
      case "flags":
        return { FULL_REFRESH: false, STORE_FAILURES: false, WHICH: "test" };
      case "modules":
        return dbtModules(this.#options.startedAt);
      case "graph":
        return unprovided("graph", "dbt's graph of every node in the project, read at parse time");
      case "api":
        return apiNamespace(this.#adapterType);
      case "builtins":
        // dbt's own ref, source and config, reached past a project's macros of those names (a `ref` macro calling builtins.ref).
        return unprovided("builtins", "dbt's own context members, reached past a project's overrides of them", {
          ref: this.#member("ref", pkg),
          source: this.#member("source", pkg),
          config: this.#member("config", pkg),
        });
      default:
        return undefined;
    }
  }

  #config(session: RenderSession): unknown {
    const config = (..._args: unknown[]) => "";
    const get = (key: unknown, fallback: unknown = null) => {
      const name = printable(key);
      if (session.building)
        return Object.hasOwn(session.building.config, name)
          ? session.building.config[name]
          : Object.hasOwn(NODE_CONFIG_DEFAULTS, name) && name !== "materialized"
            ? NODE_CONFIG_DEFAULTS[name]
            : fallback;
      if (name === "materialized") return "unit";
      if (Object.hasOwn(session.config, name)) return session.config[name];
      if (Object.hasOwn(NODE_CONFIG_DEFAULTS, name)) return NODE_CONFIG_DEFAULTS[name];
      return fallback;
    };
    return Object.assign(config, {
      get: (...args: unknown[]) => {
        const { positional, keywords: named } = splitArgs(args);
        return get(positional[0], positional[1] ?? named.default ?? null);
      },
      require: (key: unknown) => {
        const value = get(key, undefined);
        if (value === undefined || value === null)
          throw new RenderRefusal(
            `config.require('${printable(key)}') has no value in a unit test`,
            `override the macro that reads it in overrides.macros`,
          );
        return value;
      },
    });
  }

  #var(session: RenderSession, args: unknown[], pkg: string): unknown {
    const { positional, keywords: named } = splitArgs(args);
    const name = printable(positional[0]);
    const fallback = positional.length > 1 ? positional[1] : named.default;
    // overrides.vars, then --vars, then the root project's dbt_project.yml (the package's own block, then the
    // global keys), then, for a package, its own dbt_project.yml: the root project's values win.
    const scopedIn = (vars: Mapping) => (isMapping(vars[pkg]) ? (vars[pkg] as Mapping) : {});
    const rootVars = this.project.vars;
    const own = pkg === this.project.name ? null : (this.project.packages.get(pkg)?.vars ?? null);
    const sources = [session.overrides.vars, this.#options.cliVars, scopedIn(rootVars), rootVars, ...(own ? [scopedIn(own), own] : [])];
    for (const source of sources) {
      if (Object.hasOwn(source, name)) return this.#renderedVar(name, source[name], pkg);
    }
    if (positional.length > 1 || Object.hasOwn(named, "default")) return fallback;
    throw new RenderRefusal(
      `Required var '${name}' not found in config`,
      `add ${name} to the test's overrides.vars, or to vars: in dbt_project.yml`,
    );
  }

  /** The vars whose text is being rendered: one that reaches itself is refused rather than recursed into. */
  readonly #varsRendering = new Set<string>();

  /** A var's value as dbt's var() returns it: a string holding Jinja is rendered with the context (renderedVar). */
  #renderedVar(name: string, value: unknown, pkg: string): unknown {
    return renderedVar(name, value, this.#scope(pkg), this.#varsRendering, (message) => {
      throw new RenderRefusal(message, `give ${name} a value that does not read itself`);
    });
  }

  #envVar(session: RenderSession, args: unknown[]): unknown {
    const { positional, keywords: named } = splitArgs(args);
    const name = printable(positional[0]);
    // dbt keeps DBT_ENV_SECRET_* from models; slp keeps them from every template it renders, override or not:
    // a rendered model is printed (its SQL, its failure table) and cached.
    if (name.startsWith("DBT_ENV_SECRET")) {
      throw new RenderRefusal(
        `env_var('${name}') reads a secret (DBT_ENV_SECRET_*), which slp never hands a model, a test or a query it renders`,
        `use a var() instead (the test's overrides.vars, or --vars), or give the value the model needs as a fixture row`,
      );
    }
    if (Object.hasOwn(session.overrides.envVars, name)) return session.overrides.envVars[name];
    const value = this.#options.env[name];
    // Read before any refusal: a cached upstream schema is checked against every variable its render looked at.
    session.envRead?.set(name, value ?? null);
    // CI runs slp with secrets in the environment, and a rendered model is printed (its SQL, its
    // failure table): models get DBT_* variables only, never DBT_ENV_SECRET_* (dbt refuses those in models too).
    const handed = name.startsWith("DBT_") && !name.startsWith("DBT_ENV_SECRET");
    if (value !== undefined && !handed) {
      throw new RenderRefusal(
        `env_var('${name}') is set in the environment, and slp hands models only DBT_* variables (never DBT_ENV_SECRET_*): the environment of a CI run holds secrets`,
        `give the test the value it needs in overrides.env_vars (${name}: ...)`,
      );
    }
    if (value !== undefined) {
      // The value may now reach a failure table, a rendered SQL or a cache: each of them masks it.
      noteEnvValue(name, value);
      return value;
    }
    if (positional.length > 1) return positional[1];
    if (Object.hasOwn(named, "default")) return named.default;
    throw new RenderRefusal(`Env var required but not provided: '${name}'`, `add ${name} to the test's overrides.env_vars`);
  }

  #adapter(): object {
    return {
      type: () => this.#adapterType,
      quote: (identifier: unknown) => quoteIdentifier(this.#adapterType, printable(identifier)),
      dispatch: (...args: unknown[]) => {
        const { positional, keywords: named } = splitArgs(args);
        const name = printable(positional[0] ?? named.macro_name);
        const namespace = positional[1] ?? named.macro_namespace ?? null;
        const packages = positional[2] ?? named.packages ?? null;
        if (packages !== null && packages !== undefined)
          throw new RenderRefusal(
            `adapter.dispatch('${name}') got a packages argument, which dbt no longer accepts (MacroDispatchArgError)`,
            `pass macro_namespace instead, and list the packages to search in dbt_project.yml's dispatch: config`,
          );
        if (name.includes(".")) {
          const [suggestedNamespace, suggestedName] = [name.slice(0, name.indexOf(".")), name.slice(name.indexOf(".") + 1)];
          throw new RenderRefusal(
            `In adapter.dispatch, got a macro name of "${name}", but "." is not a valid macro name component (dbt refuses it too)`,
            `write adapter.dispatch(macro_name="${suggestedName}", macro_namespace="${suggestedNamespace}")`,
          );
        }
        return this.#dispatch(name, namespace === null || namespace === undefined ? null : printable(namespace));
      },
      get_columns_in_relation: (relation: unknown) => {
        const columns = this.#current.building?.columnsOf(printable(relation));
        if (!columns)
          throw new RenderRefusal(
            "adapter.get_columns_in_relation asks the warehouse, which a unit test has not got",
            "override the macro that calls it in overrides.macros",
          );
        return columns.map((column) => columnObject(column.name, column.type, this.#adapterType));
      },
      // dbt asks the warehouse whether the relation exists: its answer is held unread, and refused where it is read.
      get_relation: () => warehouseAnswer("adapter.get_relation"),
      execute: refuser(
        "adapter.execute runs SQL against the warehouse, which a unit test has not got",
        "override the macro that calls it in overrides.macros",
      ),
    };
  }

  /** The project itself, dbt, or an installed package: a name whose missing macro is no missing package's. */
  #installed(pkg: string): boolean {
    return pkg === "dbt" || pkg === this.project.name || this.project.packages.has(pkg);
  }

  /**
   * adapter.dispatch as dbt-core's BaseDatabaseWrapper does it: the search
   * packages are the dispatch config's search_order for the namespace, else
   * [root project, namespace] when the namespace is a loaded project (a
   * package, the root, or dbt), else every macro by name (no namespace, or
   * one that is not installed); in each, `<adapter>__name`, its parents'
   * prefixes, then `default__name`. The calling package plays no part.
   */
  #dispatch(name: string, namespace: string | null): JinjaCallable {
    const rule = namespace === null ? undefined : this.project.dispatch.find((candidate) => candidate.namespace === namespace);
    const order: (string | null)[] =
      namespace === null ? [null] : rule ? rule.searchOrder : this.#installed(namespace) ? [this.project.name, namespace] : [null];
    const tried: string[] = [];
    for (const pkg of order) {
      for (const prefix of dispatchPrefixes(this.#adapterType)) {
        const search = `${prefix}__${name}`;
        tried.push(pkg === null ? search : `${pkg}.${search}`);
        const macro = pkg === null ? this.#macroByName(search) : pkg === "dbt" ? undefined : this.#macro(pkg, search);
        if (macro) return macro;
      }
      // dbt's own implementations (its internal package) are the builtins slp provides, by their macro's name.
      if ((pkg === null || pkg === "dbt") && Object.hasOwn(this.#builtins, name)) return this.#builtins[name] as JinjaCallable;
    }
    const missing =
      namespace === null || this.#installed(namespace)
        ? null
        : notInstalled(namespace, this.project.missingPackages, this.project.packagesInstallPath);
    if (missing) throw new RenderRefusal(`adapter.dispatch('${name}', '${namespace}') found no macro, and ${missing.message}`, missing.fix);
    throw new RenderRefusal(
      `adapter.dispatch('${name}'${namespace ? `, '${namespace}'` : ""}) found none of ${tried.join(", ")}`,
      "install the package that defines it, or override the calling macro in overrides.macros",
    );
  }

  /**
   * A macro by name across the project (dbt's macros_by_name): the root
   * project's wins over packages'; two packages defining it leave dbt's choice
   * to its parse order, so that is refused naming both.
   */
  #macroByName(name: string): JinjaCallable | undefined {
    const root = this.#macro(this.project.name, name);
    if (root) return root;
    const owners = [...this.project.packages.keys()].filter((pkg) => this.#macroIndex.get(pkg)?.has(name));
    if (owners.length > 1)
      throw new RenderRefusal(
        `adapter.dispatch finds ${name} in the packages ${owners.join(" and ")}, and which one dbt takes depends on its parse order`,
        `pass adapter.dispatch a macro_namespace, or define ${name} in the project`,
      );
    return owners.length === 1 ? this.#macro(owners[0] as string, name) : undefined;
  }
}

/**
 * An identifier quoted as the adapter's quote() and Column.quoted quote it:
 * in backticks for dbt-spark, dbt-databricks and dbt-bigquery (in their SQL a
 * double-quoted word is a string), in double quotes elsewhere. A quote
 * character inside is doubled, as the warehouse reads it (dbt leaves it).
 */
function quoteIdentifier(adapter: Dialect, name: string): string {
  return adapter === "spark" || adapter === "databricks" || adapter === "bigquery"
    ? `\`${name.replace(/`/g, "``")}\``
    : `"${name.replace(/"/g, '""')}"`;
}

/** A column as dbt's adapter Column object reads it (name, quoted, data_type, dtype). */
function columnObject(name: string, type: string, adapter: Dialect): object {
  const quoted = quoteIdentifier(adapter, name);
  return {
    name,
    column: name,
    quoted,
    data_type: type,
    dtype: type,
    is_string: () => /char|text|string/i.test(type),
    is_number: () => /int|dec|num|double|float|real/i.test(type),
    toString: () => name,
  };
}

function digest(text: string): string {
  return new Bun.CryptoHasher("sha1").update(text).digest("hex");
}

/** A parsed template, or the pieces of one whose only Jinja is literal ref()/source() calls. */
type Compiled = JinjaTemplate | StaticTemplate;

/** `{{ name('literal', 30) }}`: a macro called with string and integer literals only. */
interface MacroCall {
  macro: string;
  args: (string | number)[];
  line: number;
}

interface StaticTemplate {
  parts: (string | { call: RelationCall; line: number } | MacroCall)[];
  /** The same text parsed by the Jinja engine (when an override of ref or source must be honoured). */
  jinja(): JinjaTemplate;
}

function compileTemplate(text: string, file: string): Compiled {
  const parts = staticParts(text);
  if (!parts) return new JinjaTemplate(text, file);
  let jinja: JinjaTemplate | undefined;
  return { parts, jinja: () => (jinja ??= new JinjaTemplate(text, file)) };
}

/**
 * The pieces of a template whose every `{{ }}` is one ref()/source() call of
 * literals and that has no tag or comment: literal text and calls, with
 * `{{-`/`-}}` trimming the whitespace beside them as Jinja does. Null for
 * any other template (the Jinja engine renders it).
 */
function staticParts(text: string): StaticTemplate["parts"] | null {
  if (text.includes("{%") || text.includes("{#")) return null;
  const parts: StaticTemplate["parts"] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf("{{", at);
    if (open < 0) {
      parts.push(text.slice(at));
      return parts;
    }
    const close = text.indexOf("}}", open + 2);
    if (close < 0) return null;
    let inner = text.slice(open + 2, close);
    const trimBefore = inner.startsWith("-");
    const trimAfter = inner.endsWith("-");
    inner = inner.slice(trimBefore ? 1 : 0, trimAfter ? inner.length - 1 : inner.length);
    const call = parseRelationCall(inner);
    const macro = call ? null : literalCall(inner);
    if (!call && !macro) return null;
    const before = text.slice(at, open);
    const line = text.slice(0, open).split("\n").length;
    parts.push(trimBefore ? before.replace(/\s+$/, "") : before, call ? { call, line } : { ...(macro as Omit<MacroCall, "line">), line });
    at = close + 2;
    if (trimAfter) while (at < text.length && /\s/.test(text[at] as string)) at++;
  }
}

/**
 * `name('day', 30, 'x')`: a call whose every argument is a quoted string
 * without escapes or an integer, as the Jinja engine would pass them; null for
 * anything else (a keyword argument, an expression, a filter).
 */
function literalCall(inner: string): Omit<MacroCall, "line"> | null {
  const match = /^\s*([A-Za-z_]\w*)\s*\(([^()]*)\)\s*$/.exec(inner);
  if (!match) return null;
  const args: (string | number)[] = [];
  const list = (match[2] as string).trim();
  const argument = /\s*(?:'([^'\\]*)'|"([^"\\]*)"|(-?\d+))\s*(,|$)/y;
  while (argument.lastIndex < list.length) {
    const found = argument.exec(list);
    if (!found) return null;
    args.push(found[3] !== undefined ? Number(found[3]) : ((found[1] ?? found[2]) as string));
    if (found[4] === "" && argument.lastIndex < list.length) return null;
  }
  if (list.endsWith(",")) return null;
  return { macro: match[1] as string, args };
}

/** A context value replaced by an override: a macro returns the YAML value verbatim, whatever its arguments. */
function overrideOf(found: unknown, value: Value): unknown {
  return typeof found === "function" ? () => value : value;
}

/**
 * The type labels of each adapter's Column class (dbt-adapters: base Column
 * maps STRING to TEXT, BigQueryColumn TEXT/FLOAT/INTEGER to its own,
 * SparkColumn and so Databricks' translate nothing).
 */
function typeLabels(adapter: Dialect): Record<string, string> | null {
  if (adapter === "bigquery") return { TEXT: "STRING", FLOAT: "FLOAT64", INTEGER: "INT64" };
  if (adapter === "spark" || adapter === "databricks") return null;
  return { STRING: "TEXT" };
}

/** `api`: dbt's adapter classes. Column's translate_type and create are pure; api.Relation would name a warehouse table. */
function apiNamespace(adapter: Dialect): object {
  const labels = typeLabels(adapter);
  const translate = (dtype: unknown) => {
    const type = printable(dtype);
    return labels && Object.hasOwn(labels, type.toUpperCase()) ? (labels[type.toUpperCase()] as string) : type;
  };
  const Column = Object.assign((name: unknown, dtype: unknown) => columnObject(printable(name), printable(dtype), adapter), {
    translate_type: translate,
    create: (name: unknown, dtype: unknown) => columnObject(printable(name), translate(dtype), adapter),
  });
  // BaseRelation.add_ephemeral_prefix: the name dbt gives an ephemeral model's CTE (dbt_utils' _is_ephemeral reads it).
  const Relation = unprovided("api.Relation", "dbt's relation class, of which slp provides add_ephemeral_prefix", {
    add_ephemeral_prefix: (name: unknown) => `__dbt__cte__${printable(name)}`,
  });
  return unprovided("api", "dbt's adapter classes, of which slp provides api.Column and api.Relation.add_ephemeral_prefix", {
    Column,
    Relation,
  });
}

/** A context member dbt has and slp does not: any use of it is a refusal that names it. */
function unprovided(name: string, what: string, provided: Record<string, unknown> = {}): object {
  return {
    [TEMPLATE_LOOKUP]: (member: string) => {
      if (Object.hasOwn(provided, member)) return provided[member];
      throw new RenderRefusal(
        `${name}.${member} is not provided by slp: ${name} is ${what}`,
        "override the macro that reads it in the test's overrides.macros",
      );
    },
    toString: () => {
      throw new RenderRefusal(
        `${name} is not provided by slp: ${name} is ${what}`,
        "override the macro that prints it in the test's overrides.macros",
      );
    },
  };
}

/**
 * What adapter.get_relation answers in a unit test: dbt asks the warehouse
 * (a unit test runs against one), so the relation may or may not exist.
 * Held, it changes nothing (`is_incremental() and relation` with
 * is_incremental false); read, it is a refusal naming the call.
 */
function warehouseAnswer(call: string): Unknowable {
  return new Unknowable(() => {
    throw new RenderRefusal(
      `${call} asks the warehouse whether a relation exists, and the model's SQL depends on the answer, which a unit test has not got`,
      "override the macro that reads it in overrides.macros, or set overrides.macros.is_incremental to false when the lookup only matters to an incremental run",
    );
  });
}

function refuser(message: string, fix: string): JinjaCallable {
  return () => {
    throw new RenderRefusal(message, fix);
  };
}

/** `this` in a test without `input: this`: dbt renders None, which is never valid SQL; say why instead. */
const MISSING_THIS = {
  toString(): string {
    throw new RenderRefusal(
      "the model renders {{ this }}, but the test has no given with input: this",
      "add a given with input: this and the rows the model's own table holds",
    );
  },
};

/** ref('m'), ref('pkg', 'm'), ref('m', v=2), ref('m', version=2). */
function refCall(args: readonly unknown[]): RelationCall {
  const { positional, keywords: named } = splitArgs(args);
  const version = named.v ?? named.version ?? null;
  if (positional.length === 0 || positional.length > 2) {
    throw new RenderRefusal(`ref() takes one or two names, got ${positional.length}`, "write ref('model') or ref('package', 'model')");
  }
  const name = printable(positional[positional.length - 1]);
  return {
    kind: "ref",
    package: positional.length === 2 ? printable(positional[0]) : null,
    name,
    version: version === null ? null : pythonStr(version as Value),
  };
}

/**
 * run_started_at: the run's start as dbt gives it, an aware datetime in UTC
 * (dbt takes `datetime.now(pytz.utc)`): it prints
 * `2026-01-02 03:04:05.678000+00:00` and has a datetime's members
 * (year, hour, tzinfo, astimezone, ...) as Python's does.
 */
function runStartedAt(date: Date): DateTime {
  return new DateTime(date.getTime(), false, UTC_ZONE);
}
