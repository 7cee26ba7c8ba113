/**
 * What the readers of each node kind share while one project's nodes are
 * read: its settings and folders, every file under them, what its yml
 * declare, the folder configs as dbt matches them (the root project's last),
 * how a `config(enabled=<Jinja>)` is judged, and the one registry of unique
 * ids, where only two nodes dbt would both keep are an error.
 */
import { InputError } from "../../core/errors.ts";
import { pythonStr, type Mapping } from "../../core/values.ts";
import type { ConfigBlock, ProjectSettings } from "../dbt/dbt-project.ts";
import { judgeExpression, judgeProjectValue, varScopes } from "../dbt/config-expression.ts";
import { folderConfig, mergeConfig } from "../dbt/node-config.ts";
import type { ModelDeclaration, PropertiesFile, Testable } from "../dbt/properties.ts";
import { EQUIVALENTS_NAME } from "../history/protected.ts";
import { isYamlFile, sortPathsBySegments } from "../files/paths.ts";
import type { SourceFile } from "../files/source.ts";
import type { EnabledExpression, Node, Project } from "../model.ts";

/** A project's nodes being read: what each kind's reader takes. */
export interface NodeReading {
  project: Project;
  /** The project's (or package's) name: the first part of every unique id and fqn. */
  name: string;
  settings: ProjectSettings;
  paths: ProjectSettings["paths"];
  /** Every folder dbt reads files from (projectFolders). */
  roots: string[];
  /** Every file under them. */
  all: SourceFile[];
  /** Every yml read, in dbt's file order. */
  properties: PropertiesFile[];
  /** The yml entries of models, seeds and snapshots, by name (a later yml's entry wins). */
  declared: { models: Map<string, ModelDeclaration>; seeds: Map<string, Testable>; snapshots: Map<string, Testable> };
  /** The node kept for each unique id. */
  byId: Map<string, Node>;
  /** True for a file under one of the folders. */
  under(list: readonly string[]): (file: SourceFile) => boolean;
  /** Registers a node; `enabledAtParse` (its folder configs and SQL, before any yml) decides which of two of one id dbt keeps. */
  add<T extends Node>(node: T, enabledAtParse?: boolean | null): T;
  /** The folder configs of a block along an fqn: the project's (a package's own), then the root project's. */
  configFor(block: ConfigBlock, fqn: string[]): Mapping;
  /** The SQL's `config(enabled=<Jinja>)`, judged; null when the SQL sets none, or a literal. */
  enabledIn(fromSql: { config: Mapping; dynamic: Mapping }): EnabledExpression | null;
  /** Enabled by its folder configs and SQL, before any yml (what dbt's parser decides a node's place by); null when undecided. */
  enabledAtParse(folder: Mapping, fromSql: { config: Mapping } | null, expression: EnabledExpression | null): boolean | null;
}

/** Reads what every kind's reader needs: settings, files, yml. */
export async function startReading(project: Project): Promise<NodeReading> {
  const settings = await project.settings();
  const rootSettings = project.root ? await project.root.settings() : null;
  const name = settings.name;
  const { paths } = settings;
  const roots = projectFolders(settings);
  const all = await project.files();
  const under = (list: readonly string[]) => (file: SourceFile) => list.some((path) => file.path.startsWith(`${path}/`));

  // Yml of every folder, in dbt's file order; a yml under two folders is read once.
  // tests/mutation_equivalents.yml is slp mutate's list of equivalent mutants, not a properties file.
  const ymls = sortBySegments(ymlIn(all).filter((file) => !paths.test.some((path) => file.path === `${path}/${EQUIVALENTS_NAME}`)));
  const properties = await project.propertiesOf(ymls);

  const declared = {
    models: new Map<string, ModelDeclaration>(),
    seeds: new Map<string, Testable>(),
    snapshots: new Map<string, Testable>(),
  };
  for (const file of properties) {
    for (const model of file.models) declared.models.set(model.name, model);
    for (const seed of file.seeds) declared.seeds.set(seed.name, seed);
    for (const snapshot of file.snapshots) declared.snapshots.set(snapshot.name, snapshot);
  }

  // dbt adds a node whose folder configs and SQL leave it enabled to the manifest, and any other to its disabled
  // list (parser/base.py add_result_node): only two enabled nodes of one id are dbt's DuplicateResourceNameError.
  const byId = new Map<string, Node>();
  const parsedEnabled = new Map<Node, boolean | null>();
  const add = <T extends Node>(node: T, enabledAtParse: boolean | null = node.enabled): T => {
    parsedEnabled.set(node, enabledAtParse);
    const earlier = byId.get(node.uniqueId);
    if (earlier && enabledAtParse !== false) {
      const earlierEnabled = parsedEnabled.get(earlier);
      if (earlierEnabled === null || enabledAtParse === null) {
        const [undecided, other] = enabledAtParse === null ? [node, earlier] : [earlier, node];
        throw undecidedEnabled(node.kind, node.name, undecided.file, undecided.enabledExpression as EnabledExpression, other.file);
      }
      if (earlierEnabled !== false) throw definedTwice(node.kind, node.name, earlier.file, node.file, node.line);
    }
    // A disabled node never displaces the one kept (dbt keeps it aside, on its disabled list).
    if (!earlier || parsedEnabled.get(earlier) === false) {
      if (!earlier || enabledAtParse !== false) byId.set(node.uniqueId, node);
    }
    return node;
  };

  const judgedProjectValues = new Map<string, ReturnType<typeof judgeProjectValue>>();
  // A `config(enabled=<Jinja>)` is rendered at parse time with --vars and the project's vars.
  const scopes = varScopes(
    project.vars,
    rootSettings?.vars ?? settings.vars,
    name,
    rootSettings?.name ?? name,
    rootSettings ? settings.vars : null,
  );
  const enabledIn = (fromSql: { config: Mapping; dynamic: Mapping }): EnabledExpression | null => {
    // tags=<Jinja> decides `--select tag:x` as enabled decides the node: judged as dbt evaluates it, it joins the
    // literal config (a value that is not a list of strings, or one slp cannot judge, stays dynamic).
    if (fromSql.dynamic.tags !== undefined) {
      const tags = judgeExpression(String(fromSql.dynamic.tags), { vars: scopes });
      if (
        "value" in tags &&
        (typeof tags.value === "string" || (Array.isArray(tags.value) && tags.value.every((t) => typeof t === "string")))
      ) {
        mergeConfig(fromSql.config, "tags", tags.value);
        delete fromSql.dynamic.tags;
      }
    }
    const raw = fromSql.dynamic.enabled;
    if (raw === undefined) return null;
    const text = String(raw);
    const judged = judgeExpression(text, { vars: scopes });
    if ("why" in judged) return { text, value: null, why: judged.why };
    if (typeof judged.value === "boolean") return { text, value: judged.value };
    return { text, value: null, why: `it renders to ${pythonStr(judged.value)}, which is not true or false` };
  };
  /** Enabled by its folder configs and SQL, before any yml (what dbt's parser decides a node's place by); null when undecided. */
  const enabledAtParse = (folder: Mapping, fromSql: { config: Mapping } | null, expression: EnabledExpression | null): boolean | null => {
    if (expression) return expression.value;
    const fromFile = fromSql?.config.enabled;
    return (fromFile !== undefined ? fromFile : folder.enabled) !== false;
  };

  // A package's own folder configs, then the root project's for it: the root project has the last word.
  const configFor = (block: ConfigBlock, fqn: string[]): Mapping => {
    const config = folderConfig(settings.configs[block], fqn);
    if (rootSettings)
      for (const [key, value] of Object.entries(folderConfig(rootSettings.configs[block], fqn))) mergeConfig(config, key, value);
    // dbt renders dbt_project.yml's configs natively at load (`+enabled: "{{ var('x', false) | as_bool }}"`);
    // a value slp cannot judge stays as written.
    if (typeof config.enabled === "string" && config.enabled.includes("{{")) {
      const judged = judgedProjectValues.get(config.enabled) ?? judgeProjectValue(config.enabled, project.vars);
      judgedProjectValues.set(config.enabled, judged);
      if ("value" in judged && typeof judged.value === "boolean") config.enabled = judged.value;
    }
    return config;
  };

  return { project, name, settings, paths, roots, all, properties, declared, byId, under, add, configFor, enabledIn, enabledAtParse };
}

/** A file's folders below the project folder (of `roots`) it sits in: the middle of its fqn. */
export function folderOf(file: string, roots: readonly string[]): string[] {
  const root = roots.find((path) => file.startsWith(`${path}/`)) ?? "";
  return file
    .slice(root.length + 1)
    .split("/")
    .slice(0, -1);
}

export function projectFolders(settings: ProjectSettings): string[] {
  const { paths } = settings;
  return [...paths.model, ...paths.seed, ...paths.snapshot, ...paths.analysis, ...paths.macro, ...paths.test, ...paths.function];
}

/** Yml under the folders, as a list of files. */
export function ymlIn(files: readonly SourceFile[]): SourceFile[] {
  return files.filter((file) => isYamlFile(file.path));
}

/** Files in the order dbt lists them (path segments), each path once. */
export function sortBySegments(files: readonly SourceFile[]): SourceFile[] {
  const byPath = new Map(files.map((file) => [file.path, file]));
  return sortPathsBySegments([...byPath.keys()]).map((path) => byPath.get(path) as SourceFile);
}

/** dbt's DuplicateResourceNameError, naming both files. */
export function definedTwice(kind: string, name: string, first: string | null, second: string | null, line: number): InputError {
  return new InputError(`${kind} ${name} is defined twice: ${first} and ${second}`, {
    file: second ?? undefined,
    line,
    fix: `give each ${kind} its own name, or disable one of them (dbt refuses two enabled ${kind}s with one name and ignores a disabled one)`,
  });
}

/** Two nodes of one name, one of which only rendering can enable or disable: which one dbt keeps is not slp's to guess. */
export function undecidedEnabled(
  kind: string,
  name: string,
  file: string | null,
  expression: EnabledExpression,
  other: string | null,
): InputError {
  return new InputError(
    `${kind} ${name} is defined in ${other} and in ${file}, whose config(enabled=${expression.text}) slp cannot judge (${expression.why}); dbt keeps one of them only if the other is disabled`,
    {
      file: file ?? undefined,
      line: 1,
      fix: "write enabled as true/false, var('name', default) or a comparison of target.name, or give the two models different names",
    },
  );
}
