/**
 * One dbt properties file (a yml under a project folder) read into what it
 * declares: models with their spec, pre-registration, columns and data
 * tests; unit tests; sources and their tables; seeds; snapshots; each with
 * the line of its entry. The shapes dbt and slp cannot read (spec/rules.md
 * §1.1-1.2) are refused here, once, for every command.
 */
import { InputError } from "../../core/errors.ts";
import { isMapping, type Mapping, type Value } from "../../core/values.ts";
import { readDataTest, type DataTest } from "./data-tests.ts";
import { lineAt, Located } from "../files/lines.ts";
import type { ParsedYaml } from "../files/yaml.ts";

type Path = (string | number)[];

/** Where a yml declares something: the file, the line of its entry, and the entry as written. */
export interface Declaration {
  name: string;
  /** Project-relative path of the yml. */
  file: string;
  /** 1-based line of the entry (its `- name:` line), found when first read. */
  readonly line: number;
  /** Its position in its list (`models[3]`). */
  index: number;
  entry: Mapping;
  /** The line of a key path inside the entry (["meta", "spec", "grain"]); the deepest key found, the entry's line at worst. */
  lineOf(path: readonly (string | number)[]): number;
}

export interface ColumnDeclaration {
  name: string;
  readonly line: number;
  entry: Mapping;
  /** `meta.sensitive` / `config.meta.sensitive` is boolean true. */
  sensitive: boolean;
  /** `data_type` as written, else null. */
  dataType: string | null;
}

/** Something that has columns and data tests: a model, a seed, a snapshot, a source table. */
export interface Testable extends Declaration {
  columns: ColumnDeclaration[];
  /** Node-level tests first, then each column's, in column order. */
  tests: DataTest[];
}

export interface ModelDeclaration extends Testable {
  /** `meta.spec` or `config.meta.spec`; null when absent. */
  spec: Value;
  /** `meta.pre_registration` or `config.meta.pre_registration`; null when absent. */
  preRegistration: Value;
  /** Where in the entry the spec and the pre-registration are written (["config", "meta", "spec"]), for lines. */
  specKey: string[];
  preRegistrationKey: string[];
}

export interface UnitTestDeclaration extends Declaration {
  /** The entry's `model`; "" when missing or falsy. */
  model: Value;
}

export interface SourceTableDeclaration extends Testable {
  /** The source's name. */
  source: string;
  /** The source entry (its config and meta apply to every table). */
  sourceEntry: Mapping;
}

/** Everything one yml declares, in file order. */
export interface PropertiesFile {
  file: string;
  models: ModelDeclaration[];
  unitTests: UnitTestDeclaration[];
  sources: SourceTableDeclaration[];
  seeds: Testable[];
  snapshots: Testable[];
  /** The file as parsed: lineAt(parsed, path) is the line of any key path in it. */
  parsed: ParsedYaml;
}

/**
 * Reads one parsed yml, refusing every shape slp cannot judge. `at` names the
 * commit when the text comes from history.
 */
export function readProperties(file: string, parsed: ParsedYaml, at?: string): PropertiesFile {
  try {
    return readEntries(new Reader(file, parsed));
  } catch (error) {
    // Every refusal of a text from history names its commit, whichever entry it met: added here once, not by each throw.
    if (at === undefined || !(error instanceof InputError)) throw error;
    throw new InputError(`at ${at}, ${error.message}`, { file: error.file, line: error.line, fix: error.fix }, { cause: error });
  }
}

function readEntries(reader: Reader): PropertiesFile {
  const { file, parsed } = reader;
  const document = parsed.value === null ? {} : parsed.value;
  if (!isMapping(document)) {
    throw new InputError(`the file is not a yml mapping: its top level is ${kindOf(document)}`, {
      file,
      line: 1,
      fix: "a dbt properties file is a mapping with keys such as version, models and unit_tests",
    });
  }
  const models = reader.entries(document.models, "models", ["models"]).map((entry, index) => reader.model(entry, index));
  const unitTests = reader.entries(document.unit_tests, "unit_tests", ["unit_tests"]).map((entry, index): UnitTestDeclaration => {
    const path = ["unit_tests", index];
    const name = reader.name(entry, path, `a unit test without a name`, "give every unit test a name:");
    return new UnitTestEntry(parsed, path, name, file, index, entry, entry.model ? (entry.model as Value) : "");
  });
  const sources: SourceTableDeclaration[] = [];
  reader.entries(document.sources, "sources", ["sources"]).forEach((source, index) => {
    const path = ["sources", index];
    const name = reader.name(source, path, `a source without a name`, "give every source a name:");
    reader.entries(source.tables, `tables of source ${name}`, [...path, "tables"]).forEach((table, i) => {
      const tablePath = [...path, "tables", i];
      const tableName = reader.name(table, tablePath, `a table without a name in source ${name}`, "give every table a name:");
      const { columns, tests } = reader.testable(table, tableName, tablePath, `source table ${name}.${tableName}`);
      sources.push(new SourceTableEntry(parsed, tablePath, tableName, file, i, table, columns, tests, name, source));
    });
  });
  const others = (key: "seeds" | "snapshots", what: string) =>
    reader.entries(document[key], key, [key]).map((entry, index) => {
      const name = reader.name(entry, [key, index], `a ${what} without a name`, `give every ${what} a name:`);
      const { columns, tests } = reader.testable(entry, name, [key, index], `${what} ${name}`);
      return new TestableEntry(parsed, [key, index], name, file, index, entry, columns, tests);
    });
  return { file, models, unitTests, sources, seeds: others("seeds", "seed"), snapshots: others("snapshots", "snapshot"), parsed };
}

/** The spec, pre-registration or sensitive flag under `meta` or `config.meta`; both at once is ambiguous (`line` says where, on that error only). */
function metaValue(entry: Mapping, key: string, what: string, file: string, line?: () => number): Value {
  const meta = entry.meta;
  const direct = isMapping(meta) ? (meta[key] ?? null) : null;
  const config = entry.config;
  const configMeta = isMapping(config) ? config.meta : undefined;
  const nested = isMapping(configMeta) ? (configMeta[key] ?? null) : null;
  if (direct !== null && nested !== null) {
    throw new InputError(`ambiguous: ${what} sets ${key} under both meta and config.meta`, {
      file,
      line: line?.(),
      fix: "keep one of the two spellings",
    });
  }
  return direct ?? nested;
}

// --- internal ---

class Reader {
  readonly file: string;
  readonly parsed: ParsedYaml;

  constructor(file: string, parsed: ParsedYaml) {
    this.file = file;
    this.parsed = parsed;
  }

  line(path: Path): number {
    return lineAt(this.parsed, path);
  }

  entries(value: Value | undefined, what: string, path: Path): Mapping[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || !value.every(isMapping)) {
      throw new InputError(`${what} must be a list of entries`, {
        file: this.file,
        line: this.line(path),
        fix: "write each entry as a list item (- name: ...)",
      });
    }
    return value as Mapping[];
  }

  name(entry: Mapping, path: Path, message: string, fix: string): string {
    const name = entry.name;
    if (typeof name !== "string" || name === "") throw new InputError(message, { file: this.file, line: this.line(path), fix });
    return name;
  }

  model(entry: Mapping, index: number): ModelDeclaration {
    const path = ["models", index];
    const name = this.name(entry, path, `a model without a name`, "give every model a name:");
    const what = `model ${name}`;
    const spec = metaValue(entry, "spec", what, this.file, () => this.line([...path, "meta", "spec"]));
    const preRegistration = metaValue(entry, "pre_registration", what, this.file, () => this.line([...path, "meta", "pre_registration"]));
    const keyOf = (key: string) => (isMapping(entry.meta) && (entry.meta[key] ?? null) !== null ? ["meta", key] : ["config", "meta", key]);
    const { columns, tests } = this.testable(entry, name, path, what);
    return new ModelEntry(
      this.parsed,
      path,
      name,
      this.file,
      index,
      entry,
      columns,
      tests,
      spec,
      preRegistration,
      keyOf("spec"),
      keyOf("pre_registration"),
    );
  }

  /** The columns and data tests of an entry that has them. */
  testable(entry: Mapping, name: string, path: Path, what: string): { columns: ColumnDeclaration[]; tests: DataTest[] } {
    const tests = this.tests(entry, "", what, path);
    const columns: ColumnDeclaration[] = [];
    this.entries(entry.columns, `columns of ${what}`, [...path, "columns"]).forEach((column, i) => {
      const columnPath = [...path, "columns", i];
      const columnName = this.name(column, columnPath, `a column without a name in ${what}`, "give every column a name:");
      const where = `column ${name}.${columnName}`;
      // Only a column with a meta or a config can flag itself sensitive (or be ambiguous about it).
      const sensitive =
        (column.meta !== undefined || column.config !== undefined) &&
        metaValue(column, "sensitive", where, this.file, () => this.line([...columnPath, "meta", "sensitive"])) === true;
      const dataType = typeof column.data_type === "string" && column.data_type.trim() !== "" ? column.data_type : null;
      columns.push(new ColumnEntry(this.parsed, columnPath, columnName, column, sensitive, dataType));
      if (column.tests !== undefined || column.data_tests !== undefined) tests.push(...this.tests(column, columnName, where, columnPath));
    });
    return { columns, tests };
  }

  tests(entry: Mapping, column: string, where: string, path: Path): DataTest[] {
    const tests = entry.tests ?? null;
    const dataTests = entry.data_tests ?? null;
    if (tests !== null && dataTests !== null) {
      throw new InputError(`ambiguous: tests defined twice on ${where} (both tests: and data_tests:)`, {
        file: this.file,
        line: this.line([...path, "data_tests"]),
        fix: "keep one list; data_tests: is the dbt >= 1.8 spelling",
      });
    }
    const list = tests ?? dataTests;
    if (list === null) return [];
    const key = tests !== null ? "tests" : "data_tests";
    if (!Array.isArray(list)) {
      throw new InputError(`tests on ${where} must be a list`, {
        file: this.file,
        line: this.line([...path, key]),
        fix: "write each test as a list item",
      });
    }
    return list.map((item, index) => readDataTest(item, column, where, this.file, this.parsed, [...path, key, index]));
  }
}

// Declarations are class instances: every one of a kind has one shape, and its line is a getter of Located.

class Entry extends Located implements Declaration {
  constructor(
    document: ParsedYaml,
    path: Path,
    readonly name: string,
    readonly file: string,
    readonly index: number,
    readonly entry: Mapping,
  ) {
    super(document, path);
  }
}

class UnitTestEntry extends Entry implements UnitTestDeclaration {
  constructor(
    document: ParsedYaml,
    path: Path,
    name: string,
    file: string,
    index: number,
    entry: Mapping,
    readonly model: Value,
  ) {
    super(document, path, name, file, index, entry);
  }
}

class TestableEntry extends Entry implements Testable {
  constructor(
    document: ParsedYaml,
    path: Path,
    name: string,
    file: string,
    index: number,
    entry: Mapping,
    readonly columns: ColumnDeclaration[],
    readonly tests: DataTest[],
  ) {
    super(document, path, name, file, index, entry);
  }
}

class ModelEntry extends TestableEntry implements ModelDeclaration {
  constructor(
    document: ParsedYaml,
    path: Path,
    name: string,
    file: string,
    index: number,
    entry: Mapping,
    columns: ColumnDeclaration[],
    tests: DataTest[],
    readonly spec: Value,
    readonly preRegistration: Value,
    readonly specKey: string[],
    readonly preRegistrationKey: string[],
  ) {
    super(document, path, name, file, index, entry, columns, tests);
  }
}

class SourceTableEntry extends TestableEntry implements SourceTableDeclaration {
  constructor(
    document: ParsedYaml,
    path: Path,
    name: string,
    file: string,
    index: number,
    entry: Mapping,
    columns: ColumnDeclaration[],
    tests: DataTest[],
    readonly source: string,
    readonly sourceEntry: Mapping,
  ) {
    super(document, path, name, file, index, entry, columns, tests);
  }
}

class ColumnEntry extends Located implements ColumnDeclaration {
  constructor(
    document: ParsedYaml,
    path: Path,
    readonly name: string,
    readonly entry: Mapping,
    readonly sensitive: boolean,
    readonly dataType: string | null,
  ) {
    super(document, path);
  }
}

/** "a list", "a string": what a yml's top level is instead of a mapping. */
function kindOf(value: Value): string {
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return "a boolean";
  return "not a mapping";
}
