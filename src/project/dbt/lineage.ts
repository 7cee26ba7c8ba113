/**
 * What a branch changed in a dbt project, and what that reaches through the
 * DAG: the one definition of "changed" and "downstream" that gate (G15,
 * G16), compare (C7) and Stage E's targets share. A node changed when
 * something that decides its rows did, as dbt's `state:modified` reads it:
 * its SQL (or a Python model's code), a seed's CSV, its config as dbt puts it
 * together (folder configs, yml `config:`, SQL `config()`), a source's
 * relation, the version an unversioned ref() reads (`latest_version`), or
 * a macro it calls (directly or through other macros). New
 * nodes are changed; descriptions, tags, meta and tests are not.
 *
 * It reads as little as it can: files are compared by content id, a yml
 * entry only when its file changed, the base's nodes only when a file moved
 * or dbt_project.yml changed, and head's DAG only when some other node's
 * code names a changed one.
 */
import { compareCodePoints, escapeRegExp } from "../../core/text.ts";
import { canonicalJson, isMapping, type Mapping, type Value } from "../../core/values.ts";
import type { Graph, Node, Nodes, Project } from "../model.ts";
import { refReads } from "../nodes/models.ts";
import { blocks } from "../nodes/sql-files.ts";
import type { Testable } from "./properties.ts";

/** How far gate and compare follow a change downstream (slp.yml `lineage`, read from the base). */
export type LineageMode = "all" | "critical-only" | "off";

export const DEFAULT_LINEAGE: LineageMode = "all";

/** slp.yml's `lineage` as written (YAML reads a bare `off` as false), as a mode; the default when unset. */
export function lineageMode(written: LineageMode | false | undefined): LineageMode {
  return written === false ? "off" : (written ?? DEFAULT_LINEAGE);
}

export interface NodeChange {
  /** dbt's unique id (`model.shop.stg_orders`). */
  id: string;
  name: string;
  kind: "model" | "seed" | "snapshot" | "source";
  /** What changed, for messages: "its SQL", "its CSV", "its config", "its relation", "its latest version", "new", "macro cents". */
  what: string[];
}

export interface ChangedMacro {
  name: string;
  file: string;
  line: number;
  /** The changed macro it calls, when only that makes it changed. */
  via: string | null;
}

export interface ProjectChanges {
  /** Changed nodes by unique id. */
  nodes: Map<string, NodeChange>;
  /** Changed macros by name: edited, added or removed, and every macro that calls one. */
  macros: Map<string, ChangedMacro>;
  /** The head project's nodes. */
  after: Nodes;
  /** The head project's DAG (read on first call). */
  graph(): Promise<Graph>;
  /** The file a head node was read from at the base, or null when the base has no such node. */
  baseFile(node: Node): Promise<string | null>;
  /**
   * Every node at or downstream of a changed one, with the changed nodes
   * upstream of it (itself included when it changed), sorted by id. The DAG
   * is read only when some node's code names a changed node.
   */
  reached(): Promise<Map<string, string[]>>;
}

/** Config keys that decide nothing about a node's rows (whether it is built at all is G14's). */
const INERT_CONFIG = new Set([
  "enabled",
  "meta",
  "tags",
  "docs",
  "persist_docs",
  "description",
  "group",
  "access",
  "grants",
  "contract",
  "labels",
]);

/** A versioned model whose `latest_version` the branch moved: every unversioned ref() to it now reads this version. */
const LATEST = "its latest version";

/** Macros dbt calls for every node without any SQL naming them: changing one changes every node. */
const IMPLICIT_MACROS = new Set(["generate_schema_name", "generate_alias_name", "generate_database_name"]);

/** What changed between two projects (the merge-base's, head's): nodes and macros, with head's DAG on demand. */
export async function projectChanges(before: Project, after: Project): Promise<ProjectChanges> {
  const [head, baseSettings, headSettings] = await Promise.all([after.nodes(), before.settings(), after.settings()]);
  const [baseIds, headIds] = await Promise.all([contentIds(before), contentIds(after)]);
  const projectFile = headSettings.file ?? "dbt_project.yml";
  const sameProjectFile = baseSettings.file === headSettings.file && baseIds.get(projectFile) === headIds.get(projectFile);
  let baseNodes: Promise<Nodes> | undefined;
  const base = () => (baseNodes ??= before.nodes());
  const macros = await changedMacros(before, after, head, baseSettings.paths.macro, baseIds, headIds);

  const nodes = new Map<string, NodeChange>();
  const mark = (node: Node, what: string) => {
    const kind = node.kind === "model" || node.kind === "seed" || node.kind === "snapshot" || node.kind === "source" ? node.kind : null;
    if (kind === null) return;
    const change = nodes.get(node.uniqueId) ?? { id: node.uniqueId, name: nodeName(node), kind, what: [] };
    if (!change.what.includes(what)) change.what.push(what);
    nodes.set(node.uniqueId, change);
  };
  const implicit = [...macros.keys()].filter((name) => IMPLICIT_MACROS.has(name)).sort(compareCodePoints);
  const calls = macroCallPattern([...macros.keys()]);

  for (const node of [...head.models, ...head.seeds, ...head.snapshots, ...head.sources]) {
    const code = node.kind !== "source" && node.file !== null && node.file !== node.ymlFile ? node.file : null;
    // A node whose code is at the same path on the base is the same node; one that moved, or is new, is looked up by id.
    const moved = code !== null && !baseIds.has(code);
    const was = moved || !sameProjectFile ? (await base()).byId.get(node.uniqueId) : undefined;
    if (moved && !was) {
      mark(node, "new");
      continue;
    }
    if (code !== null) {
      const baseCode = was ? was.file : code;
      if (baseCode === null || baseIds.get(baseCode) !== headIds.get(code))
        mark(node, node.kind === "seed" ? "its CSV" : code.endsWith(".py") ? "its code" : "its SQL");
    }
    if (was !== undefined || !sameProjectFile) {
      if (!was) mark(node, "new");
      else if (relationOf(node) !== relationOf(was)) mark(node, node.kind === "source" ? "its relation" : "its config");
      if (was !== undefined && "latest" in was && node.kind === "model" && node.latest && !was.latest) mark(node, LATEST);
    } else if (node.declaration) {
      // Only the yml entry can have changed the config: compared when its file changed.
      const file = node.declaration.file;
      if (baseIds.get(file) !== headIds.get(file)) {
        const entry = baseIds.has(file) ? await baseDeclaration(before, file, baseIds.get(file) as string, node) : undefined;
        if (entry === undefined) {
          const old = (await base()).byId.get(node.uniqueId);
          if (!old) mark(node, "new");
          else if (relationOf(node) !== relationOf(old)) mark(node, node.kind === "source" ? "its relation" : "its config");
        } else {
          if (declaredRelation(node.declaration) !== declaredRelation(entry))
            mark(node, node.kind === "source" ? "its relation" : "its config");
          if (node.kind === "model" && node.latest && refReads(entry) !== refReads(node.declaration)) mark(node, LATEST);
        }
      }
    }
    for (const name of implicit) mark(node, `macro ${name}`);
    if (calls && code?.endsWith(".sql") && node.kind !== "seed") {
      for (const name of calledMacros(await after.text(code), calls)) mark(node, `macro ${name}`);
    }
  }
  for (const change of nodes.values()) change.what.sort(compareCodePoints);

  let reached: Promise<Map<string, string[]>> | undefined;
  return {
    nodes,
    macros,
    after: head,
    graph: () => after.graph(),
    async baseFile(node) {
      if (node.file !== null && baseIds.has(node.file)) return node.file;
      return (await base()).byId.get(node.uniqueId)?.file ?? null;
    },
    reached() {
      reached ??= reachedBy(after, head, nodes);
      return reached;
    },
  };
}

async function reachedBy(after: Project, head: Nodes, changes: Map<string, NodeChange>): Promise<Map<string, string[]>> {
  const reached = new Map<string, Set<string>>();
  for (const id of changes.keys()) reached.set(id, new Set([id]));
  if (changes.size === 0 || !(await someCodeNames(after, head, changes))) return sortedSets(reached);
  const graph = await after.graph();
  for (const id of changes.keys()) {
    for (const other of graph.downstream([id])) {
      const set = reached.get(other) ?? new Set<string>();
      set.add(id);
      reached.set(other, set);
    }
  }
  return sortedSets(reached);
}

function sortedSets(reached: Map<string, Set<string>>): Map<string, string[]> {
  return new Map([...reached].map(([id, set]) => [id, [...set].sort(compareCodePoints)]));
}

/** True when some node's code holds the name of a changed node other than itself: only then can anything be downstream. */
async function someCodeNames(after: Project, head: Nodes, changes: Map<string, NodeChange>): Promise<boolean> {
  const names = new Map<string, Set<string>>();
  for (const change of changes.values()) {
    const name = change.kind === "source" ? (change.name.split(".")[1] as string) : change.name;
    names.set(name, (names.get(name) ?? new Set()).add(change.id));
  }
  for (const node of [...head.models, ...head.snapshots]) {
    if (node.file === null || node.file === node.ymlFile) continue;
    const text = await after.text(node.file);
    for (const [name, ids] of names) if ((ids.size > 1 || !ids.has(node.uniqueId)) && namesWord(text, name)) return true;
  }
  return false;
}

/** True when `name` occurs in `text` as a whole word (fct_model_3 is not in fct_model_30). */
function namesWord(text: string, name: string): boolean {
  const word = /[A-Za-z0-9_]/;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    if (!word.test(text[at - 1] ?? "") && !word.test(text[at + name.length] ?? "")) return true;
  }
  return false;
}

function nodeName(node: Node): string {
  return node.kind === "source" ? `${node.source}.${node.table}` : node.name;
}

/** The declaration of the same node in one yml at the base, if that file declares it. */
async function baseDeclaration(before: Project, file: string, id: string, node: Node): Promise<Testable | undefined> {
  const properties = await before.properties({ path: file, id });
  if (node.kind === "source") return properties.sources.find((table) => table.source === node.source && table.name === node.table);
  const list = node.kind === "seed" ? properties.seeds : node.kind === "snapshot" ? properties.snapshots : properties.models;
  return list.find((entry) => entry.name === node.name);
}

function withoutInert(config: Value | undefined): Mapping {
  const kept: Mapping = {};
  if (isMapping(config)) for (const [key, value] of Object.entries(config)) if (!INERT_CONFIG.has(key)) kept[key] = value;
  return kept;
}

function pick(entry: Mapping, keys: readonly string[]): Mapping {
  return Object.fromEntries(keys.filter((key) => entry[key] !== undefined).map((key) => [key, entry[key] as Value]));
}

const SOURCE_KEYS = ["database", "schema", "quoting", "loader"] as const;
const TABLE_KEYS = ["identifier", "quoting"] as const;

/** What a yml entry says about a node's rows: its config (and its versions'), a source's relation. */
function declaredRelation(declaration: Testable): string {
  const entry = declaration.entry;
  // Versions that configure nothing decide nothing: declaring versions is not a config change.
  const versions = (Array.isArray(entry.versions) ? entry.versions.filter(isMapping) : [])
    .map((version) => ({ v: version.v ?? null, config: withoutInert(version.config) }))
    .filter((version) => Object.keys(version.config).length > 0);
  if (!("sourceEntry" in declaration)) return canonicalJson({ config: withoutInert(entry.config), versions });
  const source = declaration.sourceEntry as Mapping;
  return canonicalJson({
    config: withoutInert(entry.config),
    source: { ...pick(source, SOURCE_KEYS), config: withoutInert(source.config) },
    table: pick(entry, TABLE_KEYS),
  });
}

/** A node's config as dbt put it together, without the keys that decide nothing, and a source's relation: canonical text. */
function relationOf(node: Node): string {
  const config = withoutInert(node.config);
  if (node.kind !== "source") return canonicalJson(config);
  const table = node.declaration?.entry ?? {};
  const source = node.declaration && "sourceEntry" in node.declaration ? (node.declaration.sourceEntry as Mapping) : {};
  return canonicalJson({ config, source: pick(source, SOURCE_KEYS), table: pick(table, TABLE_KEYS) });
}

/** Path -> content id of every file of the project's folders (git blob ids; the work tree's are computed). */
async function contentIds(project: Project): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const settings = await project.settings();
  const files = [...(await project.files()), ...(settings.file ? await project.list([settings.file]) : [])];
  for (const file of files) ids.set(file.path, file.id ?? project.source.knownId?.(file) ?? (await project.source.read(file)).id);
  return ids;
}

/** Macro names whose body differs between the projects (or exists on one side only), then every macro calling one of them. */
async function changedMacros(
  before: Project,
  after: Project,
  head: Nodes,
  baseMacroPaths: readonly string[],
  baseIds: Map<string, string>,
  headIds: Map<string, string>,
): Promise<Map<string, ChangedMacro>> {
  const changed = new Map<string, ChangedMacro>();
  const bodies = async (project: Project, file: string) =>
    new Map(blocks(await project.text(file), "macro").map((block) => [block.name, block]));
  const headFiles = new Set(head.macroFiles.map((file) => file.file));
  for (const file of baseIds.keys()) {
    if (headFiles.has(file) || !file.endsWith(".sql") || !baseMacroPaths.some((path) => file.startsWith(`${path}/`))) continue;
    // A file gone takes its macros with it (one the project overrode falls back to the package's).
    for (const [name, block] of await bodies(before, file)) changed.set(name, { name, file, line: block.line, via: null });
  }
  const headBodies = new Map<string, { body: string; file: string; line: number }>();
  for (const file of head.macroFiles) {
    if (file.macros.length === 0) continue;
    const now = await bodies(after, file.file);
    for (const [name, block] of now) headBodies.set(name, { body: block.body, file: file.file, line: block.line });
    if (baseIds.get(file.file) === headIds.get(file.file)) continue;
    const was = baseIds.has(file.file) ? await bodies(before, file.file) : new Map<string, { body: string }>();
    for (const [name, block] of now)
      if (was.get(name)?.body !== block.body) changed.set(name, { name, file: file.file, line: block.line, via: null });
    for (const name of was.keys()) if (!now.has(name)) changed.set(name, { name, file: file.file, line: 1, via: null });
  }
  // A macro that calls a changed macro renders differently too; follow calls until nothing new is reached.
  for (let grew = true; grew; ) {
    grew = false;
    const pattern = macroCallPattern([...changed.keys()]);
    if (!pattern) break;
    for (const [name, macro] of headBodies) {
      if (changed.has(name)) continue;
      const via = calledMacros(macro.body, pattern).find((called) => called !== name);
      if (via === undefined) continue;
      changed.set(name, { name, file: macro.file, line: macro.line, via });
      grew = true;
    }
  }
  return changed;
}

/** A pattern that finds calls of the named macros: `name(`, `pkg.name(`, `adapter.dispatch('name'`; null for no names. */
function macroCallPattern(names: readonly string[]): RegExp | null {
  if (names.length === 0) return null;
  const alternatives = [...names]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join("|");
  return new RegExp(`(?<![\\w])(?:[A-Za-z_]\\w*\\.)?(${alternatives})\\s*\\(|dispatch\\s*\\(\\s*['"](${alternatives})['"]`, "g");
}

/** The names a text's Jinja calls (macros are called nowhere else), from a macroCallPattern, each once, sorted. */
function calledMacros(text: string, pattern: RegExp): string[] {
  const found = new Set<string>();
  for (const block of text.replace(/\{#[\s\S]*?#\}/g, "").matchAll(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g)) {
    for (const match of block[0].matchAll(pattern)) found.add((match[1] ?? match[2]) as string);
  }
  return [...found].sort(compareCodePoints);
}

/** A spec tier is critical: what `lineage: critical-only` follows. */
export function isCriticalSpec(spec: unknown): boolean {
  return isMapping(spec) && spec.tier === "critical";
}
