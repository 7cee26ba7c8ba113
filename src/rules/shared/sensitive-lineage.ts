/**
 * Which columns carry a sensitive column's value under another name: the
 * column-level lineage of the marts and of the models upstream of them,
 * each model rendered by slp's own Jinja interpreter (every ref and source
 * a relation of known name) and read by the SQL parser adapter. A column is
 * sensitive where a spec's `sensitive_columns` lists it or its yml marks it
 * `meta: {sensitive: true}` (a model's, a seed's, a source's), and derived
 * sensitive where its value flows from one without a transformation that
 * removes identity (sql/column-lineage.ts). S6 blocks a derived one a mart
 * does not list; review masks every derived name. Lazy: nothing is rendered
 * unless the project marks a column sensitive and has a mart, and only the
 * models whose inputs carry one are read. The answer is cached by the
 * content of every file it can depend on, so an unchanged project pays for
 * a listing.
 */
import { InputError } from "../../core/errors.ts";
import { collapseWhitespace, compareCodePoints } from "../../core/text.ts";
import { canonicalJson, isMapping, isStringList } from "../../core/values.ts";
import type { RefNode, SourceNode, UnitProject } from "../../project/dbt/unit-project.ts";
import { ParseCache } from "../../project/files/cache.ts";
import { projectFolders, ymlIn } from "../../project/nodes/context.ts";
import type { ModelDeclaration } from "../../project/model.ts";
import type { LineageEnvironment } from "../../project/slp/options.ts";
import type { CheckContext } from "../context/check.ts";

export type { LineageEnvironment };

/** The files a rendering can depend on, by name. */
const DBT_INPUT = /\.(sql|ya?ml|csv|py)$/;

/** Bumped when the analysis or the cached shape changes. */
const LINEAGE_FORMAT = 2;

/** A mart column derived from a sensitive one that the mart's spec does not list. */
export interface DerivedColumn {
  model: string;
  column: string;
  /** `fct_orders.contact`, `stg_customers.email`, `source shop.customers.email`: the mart's column first. */
  path: string[];
  /** The `select *` (or `t.*`) that carried it, when one did. */
  star: string | null;
  file: string;
  line: number;
}

/** A construct the lineage cannot follow in a model whose inputs carry a sensitive column. */
export interface LineageRefusal {
  model: string;
  file: string;
  line: number | null;
  construct: string;
}

export interface SensitiveLineage {
  /** Mart columns derived from a sensitive column that their spec does not list, by model then column. */
  unlisted: DerivedColumn[];
  /** Every column name (lower case) of a mart or of a model upstream of one that carries a sensitive value, declared or derived. */
  derivedNames: string[];
  refusals: LineageRefusal[];
}

interface CachedLineage {
  result: SensitiveLineage;
  /** Each env var a render read, with the value it had (null: unset). */
  env: Record<string, string | null>;
  dialect: string;
  /** What decided the dialect, stamped (LineageEnvironment.stamp). */
  dialectInputs: Record<string, string>;
}

const memo = new WeakMap<CheckContext, Promise<SensitiveLineage | null>>();

/** The project's sensitive lineage, once per context; null when nothing in it is sensitive or it has no mart. */
export function sensitiveLineage(ctx: CheckContext): Promise<SensitiveLineage | null> {
  let found = memo.get(ctx);
  if (!found) {
    found = computeLineage(ctx);
    memo.set(ctx, found);
  }
  return found;
}

/** Every name marked sensitive in a model's yml: its spec's list and its columns' meta. */
function declaredOfModel(model: ModelDeclaration | null): string[] {
  if (!model) return [];
  const names = model.columns.filter((column) => column.sensitive).map((column) => column.name);
  const spec = isMapping(model.spec) ? model.spec : null;
  if (spec && isStringList(spec.sensitive_columns)) names.push(...spec.sensitive_columns);
  return names;
}

/** True when any yml check reads, or any yml under the seed paths, marks a column sensitive. */
async function anySensitive(ctx: CheckContext): Promise<boolean> {
  if (ctx.models.some((model) => declaredOfModel(model).length > 0)) return true;
  const { model } = ctx.project;
  const settings = await model.settings();
  const files = [
    ...ctx.project.ymlFiles.map((path) => ({ path })),
    ...ymlIn(await model.list(settings.paths.seed.map((path) => `${path}/`))),
  ];
  for (const file of files) {
    const declared = await model.properties(file);
    for (const entry of [...declared.sources, ...declared.seeds, ...declared.snapshots])
      if (entry.columns.some((column) => column.sensitive)) return true;
  }
  return false;
}

async function computeLineage(ctx: CheckContext): Promise<SensitiveLineage | null> {
  const environment = ctx.project.lineage;
  if (!environment || (ctx.project.marts.size === 0 && ctx.project.martsSql.size === 0) || !(await anySensitive(ctx))) return null;
  const { model } = ctx.project;
  const settings = await model.settings();
  if (settings.file === null) {
    return {
      unlisted: [],
      derivedNames: [],
      refusals: [
        {
          model: "",
          file: "dbt_project.yml",
          line: null,
          construct: "the project has no dbt_project.yml, so its models cannot be rendered to follow a sensitive column",
        },
      ],
    };
  }
  // The key: every file the answer can depend on, by content, and what decides the marts; the dialect is checked by its inputs'
  // stamps, so a warm run never reads the profile.
  const scope = [...projectFolders(settings).map((path) => `${path}/`), `${settings.packagesInstallPath}/`, "dbt_project.yml"];
  // Only what dbt reads: models, macros, yml, seeds (a README or a link beside them is no input, and is never opened).
  const files = (await model.list(scope)).filter((file) => DBT_INPUT.test(file.path));
  const ids: string[] = [];
  for (const file of files) ids.push(`${file.path}\0${model.source.knownId?.(file) ?? (await contentId(model, file))}`);
  const key = ParseCache.key([LINEAGE_FORMAT, canonicalJson([...ctx.project.marts].sort()), canonicalJson(model.vars), ...ids].join("\n"));
  const cached = model.store.derived<CachedLineage>("lineage", key);
  if (
    cached &&
    Object.entries(cached.env).every(([name, value]) => (environment.env[name] ?? null) === value) &&
    Object.entries(cached.dialectInputs).every(([input, stamp]) => environment.stamp(input) === stamp)
  ) {
    model.store.save();
    return cached.result;
  }
  const { dialect, inputs } = await environment.dialect();
  const envRead = new Map<string, string | null>();
  const result = await new Lineage(ctx, dialect, environment.env, envRead).run();
  model.store.rememberDerived<CachedLineage>("lineage", key, { result, env: Object.fromEntries(envRead), dialect, dialectInputs: inputs });
  model.store.save();
  return result;
}

/** A file's content id; one that cannot be read is left to the reader that needs it (which names it), and keys as such. */
async function contentId(model: CheckContext["project"]["model"], file: { path: string }): Promise<string> {
  try {
    return (await model.source.read(file)).id;
  } catch (error) {
    if (error instanceof InputError) return "unreadable";
    throw error;
  }
}

/** A column's sensitivity: the path from it back to the column marked sensitive, and the star that carried it. */
interface Sensitive {
  name: string;
  path: string[];
  star: string | null;
  line: number | null;
}

class Lineage {
  readonly #ctx: CheckContext;
  readonly #dialect: string;
  readonly #env: Record<string, string | undefined>;
  readonly #envRead: Map<string, string | null>;
  #project!: UnitProject;
  readonly #sensitive = new Map<string, Map<string, Sensitive>>();
  readonly #visiting = new Set<string>();
  readonly #refusals: LineageRefusal[] = [];
  #renderer: import("../../sql/dbt-context.ts").DbtRenderer | null = null;

  constructor(ctx: CheckContext, dialect: string, env: Record<string, string | undefined>, envRead: Map<string, string | null>) {
    this.#ctx = ctx;
    this.#dialect = dialect;
    this.#env = env;
    this.#envRead = envRead;
  }

  async run(): Promise<SensitiveLineage> {
    const { readUnitProject } = await import("../../project/dbt/unit-project.ts");
    try {
      this.#project = await readUnitProject(this.#ctx.project.model, this.#ctx.project.dirAsGiven);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      return {
        unlisted: [],
        derivedNames: [],
        refusals: [{ model: "", file: error.file ?? "dbt_project.yml", line: error.line ?? null, construct: error.message }],
      };
    }
    const unlisted: DerivedColumn[] = [];
    const names = new Set<string>();
    // The marts by their yml and by their .sql (one without a yml is S4's, and its columns are judged all the same).
    const marts = [...new Set([...this.#ctx.project.marts, ...this.#ctx.project.martsSql.keys()])].sort(compareCodePoints);
    for (const name of marts) {
      const node = this.#project.refNodes.find((candidate) => candidate.kind === "model" && candidate.name === name && candidate.latest);
      if (!node) continue;
      const declaration = this.#ctx.project.models.get(name);
      const spec = declaration ? this.#ctx.spec(declaration) : null;
      const listed = new Set(
        (spec && isStringList(spec.sensitive_columns) ? spec.sensitive_columns : []).map((column) => column.toLowerCase()),
      );
      for (const [key, column] of await this.sensitiveOf(node)) {
        if (column.path.length < 2 || listed.has(key)) continue;
        unlisted.push({
          model: name,
          column: column.name,
          path: column.path,
          star: column.star,
          file: node.file ?? declaration?.file ?? "",
          line: column.line ?? 1,
        });
      }
    }
    for (const columns of this.#sensitive.values()) for (const key of columns.keys()) names.add(key);
    return {
      unlisted,
      derivedNames: [...names].sort(),
      refusals: this.#refusals,
    };
  }

  label(node: RefNode | SourceNode, column: string): string {
    if (node.kind === "source") return `source ${node.source}.${node.table}.${column}`;
    if (node.kind === "model") return `${node.name}.${column}`;
    return `${node.kind} ${node.name}.${column}`;
  }

  /** The node's sensitive columns by lower-cased name: those its yml marks, then those its SQL derives from its inputs'. */
  async sensitiveOf(node: RefNode | SourceNode): Promise<Map<string, Sensitive>> {
    const known = this.#sensitive.get(node.uniqueId);
    if (known) return known;
    // A cycle (a model reading itself through `this`) adds nothing the first visit does not find.
    if (this.#visiting.has(node.uniqueId)) return new Map();
    this.#visiting.add(node.uniqueId);
    const columns = new Map<string, Sensitive>();
    const declared = node.columns.filter((column) => column.sensitive).map((column) => column.name);
    if (node.kind === "model" && node.declaration && "spec" in node.declaration)
      declared.push(...declaredOfModel(node.declaration as ModelDeclaration));
    for (const name of declared)
      if (!columns.has(name.toLowerCase()))
        columns.set(name.toLowerCase(), { name, path: [this.label(node, name)], star: null, line: null });
    if (node.kind !== "source" && (node.kind === "model" || node.kind === "snapshot")) await this.#derive(node, columns);
    this.#visiting.delete(node.uniqueId);
    this.#sensitive.set(node.uniqueId, columns);
    return columns;
  }

  async #derive(node: RefNode, columns: Map<string, Sensitive>): Promise<void> {
    const parentIds = this.#project.parents.get(node.uniqueId) ?? [];
    const parents = parentIds.map((id) => this.#project.index.byId(id)).filter((parent) => parent !== undefined);
    let carried = false;
    for (const parent of parents) if ((await this.sensitiveOf(parent)).size > 0) carried = true;
    // A ref or source built at render time (`ref(var('x'))`) is no edge of the static DAG: rendering tells what it reads.
    // Such a model is judged only once its rendering shows a sensitive input (a render that fails shows none).
    const dynamic = !carried && (await this.#ctx.project.model.graph()).unresolved.some((edge) => edge.from === node.uniqueId);
    if (!carried && !dynamic) return;
    const refuse = (construct: string, line: number | null) =>
      // On one line: an output line is one finding (a macro's compiler error runs over several).
      this.#refusals.push({ model: node.name, file: node.file ?? node.ymlFile ?? "", line, construct: collapseWhitespace(construct) });
    if (node.language !== "sql" || !node.file) {
      if (dynamic) return;
      refuse(`${node.kind} ${node.name} reads a sensitive column, and slp follows lineage through SQL only`, node.line);
      return;
    }
    const rendered = await this.#render(node);
    if ("error" in rendered) {
      if (dynamic) return;
      refuse(`${node.kind} ${node.name} reads a sensitive column and cannot be rendered to follow it: ${rendered.error}`, rendered.line);
      return;
    }
    if (dynamic) {
      let reads = false;
      for (const input of rendered.relations.values())
        if (input.uniqueId !== node.uniqueId && (await this.sensitiveOf(input)).size > 0) reads = true;
      if (!reads) return;
    }
    const { columnLineage } = await import("../../sql/column-lineage.ts");
    const lineage = columnLineage(rendered.sql, this.#dialect);
    if ("error" in lineage) {
      // A parse error's place is the rendered SQL's: taken back through the Jinja to the model's file.
      const place = lineage.column === undefined ? null : await this.#sourcePlace(node, rendered, lineage.line, lineage.column);
      if (place)
        refuse(
          `${node.kind} ${node.name} reads a sensitive column, and ${lineage.error} (line ${place.line}, column ${place.column})`,
          place.line,
        );
      else refuse(`${node.kind} ${node.name} reads a sensitive column, and ${lineage.error}`, rendered.offset + lineage.line);
      return;
    }
    for (const unresolved of lineage.unresolved)
      refuse(
        `${node.kind} ${node.name} reads a sensitive column, and slp cannot follow its lineage through ${unresolved.construct}`,
        rendered.offset + unresolved.line,
      );
    const inputOf = (relation: string) => rendered.relations.get(relation);
    for (const column of lineage.columns) {
      const key = column.name.toLowerCase();
      if (columns.has(key)) continue;
      for (const origin of column.origins) {
        const input = inputOf(origin.relation);
        if (!input || input.uniqueId === node.uniqueId) continue;
        const upstream = await this.sensitiveOf(input);
        const source = origin.column === "*" ? [...upstream.values()][0] : upstream.get(origin.column.toLowerCase());
        if (!source) continue;
        columns.set(key, {
          name: column.name,
          path: [this.label(node, column.name), ...source.path],
          star: column.star?.text ?? null,
          line: rendered.offset + column.line,
        });
        break;
      }
    }
    for (const through of lineage.passthrough) {
      const input = inputOf(through.relation);
      if (!input || input.uniqueId === node.uniqueId) continue;
      for (const [key, source] of await this.sensitiveOf(input)) {
        // A column the select names itself is judged by what it holds, not by the star.
        if (columns.has(key) || lineage.columns.some((column) => column.name.toLowerCase() === key)) continue;
        columns.set(key, {
          name: source.name,
          path: [this.label(node, source.name), ...source.path],
          star: through.star.text,
          line: rendered.offset + through.star.line,
        });
      }
    }
  }

  /** A line and column of the node's rendered SQL in its file; null when the file cannot be read. */
  async #sourcePlace(
    node: RefNode,
    rendered: { sql: string; offset: number },
    line: number,
    column: number,
  ): Promise<{ line: number; column: number } | null> {
    const [{ readText }, { SourceMap }] = await Promise.all([import("../../project/files/source.ts"), import("../../sql/source-map.ts")]);
    let text: string;
    try {
      text = readText(this.#project.dir, node.file as string);
    } catch {
      return null;
    }
    // A snapshot's SQL is its block's body, `offset` lines into the file.
    const before = text.split("\n").slice(0, rendered.offset).join("\n");
    const source = rendered.offset > 0 ? text.slice(before.length + 1) : text;
    const lines = rendered.sql.split("\n");
    if (line < 1 || line > lines.length) return null;
    const at = lines.slice(0, line - 1).reduce((sum, each) => sum + each.length + 1, 0) + column - 1;
    const map = new SourceMap(source, rendered.sql);
    const place = map.lineColumn(map.sourceOffset(Math.min(at, rendered.sql.length)).offset);
    return { line: place.line + rendered.offset, column: place.column };
  }

  /**
   * The node's SQL as dbt builds it, each ref and source a relation named
   * `__slp_lineage_<n>` so every origin maps back to its node; a snapshot's
   * body from its block. `offset` turns a line of the rendered SQL into one
   * of the file (the lines before a snapshot's block).
   */
  async #render(
    node: RefNode,
  ): Promise<{ sql: string; relations: Map<string, RefNode | SourceNode>; offset: number } | { error: string; line: number | null }> {
    const [{ DbtRenderer, RenderRefusal }, { readText }, { blocks }, { quoteRelation, renderError }, { trimStatement }] = await Promise.all(
      [
        import("../../sql/dbt-context.ts"),
        import("../../project/files/source.ts"),
        import("../../project/nodes/sql-files.ts"),
        import("../../unit/render.ts"),
        import("../../unit/sql.ts"),
      ],
    );
    const { callText } = await import("../../project/dbt/relations.ts");
    const dialect = this.#dialect as import("../../sql/dialect/dialects.ts").Dialect;
    this.#renderer ??= new DbtRenderer(this.#project, { cliVars: {}, env: this.#env, startedAt: new Date(0), adapter: dialect });
    const relations = new Map<string, RefNode | SourceNode>();
    const byId = new Map<string, string>();
    const nameOf = (input: RefNode | SourceNode) => {
      let name = byId.get(input.uniqueId);
      if (name === undefined) {
        name = `__slp_lineage_${byId.size}`;
        byId.set(input.uniqueId, name);
        relations.set(name, input);
      }
      return quoteRelation(name, dialect);
    };
    const envRead = new Map<string, string | null>();
    const session: import("../../sql/dbt-context.ts").RenderSession = {
      testName: node.name,
      thisRelation: nameOf(node),
      overrides: { macros: {}, vars: {}, envVars: {} },
      isIncremental: false,
      config: node.config,
      envRead,
      relation: (call) => {
        const resolved = this.#project.index.resolve(call, node.package);
        if (!("node" in resolved))
          throw new RenderRefusal(
            `model ${node.name} calls ${callText(call)}, which names nothing in the project`,
            "check the name in the model's SQL",
          );
        return nameOf(resolved.node);
      },
    };
    const file = node.file as string;
    try {
      let sql: string;
      let offset = 0;
      if (node.kind === "snapshot") {
        const text = readText(this.#project.dir, file);
        const block = blocks(text, "snapshot").find((candidate) => candidate.name === node.name);
        if (!block) return { error: `no {% snapshot ${node.name} %} block in ${file}`, line: null };
        offset = block.line - 1;
        sql = this.#renderer.renderText(block.body.replace(/^\{%-?[\s\S]*?-?%\}/, ""), file, session, node.package);
      } else {
        sql = this.#renderer.renderFile(file, session, node.package);
      }
      return { sql: trimStatement(sql), relations, offset };
    } catch (error) {
      // A refusal or a template error is named; anything else is slp's own failure and propagates.
      const failure = renderError(error, file);
      return { error: failure.message, line: failure.line };
    } finally {
      for (const [name, value] of envRead) this.#envRead.set(name, value);
    }
  }
}
