/**
 * The corpus manifest (corpus/projects.yml): which public dbt projects the
 * corpus measures slp on, pinned to a commit, with their license, the adapter
 * they are written for and the packages their models call. The extracts
 * themselves live outside git (public material is never committed here);
 * this file says where to find them on this machine.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { load } from "js-yaml";
import { schemaErrors } from "../src/schemas/validate.ts";

const Commit = Type.String({ pattern: "^[0-9a-f]{40}$", description: "the commit extracted, 40 hex digits" });

export const Package = Type.Object(
  {
    name: Type.String({ description: "the package's dbt name (its dbt_project.yml name:), its folder under dbt_packages/" }),
    repo: Type.String({ description: "owner/name of its public GitHub repository" }),
    version: Type.String({ description: "the release installed, as the project's packages.yml allows" }),
    commit: Commit,
    license: Type.String({ description: "SPDX id read from its LICENSE file" }),
    subfolder: Type.Optional(Type.String({ description: "the package's folder inside its repository, when not the root" })),
  },
  { additionalProperties: false },
);

export const Project = Type.Object(
  {
    name: Type.String({ pattern: "^[a-z0-9][a-z0-9_-]*$", description: "the corpus name: the extract's folder and the runner's argument" }),
    repo: Type.String({ description: "owner/name of the public GitHub repository" }),
    commit: Commit,
    license: Type.Object(
      {
        spdx: Type.String({
          description:
            "SPDX id as read from the LICENSE file, or `none`: a public repository without one is measured locally, never redistributed",
        }),
        file: Type.Optional(Type.String({ description: "the LICENSE file's path in the repository (absent when spdx is none)" })),
      },
      { additionalProperties: false },
    ),
    subfolder: Type.String({ description: "the dbt project's folder inside the repository ('.' for the root)" }),
    adapter: Type.Union(
      ["duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark", "redshift"].map((name) => Type.Literal(name)),
      { description: "the adapter type the project is written for" },
    ),
    adapterEvidence: Type.String({ description: "where the adapter type was read (profiles.yml, CI, README, dbt_project.yml)" }),
    profile: Type.String({ description: "the profile dbt_project.yml names; the extract's profiles.yml holds only its adapter type" }),
    vars: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "variables passed as --vars to every run, as the project's own CI or integration project sets them",
      }),
    ),
    exclude: Type.Optional(
      Type.Array(Type.String(), {
        description: "dbt selectors the project's own CI leaves out of its test run (--exclude), passed to `slp unit` likewise",
      }),
    ),
    marts: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "where the project has no models/marts: the folders of its final layer, which a new user passes to check and gate as --marts-path (slp's first step says so)",
      }),
    ),
    packages: Type.Array(Package, { description: "the packages the project installs, at the versions installed in the extract" }),
    notes: Type.Optional(Type.String({ description: "what is special about this project's extract" })),
  },
  { additionalProperties: false },
);

export const Manifest = Type.Object({ projects: Type.Array(Project) }, { additionalProperties: false });

export type ManifestPackage = Static<typeof Package>;
export type ManifestProject = Static<typeof Project>;

export const CORPUS_DIR = import.meta.dir;

/** The --vars a project's own CI or integration project sets. */
function varsArgs(project: ManifestProject): string[] {
  return project.vars ? ["--vars", JSON.stringify(project.vars)] : [];
}

/** The arguments every render of a project's models takes: its vars and its adapter's dialect. */
export function renderArgs(project: ManifestProject): string[] {
  return [...varsArgs(project), "--dialect", project.adapter];
}

/** The arguments every `slp unit` of a project takes: its vars, its CI's exclusions, its adapter's dialect. */
export function unitArgs(project: ManifestProject): string[] {
  return [...varsArgs(project), ...(project.exclude ?? []).flatMap((selector) => ["--exclude", selector]), "--dialect", project.adapter];
}

/** The arguments `slp check` and `slp gate` take: the project's marts folders, where they are not models/marts. */
export function martsArgs(project: ManifestProject): string[] {
  return (project.marts ?? []).flatMap((path) => ["--marts-path", path]);
}

/** The manifest, validated: a malformed entry stops the corpus with the path of the bad field. */
export function readManifest(file = join(CORPUS_DIR, "projects.yml")): ManifestProject[] {
  const data = load(readFileSync(file, "utf8"));
  const errors = schemaErrors(Manifest, data as never, "projects.yml");
  if (errors.length > 0) throw new Error(`${file}: ${errors.join("; ")}`);
  const projects = (data as Static<typeof Manifest>).projects;
  const names = new Set<string>();
  for (const project of projects) {
    if (names.has(project.name)) throw new Error(`${file}: project '${project.name}' is listed twice`);
    if ((project.license.spdx === "none") !== (project.license.file === undefined))
      throw new Error(`${file}: project '${project.name}': a license names its file, and only license none has none`);
    names.add(project.name);
  }
  return projects;
}

/**
 * Where the extracts are: $SLP_CORPUS_DIR, else ../shared/corpus beside the
 * repository (where the steering side may place them), else /work/corpus-data.
 */
export function corpusDataDir(env: Record<string, string | undefined> = process.env): string {
  if (env.SLP_CORPUS_DIR) return resolve(env.SLP_CORPUS_DIR);
  const shared = resolve(CORPUS_DIR, "..", "..", "shared", "corpus");
  if (existsSync(shared)) return shared;
  return "/work/corpus-data";
}

/** The extract's git root for one project, or null when it is not on this machine. */
export function extractRoot(project: ManifestProject, dataDir = corpusDataDir()): string | null {
  const root = join(dataDir, project.name);
  return existsSync(join(root, project.subfolder, "dbt_project.yml")) ? root : null;
}
