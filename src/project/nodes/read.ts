/**
 * Every node of one project (or installed package), read kind by kind in
 * dbt's order: models, seeds, snapshots, sources, then the SQL files dbt
 * compiles, unit tests and data tests. A disabled node whose id an enabled
 * one holds is set aside, as dbt keeps it on its disabled list.
 */
import type { Node, Nodes, Project } from "../model.ts";
import { startReading } from "./context.ts";
import { readDataTests } from "./data-tests.ts";
import { readModels } from "./models.ts";
import { readSeeds } from "./seeds.ts";
import { readSnapshots } from "./snapshots.ts";
import { readSources } from "./sources.ts";
import { readSqlFiles } from "./sql-files.ts";
import { readFixtures, readUnitTests } from "./unit-tests.ts";

export async function readNodes(project: Project): Promise<Nodes> {
  const r = await startReading(project);
  const { byId, properties } = r;
  const models = await readModels(r);
  const seeds = await readSeeds(r);
  const snapshots = await readSnapshots(r);
  const sources = readSources(r);
  const { analyses, singularTests, genericTests, macroFiles } = await readSqlFiles(r);

  // A disabled node of an id another node keeps takes no further part (dbt keeps it aside, on its disabled list).
  for (const list of [models, seeds, snapshots, sources, analyses, singularTests] as Node[][]) {
    const kept = list.filter((node) => byId.get(node.uniqueId) === node);
    if (kept.length < list.length) list.splice(0, list.length, ...kept);
  }
  const fixtures = readFixtures(r);
  const unitTests = readUnitTests(r);
  const dataTests = readDataTests(r, [...models, ...seeds, ...snapshots, ...sources]);
  return {
    models,
    seeds,
    snapshots,
    sources,
    analyses,
    singularTests,
    genericTests,
    unitTests,
    dataTests,
    macroFiles,
    fixtures,
    properties,
    byId,
  };
}
