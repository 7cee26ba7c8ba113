/**
 * The project model as the unit runner reads it: one narrow, synchronous
 * view (the nodes `ref()` and `source()` resolve to, the DAG between them,
 * the unit tests of the project and of its installed packages, macro files,
 * fixture files, vars, dispatch, and dbt's artifacts when the project has
 * them), built once from the work tree before anything runs. The runner and
 * the renderer read files through `dir`.
 */
import { InputError } from "../../core/errors.ts";
import type { Mapping } from "../../core/values.ts";
import { readCatalog, type Catalog } from "../artifacts/catalog.ts";
import { readManifest, type Manifest } from "../artifacts/manifest.ts";
import { missingPackages, type PackageEntry } from "./package-entries.ts";
import type { Column, DispatchRule, Project, RefNode, SourceNode, UnitTestNode } from "../model.ts";
import { RelationIndex } from "./resolve.ts";
import { PROJECT_FILE } from "./dbt-project.ts";
import type { WorkTree } from "../files/source.ts";

export type { Column, RefNode, SourceNode, UnitTestNode };

export interface UnitProject {
  /** Absolute directory of the root project (package files are read from it too: their paths start with their prefix). */
  dir: string;
  /** Path prefix of this project's files relative to the root project ("" for the root). */
  prefix: string;
  name: string;
  testPaths: string[];
  seedPaths: string[];
  /** dbt_project.yml `vars:` as written (global keys and per-package mappings). */
  vars: Mapping;
  dispatch: DispatchRule[];
  /** dbt_project.yml `flags:` (behaviour flags), as written. */
  flags: Mapping;
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
  /** The entries of packages.yml and dependencies.yml that are not installed (root only). */
  missingPackages: PackageEntry[];
  /** dbt_project.yml's packages-install-path (`dbt_packages`). */
  packagesInstallPath: string;
  /** target/manifest.json, when it exists (fresh or not); null when it does not. */
  manifest: Manifest | null;
  /** target/catalog.json, when it exists and can be read (only for the root project). */
  catalog: Catalog | null;
  /** What each ref and source names, across the project and its packages (the root project's view). */
  index: RelationIndex;
  /** Each node's parents (unique ids, in the order its SQL names them), across the project and its packages. */
  parents: Map<string, string[]>;
  /** The work tree, for file times (the catalog's freshness). */
  tree: WorkTree;
}

/** Reads the project at the model's work tree for `slp unit`: a folder without dbt_project.yml is not a dbt project. */
export async function readUnitProject(model: Project<WorkTree>, dirAsGiven: string): Promise<UnitProject> {
  const settings = await model.settings();
  if (settings.file === null) {
    throw new InputError(`${dirAsGiven} has no ${PROJECT_FILE}, so it is not a dbt project`, {
      fix: `pass the folder that holds ${PROJECT_FILE} with --project-dir`,
    });
  }
  const root = await view(model, null);
  root.manifest = await readManifest(model);
  root.catalog = readCatalog(model.source);
  root.missingPackages = await missingPackages(model);
  for (const pkg of await model.packages()) {
    const read = await view(pkg, root);
    root.packages.set(read.name, read);
  }
  const graph = await model.graph();
  for (const [id, edges] of graph.parents)
    root.parents.set(
      id,
      edges.flatMap((edge) => (edge.to === null ? [] : [edge.to])),
    );
  // The index the DAG was resolved with: the same nodes (models, seeds, snapshots) and sources, in the same order.
  root.index = graph.index;
  for (const pkg of root.packages.values()) {
    pkg.index = root.index;
    pkg.parents = root.parents;
  }
  model.store.save();
  return root;
}

async function view(project: Project<WorkTree>, root: UnitProject | null): Promise<UnitProject> {
  const settings = await project.settings();
  const nodes = await project.nodes();
  return {
    dir: project.source.dir,
    prefix: project.prefix,
    name: settings.name,
    testPaths: settings.paths.test,
    seedPaths: settings.paths.seed,
    vars: settings.vars,
    dispatch: settings.dispatch,
    flags: settings.flags,
    unitTestConfigs: settings.configs.unit_tests,
    refNodes: [...nodes.models, ...nodes.seeds, ...nodes.snapshots],
    sources: nodes.sources,
    unitTests: nodes.unitTests,
    macroFiles: nodes.macroFiles.map((file) => file.file),
    fixtures: nodes.fixtures,
    packages: new Map(),
    missingPackages: [],
    packagesInstallPath: settings.packagesInstallPath,
    manifest: null,
    catalog: null,
    index: root?.index ?? new RelationIndex(settings.name, [], []),
    parents: root?.parents ?? new Map(),
    tree: project.source,
  };
}
