/**
 * The SQL files dbt compiles but does not build: analyses, singular tests,
 * generic test definitions (`{% test %}` blocks under tests/generic/ and the
 * macro paths), and the macro files with the macros each defines.
 */
import type { ConfigBlock } from "../dbt/dbt-project.ts";
import { mergeConfigs, sqlConfig } from "../dbt/node-config.ts";
import { stem } from "../files/paths.ts";
import type { FileNode, MacroFileNode } from "../model.ts";
import { folderOf, sortBySegments, type NodeReading } from "./context.ts";

/** A project's analyses, singular tests, generic tests and macro files, in dbt's file order. */
export async function readSqlFiles(
  r: NodeReading,
): Promise<{ analyses: FileNode[]; singularTests: FileNode[]; genericTests: FileNode[]; macroFiles: MacroFileNode[] }> {
  const { project, name, paths, all, under, add, configFor, enabledIn, enabledAtParse } = r;
  // Analyses, singular tests and generic test definitions: SQL files dbt compiles but does not build.
  const fileNode = async (
    kind: FileNode["kind"],
    file: string,
    nodeName: string,
    roots: readonly string[],
    block: ConfigBlock,
    line = 1,
  ): Promise<FileNode> => {
    const fqn = [name, ...folderOf(file, roots), nodeName];
    const config = configFor(block, fqn);
    const fromSql = sqlConfig(await project.text(file));
    const enabledExpression = enabledIn(fromSql);
    const atParse = enabledAtParse(config, fromSql, enabledExpression);
    mergeConfigs(config, fromSql.config);
    if (enabledExpression?.value != null) config.enabled = enabledExpression.value;
    const node: FileNode = {
      kind,
      uniqueId:
        kind === "analysis"
          ? `analysis.${name}.${nodeName}`
          : kind === "generic_test"
            ? `macro.${name}.test_${nodeName}`
            : `test.${name}.${nodeName}`,
      package: name,
      name: nodeName,
      file,
      line,
      ymlFile: null,
      declaration: null,
      fqn,
      config,
      dynamicConfig: fromSql.dynamic,
      enabled: config.enabled !== false,
      enabledExpression,
      columns: [],
      tests: [],
    };
    return kind === "generic_test" ? node : add(node, atParse);
  };
  const analyses: FileNode[] = [];
  for (const file of sortBySegments(all.filter((f) => under(paths.analysis)(f) && f.path.endsWith(".sql")))) {
    analyses.push(await fileNode("analysis", file.path, stem(file.path), paths.analysis, "analyses"));
  }
  const singularTests: FileNode[] = [];
  const genericTests: FileNode[] = [];
  const macroFiles: MacroFileNode[] = [];
  const inTests = under(paths.test);
  for (const file of sortBySegments(all.filter((f) => inTests(f) && f.path.endsWith(".sql")))) {
    const generic = paths.test.some((path) => file.path.startsWith(`${path}/generic/`));
    if (!generic) {
      singularTests.push(await fileNode("singular_test", file.path, stem(file.path), paths.test, "data_tests"));
      continue;
    }
    const text = await project.text(file.path);
    for (const block of blocks(text, "test"))
      genericTests.push(await fileNode("generic_test", file.path, block.name, paths.test, "data_tests", block.line));
  }
  // Macros: every .sql under a macro path (and tests/generic/, which dbt reads as macros too).
  const macroSources = sortBySegments(
    all.filter(
      (f) => f.path.endsWith(".sql") && (under(paths.macro)(f) || paths.test.some((path) => f.path.startsWith(`${path}/generic/`))),
    ),
  );
  for (const file of macroSources) {
    const text = await project.text(file.path);
    const macros = [...blocks(text, "macro"), ...blocks(text, "test").map((block) => ({ ...block, name: `test_${block.name}` }))];
    macroFiles.push({ package: name, file: file.path, macros: macros.map(({ name: macroName, line }) => ({ name: macroName, line })) });
    if (under(paths.macro)(file)) {
      for (const block of blocks(text, "test"))
        genericTests.push(await fileNode("generic_test", file.path, block.name, paths.macro, "data_tests", block.line));
    }
  }
  return { analyses, singularTests, genericTests, macroFiles };
}

/** `{% snapshot name %}`, `{% test name(...) %}`, `{% macro name(...) %}` blocks: name, line and body. */
export function blocks(text: string, tag: "snapshot" | "test" | "macro"): { name: string; line: number; body: string }[] {
  const found: { name: string; line: number; body: string }[] = [];
  const pattern = new RegExp(`\\{%-?\\s*${tag}\\s+([A-Za-z_][\\w]*)`, "g");
  for (const match of text.matchAll(pattern)) {
    const start = match.index ?? 0;
    const end = text.slice(start).search(new RegExp(`\\{%-?\\s*end${tag}\\s*-?%\\}`));
    found.push({
      name: match[1] as string,
      line: text.slice(0, start).split("\n").length,
      body: end === -1 ? text.slice(start) : text.slice(start, start + end),
    });
  }
  return found;
}
