/**
 * Unit test nodes, with the `unit_tests:` folder configs of their yml's
 * folders, and the fixture files they may name (`<test-path>/fixtures/`).
 */
import { InputError } from "../../core/errors.ts";
import type { Mapping } from "../../core/values.ts";
import type { ProjectSettings } from "../dbt/dbt-project.ts";
import { folderConfig, mergeConfigs } from "../dbt/node-config.ts";
import type { UnitTestDeclaration } from "../dbt/properties.ts";
import { stem } from "../files/paths.ts";
import type { UnitTestNode } from "../model.ts";
import { folderOf, projectFolders, sortBySegments, type NodeReading } from "./context.ts";

/** Fixture name -> every file with that name under `<test-path>/fixtures/`. */
export function readFixtures(r: NodeReading): Map<string, string[]> {
  const { paths, all } = r;
  const fixtures = new Map<string, string[]>();
  for (const file of sortBySegments(all.filter((f) => paths.test.some((path) => f.path.startsWith(`${path}/fixtures/`))))) {
    const base = file.path.slice(file.path.lastIndexOf("/") + 1);
    if (/^[.#~]/.test(base) || !/\.(csv|sql)$/.test(base)) continue;
    const list = fixtures.get(stem(file.path)) ?? [];
    list.push(file.path);
    fixtures.set(stem(file.path), list);
  }
  return fixtures;
}

/** The unit tests every yml declares, in yml order. */
export function readUnitTests(r: NodeReading): UnitTestNode[] {
  const { name, roots, properties, configFor } = r;
  const unitTests: UnitTestNode[] = [];
  for (const file of properties) {
    const folders = folderOf(file.file, roots);
    for (const unit of file.unitTests) {
      const model = typeof unit.model === "string" ? unit.model : "";
      const fqn = [name, ...folders, model, unit.name];
      const config = configFor("unit_tests", fqn);
      mergeConfigs(config, unit.entry.config);
      unitTests.push({
        uniqueId: `unit_test.${name}.${model}.${unit.name}`,
        package: name,
        name: unit.name,
        model,
        file: unit.file,
        line: unit.line,
        index: unit.index,
        entry: unit.entry,
        declaration: unit,
        folders,
        fqn,
        config,
        enabled: config.enabled !== false,
      });
    }
  }
  return unitTests;
}

/**
 * A unit test's config as dbt puts it together for the project itself: the
 * `unit_tests:` folder configs along its fqn (project, its yml's folders,
 * the model, its name), then its own `config:`. What nodes() gives a unit
 * test, for a reader that needs no other node.
 */
export function unitTestConfig(settings: ProjectSettings, unit: UnitTestDeclaration): Mapping {
  // No unit_tests: folder config (most projects): its own config is the whole of it, and check asks this of every unit test.
  if (Object.keys(settings.configs.unit_tests).length === 0) return mergeConfigs({}, unit.entry.config);
  const model = typeof unit.model === "string" ? unit.model : "";
  const fqn = [settings.name, ...folderOf(unit.file, projectFolders(settings)), model, unit.name];
  return mergeConfigs(folderConfig(settings.configs.unit_tests, fqn), unit.entry.config);
}

/**
 * Refuses two enabled unit tests of one name on one model, naming both
 * places: dbt refuses the pair ("duplicate unit test name") and runs
 * neither, so a check or gate that read one of them would judge a test that
 * never runs. `units` in read order; the second is the one named.
 */
export function refuseDuplicateUnitTests(units: readonly UnitTestDeclaration[], settings: ProjectSettings, at?: string): void {
  const seen = new Map<string, UnitTestDeclaration>();
  for (const unit of units) {
    if (typeof unit.model !== "string" || unitTestConfig(settings, unit).enabled === false) continue;
    const key = `${unit.model}\0${unit.name}`;
    const earlier = seen.get(key);
    if (earlier) {
      throw new InputError(
        `${at ? `at ${at}, ` : ""}unit test ${unit.name} of model ${unit.model} is defined twice: ${earlier.file}:${earlier.line} and ${unit.file}:${unit.line}`,
        {
          file: unit.file,
          line: unit.line,
          fix: "give each unit test of a model its own name (dbt refuses two of one name, and runs neither)",
        },
      );
    }
    seen.set(key, unit);
  }
}
