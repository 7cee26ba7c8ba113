/**
 * The dbt project as data (spec/rules.md §1.1): every yml under the top
 * folders, the marts `.sql` files, models with their spec, pre-registration,
 * columns and data tests, and the unit tests. Anything slp cannot read is an
 * InputError naming the file and, where it can, the line.
 */
import { InputError } from "../core/errors.ts";
import { ParseCache } from "./cache.ts";
import { readProjectText } from "./files.ts";
import { isMapping, type Mapping, type Value } from "../core/values.ts";
import { readDataTest, type DataTest } from "./tests.ts";
import { isYamlFile, listFiles, sortPathsBySegments, stem, topDirectories } from "./paths.ts";
import { parseYaml, parseYamlWithPositions, type YamlSource } from "./yaml.ts";

export interface Column {
  name: string;
  entry: Mapping;
  /** `meta.sensitive` / `config.meta.sensitive` is boolean true. */
  sensitive: boolean;
}

export interface Model {
  name: string;
  /** Project-relative path of the yml that declares it. */
  file: string;
  entry: Mapping;
  /** `meta.spec` or `config.meta.spec`; null when absent. */
  spec: Value;
  /** `meta.pre_registration` or `config.meta.pre_registration`; null when absent. */
  preRegistration: Value;
  columns: Column[];
  /** Model-level tests first, then each column's, in column order. */
  tests: DataTest[];
  /** Under a marts path by its yml, or a marts `.sql` carries its name. */
  marts: boolean;
}

export interface UnitTest {
  name: string;
  /** The entry's `model`; "" when missing or falsy. */
  model: Value;
  file: string;
  entry: Mapping;
}

export interface Project {
  /** Absolute project directory. */
  dir: string;
  /** The project directory as the user gave it, for messages. */
  dirAsGiven: string;
  /** Normalised marts paths (trailing slash), in the order given, duplicates kept. */
  martsPaths: string[];
  /** Every yml read, in read order (path segments). */
  ymlFiles: string[];
  /** Raw text of every yml read. */
  ymlText: Map<string, string>;
  /** Every model, by name. */
  models: Map<string, Model>;
  /** Unit tests in read order. */
  unitTests: UnitTest[];
  /** Stem -> project-relative path of each `.sql` under a marts path. */
  martsSql: Map<string, string>;
}

export interface LoadProjectOptions {
  dir: string;
  dirAsGiven: string;
  martsPaths: string[];
  /** Where parsed YAML is remembered between runs; none by default. */
  cache?: ParseCache<Value>;
}

/** Reads the project from the filesystem; throws InputError on anything unreadable. */
export function loadProject(options: LoadProjectOptions): Project {
  const { dir, martsPaths } = options;
  const ymlFiles: string[] = [];
  const sqlFiles: string[] = [];
  for (const top of topDirectories(martsPaths)) {
    for (const file of listFiles(dir, top)) {
      if (isYamlFile(file)) ymlFiles.push(file);
      else if (file.endsWith(".sql") && martsPaths.some((marts) => file.startsWith(marts))) sqlFiles.push(file);
    }
  }
  const martsSql = new Map<string, string>();
  for (const file of sortPathsBySegments(sqlFiles)) martsSql.set(stem(file), file);

  const project: Project = {
    dir,
    dirAsGiven: options.dirAsGiven,
    martsPaths,
    ymlFiles: sortPathsBySegments(ymlFiles),
    ymlText: new Map(),
    models: new Map(),
    unitTests: [],
    martsSql,
  };
  for (const file of project.ymlFiles) {
    const text = readText(dir, file);
    project.ymlText.set(file, text);
    addDeclarations(project, file, text, options.cache);
  }
  options.cache?.save();
  return project;
}

/**
 * Reads a project file as UTF-8 text; InputError when it cannot (see
 * files.ts: regular files only, at most limit file_mb, never outside the
 * repository). Kept here for the modules that import it from the project.
 */
export const readText = readProjectText;

/** True when a model's yml sits under a marts path or a marts `.sql` has its name. */
export function isMartsModel(file: string, name: string, martsPaths: readonly string[], martsSql: ReadonlyMap<string, string>): boolean {
  return martsPaths.some((marts) => file.startsWith(marts)) || martsSql.has(name);
}

/** The spec, pre-registration or sensitive flag under `meta` or `config.meta`; both at once is ambiguous. */
export function metaValue(entry: Mapping, key: string, what: string, file: string, text?: string, path: (string | number)[] = []): Value {
  const meta = isMapping(entry.meta) ? entry.meta : {};
  const config = isMapping(entry.config) ? entry.config : {};
  const configMeta = isMapping(config.meta) ? config.meta : {};
  const direct = meta[key] ?? null;
  const nested = configMeta[key] ?? null;
  if (direct !== null && nested !== null) {
    throw new InputError(`ambiguous: ${what} sets ${key} under both meta and config.meta`, {
      file,
      line: text ? lineOf(text, file, [...path, "meta", key]) : undefined,
      fix: "keep one of the two spellings",
    });
  }
  return direct ?? nested;
}

/** What one yml file declares: its models (without the marts flag) and unit tests, in file order. */
export interface Declarations {
  models: Omit<Model, "marts">[];
  unitTests: UnitTest[];
}

/**
 * Reads one yml's text into declarations, refusing every shape slp cannot
 * judge (§1.1-1.2). `at` names the commit when the text comes from history.
 */
export function readDeclarations(file: string, text: string, at?: string, cache?: ParseCache<Value>): Declarations {
  const parsed = parseCached(text, { file, at }, cache);
  const document = parsed === null ? {} : parsed;
  // The file:line prefix names the file; a commit is named in the message.
  const atCommit = at ? `at ${at}, ` : "";
  if (!isMapping(document)) {
    throw new InputError(`${atCommit}the file is not a yml mapping: its top level is ${kindOf(document)}`, {
      file,
      line: 1,
      fix: "a dbt properties file is a mapping with keys such as version, models and unit_tests",
    });
  }
  const models = listOfEntries(document.models, `${atCommit}models`, file, text, ["models"]).map((entry, index) =>
    readModel(file, text, entry, index, atCommit),
  );
  const unitTests = listOfEntries(document.unit_tests, `${atCommit}unit_tests`, file, text, ["unit_tests"]).map(
    (entry, index): UnitTest => {
      const name = entry.name;
      if (typeof name !== "string" || name === "") {
        throw new InputError(`${atCommit}a unit test without a name`, {
          file,
          line: lineOf(text, file, ["unit_tests", index]),
          fix: "give every unit test a name:",
        });
      }
      return { name, model: entry.model ? (entry.model as Value) : "", file, entry };
    },
  );
  return { models, unitTests };
}

// --- internal ---

/** Parses a yml, or takes its parse from the cache when the same text was parsed before. */
export function parseCached(text: string, source: YamlSource, cache?: ParseCache<Value>): Value {
  if (!cache) return parseYaml(text, source);
  const key = ParseCache.key(text);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const value = parseYaml(text, source);
  cache.set(key, value);
  return value;
}

/** Check refuses a model declared twice (gate, reading history, keeps the later one). */
function addDeclarations(project: Project, file: string, text: string, cache?: ParseCache<Value>): void {
  const declarations = readDeclarations(file, text, undefined, cache);
  declarations.models.forEach((model, index) => {
    const earlier = project.models.get(model.name);
    if (earlier) {
      throw new InputError(`model ${model.name} is declared twice: ${earlier.file} and ${file}`, {
        file,
        line: lineOf(text, file, ["models", index]),
        fix: "keep one declaration of each model",
      });
    }
    project.models.set(model.name, { ...model, marts: isMartsModel(file, model.name, project.martsPaths, project.martsSql) });
  });
  project.unitTests.push(...declarations.unitTests);
}

function readModel(file: string, text: string, entry: Mapping, index: number, atCommit = ""): Omit<Model, "marts"> {
  const path = ["models", index];
  const name = entry.name;
  if (typeof name !== "string" || name === "") {
    throw new InputError(`${atCommit}a model without a name`, { file, line: lineOf(text, file, path), fix: "give every model a name:" });
  }
  const what = `model ${name}`;
  const spec = metaValue(entry, "spec", what, file, text, path);
  const preRegistration = metaValue(entry, "pre_registration", what, file, text, path);

  const tests: DataTest[] = readTests(entry, "", `model ${name}`, file, text, path);
  const columns: Column[] = [];
  listOfEntries(entry.columns, `columns of model ${name}`, file, text, [...path, "columns"]).forEach((column, i) => {
    const columnPath = [...path, "columns", i];
    const columnName = column.name;
    if (typeof columnName !== "string" || columnName === "") {
      throw new InputError(`a column without a name in model ${name}`, {
        file,
        line: lineOf(text, file, columnPath),
        fix: "give every column a name:",
      });
    }
    const sensitive = metaValue(column, "sensitive", `column ${name}.${columnName}`, file, text, columnPath) === true;
    columns.push({ name: columnName, entry: column, sensitive });
    tests.push(...readTests(column, columnName, `column ${name}.${columnName}`, file, text, columnPath));
  });

  return { name, file, entry, spec, preRegistration, columns, tests };
}

function readTests(entry: Mapping, column: string, where: string, file: string, text: string, path: (string | number)[]): DataTest[] {
  const tests = entry.tests ?? null;
  const dataTests = entry.data_tests ?? null;
  if (tests !== null && dataTests !== null) {
    throw new InputError(`ambiguous: tests defined twice on ${where} (both tests: and data_tests:)`, {
      file,
      line: lineOf(text, file, [...path, "data_tests"]),
      fix: "keep one list; data_tests: is the dbt >= 1.8 spelling",
    });
  }
  const list = tests ?? dataTests;
  if (list === null) return [];
  if (!Array.isArray(list)) {
    throw new InputError(`tests on ${where} must be a list`, {
      file,
      line: lineOf(text, file, [...path, tests !== null ? "tests" : "data_tests"]),
      fix: "write each test as a list item",
    });
  }
  const key = tests !== null ? "tests" : "data_tests";
  return list.map((item, index) => {
    try {
      return readDataTest(item, column, where, file);
    } catch (error) {
      // tests.ts reads items from git blobs too and knows no lines; the line is found here, on the error path only.
      if (!(error instanceof InputError) || error.line !== undefined) throw error;
      throw new InputError(error.message, { file, line: lineOf(text, file, [...path, key, index]), fix: error.fix });
    }
  });
}

/** "a list", "a string": what a yml's top level is instead of a mapping. */
function kindOf(value: Value): string {
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return "a boolean";
  return "not a mapping";
}

function listOfEntries(value: Value | undefined, what: string, file: string, text: string, path: (string | number)[]): Mapping[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isMapping)) {
    throw new InputError(`${what} must be a list of entries`, {
      file,
      line: lineOf(text, file, path),
      fix: "write each entry as a list item (- name: ...)",
    });
  }
  return value as Mapping[];
}

/** The line of a key path, found by re-parsing with positions; only on the error path. */
function lineOf(text: string, file: string, path: (string | number)[]): number | undefined {
  try {
    return parseYamlWithPositions(text, { file }).lineOf(path);
  } catch {
    return undefined;
  }
}
