/**
 * dbt `unit_tests:` entries turned into test definitions, with dbt's parse
 * rules (spec/dbt-unit-tests.md §1-2): required keys, formats, versions,
 * config merged with dbt_project.yml, ids, duplicates. A definition dbt would
 * refuse at parse time keeps its problems, so the test reports `error`
 * instead of stopping the whole run.
 */
import { collapseWhitespace } from "../../core/text.ts";
import { isMapping, pythonStr, type Mapping, type Value } from "../../core/values.ts";
import { folderConfig, mergeConfigs } from "./node-config.ts";
import type { RefNode, UnitProject, UnitTestNode } from "./unit-project.ts";

export type FixtureFormat = "dict" | "csv" | "sql";

export interface Problem {
  message: string;
  fix: string;
  /** The file it is in, when not the unit test's own yml. */
  file?: string;
}

export interface GivenDefinition {
  /** As written: `ref('stg_orders')`, `source('shop', 'orders')`, `this`. */
  input: string;
  format: FixtureFormat;
  /** `rows` as written (a list for dict, a string for csv and sql), or undefined. */
  rows: Value | undefined;
  fixture: string | null;
}

export interface ExpectDefinition {
  format: FixtureFormat;
  rows: Value | undefined;
  fixture: string | null;
}

export interface UnitTestDefinition {
  /** `unit_test.<package>.<model>.<name>`. */
  id: string;
  /** The package (or the project) that defines it. */
  package: string;
  /** The name as written in the yml. */
  declaredName: string;
  /** The line of its entry in its yml. */
  line: number;
  fqn: string[];
  /** The name as shown, `_v<N>` added for a version. */
  name: string;
  model: string;
  /** The tested model's node (for a versioned model, the version this test runs against), or null. */
  node: RefNode | null;
  file: string;
  index: number;
  /** `config.meta.edge` as text, whitespace collapsed, or null. */
  edge: string | null;
  tags: string[];
  meta: Mapping;
  enabled: boolean;
  given: GivenDefinition[];
  expect: ExpectDefinition;
  overrides: { macros: Mapping; vars: Mapping; envVars: Mapping };
  /** Why dbt would refuse this test at parse time; non-empty means the test errors. */
  problems: Problem[];
}

/** A test left out of the run, and why (disabled, or its model is). */
export interface DisabledTest {
  id: string;
  model: string;
  name: string;
  file: string;
  reason: string;
}

export interface UnitTestSet {
  tests: UnitTestDefinition[];
  disabled: DisabledTest[];
}

const FORMATS = new Set(["dict", "csv", "sql"]);
const COMPUTE = new Set(["remote", "inline", "sidecar", "local", "service"]);

/**
 * Reads every unit test of the project. `render` renders a string that holds
 * Jinja with the project's vars (never the test's overrides), as dbt does at
 * parse time.
 */
export function readUnitTests(project: UnitProject, render: (text: string, file: string) => Value): UnitTestSet {
  const tests: UnitTestDefinition[] = [];
  const disabled: DisabledTest[] = [];
  const seen = new Map<string, UnitTestDefinition>();
  for (const raw of project.unitTests) {
    const problems: Problem[] = [];
    // The model reader refuses a unit test without a name; its model may still be missing.
    const testName = raw.name;
    const modelName = raw.model;
    if (modelName === "") problems.push({ message: `unit test '${testName}' has no model`, fix: "name the model under test with model:" });
    const entry = renderEntry(raw.entry, raw.file, render, problems);
    const definitionBase = readBody(entry, testName, problems);

    const config = unitConfig(project, raw, modelName, testName, entry);
    const edge = edgeOf(config.meta);
    const candidates = project.refNodes.filter((node) => node.kind === "model" && node.name === modelName);
    const base = {
      package: project.name,
      declaredName: testName,
      line: raw.line,
      fqn: raw.fqn,
      model: modelName,
      file: raw.file,
      index: raw.index,
      edge,
      tags: config.tags,
      meta: config.meta,
      enabled: config.enabled,
      ...definitionBase,
    };
    const id = `unit_test.${project.name}.${modelName}.${testName}`;
    if (modelName !== "" && candidates.length === 0) {
      problems.push({
        message: `Unable to find model '${project.name}.${modelName}' for unit test '${testName}' in ${raw.file}`,
        fix: `check the model name, or add models/.../${modelName}.sql`,
      });
    }
    if (!config.enabled) {
      disabled.push({ id, model: modelName, name: testName, file: raw.file, reason: "config.enabled is false" });
      continue;
    }
    if (candidates.length > 0 && candidates.every((node) => !node.enabled)) {
      disabled.push({ id, model: modelName, name: testName, file: raw.file, reason: `model ${modelName} is disabled` });
      continue;
    }
    const versions = selectVersions(entry, candidates, modelName, problems);
    // A test dbt refuses at parse time is one error, not one per version.
    const targets: (RefNode | null)[] =
      versions.length > 0 && problems.length === 0 ? versions : [candidates.find((node) => node.latest) ?? candidates[0] ?? null];
    for (const node of targets) {
      const suffix = node && node.version !== null && problems.length === 0 ? `_v${node.version}` : "";
      const shown = `${testName}${suffix}`;
      const fullId = `${id}${suffix}`;
      const testProblems = [...problems];
      const test: UnitTestDefinition = { ...base, id: fullId, name: shown, node, problems: testProblems };
      const earlier = seen.get(fullId);
      if (earlier !== undefined) {
        // dbt refuses the pair (DuplicateResourceNameError): neither of them runs.
        const problem = {
          message: `unit test '${shown}' of model ${modelName} is defined twice (${earlier.file}:${earlier.line} and ${raw.file}:${raw.line})`,
          fix: "give each unit test of a model its own name",
        };
        testProblems.push(problem);
        if (!earlier.problems.some((known) => known.message === problem.message)) earlier.problems.unshift(problem);
      } else seen.set(fullId, test);
      tests.push(test);
    }
  }
  return { tests, disabled };
}

// --- internal ---

/** dbt renders every value of the entry but `description` as Jinja at parse time. */
function renderEntry(entry: Mapping, file: string, render: (text: string, file: string) => Value, problems: Problem[]): Mapping {
  const walk = (value: Value, key: string): Value => {
    if (typeof value === "string") {
      // `input` is read statically (dbt parses the call, it does not render it); `description` is never rendered.
      if (key === "description" || key === "input" || (!value.includes("{{") && !value.includes("{%"))) return value;
      try {
        return render(value, file);
      } catch (error) {
        problems.push({
          message: `cannot render ${JSON.stringify(value)}: ${(error as Error).message}`,
          fix: "use only var(), env_var() and target in unit-test yml values",
        });
        return value;
      }
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (isMapping(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return walk(entry, "") as Mapping;
}

function readBody(entry: Mapping, testName: string, problems: Problem[]) {
  const given: GivenDefinition[] = [];
  if (entry.given === undefined || entry.given === null) {
    problems.push({
      message: `unit test '${testName}' has no given`,
      fix: "list its mocked inputs under given: (given: [] when the model reads none)",
    });
  } else if (!Array.isArray(entry.given)) {
    problems.push({
      message: `given of unit test '${testName}' must be a list`,
      fix: "write each input as a list item (- input: ref('...'))",
    });
  } else {
    entry.given.forEach((item, i) => {
      if (!isMapping(item) || typeof item.input !== "string") {
        problems.push({
          message: `given #${i + 1} of unit test '${testName}' has no input`,
          fix: "write input: ref('model'), source('source', 'table') or this",
        });
        return;
      }
      const format = readFormat(item.format, `given ${item.input}`, testName, problems);
      given.push({ input: item.input, format, rows: item.rows, fixture: typeof item.fixture === "string" ? item.fixture : null });
    });
  }
  let expect: ExpectDefinition = { format: "dict", rows: [], fixture: null };
  if (!isMapping(entry.expect)) {
    problems.push({ message: `unit test '${testName}' has no expect`, fix: "write the rows the model must return under expect: rows:" });
  } else {
    const format = readFormat(entry.expect.format, "expect", testName, problems);
    expect = { format, rows: entry.expect.rows, fixture: typeof entry.expect.fixture === "string" ? entry.expect.fixture : null };
    if (expect.rows === undefined && expect.fixture === null) {
      problems.push({
        message: `expect of unit test '${testName}' has neither rows nor fixture`,
        fix: "write rows: [] to expect no rows, or list the expected rows",
      });
    }
  }
  const overrides = isMapping(entry.overrides) ? entry.overrides : {};
  const mapping = (key: string): Mapping => {
    const value = overrides[key];
    if (value === undefined || value === null) return {};
    if (!isMapping(value)) {
      problems.push({
        message: `overrides.${key} of unit test '${testName}' must be a mapping`,
        fix: `write overrides: {${key}: {name: value}}`,
      });
      return {};
    }
    return value;
  };
  const config = isMapping(entry.config) ? entry.config : {};
  if (config.compute !== undefined && !COMPUTE.has(String(config.compute))) {
    problems.push({
      message: `config.compute of unit test '${testName}' is '${pythonStr(config.compute)}'`,
      fix: "use one of remote, inline, sidecar, local, service (slp runs every test locally anyway)",
    });
  }
  return {
    description: typeof entry.description === "string" ? entry.description : "",
    given,
    expect,
    overrides: { macros: mapping("macros"), vars: mapping("vars"), envVars: mapping("env_vars") },
  };
}

function readFormat(value: Value | undefined, what: string, testName: string, problems: Problem[]): FixtureFormat {
  if (value === undefined || value === null) return "dict";
  if (typeof value === "string" && FORMATS.has(value)) return value as FixtureFormat;
  problems.push({ message: `${what} of unit test '${testName}' has format '${pythonStr(value)}'`, fix: "use format: dict, csv or sql" });
  return "dict";
}

/** The test's config: dbt_project.yml `unit_tests:` scoped by fqn, then its own. */
function unitConfig(
  project: UnitProject,
  raw: UnitTestNode,
  model: string,
  name: string,
  entry: Mapping,
): { tags: string[]; meta: Mapping; enabled: boolean } {
  const merged = mergeConfigs(folderConfig(project.unitTestConfigs, [project.name, ...raw.folders, model, name]), entry.config);
  const tags = Array.isArray(merged.tags) ? merged.tags.map(pythonStr) : typeof merged.tags === "string" ? [merged.tags] : [];
  return { tags, meta: isMapping(merged.meta) ? merged.meta : {}, enabled: merged.enabled !== false };
}

function edgeOf(meta: Mapping): string | null {
  const edge = meta.edge;
  return edge === undefined || edge === null ? null : collapseWhitespace(pythonStr(edge));
}

function selectVersions(entry: Mapping, candidates: RefNode[], model: string, problems: Problem[]): RefNode[] {
  const versioned = candidates.filter((node) => node.version !== null);
  const filter = entry.versions;
  if (filter === undefined || filter === null) return versioned;
  if (!isMapping(filter)) {
    problems.push({
      message: `versions of a unit test on ${model} must be a mapping`,
      fix: "write versions: {include: [2]} or versions: {exclude: [1]}",
    });
    return versioned;
  }
  if (versioned.length === 0) {
    problems.push({
      message: `unit test sets versions, but model ${model} is not versioned`,
      fix: "remove versions:, or declare versions on the model",
    });
    return [];
  }
  if (filter.include !== undefined && filter.exclude !== undefined) {
    problems.push({ message: "Unit tests can not both include and exclude versions.", fix: "keep include or exclude" });
    return versioned;
  }
  const list = (value: Value | undefined) =>
    Array.isArray(value) ? value.map(pythonStr) : value === undefined || value === null ? [] : [pythonStr(value)];
  const kept =
    filter.include !== undefined
      ? versioned.filter((node) => list(filter.include).includes(node.version as string))
      : versioned.filter((node) => !list(filter.exclude).includes(node.version as string));
  if (kept.length === 0) {
    problems.push({
      message: `unit test referenced a version of '${model}' which was not found`,
      fix: `use versions that ${model} declares (${versioned.map((n) => n.version).join(", ")})`,
    });
  }
  return kept;
}
