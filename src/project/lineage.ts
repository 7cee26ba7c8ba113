/**
 * What a branch changed in a dbt project, and what that reaches through the
 * DAG: the one definition of "changed" and "downstream" that gate (G15,
 * G16), compare (C7) and Stage E's targets share. A node changed when
 * something that decides its rows did, as dbt's `state:modified` reads it:
 * its SQL (or a Python model's code), a seed's CSV, its config as dbt puts it
 * together (folder configs, yml `config:`, SQL `config()`), a source's
 * relation, or a macro it calls (directly or through other macros). New
 * nodes are changed; descriptions, tags, meta and tests are not.
 */
import { compareCodePoints } from "../core/text.ts";
import { canonicalJson, isMapping, type Mapping } from "../core/values.ts";
import { blocks, type Graph, type Node, type Nodes, type Project } from "./model.ts";

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
  /** What changed, for messages: "its SQL", "its CSV", "its config", "its relation", "new", "macro cents". */
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
  /** The head project's DAG. */
  graph: Graph;
  /** The head project's nodes. */
  after: Nodes;
}

/** Config keys that decide nothing about a node's rows (whether it is built at all is G14's). */
const INERT_CONFIG = new Set(["enabled", "meta", "tags", "docs", "persist_docs", "description", "group", "access", "grants", "contract", "labels"]);

/** Macros dbt calls for every node without any SQL naming them: changing one changes every node. */
const IMPLICIT_MACROS = new Set(["generate_schema_name", "generate_alias_name", "generate_database_name"]);

/** What changed between two projects (the merge-base's, head's): nodes and macros, and head's DAG. */
export async function projectChanges(before: Project, after: Project): Promise<ProjectChanges> {
  const [base, head, graph] = await Promise.all([before.nodes(), after.nodes(), after.graph()]);
  const [baseIds, headIds] = await Promise.all([contentIds(before), contentIds(after)]);
  const macros = await changedMacros(before, after, base, head, baseIds, headIds);

  const nodes = new Map<string, NodeChange>();
  const mark = (node: Node, what: string) => {
    const kind = node.kind === "model" || node.kind === "seed" || node.kind === "snapshot" || node.kind === "source" ? node.kind : null;
    if (kind === null) return;
    const change = nodes.get(node.uniqueId) ?? { id: node.uniqueId, name: node.kind === "source" ? `${node.source}.${node.table}` : node.name, kind, what: [] };
    if (!change.what.includes(what)) change.what.push(what);
    nodes.set(node.uniqueId, change);
  };
  const implicit = [...macros.keys()].filter((name) => IMPLICIT_MACROS.has(name)).sort(compareCodePoints);
  const calls = macroCallPattern([...macros.keys()]);

  for (const node of [...head.models, ...head.seeds, ...head.snapshots, ...head.sources]) {
    const was = base.byId.get(node.uniqueId);
    if (!was) {
      mark(node, "new");
      continue;
    }
    if (node.kind !== "source" && node.file !== null && node.file !== node.ymlFile) {
      const sameFile = was.file !== null && baseIds.get(was.file) === headIds.get(node.file);
      if (!sameFile) mark(node, node.kind === "seed" ? "its CSV" : node.kind === "model" && node.file.endsWith(".py") ? "its code" : "its SQL");
    }
    if (relationOf(node) !== relationOf(was)) mark(node, node.kind === "source" ? "its relation" : "its config");
    for (const name of implicit) mark(node, `macro ${name}`);
    if (calls && node.kind !== "source" && node.kind !== "seed" && node.file !== null && /\.sql$/.test(node.file)) {
      for (const name of calledMacros(await after.text(node.file), calls)) mark(node, `macro ${name}`);
    }
  }
  for (const change of nodes.values()) change.what.sort(compareCodePoints);
  return { nodes, macros, graph, after: head };
}

/**
 * Every node downstream of a changed one, with the changed nodes upstream of
 * it (itself included when it changed), sorted by id.
 */
export function reachedBy(changes: ProjectChanges, changed: Iterable<string> = changes.nodes.keys()): Map<string, string[]> {
  const reached = new Map<string, Set<string>>();
  for (const id of changed) {
    for (const other of [id, ...changes.graph.downstream([id])]) {
      const set = reached.get(other) ?? new Set<string>();
      set.add(id);
      reached.set(other, set);
    }
  }
  return new Map([...reached].map(([id, set]) => [id, [...set].sort(compareCodePoints)]));
}

/** A node's config without the keys that decide nothing, and a source's relation: canonical text. */
function relationOf(node: Node): string {
  const config: Mapping = {};
  for (const [key, value] of Object.entries(node.config)) if (!INERT_CONFIG.has(key)) config[key] = value;
  if (node.kind !== "source") return canonicalJson(config);
  const table = node.declaration?.entry ?? {};
  const source = node.declaration && "sourceEntry" in node.declaration ? (node.declaration.sourceEntry as Mapping) : {};
  const pick = (entry: Mapping, keys: string[]) => Object.fromEntries(keys.filter((key) => entry[key] !== undefined).map((key) => [key, entry[key]]));
  return canonicalJson({
    config,
    source: pick(source, ["database", "schema", "quoting", "loader"]),
    table: pick(table, ["identifier", "quoting"]),
  });
}

/** Path -> content id of every file of the project's folders (git blob ids, computed for the work tree). */
async function contentIds(project: Project): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const file of await project.files()) ids.set(file.path, file.id ?? (await project.source.read(file)).id);
  return ids;
}

/** Macro names whose body differs between the projects (or exists on one side only), then every macro calling one of them. */
async function changedMacros(
  before: Project,
  after: Project,
  base: Nodes,
  head: Nodes,
  baseIds: Map<string, string>,
  headIds: Map<string, string>,
): Promise<Map<string, ChangedMacro>> {
  const changed = new Map<string, ChangedMacro>();
  const bodies = async (project: Project, file: string) => new Map(blocks(await project.text(file), "macro").map((block) => [block.name, block]));
  const headFiles = new Set(head.macroFiles.map((file) => file.file));
  for (const file of base.macroFiles) {
    if (headFiles.has(file.file)) continue;
    // A file gone takes its macros with it (one the project overrode falls back to the package's).
    for (const macro of file.macros) changed.set(macro.name, { name: macro.name, file: file.file, line: macro.line, via: null });
  }
  const headBodies = new Map<string, { body: string; file: string; line: number }>();
  for (const file of head.macroFiles) {
    if (file.macros.length === 0) continue;
    const now = await bodies(after, file.file);
    for (const [name, block] of now) headBodies.set(name, { body: block.body, file: file.file, line: block.line });
    if (baseIds.get(file.file) === headIds.get(file.file)) continue;
    const was = baseIds.has(file.file) ? await bodies(before, file.file) : new Map();
    for (const [name, block] of now) if (was.get(name)?.body !== block.body) changed.set(name, { name, file: file.file, line: block.line, via: null });
    for (const [name, block] of was) if (!now.has(name)) changed.set(name, { name, file: file.file, line: block.line, via: null });
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
  const alternatives = [...names].sort((a, b) => b.length - a.length).map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
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
