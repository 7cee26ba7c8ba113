/**
 * The plan stage: which unit tests run and what each one reads. Tests come
 * from the project and its installed packages (dbt runs a package's unit
 * tests too), are chosen with dbt's selector syntax, and each test's model
 * and `given` inputs are resolved to the nodes they stand for, with dbt's
 * parse-time refusals (an input that is not a ref/source/this call, one that
 * names nothing, a missing is_incremental override or `this` input).
 */
import { compareCodePoints } from "../core/text.ts";
import type { Value } from "../core/values.ts";
import { parseRelationCall, type RelationCall } from "../project/dbt/relations.ts";
import { ambiguityMessage, undecidedEnabled } from "../project/dbt/resolve.ts";
import { selectNodes, SelectorError, splitCriteria, type SelectableNode } from "../project/dbt/select.ts";
import { readText } from "../project/files/source.ts";
import type { RefNode, SourceNode, UnitProject } from "../project/dbt/unit-project.ts";
import { readUnitTests, type DisabledTest, type GivenDefinition, type UnitTestDefinition } from "../project/dbt/unit-test-definitions.ts";
import { cteName } from "./sql.ts";
import type { TestError, UnitResult } from "./types.ts";

/** One `given`, resolved: the node it stands for and the relation the model reads it by. */
export interface PlannedInput {
  given: GivenDefinition;
  /** The input as written, trimmed (messages). */
  label: string;
  node: RefNode | SourceNode;
  /** `input: this`: the tested model's own relation. */
  isThis: boolean;
  /** The CTE name dbt gives it. */
  relation: string;
}

export interface PlannedTest {
  test: UnitTestDefinition;
  /** The package (or project) the test belongs to. */
  owner: UnitProject;
  node: RefNode & { file: string };
  /** Inputs by the unique id of the node they stand for. */
  inputs: Map<string, PlannedInput>;
  /** The test's boolean is_incremental override, or null. */
  isIncremental: boolean | null;
}

export interface TestSet {
  tests: UnitTestDefinition[];
  disabled: DisabledTest[];
  /** Each test's package. */
  owners: Map<UnitTestDefinition, UnitProject>;
  /**
   * A `config(tags=<Jinja>)` the project model could not judge (it reads the
   * profile's target.type, a macro), evaluated in the run's dbt context: its
   * tags, or null when it is not a list of strings or cannot be evaluated.
   */
  judgeTags?: (text: string, file: string, pkg: string) => string[] | null;
}

/** Every unit test of the project and of its installed packages, read with dbt's parse rules. */
export function readTestSet(project: UnitProject, render: (text: string, file: string) => Value): TestSet {
  const tests: UnitTestDefinition[] = [];
  const disabled: DisabledTest[] = [];
  const owners = new Map<UnitTestDefinition, UnitProject>();
  for (const owner of [project, ...project.packages.values()]) {
    const set = readUnitTests(owner, render);
    for (const test of set.tests) owners.set(test, owner);
    tests.push(...set.tests);
    disabled.push(...set.disabled);
  }
  return { tests, disabled, owners };
}

/** No unit test is left after --select and --exclude: nothing ran, and nothing ran is not a pass. */
export class NothingSelected extends SelectorError {
  constructor(select: readonly string[], exclude: readonly string[]) {
    const what = [select.length > 0 ? `--select ${select.join(" ")}` : "", exclude.length > 0 ? `--exclude ${exclude.join(" ")}` : ""]
      .filter(Boolean)
      .join(" ");
    super(
      `no unit test is selected by ${what}`,
      "select a model, a unit test (or model::test), tag:, path:, package:, test_name:, with + and @ for the DAG",
    );
  }
}

/** The tests `select` and `exclude` choose, sorted by model, name and file (dbt's selector syntax; empty select: all). */
export function selectTests(
  project: UnitProject,
  set: TestSet,
  select: readonly string[],
  exclude: readonly string[],
): UnitTestDefinition[] {
  const chosen = select.length === 0 && exclude.length === 0 ? set.tests : chooseTests(project, set, select, exclude);
  if (chosen.length === 0 && (select.length > 0 || exclude.length > 0)) throw new NothingSelected(select, exclude);
  return [...chosen].sort(
    (a, b) => compareCodePoints(a.model, b.model) || compareCodePoints(a.name, b.name) || compareCodePoints(a.file, b.file),
  );
}

function chooseTests(project: UnitProject, set: TestSet, select: readonly string[], exclude: readonly string[]): UnitTestDefinition[] {
  const { ids } = selectNodes(selectableNodes(project, set), select, exclude);
  return set.tests.filter((test) => ids.has(test.id));
}

/**
 * The models a selection names: the models it selects, and the models of the
 * unit tests it selects, less what `exclude` chooses (what `slp mutate
 * --select/--exclude` mutates; an empty select is every model). With no test
 * set (a dry run reads none), `model::test` names its model.
 */
export function selectedModels(
  project: UnitProject,
  set: TestSet | null,
  select: readonly string[],
  exclude: readonly string[] = [],
): string[] {
  const tests = set ?? { tests: [], disabled: [], owners: new Map() };
  const modelsOnly = (criteria: readonly string[]) =>
    set
      ? criteria
      : splitCriteria(criteria).map((criterion) =>
          criterion
            .split(",")
            .map((part) => (/^[^:]+::[^:]+$/.test(part) ? (part.split("::")[0] as string) : part))
            .join(","),
        );
  const nodes = selectableNodes(project, tests);
  const { ids } = selectNodes(nodes, modelsOnly(select), modelsOnly(exclude));
  const models = new Set<string>();
  for (const node of nodes) if (ids.has(node.id) && node.resourceType === "model" && node.package === project.name) models.add(node.name);
  for (const test of tests.tests) if (ids.has(test.id) && test.package === project.name) models.add(test.model);
  return [...models].sort(compareCodePoints);
}

/** The project's nodes and unit tests as dbt's selector sees them. */
function selectableNodes(project: UnitProject, set: TestSet): SelectableNode[] {
  const nodes: SelectableNode[] = [];
  for (const owner of [project, ...project.packages.values()]) {
    const own = (path: string | null) =>
      path !== null && owner.prefix !== "" && path.startsWith(owner.prefix) ? path.slice(owner.prefix.length) : path;
    const latestOf = new Map<string, string>();
    for (const node of owner.refNodes) if (node.version !== null && node.latest) latestOf.set(node.name, node.version);
    for (const node of owner.refNodes) {
      if (!node.enabled) continue;
      nodes.push({
        id: node.uniqueId,
        resourceType: node.kind,
        name: node.name,
        package: node.package,
        fqn: node.fqn,
        path: own(node.file),
        ymlPath: own(node.ymlFile),
        ...tagsOfNode(node, owner, set),
        config: node.config,
        version: node.version,
        latest: node.latest,
        latestVersion: latestOf.get(node.name) ?? null,
        parents: project.parents.get(node.uniqueId) ?? [],
        access:
          typeof node.config.access === "string"
            ? node.config.access
            : typeof node.declaration?.entry.access === "string"
              ? node.declaration.entry.access
              : null,
      });
    }
    for (const source of owner.sources) {
      if (!source.enabled) continue;
      nodes.push({
        id: source.uniqueId,
        resourceType: "source",
        name: source.table,
        source: source.source,
        package: source.package,
        fqn: source.fqn,
        path: own(source.file),
        ymlPath: null,
        tags: [...tagsOf(source.declaration?.entry.tags), ...tagsOf(source.config.tags)],
        config: source.config,
        version: null,
        latest: true,
        latestVersion: null,
        parents: [],
      });
    }
  }
  for (const test of set.tests) {
    const owner = set.owners.get(test) as UnitProject;
    nodes.push({
      id: test.id,
      resourceType: "unit_test",
      name: test.declaredName,
      display: `${test.model}::${test.name}`,
      package: test.package,
      fqn: test.fqn,
      path: owner.prefix !== "" && test.file.startsWith(owner.prefix) ? test.file.slice(owner.prefix.length) : test.file,
      ymlPath: null,
      tags: test.tags,
      config: { tags: test.tags, meta: test.meta, enabled: test.enabled },
      version: test.node?.version ?? null,
      latest: test.node?.latest ?? true,
      latestVersion: null,
      parents: test.node ? [test.node.uniqueId] : [],
    });
  }
  return nodes;
}

/** A node's tags, with a `tags=<Jinja>` the run's context can evaluate joined to them; one it cannot stays undecided. */
function tagsOfNode(node: RefNode, owner: UnitProject, set: TestSet | null): Pick<SelectableNode, "tags" | "undecidedTags"> {
  const tags = tagsOf(node.config.tags);
  if (node.dynamicConfig.tags === undefined) return { tags };
  const text = String(node.dynamicConfig.tags);
  const judged = set?.judgeTags && node.file !== null ? set.judgeTags(text, node.file, owner.name) : null;
  return judged ? { tags: [...tags, ...judged] } : { tags, undecidedTags: text };
}

function tagsOf(value: Value | undefined): string[] {
  if (Array.isArray(value)) return value.filter((tag): tag is string => typeof tag === "string");
  return typeof value === "string" ? [value] : [];
}

/** A test that cannot run, with the result that says why. */
export interface PlanRefusal {
  error: TestError;
}

/** Per project, whether each model file calls is_incremental: read once per model, not once per test. */
const incrementalCalls = new WeakMap<UnitProject, Map<string, boolean>>();

/** dbt records is_incremental among the macros a model calls when it parses the model; a call in its Jinja is that call. */
function callsIsIncremental(root: UnitProject, file: string): boolean {
  let known = incrementalCalls.get(root);
  if (!known) {
    known = new Map();
    incrementalCalls.set(root, known);
  }
  let calls = known.get(file);
  if (calls === undefined) {
    calls = /\bis_incremental\s*\(/.test(readText(root.dir, file).replace(/\{#[\s\S]*?#\}/g, ""));
    known.set(file, calls);
  }
  return calls;
}

/**
 * What an `input:` that is not a plain ref/source call names, found by rendering it (dbt >= 1.12 with the
 * `support_custom_ref_kwargs` flag renders it through the project's own `ref` macro and takes the first ref,
 * else the first source, that the render calls); null when it calls neither or does not render.
 */
export type RenderedInput = (input: string, test: UnitTestDefinition, owner: UnitProject) => RelationCall | null;

/** dbt's behaviour flag that lets a `given` input pass keyword arguments of its own to the project's `ref` macro (dbt-core #12148). */
export function supportsCustomRefKwargs(root: UnitProject): boolean {
  return root.flags.support_custom_ref_kwargs === true;
}

/** Resolves one test's model and inputs; a refusal is the test's error. */
export function planTest(
  test: UnitTestDefinition,
  owner: UnitProject,
  root: UnitProject,
  renderedInput: RenderedInput | null = null,
): PlannedTest | PlanRefusal {
  const refuse = (message: string, fix: string, file: string | null = test.file): PlanRefusal => ({
    error: { message, file, line: null, fix },
  });
  if (test.problems.length > 0) {
    const problem = test.problems[0] as (typeof test.problems)[number];
    return { error: { message: problem.message, file: problem.file ?? test.file, line: null, fix: problem.fix } };
  }
  const node = test.node as RefNode;
  const undecided = undecidedEnabled(node);
  if (undecided) return refuse(undecided.message, undecided.fix, node.file);
  if (!node.file)
    return refuse(
      `model ${test.model} has no .sql file slp can run`,
      "slp runs SQL models only (dbt does not unit test Python models either)",
      node.ymlFile ?? test.file,
    );
  if (node.language === "python") {
    return refuse(
      `model ${test.model} is a Python model (${node.file}), and a unit test runs SQL`,
      "unit test the SQL models around it; dbt does not unit test Python models either",
    );
  }
  const callsIncremental = callsIsIncremental(root, node.file);
  const override = test.overrides.macros.is_incremental;
  if (callsIncremental && typeof override !== "boolean") {
    return refuse(
      `Boolean override for 'is_incremental' must be provided for unit test '${test.name}' in model '${test.model}'`,
      "add overrides: {macros: {is_incremental: true}} (or false) to the test",
    );
  }
  const givesThis = test.given.some((given) => given.input.trim() === "this");
  if (callsIncremental && override === true && !givesThis) {
    return refuse(
      `Unit test '${test.name}' for incremental model '${test.model}' must have a 'this' input`,
      "add a given with input: this and the rows the model's table already holds",
    );
  }
  const inputs = new Map<string, PlannedInput>();
  for (const given of test.given) {
    const label = given.input.trim();
    if (label === "this") {
      inputs.set(node.uniqueId, { given, label, node, isThis: true, relation: cteName(node.identifier) });
      continue;
    }
    // dbt reads the input statically; only under support_custom_ref_kwargs does it fall back to rendering it.
    const call = parseRelationCall(label) ?? (renderedInput && supportsCustomRefKwargs(root) ? renderedInput(label, test, owner) : null);
    if (given.format === "dict" && given.rows === undefined && given.fixture === null) {
      // No rows: dbt reads the seed's CSV at parse time, before it resolves anything else.
      const seedProblem = missingSeed(call, owner, root);
      if (seedProblem) return refuse(seedProblem, "give the input rows (rows: [] for an empty input), or name a seed");
    }
    if (call === null)
      return refuse(
        `Unit test given inputs must be either a 'ref', 'source' or 'this' call. Got: '${given.input}'`,
        "write input: ref('model'), source('source', 'table') or this",
      );
    const resolved = root.index.resolve(call, null);
    if ("ambiguous" in resolved) {
      const { message, fix } = ambiguityMessage(call.kind === "ref" ? call.name : label, resolved.ambiguous);
      return refuse(message, fix);
    }
    if ("node" in resolved) {
      const undecidedInput = undecidedEnabled(resolved.node);
      if (undecidedInput) return refuse(undecidedInput.message, undecidedInput.fix, resolved.node.file);
    }
    if ("missing" in resolved) {
      return refuse(
        `Unit test '${test.name}' had an input (${given.input}) which was not found in the manifest.${resolved.disabled ? ` (${resolved.disabled.name} is disabled: ${resolved.disabled.file})` : ""}`,
        "name a model, seed, snapshot or source the project declares",
      );
    }
    inputs.set(resolved.node.uniqueId, { given, label, node: resolved.node, isThis: false, relation: relationName(resolved.node) });
  }
  return { test, owner, node: node as RefNode & { file: string }, inputs, isIncremental: typeof override === "boolean" ? override : null };
}

/** dbt's _load_rows_from_seed refusal when a given without rows does not name a seed; null when it does. */
function missingSeed(call: ReturnType<typeof parseRelationCall>, owner: UnitProject, root: UnitProject): string | null {
  if (call === null || call.kind !== "ref") return null;
  const pkg = call.package ?? owner.name;
  const found = root.index.ref({ ...call, package: pkg }, null);
  if ("node" in found && found.node.kind === "seed") return null;
  if (pkg !== owner.name) return `Unable to find seed '${pkg}.${call.name}' for unit tests in '${pkg}' package`;
  return `Unable to find seed '${pkg}.${call.name}' for unit tests in directories: [${owner.seedPaths.map((path) => `'${path}'`).join(", ")}]`;
}

/** dbt's CTE name of a mocked node: its identifier, or `<source>__<table>` for a source. */
export function relationName(node: RefNode | SourceNode): string {
  return node.kind === "source" ? cteName(`${node.source}__${node.table}`) : cteName(node.identifier);
}

/** The verdict of a test before it ran: an error until something says otherwise. */
export function emptyResult(test: UnitTestDefinition): UnitResult {
  return {
    id: test.id,
    model: test.model,
    name: test.name,
    file: test.file,
    line: test.line,
    edge: test.edge,
    status: "error",
    sqlFrom: null,
    error: null,
    diff: null,
    fixtures: [],
    renderedSql: null,
    ran: null,
  };
}
