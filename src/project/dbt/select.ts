/**
 * dbt's node selection (`--select`, `--exclude`) over the project's nodes
 * and DAG, as dbt-core's graph/selector*.py evaluates it: arguments are a
 * union (space-separated or repeated), a comma joins an intersection, each
 * criterion is `[@][N+][method[.arg]:]value[+N]` with dbt's methods (a bare
 * value is a path when it holds a `/`, else an fqn), graph operators walk the
 * DAG, and a unit test joins any selection that holds the model it tests
 * (dbt's eager indirect selection). An unknown method, a malformed criterion
 * or a `--select` criterion that matches no node is a SelectorError, never
 * an empty run. `model::test` (slp's own spelling of one unit test) works too.
 */
import { SlpError } from "../../core/errors.ts";
import { isMapping, type Mapping, type Value } from "../../core/values.ts";

/** A node selection can match: a model, seed, snapshot, source table or unit test. */
export interface SelectableNode {
  id: string;
  resourceType: "model" | "seed" | "snapshot" | "source" | "unit_test";
  /** The node's name (a unit test's name as written, a source table's table name). */
  name: string;
  package: string;
  fqn: string[];
  /** The file that defines it, relative to its own project (a package's own root): `models/x.sql`, a yml for sources and unit tests. */
  path: string | null;
  /** The yml that describes it, relative to its own project, when not `path`. */
  ymlPath: string | null;
  tags: string[];
  /** A `config(tags=<Jinja>)` slp could not judge, as written: a tag criterion cannot say whether it matches. */
  undecidedTags?: string;
  config: Mapping;
  version: string | null;
  latest: boolean;
  /** The versions of the same model, for version:old/prerelease. */
  latestVersion: string | null;
  /** Unique ids of the nodes it reads (a unit test: the model it tests). */
  parents: string[];
  /** A source table's source name. */
  source?: string;
  /** A unit test's `model::test` as slp prints it. */
  display?: string;
  /** A model's `access` (from its yml or config). */
  access?: string | null;
}

/** A criterion slp cannot evaluate, or one that selects nothing: exit 2 with the reason. */
export class SelectorError extends SlpError {
  constructor(message: string, fix: string) {
    super("E_USAGE", message, { fix });
  }
}

const METHODS = [
  "fqn",
  "tag",
  "group",
  "access",
  "source",
  "path",
  "file",
  "package",
  "config",
  "test_name",
  "test_type",
  "resource_type",
  "state",
  "exposure",
  "metric",
  "result",
  "source_status",
  "version",
  "semantic_model",
  "saved_query",
  "unit_test",
] as const;
type Method = (typeof METHODS)[number];

/** Methods that read artifacts or resources slp does not model: refused by name rather than answered with nothing. */
const UNSUPPORTED: Partial<Record<Method, string>> = {
  state: "state: compares against a previous manifest (--state), which slp unit does not read",
  result: "result: reads a previous run's run_results.json, which slp unit does not read",
  source_status: "source_status: reads a previous freshness run, which slp unit does not read",
};

interface Criterion {
  raw: string;
  method: Method;
  args: string[];
  value: string;
  childrensParents: boolean;
  parents: boolean;
  parentsDepth: number | null;
  children: boolean;
  childrenDepth: number | null;
}

// dbt's RAW_SELECTOR_PATTERN: [@][N+][method[.args]:]value[+N]
const CRITERION =
  /^(?<at>@)?(?<parents>(?<parentsDepth>\d*)\+)?(?:(?<method>[\w.]+):)?(?<value>.*?)(?<children>\+(?<childrenDepth>\d*))?$/s;

export interface Selection {
  /** Every node selected (directly, through the graph, or as a unit test of a selected model), after --exclude. */
  ids: Set<string>;
}

/**
 * The nodes `select` and `exclude` choose (each item may hold several
 * space-separated criteria). An empty `select` means every node.
 */
export function selectNodes(nodes: readonly SelectableNode[], select: readonly string[], exclude: readonly string[]): Selection {
  const graph = new SelectionGraph(nodes);
  const included = select.length === 0 ? new Set(graph.ids) : union(graph, select, true);
  const excluded = union(graph, exclude, false);
  return { ids: new Set([...included].filter((id) => !excluded.has(id))) };
}

/** The criteria of one option, split as dbt splits them: items and spaces are a union, commas an intersection. */
export function splitCriteria(items: readonly string[]): string[] {
  return items.flatMap((item) => item.split(/\s+/)).filter((part) => part !== "");
}

function union(graph: SelectionGraph, items: readonly string[], expectExists: boolean): Set<string> {
  const result = new Set<string>();
  for (const raw of splitCriteria(items)) {
    const parts = raw.split(",").filter((part) => part !== "");
    if (parts.length === 0) continue;
    let selected = graph.expand(graph.criterion(parseCriterion(parts[0] as string)));
    for (const part of parts.slice(1)) {
      const one = graph.expand(graph.criterion(parseCriterion(part)));
      selected = new Set([...selected].filter((id) => one.has(id)));
    }
    if (expectExists && selected.size === 0) {
      throw new SelectorError(
        `The selection criterion '${raw}' does not match any enabled nodes`,
        "check the name, or list what there is: a model, a unit test, tag:, path:, package:, test_name:, config.materialized:, with + and @ for the DAG",
      );
    }
    for (const id of selected) result.add(id);
  }
  return result;
}

function parseCriterion(raw: string): Criterion {
  if (/^[^:]+::[^:]+$/.test(raw)) {
    return {
      raw,
      method: "unit_test",
      args: ["display"],
      value: raw,
      childrensParents: false,
      parents: false,
      parentsDepth: null,
      children: false,
      childrenDepth: null,
    };
  }
  const match = CRITERION.exec(raw);
  if (!match?.groups)
    throw new SelectorError(`Invalid selector spec "${raw}"`, "write [@][N+][method:]value[+N], e.g. +fct_orders or tag:nightly");
  const groups = match.groups;
  const value = groups.value ?? "";
  if (value === "")
    throw new SelectorError(`Invalid node spec "${raw}" - no search value!`, "name what to select after the method, e.g. tag:nightly");
  let method: Method;
  let args: string[] = [];
  if (groups.method === undefined) method = value.includes("/") ? "path" : "fqn";
  else {
    const [name = "", ...rest] = groups.method.split(".");
    if (!(METHODS as readonly string[]).includes(name)) {
      throw new SelectorError(`'${name}' is not a valid method name`, `use one of ${METHODS.filter((m) => !UNSUPPORTED[m]).join(", ")}`);
    }
    method = name as Method;
    args = rest;
  }
  const unsupported = UNSUPPORTED[method];
  if (unsupported)
    throw new SelectorError(`selector '${raw}' uses ${unsupported}`, "select by name, path, tag, package, config or test name instead");
  if (groups.at && groups.children)
    throw new SelectorError(`Invalid node spec ${raw} - "@" prefix and "+" suffix are incompatible`, "use @model or model+, not both");
  return {
    raw,
    method,
    args,
    value,
    childrensParents: groups.at !== undefined,
    parents: groups.parents !== undefined,
    parentsDepth: groups.parentsDepth ? Number(groups.parentsDepth) : null,
    children: groups.children !== undefined,
    childrenDepth: groups.childrenDepth ? Number(groups.childrenDepth) : null,
  };
}

class SelectionGraph {
  readonly ids: string[];
  readonly #nodes = new Map<string, SelectableNode>();
  readonly #children = new Map<string, string[]>();

  constructor(nodes: readonly SelectableNode[]) {
    for (const node of nodes) this.#nodes.set(node.id, node);
    this.ids = [...this.#nodes.keys()];
    for (const node of nodes) {
      for (const parent of node.parents) {
        if (!this.#nodes.has(parent)) continue;
        const list = this.#children.get(parent) ?? [];
        list.push(node.id);
        this.#children.set(parent, list);
      }
    }
  }

  /** The nodes one criterion names, with the relatives its graph operators ask for. */
  criterion(spec: Criterion): Set<string> {
    const direct = new Set<string>();
    for (const node of this.#nodes.values()) if (matches(spec, node)) direct.add(node.id);
    const selected = new Set(direct);
    if (spec.childrensParents) {
      const descendants = this.#walk(direct, (id) => this.#children.get(id) ?? [], null);
      for (const id of descendants) selected.add(id);
      for (const id of this.#walk(new Set([...direct, ...descendants]), (id) => this.#parentsOf(id), null)) selected.add(id);
    }
    if (spec.parents) for (const id of this.#walk(direct, (id) => this.#parentsOf(id), spec.parentsDepth)) selected.add(id);
    if (spec.children) for (const id of this.#walk(direct, (id) => this.#children.get(id) ?? [], spec.childrenDepth)) selected.add(id);
    return selected;
  }

  /** dbt's eager indirect selection: a unit test whose model is selected is selected. */
  expand(selected: Set<string>): Set<string> {
    const out = new Set(selected);
    for (const id of selected) {
      for (const child of this.#children.get(id) ?? []) if (this.#nodes.get(child)?.resourceType === "unit_test") out.add(child);
    }
    return out;
  }

  #parentsOf(id: string): string[] {
    return (this.#nodes.get(id)?.parents ?? []).filter((parent) => this.#nodes.has(parent));
  }

  /** The nodes reachable from `start` (excluded) within `depth` steps (null: any). */
  #walk(start: Set<string>, next: (id: string) => string[], depth: number | null): Set<string> {
    const seen = new Set<string>();
    let frontier = [...start];
    for (let step = 0; frontier.length > 0 && (depth === null || step < depth); step++) {
      const following: string[] = [];
      for (const id of frontier) {
        for (const other of next(id)) {
          if (seen.has(other)) continue;
          seen.add(other);
          following.push(other);
        }
      }
      frontier = following;
    }
    return seen;
  }
}

function matches(spec: Criterion, node: SelectableNode): boolean {
  const { value } = spec;
  switch (spec.method) {
    case "fqn":
      return (
        node.resourceType !== "source" &&
        (selectedByFqn(node.fqn, value, node.version !== null) || selectedByFqn(node.fqn.slice(1), value, node.version !== null))
      );
    case "tag":
      if (node.tags.some((tag) => fnmatch(tag, value))) return true;
      if (node.undecidedTags !== undefined)
        throw new SelectorError(
          `whether ${node.name} has the tag '${value}' depends on config(tags=${node.undecidedTags}) in ${node.path ?? node.name}, which slp cannot judge at parse time`,
          "write the tags as a list of strings, or an expression of var(...) and target.name, or select without tag:",
        );
      return false;
    case "group":
      return node.config.group === value;
    case "access":
      return node.resourceType === "model" && (node.access ?? "protected") === value;
    case "source": {
      if (node.resourceType !== "source") return false;
      const parts = value.split(".");
      if (parts.length > 3)
        throw new SelectorError(
          `Invalid source selector value "${value}"`,
          "write source:<source>, source:<source>.<table> or source:<package>.<source>.<table>",
        );
      const [pkg, source, table] = parts.length === 3 ? parts : parts.length === 2 ? ["*", ...parts] : ["*", parts[0], "*"];
      return fnmatch(node.package, pkg as string) && fnmatch(node.source ?? "", source as string) && fnmatch(node.name, table as string);
    }
    case "path":
      return pathMatches(node, value);
    case "file":
      return node.path !== null && fnmatch(node.path.slice(node.path.lastIndexOf("/") + 1), value);
    case "package":
      return fnmatch(node.package, value);
    case "config":
      return configMatches(node.config, spec.args, value);
    case "test_name":
      return node.resourceType === "unit_test" && fnmatch(node.name, value);
    case "test_type":
      if (!["unit", "data", "generic", "singular", "schema"].includes(value)) {
        throw new SelectorError(
          `Invalid test type selector ${value}: expected "generic", "singular", "unit", or "data"`,
          "use test_type:unit for unit tests",
        );
      }
      return value === "unit" && node.resourceType === "unit_test";
    case "resource_type": {
      const known = [
        "model",
        "seed",
        "snapshot",
        "source",
        "unit_test",
        "test",
        "analysis",
        "exposure",
        "metric",
        "macro",
        "operation",
        "sql_operation",
        "semantic_model",
        "saved_query",
        "function",
      ];
      if (!known.includes(value)) throw new SelectorError(`Invalid resource_type selector "${value}"`, `use one of ${known.join(", ")}`);
      return node.resourceType === value;
    }
    case "unit_test": {
      if (node.resourceType !== "unit_test") return false;
      if (spec.args[0] === "display") return node.display === value;
      const parts = value.split(".");
      if (parts.length > 2)
        throw new SelectorError(`Invalid unit test selector value "${value}"`, "write unit_test:<name> or unit_test:<package>.<name>");
      const [pkg, name] = parts.length === 2 ? parts : ["*", parts[0]];
      return fnmatch(node.package, pkg as string) && fnmatch(node.name, name as string);
    }
    case "version": {
      if (!["latest", "prerelease", "old", "none"].includes(value)) {
        throw new SelectorError(
          `Invalid version type selector ${value}: expected one of: "latest", "prerelease", "old", or "none"`,
          "use version:latest, version:old, version:prerelease or version:none",
        );
      }
      if (node.resourceType !== "model") return false;
      if (value === "none") return node.version === null;
      if (node.version === null || node.latestVersion === null) return false;
      if (value === "latest") return node.latest;
      const order = compareVersions(node.version, node.latestVersion);
      return value === "old" ? order < 0 : order > 0;
    }
    default:
      // exposure:, metric:, semantic_model:, saved_query: name resources no unit test reads.
      return false;
  }
}

/** dbt's `is_selected_node`: the leaf name, a dotted fqn prefix, or a wildcard over the rest. */
function selectedByFqn(fqn: readonly string[], selector: string, versioned: boolean): boolean {
  if (fqn.length === 0) return false;
  if (versioned) {
    const flat = selector.split(".");
    if (fqn[fqn.length - 2] === selector) return true;
    if (fqn.slice(-2).join("_") === flat.slice(-2).join("_")) return true;
  } else if (fqn[fqn.length - 1] === selector) return true;
  const flatFqn = fqn.flatMap((segment) => segment.split("."));
  const parts = selector.split(".");
  if (flatFqn.length < parts.length) return false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (/[*?[\]]/.test(part)) return fnmatch(flatFqn.slice(i).join("."), parts.slice(i).join("."));
    if (flatFqn[i] !== part) return false;
  }
  return true;
}

/** dbt's path method: the file, its yml, or a folder it is in matches the glob. */
function pathMatches(node: SelectableNode, selector: string): boolean {
  const pattern = globPattern(selector.replace(/^\.\//, "").replace(/\/+$/, ""));
  const candidates: string[] = [];
  if (node.path) {
    candidates.push(node.path);
    const parts = node.path.split("/");
    for (let i = 1; i < parts.length; i++) candidates.push(parts.slice(0, i).join("/"));
  }
  if (node.ymlPath) candidates.push(node.ymlPath);
  return candidates.some((candidate) => pattern.test(candidate));
}

/** A pathlib glob (`*` and `?` within a segment, `**` across folders) as a regular expression. */
function globPattern(glob: string): RegExp {
  const segments = glob.split("/");
  let out = "";
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") out += last ? ".*" : "(?:[^/]+/)*";
    else out += translate(segment, "[^/]") + (last ? "" : "/");
  });
  return new RegExp(`^${out.replace(/\/\.\*$/, "(?:/.*)?")}$`, "s");
}

/** Python's fnmatch.fnmatchcase: `*` any run of characters, `?` one, `[...]` a set. */
export function fnmatch(name: string, pattern: string): boolean {
  return new RegExp(`^${translate(pattern, ".")}$`, "s").test(name);
}

function translate(pattern: string, any: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === "*") out += `${any}*`;
    else if (ch === "?") out += any;
    else if (ch === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) out += "\\[";
      else {
        let set = pattern.slice(i + 1, close).replace(/\\/g, "\\\\");
        if (set.startsWith("!")) set = `^${set.slice(1)}`;
        else if (set.startsWith("^")) set = `\\${set}`;
        out += `[${set}]`;
        i = close;
      }
    } else out += ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return out;
}

/** dbt's config method: `config.materialized:table`, list membership, `true`/`false` for booleans. */
function configMatches(config: Mapping, path: readonly string[], selector: string): boolean {
  if (path.length === 0) throw new SelectorError("config: needs a key, e.g. config.materialized:table", "write config.<key>:<value>");
  let value: Value | undefined = config;
  for (const key of path) {
    if (!isMapping(value) || !Object.hasOwn(value, key)) return false;
    value = value[key];
  }
  const lower = selector.toLowerCase();
  const equal = (item: Value | undefined) =>
    (typeof item === "string" && (path.length === 1 && path[0] === "severity" ? item.toLowerCase() === lower : item === selector)) ||
    (typeof item === "number" && String(item) === selector) ||
    (item === true && lower === "true") ||
    (item === false && lower === "false");
  return Array.isArray(value) ? value.some(equal) : equal(value);
}

function compareVersions(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}
