/**
 * Upstream schemas read from the models' own SQL: a 200-model DAG (50
 * staging models over declared sources, 50 intermediate, 50 aggregate, 50
 * marts, each reading one or two models below it) with a report model over
 * every mart, whose one unit test mocks the 50 marts, so slp reads the
 * columns of all 200 models. Budget: 0.5 s cold (an empty schema cache each
 * run), and nothing to read when cached (the warm run renders and binds no
 * upstream: within 1.1x of the same run with every upstream declared).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sourcesYml } from "./generate-project.ts";
import { CLI, type Benchmark } from "./harness.ts";

const WIDTH = 50;

export function generateDag(root: string, declared: boolean): void {
  for (const folder of ["staging", "intermediate", "aggregates", "marts"]) mkdirSync(join(root, "models", folder), { recursive: true });
  writeFileSync(join(root, "dbt_project.yml"), "name: dag\nversion: '1.0'\nprofile: dag\n");
  const columns = [
    ["id", "integer"],
    ["customer_id", "integer"],
    ["amount_cents", "bigint"],
    ["placed_at", "timestamp"],
  ] as const;
  writeFileSync(join(root, "models", "staging", "_sources.yml"), sourcesYml(WIDTH, columns));
  const marts: string[] = [];
  for (let i = 0; i < WIDTH; i++) {
    const next = (i + 1) % WIDTH;
    writeFileSync(
      join(root, "models", "staging", `stg_${i}.sql`),
      `select id as order_id, customer_id, amount_cents, placed_at from {{ source('shop', 'orders_${i}') }}\n`,
    );
    writeFileSync(
      join(root, "models", "intermediate", `int_${i}.sql`),
      `select a.*, b.amount_cents as next_amount_cents, a.placed_at::date as placed_on\nfrom {{ ref('stg_${i}') }} as a left join {{ ref('stg_${next}') }} as b on a.order_id = b.order_id\n`,
    );
    writeFileSync(
      join(root, "models", "aggregates", `agg_${i}.sql`),
      `select customer_id, placed_on, sum(amount_cents) as cents, count(*) as orders from {{ ref('int_${i}') }} group by 1, 2\n`,
    );
    writeFileSync(
      join(root, "models", "marts", `fct_${i}.sql`),
      `select g.customer_id, g.placed_on, g.cents / 100.0 as amount, g.orders, i.next_amount_cents\nfrom {{ ref('agg_${i}') }} as g join {{ ref('int_${i}') }} as i on g.customer_id = i.customer_id\n`,
    );
    marts.push(`select customer_id, amount from {{ ref('fct_${i}') }}`);
  }
  writeFileSync(join(root, "models", "marts", "rpt_all.sql"), `${marts.join("\nunion all\n")}\n`);
  const givens = Array.from(
    { length: WIDTH },
    (_, i) => `      - input: ref('fct_${i}')\n        rows: ${i === 0 ? "[{customer_id: 1, amount: 2.5}]" : "[]"}\n`,
  ).join("");
  writeFileSync(
    join(root, "models", "marts", "_unit.yml"),
    `version: 2\nunit_tests:\n  - name: report_reads_every_mart\n    model: rpt_all\n    given:\n${givens}    expect:\n      rows: [{customer_id: 1, amount: 2.5}]\n`,
  );
  if (declared) {
    const columns = (list: [string, string][]) => list.map(([name, type]) => `      - {name: ${name}, data_type: ${type}}\n`).join("");
    const entries = Array.from(
      { length: WIDTH },
      (_, i) =>
        `  - name: fct_${i}\n    config: {contract: {enforced: true}}\n    columns:\n${columns([
          ["customer_id", "integer"],
          ["placed_on", "date"],
          ["amount", "double"],
          ["orders", "bigint"],
          ["next_amount_cents", "bigint"],
        ])}`,
    );
    writeFileSync(join(root, "models", "marts", "_marts.yml"), `version: 2\nmodels:\n${entries.join("")}`);
  }
}

let cacheDir = "";

const DECLARED = "unit: the same DAG with every mart declared (nothing to infer)";

/** unit on a DAG generated into `folder`, with a cache of its own that the untimed first run fills. */
function warmDag(name: string, folder: string, declared: boolean, within?: Benchmark["within"]): Benchmark {
  return {
    name,
    within,
    budgetMs: 500,
    runs: 5,
    setup(workDir) {
      const root = join(workDir, folder);
      generateDag(root, declared);
      return {
        argv: [process.execPath, CLI, "unit", "--project-dir", root],
        cwd: workDir,
        env: { SLP_CACHE_DIR: mkdtempSync(join(workDir, "dag-cache-")) },
      };
    },
  };
}

export const benchmarks: Benchmark[] = [
  {
    name: "unit: upstream schemas of a 200-model DAG, cold",
    budgetMs: 500,
    runs: 5,
    setup(workDir) {
      const root = join(workDir, "dag-cold");
      generateDag(root, false);
      cacheDir = join(workDir, "dag-cache-cold");
      return { argv: [process.execPath, CLI, "unit", "--project-dir", root], cwd: workDir, env: { SLP_CACHE_DIR: cacheDir } };
    },
    // Every run starts with no inferred schema (the YAML cache goes too, as on a first run).
    beforeEach: () => rmSync(cacheDir, { recursive: true, force: true }),
  },
  warmDag("unit: upstream schemas of a 200-model DAG, cached", "dag-warm", false, { of: DECLARED, factor: 1.1 }),
  warmDag(DECLARED, "dag-declared", true),
];
