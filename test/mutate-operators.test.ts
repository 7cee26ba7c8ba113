/**
 * Mutation operators: the registry equals the folder, each operator documents
 * itself, its examples fire or stay silent, and its fixtures
 * (test/fixtures/mutate/<operator>/{fires,silent}/<case>/model.sql) give
 * exactly the mutants in their `expected` file. The scanner fixtures prove
 * the fallback is used only when the parser cannot read the SQL.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SqlTree } from "../src/mutate/define-operator.ts";
import { operators } from "../src/mutate/operators/index.ts";
import { applyMutant, planMutants } from "../src/mutate/sites.ts";
import { SourceMap } from "../src/sql/source-map.ts";
import { parseSql } from "../src/sql/parser.ts";
import { expectGolden, FIXTURES } from "./support/fixtures.ts";

const ROOT = join(import.meta.dir, "..");
const MUTATE_FIXTURES = join(FIXTURES, "mutate");

function treeOf(sql: string): SqlTree {
  const parsed = parseSql(sql, "duckdb");
  if (!("root" in parsed)) throw new Error(`cannot parse: ${parsed.error}`);
  return new SqlTree(sql, parsed.root);
}

describe("operator registry", () => {
  test("lists exactly the operator files, sorted by code", () => {
    const files = readdirSync(join(ROOT, "src", "mutate", "operators"))
      .filter((file) => file.endsWith(".ts") && file !== "index.ts")
      .map((file) => file.replace(/\.ts$/, ""));
    expect(operators.map((operator) => operator.name).sort()).toEqual(files.sort());
    const codes = operators.map((operator) => operator.code);
    expect(codes).toEqual([...codes].sort());
    expect(new Set(codes).size).toBe(codes.length);
  });

  test("every operator has a lower-case code, a kebab name, docs and examples of both kinds", () => {
    for (const operator of operators) {
      expect(operator.code).toMatch(/^[a-z]+$/);
      expect(operator.name).toMatch(/^[a-z]+(-[a-z]+)+$/);
      expect(operator.docs.summary.length).toBeGreaterThan(20);
      expect(operator.docs.rationale.length).toBeGreaterThan(20);
      expect(operator.examples.fires.length).toBeGreaterThan(0);
      expect(operator.examples.silent.length).toBeGreaterThan(0);
    }
  });

  test("the classes the issue names are all there", () => {
    expect(operators.map((operator) => operator.code)).toEqual([
      "agg",
      "boundary",
      "case",
      "cmp",
      "coalesce",
      "distinct",
      "frame",
      "grain",
      "group",
      "join",
      "literal",
      "logic",
      "not",
      "null",
      "ratio",
      "union",
      "where",
    ]);
  });
});

describe("operator examples", () => {
  for (const operator of operators) {
    test(`${operator.name}: each firing example gives a mutant DuckDB can still parse, each silent one none`, () => {
      for (const sql of operator.examples.fires) {
        const tree = treeOf(sql);
        const sites = operator.sites(tree);
        expect(sites.length).toBeGreaterThan(0);
        for (const site of sites) {
          const mutated = applyMutant(sql, { ...site, replacement: operator.mutate(site, tree) });
          expect(mutated).not.toBe(sql);
        }
      }
      for (const sql of operator.examples.silent) expect(operator.sites(treeOf(sql))).toEqual([]);
    });
  }
});

/** `id<TAB>original -> replacement`, one line per mutant of the case's operator. */
function describeMutants(sql: string, code: string | null): string {
  const { mutants, finder } = planMutants(sql, "duckdb");
  const lines = mutants
    .filter((mutant) => code === null || mutant.operator === code)
    .map((mutant) => `${mutant.id}\t${mutant.original} -> ${mutant.replacement}`);
  return `# sites from ${finder.kind}${finder.reason ? ` (${finder.reason})` : ""}\n${lines.join("\n")}${lines.length ? "\n" : ""}`;
}

describe("operator fixtures", () => {
  const folders = readdirSync(MUTATE_FIXTURES).sort();
  test("every operator has fixtures that fire and fixtures that stay silent", () => {
    for (const operator of operators) {
      for (const kind of ["fires", "silent"]) expect(existsSync(join(MUTATE_FIXTURES, operator.name, kind))).toBe(true);
    }
  });
  for (const folder of folders) {
    const operator = operators.find((candidate) => candidate.name === folder);
    for (const kind of ["fires", "silent"] as const) {
      const dir = join(MUTATE_FIXTURES, folder, kind);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).sort()) {
        test(`${folder} ${kind} ${name}`, () => {
          const sql = readFileSync(join(dir, name, "model.sql"), "utf8");
          const actual = describeMutants(sql, operator ? operator.code : null);
          const file = join(dir, name, "expected");
          expectGolden(file, actual);
          const expected = readFileSync(file, "utf8");
          const count = expected.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;
          if (operator) expect(kind === "fires" ? count > 0 : count === 0).toBe(true);
          else expect(expected.startsWith(kind === "fires" ? "# sites from scanner" : "# sites from parser")).toBe(true);
        });
      }
    }
  }
});

describe("site order and ids", () => {
  test("mutants sort by offset, then operator code, then end; ids count per operator; occurrences count per original text", () => {
    const { mutants } = planMutants("select * from t where a = 1 and b = 1", "duckdb");
    expect(mutants.map((mutant) => `${mutant.id}:${mutant.original}:${mutant.occurrence}`)).toEqual([
      "where/1:a = 1:1",
      "cmp/1:=:1",
      "literal/1:1:1",
      "logic/1:and:1",
      "where/2:b = 1:1",
      "cmp/2:=:2",
      "literal/2:1:2",
    ]);
  });

  test("the same SQL always gives the same mutants", () => {
    const sql = readFileSync(join(ROOT, "test", "fixtures", "mutate", "scanner", "silent", "parsed", "model.sql"), "utf8");
    expect(planMutants(sql, "duckdb")).toEqual(planMutants(sql, "duckdb"));
  });

  test("a warehouse the parser has no grammar for falls back to the scanner, saying so", () => {
    const { finder, mutants } = planMutants("select * from t where a = 1", "snowflake");
    expect(finder).toEqual({ kind: "scanner", grammar: null, reason: "the SQL parser has no grammar for snowflake" });
    expect(mutants.map((mutant) => mutant.id)).toEqual(["where/1", "cmp/1", "literal/1"]);
  });
});

describe("source map", () => {
  test("a site maps to its line and column in the model's own .sql, through Jinja", () => {
    const source = "-- c\nselect a,\n  {{ cents('x') }} as y\nfrom {{ ref('t') }}\nwhere a > 1\n{% if true %}  and b = 2{% endif %}\n";
    const compiled = "-- c\nselect a,\n  x / 100.0 as y\nfrom __dbt__cte__t\nwhere a > 1\n  and b = 2\n";
    const map = new SourceMap(source, compiled);
    expect(map.position(compiled.indexOf(">"))).toEqual({ line: 5, column: 9, exact: true });
    expect(map.position(compiled.indexOf("b ="))).toEqual({ line: 6, column: 20, exact: true });
    // Text a macro produced maps to the tag that produced it.
    expect(map.position(compiled.indexOf("100.0"))).toEqual({ line: 3, column: 3, exact: false });
  });
});
