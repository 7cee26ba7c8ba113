/**
 * `slp unit`: the quickstart's unit tests (budget 150 ms, process start
 * included), the Snowflake example warm (within 1.2x the quickstart) and 500 unit tests over 100 models (budget 3 s; each model's
 * staging input is read for its columns from its own SQL over a declared
 * source, as issue 12 asks, and cached). dbt needs about
 * 6 s to start plus about 0.1 s per unit test (spec/rules.md §11): roughly
 * 6.5 s for the quickstart and 56 s for the 500.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { martsSql, sourcesYml, stagingSql, stagingYml } from "./generate-project.ts";
import { CLI, type Benchmark } from "./harness.ts";

const ROOT = join(import.meta.dir, "..");

/** Five unit tests of fct_model_<i>: each passes, so the run measures passing tests end to end. */
function unitYml(i: number): string {
  const model = `fct_model_${i}`;
  const given = (rows: string) => `    given:\n      - input: ref('stg_model_${i}')\n        rows:\n${rows}`;
  const row = (id: number, status: string, cents: number) =>
    `          - {order_id: ${id}, customer_email: c${id}@example.com, status: ${status}, order_total_cents: ${cents}}\n`;
  const tests = [
    ["cancelled_excluded", row(1, "cancelled", 1000) + row(2, "shipped", 2000), "        - {order_id: 2, gross_revenue: 20.0}\n"],
    ["cents_to_units", row(1, "shipped", 150), "        - {order_id: 1, gross_revenue: 1.5}\n"],
    ["pending_kept", row(3, "pending", 99), "        - {order_id: 3, status: pending}\n"],
    ["only_cancelled_gives_nothing", row(4, "cancelled", 5), ""],
    [
      "several_rows",
      row(5, "shipped", 100) + row(6, "shipped", 200) + row(7, "shipped", 300),
      "        - {order_id: 5}\n        - {order_id: 6}\n        - {order_id: 7}\n",
    ],
  ] as const;
  const body = tests
    .map(
      ([name, rows, expected]) =>
        `  - name: ${model}_${name}\n    model: ${model}\n${given(rows)}    expect:\n      rows:${expected === "" ? " []\n" : `\n${expected}`}`,
    )
    .join("");
  return `version: 2\nunit_tests:\n${body}`;
}

export function generateUnitProject(root: string, models: number): void {
  mkdirSync(join(root, "models", "marts"), { recursive: true });
  mkdirSync(join(root, "models", "staging"), { recursive: true });
  writeFileSync(join(root, "dbt_project.yml"), "name: synthetic\nversion: '1.0'\nprofile: synthetic\n");
  const columns = [
    ["id", "integer"],
    ["email", "varchar"],
    ["status", "varchar"],
    ["total_cents", "integer"],
  ] as const;
  writeFileSync(join(root, "models", "staging", "_sources.yml"), sourcesYml(models, columns));
  for (let i = 0; i < models; i++) {
    writeFileSync(join(root, "models", "marts", `fct_model_${i}.sql`), martsSql(i));
    writeFileSync(join(root, "models", "marts", `fct_model_${i}__unit.yml`), unitYml(i));
    writeFileSync(join(root, "models", "staging", `stg_model_${i}.yml`), stagingYml(i));
    writeFileSync(join(root, "models", "staging", `stg_model_${i}.sql`), stagingSql(i));
  }
}

export const benchmarks: Benchmark[] = [
  {
    name: "unit: quickstart (all its unit tests)",
    budgetMs: 150,
    setup: () => ({ argv: [process.execPath, CLI, "unit", "--project-dir", join(ROOT, "examples", "quickstart")], cwd: ROOT }),
  },
  {
    // Warm: the first (unmeasured) run fills the translation cache, so no run loads the transpiler.
    // Budget (issue 12): 1.2x the quickstart's median measured in the same run.
    name: "unit: snowflake-shop (dialect example, warm)",
    budgetOf: { of: "unit: quickstart (all its unit tests)", factor: 1.2 },
    setup: () => ({ argv: [process.execPath, CLI, "unit", "--project-dir", join(ROOT, "examples", "snowflake-shop")], cwd: ROOT }),
  },
  {
    name: "unit: 500 tests over 100 models",
    budgetMs: 3000,
    runs: 5,
    setup(workDir) {
      const root = join(workDir, "unit-100");
      generateUnitProject(root, 100);
      return { argv: [process.execPath, CLI, "unit", "--project-dir", root], cwd: workDir };
    },
  },
];
