/**
 * Snapshot nodes: `{% snapshot %}` blocks in .sql under a snapshot path (their
 * fqn holds the file's name), and snapshots a yml defines whole (dbt >= 1.9).
 */
import { basename } from "node:path";
import type { Mapping } from "../../core/values.ts";
import { mergeConfigs, sqlConfig } from "../dbt/node-config.ts";
import type { Testable } from "../dbt/properties.ts";
import type { RefNode } from "../model.ts";
import { folderOf, sortBySegments, type NodeReading } from "./context.ts";
import { blocks } from "./sql-files.ts";

/** The snapshots of a project, in dbt's file order, then the yml-only ones. */
export async function readSnapshots(r: NodeReading): Promise<RefNode[]> {
  const { project, name, paths, all, under, declared, byId, add, configFor, enabledIn, enabledAtParse } = r;
  // Snapshots: `{% snapshot name %}` blocks in .sql under a snapshot path, and snapshots a yml defines whole (dbt >= 1.9).
  const snapshots: RefNode[] = [];
  const snapshotFile = (
    snapshotName: string,
    file: string | null,
    line: number,
    declaration: Testable | null,
    fromSql: { config: Mapping; dynamic: Mapping } | null,
  ) => {
    // dbt: "On snapshots, the fqn includes the filename" (its folders, then the file's stem, then the block's name).
    const fqn = [name, ...(file ? [...folderOf(file, paths.snapshot), basename(file, ".sql")] : []), snapshotName];
    const config = configFor("snapshots", fqn);
    const enabledExpression = fromSql ? enabledIn(fromSql) : null;
    const atParse = enabledAtParse(config, fromSql, enabledExpression);
    mergeConfigs(config, declaration?.entry.config);
    if (fromSql) mergeConfigs(config, fromSql.config);
    if (enabledExpression?.value != null) config.enabled = enabledExpression.value;
    snapshots.push(
      add(
        {
          kind: "snapshot",
          uniqueId: `snapshot.${name}.${snapshotName}`,
          package: name,
          name: snapshotName,
          version: null,
          latest: true,
          language: file ? "sql" : null,
          file: file ?? declaration?.file ?? null,
          line,
          ymlFile: declaration?.file ?? null,
          declaration,
          fqn,
          config,
          dynamicConfig: fromSql?.dynamic ?? {},
          enabled: config.enabled !== false,
          enabledExpression,
          columns: declaration?.columns ?? [],
          tests: declaration?.tests ?? [],
          columnsComplete: false,
          materialized: "snapshot",
          identifier: typeof config.alias === "string" ? config.alias : snapshotName,
        },
        atParse,
      ),
    );
  };
  const inSnapshots = under(paths.snapshot);
  for (const file of sortBySegments(all.filter((f) => inSnapshots(f) && f.path.endsWith(".sql")))) {
    const text = await project.text(file.path);
    for (const block of blocks(text, "snapshot")) {
      snapshotFile(block.name, file.path, block.line, declared.snapshots.get(block.name) ?? null, sqlConfig(block.body));
    }
  }
  for (const [snapshotName, declaration] of declared.snapshots) {
    // dbt >= 1.9 defines a snapshot in yml alone: a name, a relation and its config.
    if (!byId.has(`snapshot.${name}.${snapshotName}`) && declaration.entry.relation !== undefined)
      snapshotFile(snapshotName, null, declaration.line, declaration, null);
  }
  return snapshots;
}
