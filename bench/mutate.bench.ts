/**
 * `slp mutate`: one model with 20 mutants and 5 unit tests (budget 1 s, 100
 * test runs on mutants plus the baseline, process start included), and the
 * quickstart's two marts changed on a branch (budget 1.5 s). dbt needs about
 * 6 s to start plus about 0.1 s per unit test per mutant (spec/rules.md
 * §7.3): about 16 s for the first, 6 s + 25 x 0.1 s, about 8.5 s, for the
 * quickstart's 25 test runs. And `--dry-run` on the same branch (budget
 * 0.4 s): the listing alone, no DuckDB loaded.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll, git, initRepo } from "../test/support/git-repo.ts";
import { CLI, type Benchmark } from "./harness.ts";
import { generateUnitProject } from "./unit.bench.ts";

const ROOT = join(import.meta.dir, "..");

/** fct_model_0 with enough places for the cap's 20 mutants; the five unit tests of unit.bench.ts still pass on it. */
const RICH_MART = `select
    order_id,
    coalesce(customer_email, 'unknown') as customer_email,
    status,
    case when status = 'shipped' then 'done' when status = 'pending' then 'open' else 'other' end as state,
    order_total_cents / 100.0 as gross_revenue,
    case when order_total_cents >= 1000 then 'large' when order_total_cents >= 100 then 'medium' else 'small' end as size
from {{ ref('stg_model_0') }}
where status != 'cancelled' and order_total_cents > 0 and order_id is not null
`;

/** The one-model project of the first benchmark; returns its folder. */
export function mutate20Project(workDir: string, name: string): string {
  const root = join(workDir, name);
  generateUnitProject(root, 1);
  writeFileSync(join(root, "models", "marts", "fct_model_0.sql"), RICH_MART);
  return root;
}

/** The quickstart on a branch that changed both marts' SQL; returns its folder. */
function quickstartBothMarts(workDir: string, name: string): string {
  const repo = join(workDir, name);
  mkdirSync(repo, { recursive: true });
  cpSync(join(ROOT, "examples", "quickstart"), repo, { recursive: true });
  initRepo(repo);
  commitAll(repo, "quickstart");
  git(repo, ["checkout", "-q", "-b", "agent/work"]);
  for (const file of ["models/marts/fct_orders.sql", "models/marts/finance/fct_revenue_daily.sql"]) {
    writeFileSync(join(repo, file), `-- changed on the branch\n${readFileSync(join(repo, file), "utf8")}`);
  }
  commitAll(repo, "agent: both marts");
  return repo;
}

export const benchmarks: Benchmark[] = [
  {
    name: "mutate: 20 mutants x 5 unit tests",
    budgetMs: 1000,
    expectExit: 1,
    setup(workDir) {
      const root = mutate20Project(workDir, "mutate-20");
      return { argv: [process.execPath, CLI, "mutate", "--project-dir", root, "--select", "fct_model_0"], cwd: workDir };
    },
  },
  {
    name: "mutate: the quickstart's changed marts",
    budgetMs: 1500,
    expectExit: 1,
    setup(workDir) {
      const repo = quickstartBothMarts(workDir, "mutate-quickstart");
      return { argv: [process.execPath, CLI, "mutate", "--base", "main"], cwd: repo };
    },
  },
  {
    name: "mutate --dry-run: the quickstart's changed marts",
    budgetMs: 400,
    setup(workDir) {
      const repo = quickstartBothMarts(workDir, "mutate-dry-run");
      return { argv: [process.execPath, CLI, "mutate", "--base", "main", "--dry-run"], cwd: repo };
    },
  },
];
