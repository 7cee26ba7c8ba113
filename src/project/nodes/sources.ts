/** Source nodes: one per table a yml's `sources:` declares, with the source's and the table's config. */
import { mergeConfigs } from "../dbt/node-config.ts";
import type { SourceNode } from "../model.ts";
import { folderOf, type NodeReading } from "./context.ts";

/** The source tables of a project, in yml order. */
export function readSources(r: NodeReading): SourceNode[] {
  const { name, roots, properties, add, configFor } = r;
  // Sources: one node per table.
  const sources: SourceNode[] = [];
  for (const file of properties) {
    for (const table of file.sources) {
      const fqn = [name, ...folderOf(file.file, roots), table.source, table.name];
      const config = configFor("sources", fqn);
      mergeConfigs(config, table.sourceEntry.config);
      mergeConfigs(config, table.entry.config);
      sources.push(
        add({
          kind: "source",
          uniqueId: `source.${name}.${table.source}.${table.name}`,
          package: name,
          name: table.name,
          source: table.source,
          table: table.name,
          file: file.file,
          line: table.line,
          ymlFile: file.file,
          declaration: table,
          fqn,
          config,
          dynamicConfig: {},
          enabled: config.enabled !== false,
          enabledExpression: null,
          columns: table.columns,
          tests: table.tests,
        }),
      );
    }
  }
  return sources;
}
