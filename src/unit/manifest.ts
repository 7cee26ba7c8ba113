/**
 * dbt's own compiled SQL of a tested model, from target/manifest.json when
 * dbt compiled the project after its last change. Its code names real
 * relations; a test may use it only when the test changes nothing rendering
 * depends on (no overrides, no `this`, no is_incremental) and every relation
 * the code names is one the test mocks, each then read from its fixture.
 */
import { isMapping, type Mapping } from "../core/values.ts";
import type { RefNode, UnitProject } from "../project/dbt/unit-project.ts";
import type { UnitTestDefinition } from "../project/dbt/unit-test-definitions.ts";

export interface CompiledModels {
  stale: boolean;
  /** dbt's compiled code with each relation it reads replaced by its fixture, and the unique ids it reads; null when the test must render. */
  compiled(
    overrides: UnitTestDefinition["overrides"],
    node: RefNode,
    relationOf: (uniqueId: string) => string | undefined,
  ): { sql: string; used: string[] } | null;
}

export function compiledModels(project: UnitProject): CompiledModels | null {
  const manifest = project.manifest;
  if (!manifest) return null;
  if (manifest.stale) return { stale: true, compiled: () => null };
  const { nodes, sources } = manifest;
  const relationName = (id: string): string | null => {
    const entry: Mapping | undefined = nodes[id] ?? sources[id];
    return entry && typeof entry.relation_name === "string" ? entry.relation_name : null;
  };
  return {
    stale: false,
    compiled(overrides, node, relationOf) {
      const { macros, vars, envVars } = overrides;
      if (Object.keys(macros).length + Object.keys(vars).length + Object.keys(envVars).length > 0) return null;
      const entry = nodes[node.uniqueId];
      const code = entry?.compiled_code;
      if (typeof code !== "string" || !isMapping(entry?.depends_on)) return null;
      const raw = typeof entry.raw_code === "string" ? entry.raw_code : "";
      // `this` and is_incremental() render differently in a unit test; ephemeral parents are inlined by dbt.
      if (/\bis_incremental\s*\(|\bthis\b/.test(raw) || code.includes("__dbt__cte__")) return null;
      const depends = entry.depends_on.nodes;
      if (!Array.isArray(depends)) return null;
      let sql = code;
      const used: string[] = [];
      for (const dependency of depends.map(String)) {
        const relation = relationName(dependency);
        const mock = relationOf(dependency);
        if (relation === null || mock === undefined || !sql.includes(relation)) return null;
        // relation_name is the quoted database.schema.identifier dbt wrote into the code, a whole name.
        sql = sql.split(relation).join(mock);
        used.push(dependency);
      }
      return { sql, used };
    },
  };
}
