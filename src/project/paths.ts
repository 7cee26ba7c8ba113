/** Paths inside a dbt project: marts folders, file listings and their order. */
import { statSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";

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

/** Each marts path must be a folder under the project: nothing to check is not OK. */
export function checkMartsPathsExist(projectDir: string, projectDirAsGiven: string, martsPaths: readonly string[]): void {
  for (const marts of martsPaths) {
    let isDirectory = false;
    try {
      isDirectory = statSync(join(projectDir, marts)).isDirectory();
    } catch {
      isDirectory = false;
    }
    if (!isDirectory) {
      throw new InputError(`${marts} not found under ${projectDirAsGiven}; nothing to check is not OK`, {
        fix: "pass the folder that holds your marts models with --marts-path (or marts_paths in slp.yml)",
      });
    }
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
