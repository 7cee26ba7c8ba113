/**
 * Model nodes: every .sql and .py under a model path, one per name (of two
 * files of one name dbt keeps the enabled one), and a yml entry with
 * `versions:` standing for one node per version, each with its config put
 * together as dbt does (folder configs, its yml, its version's, its SQL's).
 */
import { isMapping, pythonStr, type Mapping } from "../../core/values.ts";
import { compareCodePoints } from "../../core/text.ts";
import { InputError } from "../../core/errors.ts";
import { mergeConfigs, sqlConfig } from "../dbt/node-config.ts";
import type { ColumnDeclaration, ModelDeclaration } from "../dbt/properties.ts";
import { stem } from "../files/paths.ts";
import type { SourceFile } from "../files/source.ts";
import type { EnabledExpression, RefNode } from "../model.ts";
import { definedTwice, folderOf, sortBySegments, undecidedEnabled, type NodeReading } from "./context.ts";

/** One version a model's yml declares (dbt's model versions). */
export interface DeclaredVersion {
  /** The version as text ("1", "2"). */
  label: string;
  /** True for `latest_version`, or the highest version when the yml names none. */
  latest: boolean;
  /** The stem of the file defining it: `defined_in`, else `<model>_v<label>`. */
  definedIn: string;
  entry: Mapping;
}

/** The stem of the file an unversioned ref() to a declared model reads: its latest version's, else its own name's. */
export function refReads(declaration: { name: string; entry: Mapping }): string {
  return declaredVersions(declaration).find((version) => version.latest)?.definedIn ?? declaration.name;
}

/** The versions a model's yml declares, in their order; none for an unversioned model. */
export function declaredVersions(declaration: { name: string; entry: Mapping }): DeclaredVersion[] {
  const versions = Array.isArray(declaration.entry.versions) ? declaration.entry.versions.filter(isMapping) : [];
  const labels = versions.map((entry) => pythonStr(entry.v ?? null));
  const latest =
    declaration.entry.latest_version !== undefined && declaration.entry.latest_version !== null
      ? pythonStr(declaration.entry.latest_version)
      : [...labels].sort((a, b) => Number(a) - Number(b) || compareCodePoints(a, b)).at(-1);
  return versions.map((entry, i) => {
    const label = labels[i] as string;
    return {
      label,
      latest: label === latest,
      definedIn: typeof entry.defined_in === "string" ? entry.defined_in : `${declaration.name}_v${label}`,
      entry,
    };
  });
}

/** The models of a project, versions one node each. */
export async function readModels(r: NodeReading): Promise<RefNode[]> {
  const { project, name, paths, all, under, declared, add, configFor, enabledIn, enabledAtParse } = r;
  const inModels = under(paths.model);
  // Models: every .sql and .py under a model path; a yml entry with versions stands for one node per version.
  const codeFiles = sortBySegments(all.filter((file) => inModels(file) && /\.(sql|py)$/.test(file.path)));
  const { kept: codeByStem, allDisabled } = await oneFilePerModel(codeFiles, async (file) => {
    const fromSql = file.endsWith(".sql") ? sqlConfig(await project.text(file)) : null;
    const expression = fromSql ? enabledIn(fromSql) : null;
    return {
      enabled: enabledAtParse(configFor("models", [name, ...folderOf(file, paths.model), stem(file)]), fromSql, expression),
      expression,
    };
  });
  for (const [modelName, files] of allDisabled) {
    // dbt patches every disabled node of the name with the yml, and cannot choose which of them to enable (schemas.py).
    const enabling = declared.models.get(modelName)?.entry.config;
    if (isMapping(enabling) && enabling.enabled !== undefined && enabling.enabled !== false && enabling.enabled !== null) {
      throw new InputError(
        `Found ${files.length} matching disabled nodes for model '${modelName}' (${files.join(", ")}). Multiple nodes for the same unique id cannot be enabled in the schema file. They must be enabled in \`dbt_project.yml\` or in the sql files.`,
        {
          file: declared.models.get(modelName)?.file,
          line: declared.models.get(modelName)?.line,
          fix: "enable the one you mean in its SQL (config(enabled=true)) or its folder's +enabled, not in the yml",
        },
      );
    }
  }
  const models: RefNode[] = [];
  const claimed = new Set<string>();
  const makeModel = async (
    modelName: string,
    version: string | null,
    latest: boolean,
    file: string | null,
    declaration: ModelDeclaration | null,
    versionEntry: Mapping | null,
  ): Promise<RefNode> => {
    const fqn = [name, ...(file ? folderOf(file, paths.model) : []), modelName, ...(version === null ? [] : [`v${version}`])];
    const config = configFor("models", fqn);
    mergeConfigs(config, declaration?.entry.config);
    if (versionEntry) mergeConfigs(config, versionEntry.config);
    const language = file === null ? null : file.endsWith(".py") ? "python" : "sql";
    let dynamicConfig: Mapping = {};
    let enabledExpression: EnabledExpression | null = null;
    if (file !== null && language === "sql") {
      const fromSql = sqlConfig(await project.text(file));
      // Judged first: a tags=<Jinja> dbt can evaluate joins the SQL's literal config.
      enabledExpression = enabledIn(fromSql);
      mergeConfigs(config, fromSql.config);
      dynamicConfig = fromSql.dynamic;
      if (enabledExpression?.value != null) config.enabled = enabledExpression.value;
    }
    let columns = declaration?.columns ?? [];
    if (versionEntry) {
      const own = versionColumns(versionEntry, declaration?.line ?? 1);
      const excluded = new Set<string>();
      for (const item of Array.isArray(versionEntry.columns) ? versionEntry.columns : []) {
        if (isMapping(item) && Array.isArray(item.exclude)) for (const excludedName of item.exclude) excluded.add(String(excludedName));
      }
      columns = [
        ...columns.filter((column) => !excluded.has(column.name)).map((column) => own.find((o) => o.name === column.name) ?? column),
        ...own.filter((o) => !columns.some((c) => c.name === o.name)),
      ];
    }
    const contract = config.contract;
    return add({
      kind: "model",
      uniqueId: `model.${name}.${modelName}${version === null ? "" : `.v${version}`}`,
      package: name,
      name: modelName,
      version,
      latest,
      language,
      file,
      line: file ? 1 : (declaration?.line ?? 1),
      ymlFile: declaration?.file ?? null,
      declaration,
      fqn,
      config,
      dynamicConfig,
      enabled: config.enabled !== false,
      enabledExpression,
      columns,
      tests: declaration?.tests ?? [],
      columnsComplete: isMapping(contract) && contract.enforced === true && columns.length > 0,
      // dbt's default is a view, but a Python model cannot be one: dbt builds it as a table unless a config says otherwise.
      materialized: typeof config.materialized === "string" ? config.materialized : language === "python" ? "table" : "view",
      identifier: typeof config.alias === "string" ? config.alias : version === null ? modelName : `${modelName}_v${version}`,
    });
  };
  for (const declaration of declared.models.values()) {
    for (const { label, latest, definedIn, entry } of declaredVersions(declaration)) {
      // The latest version may live in the unsuffixed <name>.sql (dbt >= 1.5, dbt-core #7443).
      const unsuffixed =
        latest && typeof entry.defined_in !== "string" && !codeByStem.has(definedIn) ? codeByStem.get(declaration.name) : undefined;
      const file = codeByStem.get(definedIn) ?? unsuffixed ?? null;
      if (file) claimed.add(stem(file));
      models.push(await makeModel(declaration.name, label, latest, file, declaration, entry));
    }
  }
  for (const [modelName, file] of codeByStem) {
    if (claimed.has(modelName)) continue;
    const declaration = declared.models.get(modelName);
    if (declaration && Array.isArray(declaration.entry.versions) && declaration.entry.versions.length > 0) continue;
    models.push(await makeModel(modelName, null, true, file, declaration ?? null, null));
  }
  return models;
}

/** How one model file stands at parse time: enabled, disabled, or undecided (null) by a Jinja expression. */
interface ParseState {
  enabled: boolean | null;
  expression: EnabledExpression | null;
}

/**
 * The file dbt keeps for each model name: the only one, or the one enabled
 * when the others are disabled (dbt puts those on its disabled list). Two
 * enabled files of one name are dbt's DuplicateResourceNameError; when
 * whether one is enabled only rendering can say, slp refuses, naming it.
 * `allDisabled` holds the names all of whose files are disabled, with them.
 */
async function oneFilePerModel(
  files: readonly SourceFile[],
  stateOf: (file: string) => Promise<ParseState>,
): Promise<{ kept: Map<string, string>; allDisabled: Map<string, string[]> }> {
  const byStem = new Map<string, string[]>();
  for (const file of files) byStem.set(stem(file.path), [...(byStem.get(stem(file.path)) ?? []), file.path]);
  const kept = new Map<string, string>();
  const allDisabled = new Map<string, string[]>();
  for (const [modelName, paths] of byStem) {
    if (paths.length === 1) {
      kept.set(modelName, paths[0] as string);
      continue;
    }
    const states = await Promise.all(paths.map(async (path) => ({ path, ...(await stateOf(path)) })));
    const candidates = states.filter((state) => state.enabled !== false);
    const undecided = candidates.find((state) => state.enabled === null);
    if (candidates.length > 1 && undecided) {
      const other = candidates.find((state) => state !== undecided) as (typeof candidates)[number];
      throw undecidedEnabled("model", modelName, undecided.path, undecided.expression as EnabledExpression, other.path);
    }
    if (candidates.length > 1) throw definedTwice("model", modelName, candidates[0]?.path ?? null, candidates[1]?.path ?? null, 1);
    if (candidates.length === 0) allDisabled.set(modelName, paths);
    kept.set(modelName, (candidates[0] ?? states[0])?.path as string);
  }
  return { kept, allDisabled };
}

/** Columns a version entry declares itself. */
function versionColumns(entry: Mapping, line: number): ColumnDeclaration[] {
  const list = Array.isArray(entry.columns) ? entry.columns.filter(isMapping) : [];
  return list
    .filter((column) => typeof column.name === "string")
    .map((column) => ({
      name: column.name as string,
      line,
      entry: column,
      sensitive: false,
      dataType: typeof column.data_type === "string" && column.data_type.trim() !== "" ? column.data_type : null,
    }));
}
