/** Seed nodes: every .csv under a seed path, its header its columns (typed by column_types, else the yml). */
import { isMapping, pythonStr } from "../../core/values.ts";
import { mergeConfigs } from "../dbt/node-config.ts";
import type { ColumnDeclaration } from "../dbt/properties.ts";
import { stem } from "../files/paths.ts";
import type { RefNode } from "../model.ts";
import { folderOf, sortBySegments, type NodeReading } from "./context.ts";

/** The seeds of a project, in dbt's file order. */
export async function readSeeds(r: NodeReading): Promise<RefNode[]> {
  const { project, name, paths, all, under, declared, add, configFor } = r;
  // Seeds: every .csv under a seed path; the header is its columns.
  const seeds: RefNode[] = [];
  for (const file of sortBySegments(all.filter((f) => under(paths.seed)(f) && f.path.endsWith(".csv")))) {
    const seedName = stem(file.path);
    const declaration = declared.seeds.get(seedName) ?? null;
    const fqn = [name, ...folderOf(file.path, paths.seed), seedName];
    const config = configFor("seeds", fqn);
    const atParse = config.enabled !== false;
    mergeConfigs(config, declaration?.entry.config);
    const columnTypes = isMapping(config.column_types) ? config.column_types : {};
    const { parseCsv } = await import("../files/csv.ts");
    const header = parseCsv(await project.text(file.path), { file: file.path, fix: "save the seed as CSV with a header line" })[0] ?? [];
    const columns: ColumnDeclaration[] = header.map((column) => {
      const typed = Object.entries(columnTypes).find(([key]) => key.toLowerCase() === column.toLowerCase());
      const fromYaml = declaration?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
      return {
        name: column,
        line: fromYaml?.line ?? 1,
        entry: fromYaml?.entry ?? {},
        sensitive: fromYaml?.sensitive ?? false,
        dataType: typed ? pythonStr(typed[1]) : (fromYaml?.dataType ?? null),
      };
    });
    seeds.push(
      add(
        {
          kind: "seed",
          uniqueId: `seed.${name}.${seedName}`,
          package: name,
          name: seedName,
          version: null,
          latest: true,
          language: null,
          file: file.path,
          line: 1,
          ymlFile: declaration?.file ?? null,
          declaration,
          fqn,
          config,
          dynamicConfig: {},
          enabled: config.enabled !== false,
          enabledExpression: null,
          columns,
          tests: declaration?.tests ?? [],
          columnsComplete: true,
          materialized: "seed",
          identifier: typeof config.alias === "string" ? config.alias : seedName,
        },
        atParse,
      ),
    );
  }
  return seeds;
}
