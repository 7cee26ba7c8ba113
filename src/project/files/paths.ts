/** Paths inside a dbt project: marts folders, file listings and their order. */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../core/errors.ts";
import { compareCodePoints } from "../../core/text.ts";

export const DEFAULT_MARTS_PATHS = ["models/marts"];

/**
 * `./models/marts/` -> `models/marts/`: strip every leading `./`, every
 * leading and trailing slash, then add one trailing slash. Interior doubled
 * slashes stay (and then match no file), as the reference does.
 */
export function normaliseMartsPath(path: string): string {
  let text = path;
  while (text.startsWith("./")) text = text.slice(2);
  text = text.replace(/^\/+|\/+$/g, "");
  return `${text}/`;
}

/** Where the marts paths came from, for what a missing one's message suggests. */
export type MartsPathOrigin = "default" | "--marts-path" | "slp.yml";

/**
 * Each marts path must be a folder under the project: nothing to check is
 * not OK (exit 2, the reference's sentence). What to do next is named: the
 * model folders the project has (dbt_project.yml's model-paths and the
 * folders in them), and the flag or slp.yml key that says which are marts.
 */
export function checkMartsPathsExist(
  projectDir: string,
  projectDirAsGiven: string,
  martsPaths: readonly string[],
  origin: MartsPathOrigin = "--marts-path",
  modelPaths: readonly string[] = ["models"],
): void {
  for (const marts of martsPaths) {
    if (isDirectory(join(projectDir, marts))) continue;
    throw new InputError(`${marts} not found under ${projectDirAsGiven}; nothing to check is not OK`, {
      fix: missingMartsFix(origin, modelFolders(projectDir, modelPaths), modelPaths),
    });
  }
}

/**
 * What to do about a marts path that is not there: where it came from, the
 * project's model folders (`folders`: the model paths and the folders
 * directly in them), and the flag and slp.yml key that name the marts, with
 * a folder that looks like marts or a placeholder rather than a guess.
 */
export function missingMartsFix(origin: MartsPathOrigin, folders: readonly string[], modelPaths: readonly string[]): string {
  const listed =
    folders.length === 0
      ? `it has no model folder (${modelPaths.map((path) => `${path}/`).join(", ")})`
      : `its model folders are ${folders.slice(0, 12).join(", ")}${folders.length > 12 ? ` and ${folders.length - 12} more` : ""}`;
  const hint = folders.find((folder) => /mart/i.test(folder)) ?? folders.find((folder) => MARTS_LIKE.test(folder));
  const example = (hint ?? `${modelPaths[0] ?? "models"}/<folder>/`).replace(/\/$/, "");
  const why =
    origin === "default"
      ? `slp looks for marts models (the ones whose numbers people read) in ${DEFAULT_MARTS_PATHS[0]}/ unless told otherwise; ${listed}`
      : `${origin} names it; ${listed}`;
  return `${why}. Say which folders hold the marts: --marts-path ${example} (repeatable), or marts_paths: [${example}] in slp.yml`;
}

/** The model paths and the folders directly in them, from a list of project-relative file paths, with a trailing slash, sorted. */
export function modelFoldersOf(files: readonly string[], modelPaths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of modelPaths) {
    const inside = files.filter((file) => file.startsWith(`${path}/`)).map((file) => file.slice(path.length + 1));
    if (inside.length === 0) continue;
    const subfolders = inside.filter((rest) => rest.includes("/")).map((rest) => `${path}/${rest.slice(0, rest.indexOf("/"))}/`);
    if (subfolders.length === 0) folders.add(`${path}/`);
    for (const folder of subfolders) if (!folder.slice(path.length + 1).startsWith(".")) folders.add(folder);
  }
  return [...folders].sort(compareCodePoints);
}

/** Folder names that usually hold what a dbt project serves to its readers. */
const MARTS_LIKE = /(^|\/)(core|final|gold|present\w*|report\w*|business|analytics|serving|output)\/$/i;

/** The model paths and the folders directly in them, project-relative with a trailing slash, sorted. */
function modelFolders(projectDir: string, modelPaths: readonly string[]): string[] {
  const folders: string[] = [];
  for (const path of modelPaths) {
    let names: string[] = [];
    try {
      names = readdirSync(join(projectDir, path), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
        .map((entry) => entry.name);
    } catch {
      continue;
    }
    if (names.length === 0) folders.push(`${path}/`);
    for (const name of names.sort(compareCodePoints)) folders.push(`${path}/${name}/`);
  }
  return folders;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The first segment of each marts path (`models/`), once each, in order. */
export function topDirectories(martsPaths: readonly string[]): string[] {
  const tops: string[] = [];
  for (const marts of martsPaths) {
    const top = `${marts.split("/")[0]}/`;
    if (!tops.includes(top)) tops.push(top);
  }
  return tops;
}

/** Every file under a folder: the walk lives with the other safe reads (it refuses what it cannot read). */
export { listFiles } from "./files.ts";

/** True when the path is a regular file (a link to one counts). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Sorts paths segment by segment, as the reference sorts path objects:
 * `models/marts/a/b.yml` comes before `models/marts/a-b.yml`. Each path is split once.
 */
export function sortPathsBySegments(paths: string[]): string[] {
  const keyed = paths.map((path) => ({ path, segments: path.split("/") }));
  keyed.sort((a, b) => compareSegments(a.segments, b.segments));
  return keyed.map((entry) => entry.path);
}

function compareSegments(sa: string[], sb: string[]): number {
  const n = Math.min(sa.length, sb.length);
  for (let i = 0; i < n; i++) {
    const order = compareCodePoints(sa[i] ?? "", sb[i] ?? "");
    if (order !== 0) return order;
  }
  return sa.length - sb.length;
}

/** `models/marts/fct_orders.sql` -> `fct_orders`. */
export function stem(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

export function isYamlFile(path: string): boolean {
  return path.endsWith(".yml") || path.endsWith(".yaml");
}
