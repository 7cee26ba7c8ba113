/**
 * The schemas stage: every input's columns and types as dbt would find them
 * in the warehouse, from the first that applies (issue 12):
 * target/catalog.json while it is not older than the node's files (and its
 * ancestors'); an enforced contract; otherwise the node's own SQL, compiled
 * and bound by DuckDB over empty copies of its inputs, recursively down to
 * sources, seeds and snapshots (dbt's `build --empty`, in-process), with
 * target/manifest.json's and the yml's declared data_types taking precedence
 * per column. A seed's columns are its CSV header with column_types (else
 * dbt's CSV inference); a snapshot adds dbt's scd columns; a source has what
 * its yml declares, or the seed that is the same relation. Declared
 * warehouse types map through the dialect's type table. Inferred schemas are
 * cached by content hash, so a warm run renders and binds nothing.
 */
import { compareCodePoints } from "../core/text.ts";
import { canonicalJson, isMapping, type Mapping } from "../core/values.ts";
import type { Database } from "../engine/duckdb.ts";
import { ParseCache } from "../project/files/cache.ts";
import { blocks } from "../project/nodes/sql-files.ts";
import { callText, type RelationCall } from "../project/dbt/relations.ts";
import { readText } from "../project/files/source.ts";
import type { RefNode, SourceNode, UnitProject } from "../project/dbt/unit-project.ts";
import type { DbtRenderer, RenderSession } from "../sql/dbt-context.ts";
import type { Dialect } from "../sql/dialect/dialects.ts";
import { TRANSLATION_FORMAT } from "../sql/dialect/translator.ts";
import { mapType, type JsonText } from "../sql/dialect/types.ts";
import { isJsonType, unknownJsonText } from "./json-values.ts";
import { csvTable, inferType } from "./fixtures.ts";
import { parseSession, quoteRelation } from "./render.ts";
import { quoteIdentifier, selectAllFrom, withClause } from "./sql.ts";
import type { ColumnSource } from "./types.ts";

/**
 * Bumped when what an inferred schema depends on changes, so an older cache entry is never used.
 * An inference binds translated SQL, so its key also carries the translation's format.
 */
const INFERENCE_FORMAT = 14;

export interface SchemaColumn {
  name: string;
  /** The DuckDB type; null when nothing types the column (a source column declared without a data_type). */
  type: string | null;
  from: ColumnSource | null;
  /** When type is null and the relation's SQL was read: why that SQL does not fix the column's type. */
  untypedWhy?: string;
  /** Why its declared warehouse type has no faithful DuckDB type (the test is then untranslatable). */
  refused?: string;
  /** The line declaring it, in `RelationSchema.file`. */
  line?: number | null;
  /** For a JSON-backed warehouse type (type JSON): how it reads a fixture's text. */
  jsonText?: JsonText;
}

export interface RelationSchema {
  columns: SchemaColumn[];
  /** True when these are all the relation's columns: a key outside them is refused, as dbt refuses it. */
  complete: boolean;
  /** When not complete: why slp lacks the rest, and what to do (`{column}` stands for the column a model reads). */
  gap: string | null;
  fix: string | null;
  /** The yml that declares the columns, for messages. */
  file: string | null;
}

/** What inference found: the columns, or why it could not read them. */
type InferenceOutcome = { columns: Inferred[]; partial?: { gap: string; fix: string } } | { gap: string; fix: string };

/** A cached inference: its outcome, and what it was read from (each input's schema digest, the calls that named nothing, each env var's digest). */
interface CachedSchema {
  outcome: InferenceOutcome;
  reads: Record<string, string>;
  /** Calls that named nothing, and the package that made them. */
  missing: { call: RelationCall; from: string }[];
  env: Record<string, string | null>;
  /** Columns of sources the SQL reads that slp has no type for (see UpstreamSchemas.needed). */
  needs?: Record<string, string[]>;
  /** The inputs known in part it passes through (see UpstreamSchemas.passesThrough). */
  passes?: string[];
}

/** What one inference reads while it runs. */
interface Reading {
  reads: Set<string>;
  missing: { call: RelationCall; from: string }[];
  env: Map<string, string | null>;
  /** Source unique id -> the columns its SQL reads that the source's yml does not list. */
  needs: Map<string, string[]>;
  /** The inputs known in part whose every column the SQL passes through (select *). */
  passes: string[];
}

export interface SchemaSources {
  root: UnitProject;
  renderer: DbtRenderer;
  database: Database;
  dialect: Dialect;
  /** The project's dialect translated for DuckDB (null for a DuckDB project). */
  translate: ((sql: string) => Promise<{ sql: string } | { error: string }>) | null;
  env: Record<string, string | undefined>;
  /** What rendering depends on besides files: --vars. */
  cliVars: Mapping;
  cache: ParseCache<CachedSchema>;
  /** Each source's column names as the project's unit tests give them (source unique id -> names, in first-given order). */
  givenColumns?: ReadonlyMap<string, string[]>;
}

/** Thrown while a node renders when it reads a relation whose schema is not known yet; the render is retried once it is. */
class SchemaNeeded {
  constructor(readonly id: string) {}
}

/** Thrown while a node renders when a ref or source names nothing. */
class MissingRelation {
  constructor(readonly call: RelationCall) {}
}

type Upstream = RefNode | SourceNode;

export class UpstreamSchemas {
  readonly #sources: SchemaSources;
  readonly #memo = new Map<string, Promise<RelationSchema>>();
  readonly #known = new Map<string, RelationSchema>();
  readonly #fresh = new Map<string, boolean>();
  /** Nodes whose inference is under way: reading one of them again is a ref cycle, not a wait. */
  readonly #inProgress = new Set<string>();
  /** Source unique id -> columns the models slp read read of it that its yml does not list (what slp asks the user for). */
  readonly #needs = new Map<string, Set<string>>();
  /** Node unique id -> the inputs known in part whose every column its SQL passes through. */
  readonly #passes = new Map<string, string[]>();

  constructor(sources: SchemaSources) {
    this.#sources = sources;
  }

  #node(id: string): Upstream | undefined {
    return this.#sources.root.index.byId(id);
  }

  /** Opens the cache of inferred schemas of a project. */
  static cache(projectDir: string, env: Record<string, string | undefined>): ParseCache<CachedSchema> {
    return ParseCache.open<CachedSchema>(projectDir, env, "schemas");
  }

  /** The columns of a relation as dbt would find them. */
  of(node: Upstream): Promise<RelationSchema> {
    let schema = this.#memo.get(node.uniqueId);
    if (!schema) {
      schema = this.#compute(node).then((found) => {
        this.#known.set(node.uniqueId, found);
        return found;
      });
      this.#memo.set(node.uniqueId, schema);
    }
    return schema;
  }

  save(): void {
    this.#sources.cache.save();
  }

  /**
   * The columns of each source whose yml lists them not (or not all) that the models slp read for their
   * columns read: by source unique id, sorted. What slp asks for when a test cannot run without them.
   */
  needed(): Map<string, string[]> {
    return new Map([...this.#needs].map(([id, names]) => [id, [...names].sort(compareCodePoints)]));
  }

  /**
   * The sources a node passes every column of through (select *, through models that do the same): a
   * column of the node slp lacks is a column of one of them. Empty when it passes none.
   */
  passesThrough(id: string, seen = new Set<string>()): string[] {
    if (seen.has(id)) return [];
    seen.add(id);
    return (this.#passes.get(id) ?? []).flatMap((input) =>
      this.#node(input)?.kind === "source" ? [input] : this.passesThrough(input, seen),
    );
  }

  #addNeeds(needs: Iterable<[string, readonly string[]]>): void {
    for (const [id, names] of needs) {
      let known = this.#needs.get(id);
      if (!known) {
        known = new Set();
        this.#needs.set(id, known);
      }
      for (const name of names) known.add(name);
    }
  }

  /** Records the columns a source lacks that a model's SQL reads (`extra`: input id -> column names). */
  #noteNeeds(reading: Reading, extra: ReadonlyMap<string, readonly string[]>): void {
    for (const [id, names] of extra) {
      if (this.#node(id)?.kind !== "source" || names.length === 0) continue;
      const known = reading.needs.get(id) ?? [];
      reading.needs.set(id, [...known, ...names.filter((name) => !known.includes(name))]);
    }
  }

  async #compute(node: Upstream): Promise<RelationSchema> {
    const catalog = this.#catalog(node);
    if (catalog) return catalog;
    if (node.kind === "seed") return this.#seed(node);
    if (node.kind === "source") return this.#source(node);
    const declared = this.#declared(node);
    if (node.kind === "model" && node.columnsComplete) return { ...declared, complete: true, gap: null, fix: null };
    const inferred = await this.#infer(node);
    if ("gap" in inferred) {
      // A declared column without a data_type stays untyped: why the SQL did not type it is the cause to name.
      const columns = declared.columns.map((column) =>
        column.type === null && !column.refused ? { ...column, untypedWhy: inferred.gap } : column,
      );
      return { ...declared, columns, complete: false, gap: inferred.gap, fix: inferred.fix };
    }
    // Declared types (dbt's manifest, then the yml) go before what the SQL gives, column by column.
    const byName = new Map(declared.columns.map((column) => [column.name.toLowerCase(), column]));
    const columns = inferred.columns.map((column): SchemaColumn => {
      const own = byName.get(column.name.toLowerCase());
      if (own && (own.type !== null || own.refused)) return { ...own, name: column.name };
      return {
        name: column.name,
        type: column.type,
        from: column.type === null ? null : column.snapshot ? "snapshot" : "inferred",
        ...(column.type === null && column.why ? { untypedWhy: column.why } : {}),
        // DuckDB says JSON, not which of the warehouse's semi-structured types the SQL returns, nor how that type reads text.
        ...(this.#sources.dialect !== "duckdb" && isJsonType(column.type) ? { jsonText: unknownJsonText(this.#sources.dialect) } : {}),
      };
    });
    // SQL passing every column of an input slp knows in part through (select *) has those columns too: known in part.
    const { partial } = inferred;
    return { columns, complete: !partial, gap: partial?.gap ?? null, fix: partial?.fix ?? null, file: declared.file };
  }

  // --- dbt's catalog ---

  #catalog(node: Upstream): RelationSchema | null {
    const { catalog } = this.#sources.root;
    const listed = catalog?.columns.get(node.uniqueId);
    if (!catalog || !listed || !this.#catalogFresh(node.uniqueId, catalog.written)) return null;
    const columns = listed.map((column) => this.#typed(column.name, column.type, "catalog", null));
    return { columns, complete: true, gap: null, fix: null, file: null };
  }

  /** The catalog describes a node until the node's files, or any of its ancestors', change after it. */
  #catalogFresh(id: string, written: number): boolean {
    const known = this.#fresh.get(id);
    if (known !== undefined) return known;
    this.#fresh.set(id, false); // a cycle reads as stale
    const node = this.#node(id);
    const files = node ? [node.file, node.ymlFile].filter((file): file is string => file !== null) : [];
    const fresh =
      this.#sources.root.tree.newest(files) <= written &&
      (this.#sources.root.parents.get(id) ?? []).every((parent) => this.#catalogFresh(parent, written));
    this.#fresh.set(id, fresh);
    return fresh;
  }

  // --- declarations ---

  /** A warehouse type as the DuckDB type with its values, or the reason it has none. */
  #typed(name: string, written: string | null, from: ColumnSource, line: number | null): SchemaColumn {
    if (written === null) return { name, type: null, from: null, line };
    const { dialect } = this.#sources;
    if (dialect === "duckdb") return { name, type: written, from, line };
    const mapped = mapType(written, dialect);
    if (!mapped.ok) return { name, type: null, from: null, refused: `has the ${dialect} type '${written}': ${mapped.why}`, line };
    return { name, type: mapped.type, from, line, ...(mapped.jsonText ? { jsonText: mapped.jsonText } : {}) };
  }

  /** What the yml declares (types from dbt's fresh manifest first): the relation's columns, maybe not all of them. */
  #declared(node: Upstream): RelationSchema {
    const { manifest } = this.#sources.root;
    const entry = manifest && !manifest.stale ? (manifest.nodes[node.uniqueId] ?? manifest.sources[node.uniqueId]) : undefined;
    const manifestColumns = entry && isMapping(entry.columns) ? entry.columns : {};
    const columns = node.columns.map((column) => {
      const fromManifest = manifestColumns[column.name];
      const manifestType =
        isMapping(fromManifest) && typeof fromManifest.data_type === "string" && fromManifest.data_type.trim() !== ""
          ? fromManifest.data_type
          : null;
      if (manifestType !== null) return this.#typed(column.name, manifestType, "manifest", column.line);
      return this.#typed(column.name, column.dataType, "declared", column.line);
    });
    const file = node.kind === "source" ? node.file : node.ymlFile;
    return { columns, complete: false, gap: null, fix: null, file };
  }

  // --- seeds and sources ---

  /** A seed: its CSV header, typed by column_types, else as dbt's seed loader infers them from the values. */
  #seed(node: RefNode): RelationSchema {
    const table = csvTable(readText(this.#sources.root.dir, node.file as string), node.file as string);
    const columns = table.header.map((name, i) => {
      const declared = node.columns.find((column) => column.name.toLowerCase() === name.toLowerCase());
      if (declared?.dataType) return this.#typed(name, declared.dataType, "declared", declared.line);
      const inferred = inferType(
        table.rows.map((row) => (row[i] === "" || row[i] === "null" ? null : (row[i] ?? null))),
        true,
      );
      return { name, type: inferred.type ?? "VARCHAR", from: "seed" as const };
    });
    return { columns, complete: true, gap: null, fix: null, file: node.ymlFile };
  }

  /** A source: its declared columns, or the columns of the seed that is the same relation (a project loading its sources with dbt seed). */
  #source(node: SourceNode): RelationSchema {
    const declared = this.#declared(node);
    const seed = this.#seedOf(node);
    if (seed) {
      const fromSeed = this.#seed(seed);
      const byName = new Map(declared.columns.map((column) => [column.name.toLowerCase(), column]));
      const columns = fromSeed.columns.map((column) => {
        const own = byName.get(column.name.toLowerCase());
        return own && (own.type !== null || own.refused) ? { ...own, name: column.name } : column;
      });
      return { columns, complete: true, gap: null, fix: null, file: node.file };
    }
    const label = callText({ kind: "source", source: node.source, table: node.table });
    const names = declared.columns.map((column) => column.name);
    return {
      ...declared,
      columns: this.#withGivenColumns(node, declared.columns),
      gap: names.length === 0 ? `the yml of ${label} declares no columns` : `the yml of ${label} declares only ${names.join(", ")}`,
      fix: `declare {column} (with its data_type) under the table's columns in ${node.file}, or give it a value in the test's rows`,
    };
  }

  /**
   * A source's declared columns with the others the project's unit tests give it: its warehouse relation
   * has them (dbt would read them there), so a model passing the source's columns through has them too.
   * They stay untyped: another test's values are not the warehouse's type, and a test that reads one
   * untyped runs under every candidate type (typings.ts), or gives it values of its own.
   */
  #withGivenColumns(node: SourceNode, declared: SchemaColumn[]): SchemaColumn[] {
    const given = this.#sources.givenColumns?.get(node.uniqueId) ?? [];
    const listed = new Set(declared.map((column) => column.name.toLowerCase()));
    const others = given.filter((name) => !listed.has(name.toLowerCase()));
    return [...declared, ...others.map((name) => ({ name, type: null, from: null }))];
  }

  /** The seed materializing the relation a source names: same identifier, and its schema is the source's. */
  #seedOf(source: SourceNode): RefNode | null {
    const entry = source.declaration?.entry ?? {};
    const identifier = (typeof entry.identifier === "string" ? entry.identifier : source.table).toLowerCase();
    const sourceEntry = source.declaration && "sourceEntry" in source.declaration ? (source.declaration.sourceEntry as Mapping) : {};
    const written = sourceEntry.schema;
    const schema = (typeof written === "string" ? this.#renderValue(written, source.file) : source.source)?.toLowerCase();
    if (!schema) return null;
    // The relation is database.schema.identifier: a source in another database is another relation, whatever its schema.
    const { database: targetDatabase, schema: target } = TARGET_RELATION;
    const database = (
      typeof sourceEntry.database === "string" ? this.#renderValue(sourceEntry.database, source.file) : targetDatabase
    )?.toLowerCase();
    if (!database) return null;
    for (const project of [this.#sources.root, ...this.#sources.root.packages.values()]) {
      for (const seed of project.refNodes) {
        if (seed.kind !== "seed" || seed.identifier.toLowerCase() !== identifier) continue;
        const seedDatabase = typeof seed.config.database === "string" ? seed.config.database.toLowerCase() : targetDatabase;
        if (seedDatabase !== database) continue;
        const custom = typeof seed.config.schema === "string" ? seed.config.schema.toLowerCase() : null;
        const schemas = custom === null ? [target] : [custom, `${target}_${custom}`];
        if (schemas.includes(schema)) return seed;
      }
    }
    return null;
  }

  #renderValue(text: string, file: string): string | null {
    if (!text.includes("{{") && !text.includes("{%")) return text;
    try {
      return this.#sources.renderer.renderText(text, file, parseSession("source")).trim();
    } catch {
      return null;
    }
  }

  // --- inference: the node's own SQL over empty inputs ---

  async #infer(node: RefNode): Promise<InferenceOutcome> {
    const label = node.kind === "snapshot" ? `snapshot ${node.name}` : `ref('${node.name}')`;
    const cannot = (why: string): InferenceOutcome => ({
      gap: `slp cannot read the columns of ${label} from its SQL: ${why}`,
      fix: `declare its columns with data_types in the yml of ${node.name} (or enforce a contract)`,
    });
    if (!node.file || node.language !== "sql") return cannot("it has no SQL file");
    const text = this.#nodeSql(node);
    if (text === null) return cannot(`no {% snapshot ${node.name} %} block in ${node.file}`);
    const { renderer, cache, dialect, cliVars, root } = this.#sources;
    const key = ParseCache.key(
      [
        INFERENCE_FORMAT,
        TRANSLATION_FORMAT,
        dialect,
        node.uniqueId,
        node.file,
        text,
        canonicalJson(node.config),
        renderer.macroDigest,
        canonicalJson(root.vars),
        canonicalJson(cliVars),
      ].join("\0"),
    );
    const cached = cache.get(key);
    if (cached && (await this.#stillValid(cached))) {
      this.#addNeeds(Object.entries(cached.needs ?? {}));
      if (cached.passes && cached.passes.length > 0) this.#passes.set(node.uniqueId, cached.passes);
      return cached.outcome;
    }
    this.#inProgress.add(node.uniqueId);
    try {
      const reading: Reading = { reads: new Set(), missing: [], env: new Map(), needs: new Map(), passes: [] };
      const outcome = await this.#bind(node, label, text, reading, cannot);
      const reads: Record<string, string> = {};
      for (const id of reading.reads) reads[id] = schemaDigest(this.#known.get(id) as RelationSchema);
      // A failure is as deterministic as a success: it is cached with what it read, and what it found missing.
      cache.set(key, {
        outcome,
        reads,
        missing: reading.missing,
        env: Object.fromEntries([...reading.env].map(([name, value]) => [name, envDigest(value)])),
        needs: Object.fromEntries(reading.needs),
        passes: reading.passes,
      });
      this.#addNeeds(reading.needs);
      if (reading.passes.length > 0) this.#passes.set(node.uniqueId, reading.passes);
      return outcome;
    } finally {
      this.#inProgress.delete(node.uniqueId);
    }
  }

  async #bind(
    node: RefNode,
    label: string,
    text: string,
    reading: Reading,
    cannot: (why: string) => InferenceOutcome,
  ): Promise<InferenceOutcome> {
    const { root } = this.#sources;
    for (const parent of root.parents.get(node.uniqueId) ?? []) {
      const upstream = this.#node(parent);
      if (upstream && !this.#inProgress.has(parent)) await this.of(upstream);
    }
    let sql: string | null = null;
    for (let attempt = 0; attempt < 50 && sql === null; attempt++) {
      try {
        sql = this.#render(node, text, reading);
      } catch (error) {
        if (error instanceof MissingRelation) {
          reading.missing.push({ call: error.call, from: node.package });
          return cannot(`it reads ${callText(error.call)}, which names nothing in the project`);
        }
        if (!(error instanceof SchemaNeeded)) return cannot(`it does not render (${firstLine(error)})`);
        if (this.#inProgress.has(error.id)) return cannot(`it is part of a ref cycle through ${this.#label(error.id)}`);
        await this.of(this.#node(error.id) as Upstream);
      }
    }
    if (sql === null) return cannot("it reads too many relations slp must read first");
    const used = [...reading.reads];
    for (const id of used) {
      const schema = this.#known.get(id) as RelationSchema;
      if (schema.columns.some((column) => column.refused))
        return cannot(`it reads ${this.#label(id)}, a column of which has no DuckDB type`);
    }
    let runnable = sql;
    if (this.#sources.translate) {
      const translated = await this.#sources.translate(sql);
      if ("error" in translated) return cannot(translated.error);
      runnable = translated.sql;
    }
    // Each input an empty relation of its columns, named as the SQL names it (so `stg_orders.id` binds as in the warehouse).
    const untyped = used.some((id) => (this.#known.get(id) as RelationSchema).columns.some((column) => column.type === null));
    // "probe": every column, the untyped ones (and those `extra` adds) as `untypedAs`, and a marker column in each
    // input slp knows only in part, which shows in the output when the SQL passes that input's columns through (select *).
    const bind = async (
      variant: "typed" | "full" | "probe",
      untypedAs: UntypedAs = "VARCHAR",
      extra: ReadonlyMap<string, string[]> = new Map(),
    ): Promise<{ name: string; type: string }[] | { error: string }> => {
      const as = (id: string, name: string) => (typeof untypedAs === "string" ? untypedAs : untypedAs(id, name));
      const ctes = used.map((id) => {
        const schema = this.#known.get(id) as RelationSchema;
        const columns = schema.columns.filter((column) => variant !== "typed" || column.type !== null);
        const typedColumns = columns.map((column) => ({ name: column.name, type: column.type ?? as(id, column.name) }));
        for (const name of extra.get(id) ?? []) typedColumns.push({ name, type: as(id, name) });
        if (variant === "probe" && !schema.complete)
          typedColumns.push({ name: UNKNOWN_COLUMNS, type: typeof untypedAs === "string" ? untypedAs : "VARCHAR" });
        return {
          name: quoteIdentifier(this.#relationName(id)),
          sql: typedColumns.length === 0 ? `select null::INTEGER as ${quoteIdentifier(NO_COLUMN)} limit 0` : probeRelation(typedColumns),
        };
      });
      try {
        return await this.#sources.database.describe(withClause(ctes, selectAllFrom(runnable, "__slp_model")));
      } catch (error) {
        return { error: firstLine(error) };
      }
    };
    const typed = await bind(untyped ? "typed" : "full");
    const incomplete = used.filter((id) => !(this.#known.get(id) as RelationSchema).complete);
    // The input a missing column belongs to: the one slp knows in part, or the one the SQL qualifies it by (`u.x`).
    const owner = (error: string): string | null => {
      if (incomplete.length === 1) return incomplete[0] as string;
      const alias = missingFrom(error);
      return alias === null ? null : (incomplete.find((id) => namesRelation(runnable, this.#relationName(id), alias)) ?? null);
    };
    if ("error" in typed && (untyped || incomplete.length > 0)) {
      const untypedColumns = used.flatMap((id) =>
        (this.#known.get(id) as RelationSchema).columns
          .filter((column) => column.type === null)
          .map((column) => ({ id, name: column.name })),
      );
      const probed = await probeTypes(bind, owner, untypedColumns);
      // What slp needs typed: the columns the SQL reads that the yml does not list, and those it lists without a data_type.
      const declaredUntyped = new Map<string, string[]>();
      for (const column of untypedColumns) declaredUntyped.set(column.id, [...(declaredUntyped.get(column.id) ?? []), column.name]);
      this.#noteNeeds(reading, declaredUntyped);
      this.#noteNeeds(reading, probed.extra);
      if (probed.columns) {
        const from = this.#untypedColumns(used, probed.extra);
        let columns: Inferred[] = probed.columns.map(
          (column): Inferred => (column.type === null ? { ...column, why: `${label} computes it from ${from}` } : column),
        );
        const passes = columns.some((column) => column.name === UNKNOWN_COLUMNS || column.name === NO_COLUMN);
        columns = columns.filter((column) => column.name !== UNKNOWN_COLUMNS && column.name !== NO_COLUMN);
        if (passes) reading.passes.push(...incomplete);
        if (node.kind === "snapshot")
          columns = [...columns, ...snapshotColumns(node, columns).map((column) => ({ ...column, snapshot: true }))];
        return passes ? { columns, partial: this.#passedThrough(label, incomplete) } : { columns };
      }
    }
    const untypedInputs = untyped ? this.#untypedColumns(used, new Map()) : "";
    if ("error" in typed) {
      const missing = missingColumn(typed.error);
      const culprit = missing === null ? null : this.#lacking(used, missing, owner(typed.error));
      if (culprit && missing !== null && culprit.partial) this.#noteNeeds(reading, new Map([[culprit.id, [missing]]]));
      if (culprit) return { gap: `${label} reads column '${missing}' of ${culprit.label}, ${culprit.why}`, fix: culprit.fix };
      return cannot(`DuckDB cannot bind it over empty inputs (${typed.error})`);
    }
    let columns: Inferred[] = typed;
    if (untyped) {
      const full = await bind("full");
      if ("error" in full) return cannot(`DuckDB cannot bind it over empty inputs (${full.error})`);
      // A column only the untyped inputs bring (select *) has no type slp knows.
      const bound = new Set(typed.map((column) => column.name.toLowerCase()));
      columns = full.map((column) =>
        bound.has(column.name.toLowerCase()) ? column : { name: column.name, type: null, why: `${label} takes it from ${untypedInputs}` },
      );
    }
    // The placeholder of an input slp knows no column of reached the output: the SQL passes that input's columns through.
    const placeholder = columns.some((column) => column.name === NO_COLUMN);
    if (placeholder && incomplete.length === 0)
      return cannot("it reads every column of an input whose columns slp does not know (select *)");
    columns = columns.filter((column) => column.name !== NO_COLUMN);
    if (node.kind === "snapshot")
      columns = [...columns, ...snapshotColumns(node, columns).map((column) => ({ ...column, snapshot: true }))];
    // An input slp knows in part (a source's yml is not the warehouse's list) whose columns the SQL passes through: these are some of its columns.
    if (incomplete.length > 0 && (placeholder || (await passesUnknownColumns(bind)))) {
      reading.passes.push(...incomplete);
      return { columns, partial: this.#passedThrough(label, incomplete) };
    }
    return { columns };
  }

  /** Why a node that passes an input's columns through has more columns than slp knows, and what to declare. */
  #passedThrough(label: string, incomplete: readonly string[]): { gap: string; fix: string } {
    const inputs = incomplete.map((id) => this.#label(id)).join(", ");
    // One input: the column is that input's, declared where its own columns are.
    const single = incomplete.length === 1 ? this.#known.get(incomplete[0] as string)?.fix : null;
    return {
      gap: `${label} passes every column of ${inputs} through (select *), and slp knows ${incomplete.length === 1 ? "its" : "their"} columns only in part`,
      fix: single ?? `declare {column} (with its data_type) in the yml of ${label}, or give it a value in the test's rows`,
    };
  }

  /** A cached inference holds while every input it read has the same schema, what it found missing still is, and every env var it read has the same value. */
  async #stillValid(cached: CachedSchema): Promise<boolean> {
    for (const [name, digest] of Object.entries(cached.env)) if (envDigest(this.#sources.env[name] ?? null) !== digest) return false;
    if (cached.missing.some(({ call, from }) => !("missing" in this.#sources.root.index.resolve(call, from)))) return false;
    for (const [id, digest] of Object.entries(cached.reads)) {
      const upstream = this.#node(id);
      if (!upstream || schemaDigest(await this.of(upstream)) !== digest) return false;
    }
    return true;
  }

  /** The SQL dbt builds a node from: a model's file, a snapshot's block. */
  #nodeSql(node: RefNode): string | null {
    const text = readText(this.#sources.root.dir, node.file as string);
    if (node.kind !== "snapshot") return text;
    const block = blocks(text, "snapshot").find((candidate) => candidate.name === node.name);
    return block ? block.body.replace(/^\{%-?[\s\S]*?-?%\}/, "") : null;
  }

  /** Renders a node as dbt builds it, every relation it reads named by the empty relation that stands for it. */
  #render(node: RefNode, text: string, reading: Reading): string {
    const { root, renderer } = this.#sources;
    const used = reading.reads;
    const session: RenderSession = {
      testName: node.name,
      thisRelation: this.#relationText(node.uniqueId),
      overrides: { macros: {}, vars: {}, envVars: {} },
      isIncremental: false,
      config: node.config,
      envRead: reading.env,
      building: {
        name: node.name,
        resourceType: node.kind,
        uniqueId: node.uniqueId,
        config: node.config,
        columnsOf: (relation) => {
          for (const id of used) {
            if (this.#relationText(id) !== relation) continue;
            return (this.#known.get(id)?.columns ?? [])
              .filter((column) => column.type !== null)
              .map((column) => ({ name: column.name, type: column.type as string }));
          }
          return null;
        },
      },
      relation: (call: RelationCall) => {
        const resolved = root.index.resolve(call, node.package);
        if (!("node" in resolved)) throw new MissingRelation(call);
        const id = resolved.node.uniqueId;
        if (!this.#known.has(id)) throw new SchemaNeeded(id);
        used.add(id);
        return this.#relationText(id);
      },
    };
    // A model renders through the renderer's per-file templates (its unit tests render the same file); a snapshot's block is a text of its own.
    return node.kind === "snapshot"
      ? renderer.renderText(text, node.file as string, session, node.package)
      : renderer.renderFile(node.file as string, session, node.package);
  }

  /** How the rendered SQL names a relation, quoted for the dialect. */
  #relationText(id: string): string {
    return quoteRelation(this.#relationName(id), this.#sources.dialect);
  }

  readonly #relationNames = new Map<string, string>();
  readonly #namesTaken = new Set<string>();

  /** The name of the empty relation standing for a node: its identifier, unless another relation has it already. */
  #relationName(id: string): string {
    let name = this.#relationNames.get(id);
    if (!name) {
      const upstream = this.#node(id);
      const identifier = upstream ? identifierOf(upstream) : id;
      name = this.#namesTaken.has(identifier.toLowerCase()) ? `__slp_upstream_${this.#relationNames.size}_${identifier}` : identifier;
      this.#namesTaken.add(name.toLowerCase());
      this.#relationNames.set(id, name);
    }
    return name;
  }

  /** The untyped columns of the inputs (and those their yml does not list, `extra`), for a message. */
  #untypedColumns(used: string[], extra: ReadonlyMap<string, string[]>): string {
    const named: string[] = [];
    for (const id of used) {
      const schema = this.#known.get(id) as RelationSchema;
      const columns = [
        ...schema.columns.filter((column) => column.type === null).map((column) => column.name),
        ...(extra.get(id) ?? []),
      ].map((name) => `'${name}'`);
      if (columns.length === 0) continue;
      const shown = columns.length > 3 ? `${columns.slice(0, 3).join(", ")} and ${columns.length - 3} more` : columns.join(", ");
      named.push(`${columns.length === 1 ? "column" : "columns"} ${shown} of ${this.#label(id)}`);
    }
    return `${named.join(" or ")}, which slp cannot type (no data_type in the yml, and not from its SQL)`;
  }

  /** The input a missing column most likely belongs to: one that has it untyped, or one whose columns slp knows only in part. */
  #lacking(
    used: string[],
    column: string,
    qualified: string | null = null,
  ): { id: string; partial: boolean; label: string; why: string; fix: string } | null {
    const lower = column.toLowerCase();
    for (const id of used) {
      const schema = this.#known.get(id) as RelationSchema;
      const label = this.#label(id);
      const own = schema.columns.find((candidate) => candidate.name.toLowerCase() === lower);
      if (own && own.type === null) {
        return {
          id,
          partial: false,
          label,
          why: `whose yml declares it without a data_type`,
          fix: `give column ${own.name} a data_type in ${schema.file ?? `the yml of ${label}`}`,
        };
      }
    }
    // The SQL names the input it reads the column of (`u.x`): that input, when slp knows it in part.
    for (const id of qualified === null ? used : [qualified, ...used.filter((other) => other !== qualified)]) {
      const schema = this.#known.get(id) as RelationSchema;
      if (!schema.complete)
        return {
          id,
          partial: true,
          label: this.#label(id),
          why: schema.gap ?? "whose columns slp knows only in part",
          fix: schema.fix ?? `declare the column in the yml of ${this.#label(id)}`,
        };
    }
    return null;
  }

  #label(id: string): string {
    const node = this.#node(id);
    if (!node) return id;
    if (node.kind === "source") return callText({ kind: "source", source: node.source, table: node.table });
    return callText({ kind: "ref", package: null, name: node.name, version: node.version !== null && !node.latest ? node.version : null });
  }
}

/** The target slp renders for (dbt-context's target.database and target.schema): where a seed without its own lands. */
const TARGET_RELATION = { database: "memory", schema: "main" };

/** A column as the node's SQL gives it (or dbt's snapshot adds it). */
interface Inferred {
  name: string;
  type: string | null;
  /** When type is null: why the SQL does not fix it. */
  why?: string;
  snapshot?: boolean;
}

/**
 * The types an untyped input column is bound as, to see which output columns
 * keep one type whatever it is: text, integer, fraction, boolean, date, time.
 * Only text casts to every type, so a model casting its input binds as text
 * alone; JSON is a second text type (DuckDB casts it as it casts VARCHAR, but
 * names it apart), so a column that passes the input through shows it.
 */
const PROBE_TYPES = ["VARCHAR", "JSON", "BIGINT", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP"];

/** The type an untyped input column is bound as: one for all, or one per (input id, column), null for an untyped NULL. */
type UntypedAs = string | ((id: string, column: string) => string | null);

type Bind = (
  variant: "probe",
  untypedAs: UntypedAs,
  extra: ReadonlyMap<string, string[]>,
) => Promise<{ name: string; type: string }[] | { error: string }>;

/** The output columns a probe found (null when it found no typing that binds), and the columns it added to the input known in part. */
interface Probed {
  columns: { name: string; type: string | null }[] | null;
  extra: Map<string, string[]>;
}

/**
 * The output columns of SQL that reads input columns nothing types: bound
 * with them as each of PROBE_TYPES, a column whose type is the same in every
 * binding that succeeds (at least two) keeps it; the others are untyped. A
 * column the SQL reads that the one input slp knows only in part does not
 * list is added to it, untyped, as the warehouse relation would have it
 * (found under each probe type in turn, so a column read only where another
 * needs a number or a date is found too). When fewer than two bindings of
 * one type for all succeed (a model that divides one column and truncates
 * another to a day), the columns are typed one at a time (see probeEach).
 */
async function probeTypes(bind: Bind, owner: (error: string) => string | null, untyped: readonly UntypedColumn[]): Promise<Probed> {
  const extra = new Map<string, string[]>();
  discovery: for (const probe of PROBE_TYPES) {
    for (let round = 0; round < MAX_ADDED_COLUMNS; round++) {
      const bound = await bind("probe", probe, extra);
      if (!("error" in bound)) break discovery;
      const missing = missingColumn(bound.error);
      const partial = missing === null ? null : owner(bound.error);
      if (missing === null || partial === null) break;
      const added = extra.get(partial) ?? [];
      if (added.some((name) => name.toLowerCase() === missing.toLowerCase())) break;
      extra.set(partial, [...added, missing]);
    }
  }
  const bindings: { name: string; type: string }[][] = [];
  for (const probe of PROBE_TYPES) {
    const bound = await bind("probe", probe, extra);
    if (!("error" in bound)) bindings.push(bound);
  }
  if (bindings.length < 2) {
    const columns = [...untyped, ...[...extra].flatMap(([id, names]) => names.map((name) => ({ id, name })))];
    return { columns: await probeEach(bind, extra, columns), extra };
  }
  return { columns: agreed(bindings), extra };
}

/** One untyped input column: its input's unique id and its name. */
interface UntypedColumn {
  id: string;
  name: string;
}

/** Output columns whose type is the same in every binding; null when the bindings differ in their columns. */
function agreed(bindings: { name: string; type: string }[][]): { name: string; type: string | null }[] | null {
  const [first, ...others] = bindings;
  if (!first || others.length === 0 || others.some((other) => other.length !== first.length)) return null;
  return first.map((column, i) =>
    others.every((other) => other[i]?.name === column.name && other[i]?.type === column.type) ? column : { name: column.name, type: null },
  );
}

/** At most this many bindings type untyped input columns one at a time. */
const MAX_EACH_BINDINGS = 400;

/**
 * The untyped input columns typed one at a time. First a typing that binds:
 * every column an untyped NULL, then each column in turn given the first
 * probe type that binds or changes DuckDB's complaint (the complaint was
 * about it), until the model binds. Then each column is bound as each other
 * probe type, the rest kept: an output column keeps its type when every
 * binding that succeeds (at least two) gives it that type, so a column the
 * model casts or truncates is typed and one it passes through is not. Null
 * when no typing binds or the bindings run out.
 */
async function probeEach(
  bind: Bind,
  extra: ReadonlyMap<string, string[]>,
  columns: readonly UntypedColumn[],
): Promise<{ name: string; type: string | null }[] | null> {
  if (columns.length === 0) return null;
  const key = (id: string, name: string) => `${id}\0${name.toLowerCase()}`;
  const typing = new Map<string, string | null>(columns.map((column) => [key(column.id, column.name), null]));
  let bindings = 0;
  const bindAs = (assigned: ReadonlyMap<string, string | null>) => {
    bindings++;
    return bind("probe", (id, name) => assigned.get(key(id, name)) ?? null, extra);
  };
  let base = await bindAs(typing);
  const fixed = new Set<string>();
  while ("error" in base && bindings < MAX_EACH_BINDINGS) {
    const complaint = base.error;
    let moved = false;
    for (const column of columns) {
      const at = key(column.id, column.name);
      if (fixed.has(at)) continue;
      for (const probe of PROBE_TYPES) {
        const trial = new Map(typing).set(at, probe);
        const bound = await bindAs(trial);
        // A complaint that names the type just given is about this column now: not progress.
        if ("error" in bound && (bound.error === complaint || mentions(bound.error, probe) > mentions(complaint, probe))) continue;
        typing.set(at, probe);
        fixed.add(at);
        base = bound;
        moved = true;
        break;
      }
      if (moved) break;
    }
    if (!moved) return null;
  }
  if ("error" in base) return null;
  const bound: { name: string; type: string }[][] = [base];
  for (const column of columns) {
    const at = key(column.id, column.name);
    for (const probe of PROBE_TYPES) {
      if (probe === typing.get(at)) continue;
      if (bindings >= MAX_EACH_BINDINGS) return null;
      const trial = await bindAs(new Map(typing).set(at, probe));
      if (!("error" in trial)) bound.push(trial);
    }
  }
  return agreed(bound);
}

/** At most this many columns are added to an input its yml lists in part, one binding each. */
const MAX_ADDED_COLUMNS = 200;

/** How many times DuckDB's message names a type (as it prints it: `'/(VARCHAR, INTEGER_LITERAL)'`). */
function mentions(message: string, type: string): number {
  return message.split(new RegExp(`\\b${type}\\b`)).length - 1;
}

/**
 * True when the SQL passes the columns of an input slp knows only in part through (its marker column
 * reaches the output), under the first probe type that binds; true when none binds (nothing says it does not).
 */
async function passesUnknownColumns(bind: Bind): Promise<boolean> {
  for (const probe of PROBE_TYPES) {
    const bound = await bind("probe", probe, new Map());
    if (!("error" in bound)) return bound.some((column) => column.name === UNKNOWN_COLUMNS);
  }
  return true;
}

/** An empty relation of these columns, each a NULL of its type, or an untyped NULL (DuckDB types it where it is used). */
function probeRelation(columns: readonly { name: string; type: string | null }[]): string {
  return `select ${columns.map((column) => `${column.type === null ? "null" : `cast(null as ${column.type})`} as ${quoteIdentifier(column.name)}`).join(", ")} limit 0`;
}

/** The marker column of an input slp knows only in part: in the output, the SQL passed that input's columns through. */
const UNKNOWN_COLUMNS = "__slp_unknown_columns";

/** The placeholder column of an input slp knows no column of (a table needs one). */
const NO_COLUMN = "__slp_no_column";

function identifierOf(node: Upstream): string {
  if (node.kind === "source") {
    const entry = node.declaration?.entry ?? {};
    return typeof entry.identifier === "string" ? entry.identifier : node.table;
  }
  return node.identifier;
}

/**
 * The columns dbt's snapshot materialization adds (dbt-adapters
 * snapshot_staging_table / build_snapshot_table): the scd id, and the
 * updated-at time three times over, typed like the strategy's updated_at
 * (the column for the timestamp strategy, the current timestamp for check);
 * names from snapshot_meta_column_names; dbt_is_deleted with new_record.
 */
function snapshotColumns(node: RefNode, body: { name: string; type: string | null }[]): { name: string; type: string | null }[] {
  const config = node.config;
  const names = isMapping(config.snapshot_meta_column_names) ? config.snapshot_meta_column_names : {};
  const name = (key: string) => (typeof names[key] === "string" ? (names[key] as string) : key);
  const updatedAt = typeof config.updated_at === "string" && config.strategy !== "check" ? config.updated_at.toLowerCase() : null;
  const timeType = updatedAt === null ? "TIMESTAMP" : (body.find((column) => column.name.toLowerCase() === updatedAt)?.type ?? "TIMESTAMP");
  const added = [
    { name: name("dbt_scd_id"), type: "VARCHAR" },
    { name: name("dbt_updated_at"), type: timeType },
    { name: name("dbt_valid_from"), type: timeType },
    { name: name("dbt_valid_to"), type: timeType },
  ];
  if (config.hard_deletes === "new_record") added.push({ name: name("dbt_is_deleted"), type: "VARCHAR" });
  return added.filter((column) => !body.some((existing) => existing.name.toLowerCase() === column.name.toLowerCase()));
}

/** The column a DuckDB binder error says is missing, or null. */
export function missingColumn(message: string): string | null {
  // DuckDB says the third when the column is missing from the input but the SELECT defines an alias of that name.
  const match =
    /Referenced column "([^"]+)" not found|does not have a column named "([^"]+)"|Column "([^"]+)" referenced that exists in the SELECT clause - but this column cannot be referenced before it is defined/.exec(
      message,
    );
  return match ? ((match[1] ?? match[2] ?? match[3]) as string) : null;
}

/** The table (or alias) a DuckDB binder error says lacks a column (`Table "u" does not have a column named "x"`), or null. */
export function missingFrom(message: string): string | null {
  return /(?:Table|Values list) "([^"]+)" does not have a column named "[^"]+"/.exec(message)?.[1] ?? null;
}

/** True when `alias` is how the SQL names the relation `name`: the name itself, or `name [as] alias` (quoted or not). */
export function namesRelation(sql: string, name: string, alias: string): boolean {
  if (alias.toLowerCase() === name.toLowerCase()) return true;
  const quote = (text: string) => `[\`"]?${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[\`"]?`;
  return new RegExp(`${quote(name)}\\s+(?:as\\s+)?${quote(alias)}(?![\\w\`"])`, "i").test(sql);
}

/** An env var's value as the cache keeps it: a digest, so a secret a model reads is never written to disk. */
function envDigest(value: string | null): string | null {
  return value === null ? null : ParseCache.key(`env\0${value}`);
}

function schemaDigest(schema: RelationSchema): string {
  return ParseCache.key(
    JSON.stringify([
      schema.complete,
      schema.columns.map((column) => [column.name, column.type, column.refused ?? null, column.jsonText ?? null]),
    ]),
  );
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}
