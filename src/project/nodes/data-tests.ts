/** Data test nodes: each test a yml declares on a node or its columns, with the `data_tests:` folder configs of its yml's folders. */
import { mergeConfigs } from "../dbt/node-config.ts";
import type { DataTestNode, RefNode, SourceNode } from "../model.ts";
import { folderOf, type NodeReading } from "./context.ts";

/** The data tests of the given nodes, in their order. */
export function readDataTests(r: NodeReading, owners: readonly (RefNode | SourceNode)[]): DataTestNode[] {
  const { name, roots, configFor } = r;
  const dataTests: DataTestNode[] = [];
  for (const node of owners) {
    const declaration = node.declaration;
    if (!declaration) continue;
    const folders = folderOf(declaration.file, roots);
    for (const test of node.tests) {
      const fqn = [name, ...folders, test.name];
      dataTests.push({
        on: node.uniqueId,
        name: test.name,
        column: test.column,
        file: declaration.file,
        get line() {
          return test.line;
        },
        fqn,
        config: mergeConfigs(configFor("data_tests", fqn), test.config),
        args: test.args,
        declaration: test,
      });
    }
  }
  return dataTests;
}
