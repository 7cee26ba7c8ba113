/**
 * `dbt_project.yml` as dbt reads it: the project's name, the folders each
 * kind of file lives in, `packages-install-path`, `vars`, `dispatch`, and the
 * folder configs of `models:`, `seeds:`, `snapshots:`, `sources:`,
 * `data_tests:` and `unit_tests:`. A value of the wrong type, a path that
 * leaves the project, or a model path that holds nothing is refused with its
 * line: a project read with the wrong folders is a project not read.
 */
import { InputError } from "../../core/errors.ts";
import { isMapping, type Mapping, type Value } from "../../core/values.ts";
import type { FileSource } from "../files/source.ts";
import { lineAt, parseYamlWithLines, type ParsedYaml } from "../files/yaml.ts";

export const PROJECT_FILE = "dbt_project.yml";

/** Folder keys and dbt's defaults. */
const PATH_KEYS = {
  model: ["model-paths", ["models"]],
  macro: ["macro-paths", ["macros"]],
  seed: ["seed-paths", ["seeds"]],
  snapshot: ["snapshot-paths", ["snapshots"]],
  analysis: ["analysis-paths", ["analyses"]],
  test: ["test-paths", ["tests"]],
  function: ["function-paths", ["functions"]],
} as const;

export type PathKind = keyof typeof PATH_KEYS;

/** The blocks of folder configs, by the resource type they configure. */
export const CONFIG_BLOCKS = ["models", "seeds", "snapshots", "sources", "data_tests", "unit_tests", "analyses"] as const;
export type ConfigBlock = (typeof CONFIG_BLOCKS)[number];

export interface DispatchRule {
  namespace: string;
  searchOrder: string[];
}

export interface ProjectSettings {
  /** Project-relative path of dbt_project.yml, or null when the folder has none (every setting is then dbt's default). */
  file: string | null;
  /** `name:`; "" without a dbt_project.yml. */
  name: string;
  /** `profile:` (the dbt profile, which names the warehouse adapter), or null. */
  profile: string | null;
  /** Each kind's folders, project-relative, without a trailing slash, in the order written. */
  paths: Record<PathKind, string[]>;
  /** Where `dbt deps` installs packages (default dbt_packages). */
  packagesInstallPath: string;
  vars: Mapping;
  dispatch: DispatchRule[];
  /** `flags:`, dbt's behaviour flags (`support_custom_ref_kwargs: true`), as written; {} without them. */
  flags: Mapping;
  /** The folder configs, by block (`tests:` is read as `data_tests:`, its older spelling). */
  configs: Record<ConfigBlock, Mapping>;
  /** dbt_project.yml as parsed (its lines, for messages); null without the file. */
  parsed: ParsedYaml | null;
}

/**
 * Reads dbt_project.yml at `prefix` (`""` for the project itself,
 * `dbt_packages/x/` for an installed package). Without one, dbt's defaults.
 */
export async function readSettings(source: FileSource, prefix = ""): Promise<ProjectSettings> {
  const file = `${prefix}${PROJECT_FILE}`;
  const [listed] = await source.list([file]);
  if (!listed) return defaultSettings(prefix);
  const { text } = await source.read(listed);
  const settings = settingsFromText(text, file, source.at, prefix);
  // A model path that holds nothing is a typo or a folder gone: nothing would be read, and that is not a pass.
  const written = settings.parsed && isMapping(settings.parsed.value) ? settings.parsed.value["model-paths"] : undefined;
  if (written !== undefined && written !== null) {
    for (const [index, path] of settings.paths.model.entries()) {
      if (!(await source.exists(`${path}/`))) {
        throw new InputError(
          `${atText(source.at)}model-paths names ${path.slice(prefix.length)}, which is not a folder of this project; a model path that holds nothing is nothing checked`,
          {
            file,
            line: lineAt(settings.parsed as ParsedYaml, ["model-paths", index]),
            fix: "create the folder, or remove it from model-paths",
          },
        );
      }
    }
  }
  return settings;
}

/**
 * Reads the text of a dbt_project.yml (at `prefix`, `at` naming the commit it
 * was read at): every check but whether the model paths exist, which needs
 * the files (readSettings does that).
 */
export function settingsFromText(text: string, file: string, at: string | undefined, prefix = ""): ProjectSettings {
  const source = { at };
  const parsed = parseYamlWithLines(text, { file, at });
  const { value } = parsed;
  const where = (path: (string | number)[]) => lineAt(parsed, path);
  if (!isMapping(value)) {
    throw new InputError(`${atText(source.at)}the file is not a yml mapping`, {
      file,
      line: 1,
      fix: "dbt_project.yml is a mapping with name:, version: and the project's settings",
    });
  }
  const name = value.name;
  if (typeof name !== "string" || name.trim() === "") {
    throw new InputError(`${atText(source.at)}dbt_project.yml has no name`, {
      file,
      line: where(["name"]),
      fix: "add name: <project name> to dbt_project.yml",
    });
  }
  const paths = {} as Record<PathKind, string[]>;
  for (const [kind, [key, fallback]] of Object.entries(PATH_KEYS) as [PathKind, (typeof PATH_KEYS)[PathKind]][]) {
    paths[kind] = readPaths(value[key], key, fallback, file, where, prefix, source);
  }
  const install = value["packages-install-path"];
  if (install !== undefined && install !== null && (typeof install !== "string" || install.trim() === "")) {
    throw shapeError(
      source,
      file,
      where(["packages-install-path"]),
      "packages-install-path must be a folder name",
      "write packages-install-path: dbt_packages",
    );
  }
  const configs = {} as Record<ConfigBlock, Mapping>;
  for (const block of CONFIG_BLOCKS) configs[block] = {};
  for (const block of CONFIG_BLOCKS) {
    const key = block;
    const written = value[key];
    if (written === undefined || written === null) continue;
    if (!isMapping(written))
      throw shapeError(
        source,
        file,
        where([key]),
        `${key}: must be a mapping of configs`,
        `write ${key}: {<project>: {+<config>: <value>}}`,
      );
    configs[block] = written;
  }
  const legacyTests = value.tests;
  if (legacyTests !== undefined && legacyTests !== null) {
    if (!isMapping(legacyTests))
      throw shapeError(
        source,
        file,
        where(["tests"]),
        "tests: must be a mapping of configs",
        "write data_tests: {<project>: {+<config>: <value>}}",
      );
    if (Object.keys(configs.data_tests).length > 0) {
      throw new InputError(`${atText(source.at)}ambiguous: dbt_project.yml configures tests under both tests: and data_tests:`, {
        file,
        line: where(["tests"]),
        fix: "keep data_tests:, the dbt >= 1.8 spelling",
      });
    }
    configs.data_tests = legacyTests;
  }
  const vars = value.vars;
  if (vars !== undefined && vars !== null && !isMapping(vars))
    throw shapeError(source, file, where(["vars"]), "vars: must be a mapping", "write vars: {name: value}");
  return {
    file,
    name: name.trim(),
    profile: typeof value.profile === "string" && value.profile.trim() !== "" ? value.profile.trim() : null,
    paths,
    packagesInstallPath:
      typeof install === "string"
        ? normalise(install, "packages-install-path", file, where(["packages-install-path"]), source)
        : "dbt_packages",
    vars: isMapping(vars) ? vars : {},
    dispatch: readDispatch(value.dispatch, file, where, source),
    flags: isMapping(value.flags) ? value.flags : {},
    configs,
    parsed,
  };
}

/** dbt's defaults, for a folder without dbt_project.yml. */
export function defaultSettings(prefix = ""): ProjectSettings {
  const paths = {} as Record<PathKind, string[]>;
  for (const [kind, [, fallback]] of Object.entries(PATH_KEYS) as [PathKind, (typeof PATH_KEYS)[PathKind]][]) {
    paths[kind] = fallback.map((path) => `${prefix}${path}`);
  }
  const configs = {} as Record<ConfigBlock, Mapping>;
  for (const block of CONFIG_BLOCKS) configs[block] = {};
  return {
    file: null,
    name: "",
    profile: null,
    paths,
    packagesInstallPath: "dbt_packages",
    vars: {},
    dispatch: [],
    flags: {},
    configs,
    parsed: null,
  };
}

function readPaths(
  value: Value | undefined,
  key: string,
  fallback: readonly string[],
  file: string,
  where: (path: (string | number)[]) => number,
  prefix: string,
  source: { at: string | undefined },
): string[] {
  if (value === undefined || value === null) return fallback.map((path) => `${prefix}${path}`);
  if (!Array.isArray(value)) {
    throw shapeError(
      source,
      file,
      where([key]),
      `${key} must be a list of folders, not ${kindOf(value)}`,
      `write ${key}: ["${fallback[0]}"]`,
    );
  }
  return value.map((item, index) => {
    if (typeof item !== "string" || item.trim() === "") {
      throw shapeError(
        source,
        file,
        where([key, index]),
        `${key} must be a list of folders; item ${index + 1} is ${kindOf(item)}`,
        `write each folder as a string, e.g. "${fallback[0]}"`,
      );
    }
    return `${prefix}${normalise(item, key, file, where([key, index]), source)}`;
  });
}

/** `./models/` -> `models`; a path that leaves the project (absolute, `..`) is refused. */
function normalise(path: string, key: string, file: string, line: number, source: { at: string | undefined }): string {
  let text = path.trim().replace(/\\/g, "/");
  while (text.startsWith("./")) text = text.slice(2);
  text = text.replace(/\/+$/, "");
  if (text.startsWith("/") || /^[A-Za-z]:/.test(text) || text.split("/").includes("..") || text === "" || text === ".") {
    throw shapeError(
      source,
      file,
      line,
      `${key} names ${path}, which is not a folder inside the project`,
      "name a folder relative to dbt_project.yml, inside the project",
    );
  }
  return text;
}

function readDispatch(
  value: Value | undefined,
  file: string,
  where: (path: (string | number)[]) => number,
  source: { at: string | undefined },
): DispatchRule[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw shapeError(
      source,
      file,
      where(["dispatch"]),
      "dispatch must be a list",
      "write dispatch: [{macro_namespace: x, search_order: [a, x]}]",
    );
  return value.map((rule, index) => {
    if (
      !isMapping(rule) ||
      typeof rule.macro_namespace !== "string" ||
      !Array.isArray(rule.search_order) ||
      !rule.search_order.every((item) => typeof item === "string")
    ) {
      throw shapeError(
        source,
        file,
        where(["dispatch", index]),
        "each dispatch entry needs macro_namespace (a name) and search_order (a list of names)",
        "write {macro_namespace: x, search_order: [a, x]}",
      );
    }
    return { namespace: rule.macro_namespace, searchOrder: rule.search_order as string[] };
  });
}

function shapeError(source: { at: string | undefined }, file: string, line: number, message: string, fix: string): InputError {
  return new InputError(`${atText(source.at)}${message}`, { file, line, fix });
}

function atText(at: string | undefined): string {
  return at ? `at ${at}, ` : "";
}

function kindOf(value: Value): string {
  if (Array.isArray(value)) return "a list";
  if (isMapping(value)) return "a mapping";
  if (value === null) return "empty";
  return `${typeof value === "string" ? "the string" : typeof value === "number" ? "the number" : "the boolean"} ${JSON.stringify(value)}`;
}
