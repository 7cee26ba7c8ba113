/**
 * The packages a project's `packages.yml` and `dependencies.yml` name, each
 * with the folder `dbt deps` installs it as, and which of them are not
 * installed. dbt installs a package under packages-install-path as its own
 * project name (deps/base.py get_installation_path: the `name` of the
 * package's dbt_project.yml), which package-lock.yml records as `name`; without
 * a lock it is, for a hub package, the last part of `package:`
 * (`dbt-labs/dbt_utils` -> dbt_utils), for git and private packages the
 * repository's (or subdirectory's) name as written or with `-` as `_`, for a
 * local one its dbt_project.yml's name, for a tarball its `name:`.
 */
import { isMapping, pythonStr, type Mapping } from "../../core/values.ts";
import { lineAt } from "../files/lines.ts";
import type { Project } from "../model.ts";
import { parseYamlWithLines } from "../files/yaml.ts";

/** One entry of packages.yml or dependencies.yml. */
export interface PackageEntry {
  /** `packages.yml:3`. */
  where: string;
  /** How it is written: `dbt-labs/dbt_utils`, a git URL, a local path. */
  written: string;
  /** The folder names dbt deps may install it as (the first is the one named in messages). */
  names: string[];
}

const FILES = ["packages.yml", "dependencies.yml"] as const;
const SOURCES = ["package", "git", "private", "local", "tarball"] as const;

/** Every entry of the project's packages.yml and dependencies.yml (`packages:`; dependencies.yml's `projects:` are not installed). */
export async function packageEntries(project: Project): Promise<PackageEntry[]> {
  const lock = await readYaml(project, "package-lock.yml");
  const locked = isMapping(lock?.value) && Array.isArray(lock.value.packages) ? lock.value.packages.filter(isMapping) : [];
  const entries: PackageEntry[] = [];
  for (const file of FILES) {
    const parsed = await readYaml(project, file);
    if (!parsed || !isMapping(parsed.value) || !Array.isArray(parsed.value.packages)) continue;
    for (const [index, item] of parsed.value.packages.entries()) {
      if (!isMapping(item)) continue;
      const source = SOURCES.find((key) => typeof item[key] === "string");
      if (source === undefined) continue;
      const written = item[source] as string;
      const lockName = locked.find((entry) => entry[source] === written && typeof entry.name === "string")?.name as string | undefined;
      const names = lockName ? [lockName] : await guessedNames(project, source, item);
      entries.push({ where: `${file}:${lineAt(parsed, ["packages", index])}`, written, names });
    }
  }
  return entries;
}

/**
 * The folders of the project's local packages (`- local: vendor/utils` in
 * packages.yml or dependencies.yml), project-relative with a trailing slash:
 * their macros and generic tests run as the project's own, outside macros/.
 * A path that leaves the project is not a folder of it, and is left out.
 */
export async function localPackageFolders(project: Project): Promise<string[]> {
  const folders: string[] = [];
  for (const file of FILES) {
    const parsed = await readYaml(project, file);
    if (!parsed || !isMapping(parsed.value) || !Array.isArray(parsed.value.packages)) continue;
    for (const item of parsed.value.packages) {
      if (!isMapping(item) || typeof item.local !== "string") continue;
      const path = item.local.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
      if (path === "" || path === "." || path.startsWith("/") || path.split("/").includes("..")) continue;
      folders.push(`${path}/`);
    }
  }
  return [...new Set(folders)];
}

/** The entries none of whose names is an installed package (by folder or by project name), in file order. */
export async function missingPackages(project: Project): Promise<PackageEntry[]> {
  const installed = new Set<string>();
  const settings = await project.settings();
  for (const pkg of await project.packages()) {
    installed.add(pkg.prefix.slice(settings.packagesInstallPath.length + 1, -1));
    installed.add((await pkg.settings()).name);
  }
  return (await packageEntries(project)).filter((entry) => !entry.names.some((name) => installed.has(name)));
}

async function guessedNames(project: Project, source: (typeof SOURCES)[number], item: Mapping): Promise<string[]> {
  const written = item[source] as string;
  if (source === "tarball") return typeof item.name === "string" ? [item.name] : [];
  if (source === "package") return [written.slice(written.lastIndexOf("/") + 1)];
  if (source === "local") {
    const path = written.replace(/\/+$/, "");
    const local = await readYaml(project, `${path}/dbt_project.yml`).catch(() => null);
    const name = isMapping(local?.value) && typeof local.value.name === "string" ? local.value.name : null;
    return name ? [name] : [path.slice(path.lastIndexOf("/") + 1)];
  }
  const subdirectory = typeof item.subdirectory === "string" ? item.subdirectory.replace(/\/+$/, "") : "";
  const base = (subdirectory || written.replace(/\/+$/, "").replace(/\.git$/, "")).split(/[/:]/).at(-1) ?? "";
  return [...new Set([base, base.replace(/-/g, "_")])].filter((name) => name !== "");
}

/** A yml at a project-relative path, or null when there is none. */
async function readYaml(project: Project, path: string) {
  if (path.includes("..") || !(await project.source.exists(path))) return null;
  const text = await project.text(path);
  return parseYamlWithLines(text, { file: path, at: project.source.at });
}

/**
 * Why a macro of package `name` cannot be found when packages the project
 * names are not installed: the entry that installs it, or (when no entry's
 * name is known to be it, as for a git URL whose project name differs) every
 * entry dbt deps has not installed. Null when nothing is missing.
 */
export function notInstalled(name: string, missing: readonly PackageEntry[], installPath: string): { message: string; fix: string } | null {
  if (missing.length === 0) return null;
  const fix = "run `dbt deps` in the project folder, then slp again (slp reads installed packages; it does not fetch them)";
  const entry = missing.find((candidate) => candidate.names.includes(name));
  if (entry) {
    return {
      message: `package ${name} is not installed: ${entry.where} names it (${pythonStr(entry.written)}), and ${installPath}/${name}/ does not exist`,
      fix,
    };
  }
  const listed = missing.map((candidate) => `${candidate.written} (${candidate.where})`).join(", ");
  return { message: `no installed package is ${name}, and ${installPath}/ lacks packages the project names: ${listed}`, fix };
}
