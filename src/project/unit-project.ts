/**
 * The project model as the unit runner reads it: one narrow, synchronous
 * view (the nodes `ref()` and `source()` resolve to, the unit tests, macro
 * files, fixture files, vars, dispatch, installed packages, and whether
 * target/manifest.json is fresh), built once from the work tree before
 * anything runs. The runner and the renderer read files through `dir`.
 */
import { InputError } from "../core/errors.ts";
import type { Mapping } from "../core/values.ts";
import { readManifest, type Manifest } from "./manifest.ts";
import type { Column, DispatchRule, Project, RefNode, SourceNode, UnitTestNode } from "./model.ts";
import { PROJECT_FILE } from "./settings.ts";
import type { WorkTree } from "./source.ts";

export type { Column, RefNode, SourceNode, UnitTestNode };

export interface UnitProject {
  /** Absolute directory of the root project (package files are read from it too: their paths start with their prefix). */
  dir: string;
  /** Path prefix of this project's files relative to the root project ("" for the root). */
  prefix: string;
  name: string;
  testPaths: string[];
  /** dbt_project.yml `vars:` as written (global keys and per-package mappings). */
  vars: Mapping;
  dispatch: DispatchRule[];
  /** dbt_project.yml `unit_tests:` folder configs. */
  unitTestConfigs: Mapping;
  refNodes: RefNode[];
  sources: SourceNode[];
  unitTests: UnitTestNode[];
  /** Project-relative macro files, in path segment order. */
  macroFiles: string[];
  /** Fixture name -> every file with that name under `<test-path>/fixtures/`. */
  fixtures: Map<string, string[]>;
  /** Installed packages by name (only for the root project). */
  packages: Map<string, UnitProject>;
  /** target/manifest.json, when it exists (fresh or not); null when it does not. */
  manifest: Manifest | null;
}

/** Reads the project at the model's work tree for `slp unit`: a folder without dbt_project.yml is not a dbt project. */
export async function readUnitProject(model: Project<WorkTree>, dirAsGiven: string): Promise<UnitProject> {
  const settings = await model.settings();
  if (settings.file === null) {
    throw new InputError(`${dirAsGiven} has no ${PROJECT_FILE}, so it is not a dbt project`, {
      fix: `pass the folder that holds ${PROJECT_FILE} with --project-dir`,
    });
  }
  const root = await view(model);
  root.manifest = await readManifest(model);
  for (const pkg of await model.packages()) {
    const read = await view(pkg);
    // A package's own unit tests are not the project's to run.
    read.unitTests = [];
    root.packages.set(read.name, read);
  }
  model.store.save();
  return root;
}

async function view(project: Project<WorkTree>): Promise<UnitProject> {
  const settings = await project.settings();
  const nodes = await project.nodes();
  return {
    dir: project.source.dir,
    prefix: project.prefix,
    name: settings.name,
    testPaths: settings.paths.test,
    vars: settings.vars,
    dispatch: settings.dispatch,
    unitTestConfigs: settings.configs.unit_tests,
    refNodes: [...nodes.models, ...nodes.seeds, ...nodes.snapshots],
    sources: nodes.sources,
    unitTests: nodes.unitTests,
    macroFiles: nodes.macroFiles.map((file) => file.file),
    fixtures: nodes.fixtures,
    packages: new Map(),
    manifest: null,
  };
}
