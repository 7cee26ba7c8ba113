/**
 * The render stage: the tested model's SQL as one test runs it. dbt's
 * compiled code from a fresh target/manifest.json when the test changes
 * nothing rendering depends on; otherwise the model's Jinja rendered with
 * the unit-test context (spec/dbt-unit-tests.md §4), every `ref`/`source`
 * resolved the way dbt resolves it and served by the `given` that stands for
 * the same node, or refused by name. Also how yml values and `format: sql`
 * fixtures are rendered (dbt's parse-time rendering: no overrides, no refs).
 */
import { SlpError } from "../core/errors.ts";
import type { Mapping, Value } from "../core/values.ts";
import { callText, type RelationCall } from "../project/dbt/relations.ts";
import { ambiguityMessage, disabledTargetMessage, RelationIndex, undecidedEnabled } from "../project/dbt/resolve.ts";
import type { RefNode, SourceNode, UnitProject } from "../project/dbt/unit-project.ts";
import { DbtRenderer, RenderRefusal, type RenderSession } from "../sql/dbt-context.ts";
import type { Dialect, DialectChoice } from "../sql/dialect/dialects.ts";
import { TemplateFailure } from "../sql/jinja.ts";
import { compiledModels, type CompiledModels } from "./manifest.ts";
import { relationName, type PlannedInput, type PlannedTest } from "./plan.ts";
import { trimStatement } from "./sql.ts";
import type { TestError } from "./types.ts";

export interface RenderedModel {
  sql: string;
  sqlFrom: "rendered" | "manifest";
  /** Unique ids of the inputs the SQL reads (a given it never reads is never injected). */
  used: Set<string>;
}

export function renderModel(
  plan: PlannedTest,
  root: UnitProject,
  renderer: DbtRenderer,
  compiled: CompiledModels | null,
  dialect: Dialect,
): RenderedModel | { error: TestError } {
  const { test, node, inputs } = plan;
  const used = new Set<string>();
  const mocked = (input: PlannedInput | undefined) => (input && !input.isThis ? input : undefined);
  // dbt compiles a unit test in a world holding only its fixtures (UnitTestManifestLoader,
  // compiled against that manifest): a call the project resolves to a node no given mocks is
  // looked up again there, root first, then the test's package, then every package, so a
  // fixture of another package's node of that name serves it.
  let fixtureWorld: RelationIndex | null = null;
  const servedByFixtureWorld = (call: RelationCall, label: string): PlannedInput | undefined => {
    const given = [...inputs.values()].filter((input) => !input.isThis);
    fixtureWorld ??= new RelationIndex(
      root.index.root,
      given.flatMap((input) => (input.node.kind === "source" ? [] : [input.node])),
      given.flatMap((input) => (input.node.kind === "source" ? [input.node] : [])),
    );
    const found = fixtureWorld.resolve(call, node.package);
    if ("ambiguous" in found) {
      const { message, fix } = ambiguityMessage(call.kind === "ref" ? call.name : label, found.ambiguous);
      throw new RenderRefusal(message, fix);
    }
    return "node" in found ? mocked(inputs.get(found.node.uniqueId)) : undefined;
  };
  const thisInput = inputs.get(node.uniqueId);
  // Quoted, as dbt quotes them (dbt-core #11999): `from{{- ref('x') -}}` must still read a name.
  const quoted = (relation: string) => quoteRelation(relation, dialect);
  const session: RenderSession = {
    testName: test.name,
    thisRelation: thisInput?.isThis ? quoted(thisInput.relation) : null,
    overrides: test.overrides,
    isIncremental: plan.isIncremental,
    config: { tags: test.tags, meta: test.meta, enabled: test.enabled },
    relation: (call: RelationCall) => {
      const label = callText(call);
      const resolved = root.index.resolve(call, node.package);
      if ("ambiguous" in resolved) {
        const { message, fix } = ambiguityMessage(call.kind === "ref" ? call.name : label, resolved.ambiguous);
        throw new RenderRefusal(message, fix);
      }
      if ("missing" in resolved && resolved.disabled)
        throw new RenderRefusal(
          disabledTargetMessage(node, call),
          `enable ${resolved.disabled.name} (${resolved.disabled.file}), or stop calling ${label} (dbt refuses an enabled node that reads a disabled one)`,
        );
      if ("missing" in resolved)
        throw new RenderRefusal(
          `model ${test.model} calls ${label}, which names nothing in the project`,
          "check the name (and the package or version) in the model's SQL",
        );
      const undecided = undecidedEnabled(resolved.node);
      if (undecided) throw new RenderRefusal(undecided.message, undecided.fix);
      const input = mocked(inputs.get(resolved.node.uniqueId)) ?? servedByFixtureWorld(call, label);
      if (!input) {
        throw new RenderRefusal(
          `model ${test.model} calls ${label}, which this test does not mock`,
          `add a given with input: ${label} and its rows (every ref and source the model reads must be mocked)`,
        );
      }
      used.add(input.node.uniqueId);
      return quoted(input.relation);
    },
  };
  if (thisInput?.isThis) used.add(node.uniqueId);
  const fromManifest = compiled?.compiled(test.overrides, node, (id) => {
    const input = inputs.get(id);
    return input && !input.isThis ? quoted(input.relation) : undefined;
  });
  let sql: string;
  try {
    if (fromManifest) {
      for (const id of fromManifest.used) used.add(id);
      sql = fromManifest.sql;
    } else sql = renderer.renderFile(node.file, session, node.package);
  } catch (error) {
    return { error: renderError(error, node.file) };
  }
  if (sql.trim() === "") {
    return {
      error: {
        message: `model ${test.model} renders no SQL`,
        file: node.file,
        line: null,
        fix: "check the model's Jinja: every branch this test takes must produce a SELECT",
      },
    };
  }
  return { sql: trimStatement(sql), sqlFrom: fromManifest ? "manifest" : "rendered", used };
}

/** A model's SQL as a unit test with nothing overridden runs it, or why it cannot be rendered. */
export type UntestedSql = { sql: string; sqlFrom: "rendered" | "manifest" } | { error: TestError };

/**
 * Each model's SQL as a unit test that mocks every input and overrides
 * nothing would run it (each ref and source its CTE, `this` too, dbt's
 * compiled code when target/manifest.json is fresh, is_incremental() false):
 * what `slp mutate --dry-run` lists mutants in, with no unit test read and no
 * database opened.
 */
export function renderModelsUntested(
  project: UnitProject,
  nodes: readonly RefNode[],
  options: { cliVars: Mapping; env: Record<string, string | undefined>; useManifest: boolean; dialect?: DialectChoice },
): Map<string, UntestedSql> {
  const dialect = options.dialect?.dialect ?? "duckdb";
  const renderer = new DbtRenderer(project, { cliVars: options.cliVars, env: options.env, startedAt: new Date(), adapter: dialect });
  const compiled = options.useManifest ? compiledModels(project) : null;
  const mock = (node: RefNode | SourceNode) => quoteRelation(relationName(node), dialect);
  const rendered = new Map<string, UntestedSql>();
  for (const node of nodes) {
    if (!node.file) continue;
    const session: RenderSession = {
      ...parseSession(node.name),
      thisRelation: mock(node),
      isIncremental: false,
      relation: (call) => {
        const resolved = project.index.resolve(call, node.package);
        if (!("node" in resolved))
          throw new RenderRefusal(
            `model ${node.name} calls ${callText(call)}, which names nothing in the project`,
            "check the name (and the package or version) in the model's SQL",
          );
        return mock(resolved.node);
      },
    };
    const fromManifest = compiled?.compiled({ macros: {}, vars: {}, envVars: {} }, node, (id) => {
      const upstream = project.index.byId(id);
      return upstream ? mock(upstream) : undefined;
    });
    try {
      const sql = fromManifest ? fromManifest.sql : renderer.renderFile(node.file, session, node.package);
      rendered.set(
        node.name,
        sql.trim() === ""
          ? {
              error: {
                message: `model ${node.name} renders no SQL`,
                file: node.file,
                line: null,
                fix: "check the model's Jinja: it must produce a SELECT",
              },
            }
          : { sql: trimStatement(sql), sqlFrom: fromManifest ? "manifest" : "rendered" },
      );
    } catch (error) {
      rendered.set(node.name, { error: renderError(error, node.file) });
    }
  }
  return rendered;
}

/** A relation name as the dialect quotes an identifier (backticks for BigQuery and Spark SQL, double quotes elsewhere). */
export function quoteRelation(name: string, dialect: Dialect): string {
  if (dialect === "bigquery" || dialect === "databricks" || dialect === "spark") return `\`${name.replace(/`/g, "\\`")}\``;
  return `"${name.replace(/"/g, '""')}"`;
}

/** A context with nothing mocked: yml values at parse time, `format: sql` fixtures (dbt renders them as plain models). */
export function parseSession(testName: string): RenderSession {
  return {
    testName,
    thisRelation: null,
    overrides: { macros: {}, vars: {}, envVars: {} },
    isIncremental: null,
    config: {},
    relation: (call) => {
      throw new RenderRefusal(
        `${callText(call)} cannot resolve here (inside a format: sql fixture or a yml value)`,
        "write the fixture's SELECT without ref() or source()",
      );
    },
  };
}

/** dbt's native rendering of a yml value: a rendered number, boolean or None becomes that value. */
export function nativeValue(text: string): Value {
  const trimmed = text.trim();
  if (/^[-+]?\d+$/.test(trimmed)) return Number(trimmed);
  if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return Number(trimmed);
  if (trimmed === "True") return true;
  if (trimmed === "False") return false;
  if (trimmed === "None") return null;
  return text;
}

/** What a failed render (or a refusal anywhere before SQL runs) tells the user. */
export function renderError(error: unknown, file: string): TestError {
  if (error instanceof TemplateFailure) {
    const origin = error.origin;
    const fix =
      origin instanceof SlpError && origin.fix
        ? origin.fix
        : "slp renders models with dbt's context (slp unit --help lists what it provides); override the macro in overrides.macros, or simplify the construct";
    return { message: error.message, file: error.file, line: error.line ?? null, fix };
  }
  if (error instanceof SlpError)
    return { message: error.message, file: error.file ?? file, line: error.line ?? null, fix: error.fix ?? null };
  throw error;
}
