/**
 * target/manifest.json, dbt's own reading of the project (rendered configs,
 * compiled code, dependencies), when the project has one. It may stand in
 * for slp's reading only while it is fresh: not older than any file it was
 * compiled from. A manifest that cannot be parsed is treated as stale, so
 * slp reads the files itself rather than trusting it.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Mapping } from "../../core/values.ts";
import type { Project } from "../model.ts";
import type { WorkTree } from "../files/source.ts";

export const MANIFEST_FILE = "target/manifest.json";

export interface Manifest {
  /** True when a project file changed after dbt wrote the manifest (or it cannot be read): it must not be used. */
  stale: boolean;
  /** `nodes` by unique id (models, seeds, snapshots, tests...). */
  nodes: Record<string, Mapping>;
  sources: Record<string, Mapping>;
}

/** The project's manifest, or null when it has none. */
export async function readManifest(project: Project<WorkTree>): Promise<Manifest | null> {
  const tree = project.source;
  let written: number;
  try {
    written = statSync(join(tree.dir, MANIFEST_FILE)).mtimeMs;
  } catch {
    return null;
  }
  const settings = await project.settings();
  // The same listing nodes() read (one walk of the tree, listed once); the newest file decides.
  const sources = (await project.files()).map((file) => file.path);
  if (settings.file) sources.push(settings.file);
  if (written < tree.newest(sources)) return { stale: true, nodes: {}, sources: {} };
  try {
    const parsed = JSON.parse(tree.readText(MANIFEST_FILE)) as { nodes?: Record<string, Mapping>; sources?: Record<string, Mapping> };
    return { stale: false, nodes: parsed.nodes ?? {}, sources: parsed.sources ?? {} };
  } catch {
    return { stale: true, nodes: {}, sources: {} };
  }
}
