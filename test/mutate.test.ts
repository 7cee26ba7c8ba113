/**
 * `slp mutate` end to end: the real CLI on a branch of the quickstart (changed
 * marts, equivalents read from the base only, artifacts valid against their
 * schemas, Stryker's report valid against Stryker's published schema, the
 * HTML page rendered by Stryker's component in headless Chromium, offline), and in-process on test/fixtures/mutate-run/project for
 * each verdict: survived with its edge, rejected, timeout, a baseline test
 * left out, no test passing (exit 2), a mart without unit tests (exit 1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "./support/browser.ts";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MutateDryRun, MutationArtifact } from "../src/schemas/mutation.ts";
import { schemaErrors } from "../src/schemas/validate.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { runCli, runMain } from "./support/cli.ts";
import { validateAgainst } from "./support/official-schema.ts";
import { tempDir, writeTree, type TempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const QUICKSTART = join(ROOT, "examples", "quickstart");
const PROJECT = join(FIXTURES, "mutate-run", "project");
const STRYKER_SCHEMA = join(import.meta.dir, "support", "schemas", "mutation-testing-report-schema.json");

/** The quickstart committed on main (with `onMain` files), then branch agent/work with fct_orders.sql changed. */
function quickstartBranch(onMain: Record<string, string> = {}, onBranch: Record<string, string> = {}): TempDir {
  const repo = tempDir("slp-mutate-");
  cpSync(QUICKSTART, repo.path, { recursive: true });
  writeTree(repo.path, onMain);
  initRepo(repo.path);
  commitAll(repo.path, "quickstart");
  git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
  const sql = join(repo.path, "models", "marts", "fct_orders.sql");
  writeFileSync(sql, readFileSync(sql, "utf8").replace("-- One row per order", "-- Revenue orders: one row per order"));
  writeTree(repo.path, onBranch);
  commitAll(repo.path, "agent: reword");
  return repo;
}

const JOIN_EQUIVALENT =
  "- {model: fct_orders, operator: join, original: left join, occurrence: 1, reason: every order has a customer (a foreign key upstream)}\n";

describe("slp mutate on a branch of the quickstart (real CLI)", () => {
  test("judges the changed mart only, blocks on its surviving join swap, writes valid artifacts", () => {
    using repo = quickstartBranch();
    const result = runCli(["mutate", "--base", "main", "--html"], repo.path);
    expect(result.stdout).toContain(
      "BLOCK\tmodels/marts/fct_orders.sql:10\tfct_orders\tmutant join/1 (join-type-swapped): left join -> inner join at line 10 survived every unit test; a unit test that cannot tell the code from this is a unit test the model does not have yet; a given row of ref('stg_orders') whose customer_id matches no row of ref('stg_customers') would reach it (fix: test)\t[MUTANT]\n",
    );
    expect(result.stdout).toContain("KILLED\tfct_orders\tcmp/1\tline 11\t= -> <>\tby cents_become_currency_units\n");
    expect(result.stdout).toContain("fct_orders: score 87.5% (7 killed, 1 survived) of 8 mutants\n");
    expect(result.stdout).not.toContain("fct_revenue_daily");
    expect(result.stdout).toEndWith("slp mutate: 1 block - BLOCKED\n");
    expect(result.exitCode).toBe(1);

    const artifact = JSON.parse(readFileSync(join(repo.path, "mutation", "fct_orders.json"), "utf8"));
    expect(schemaErrors(MutationArtifact, artifact, "mutation/fct_orders.json")).toEqual([]);
    expect(artifact.mutants.find((mutant: { id: string }) => mutant.id === "join/1")).toMatchObject({
      line: 10,
      column: 1,
      verdict: "survived",
      occurrence: 1,
    });
    expect([artifact.killed, artifact.survived, artifact.score]).toEqual([7, 1, 87.5]);

    const stryker = JSON.parse(readFileSync(join(repo.path, "mutation", "mutation-report.json"), "utf8"));
    expect(validateAgainst(STRYKER_SCHEMA, stryker)).toEqual([]);
    expect(stryker.files["models/marts/fct_orders.sql"].source).toBe(
      readFileSync(join(repo.path, "models", "marts", "fct_orders.sql"), "utf8"),
    );

    const html = readFileSync(join(repo.path, "mutation", "mutation-report.html"), "utf8");
    expect(html).toContain("<mutation-test-report-app");
    expect(html).toContain('"models/marts/fct_orders.sql"');
    // Offline: nothing is loaded from elsewhere.
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=/);
  });

  test("a survivor listed in tests/mutation_equivalents.yml on the base is equivalent, and the run passes", () => {
    using repo = quickstartBranch({ "tests/mutation_equivalents.yml": JOIN_EQUIVALENT });
    const result = runCli(["mutate", "--base", "main"], repo.path);
    expect(result.stdout).toContain(
      "INFO\tmodels/marts/fct_orders.sql:10\tfct_orders\tmutant join/1 (join-type-swapped): left join -> inner join at line 10 survived and is listed as equivalent: every order has a customer (a foreign key upstream)\t[MUTANT]\n",
    );
    expect(result.stdout).toEndWith(
      "slp mutate: 1 info - OK (7 killed, 1 equivalent, in 1 model, score 100%; models changed since main)\n",
    );
    expect(result.exitCode).toBe(0);
  });

  test("an equivalent entry for a mutant the tests kill is stale, and said so", () => {
    using repo = quickstartBranch({
      "tests/mutation_equivalents.yml": `${JOIN_EQUIVALENT}- {model: fct_orders, operator: cmp, original: "=", occurrence: 1, reason: thought so}\n`,
    });
    const result = runCli(["mutate", "--base", "main"], repo.path);
    expect(result.stdout).toContain(
      "INFO\tmodels/marts/fct_orders.sql\tfct_orders\ttests/mutation_equivalents.yml lists cmp '=' (occurrence 1) as equivalent, but a unit test kills it: the entry can go\t[MUTANT]\n",
    );
    expect(result.exitCode).toBe(0);
  });

  test("a malformed tests/mutation_equivalents.yml on the base cannot be judged: exit 2 naming its line", () => {
    using repo = quickstartBranch({
      "tests/mutation_equivalents.yml": "- {model: fct_orders, operator: join, original: left join, reason: no occurrence}\n",
    });
    const result = runCli(["mutate", "--base", "main"], repo.path);
    expect(result.stderr).toContain("tests/mutation_equivalents.yml at main:1");
    expect(result.exitCode).toBe(2);
  });

  test("an equivalent the branch lists itself excuses nothing", () => {
    using repo = quickstartBranch({}, { "tests/mutation_equivalents.yml": JOIN_EQUIVALENT });
    const result = runCli(["mutate", "--base", "main"], repo.path);
    expect(result.stdout).toContain("BLOCK\tmodels/marts/fct_orders.sql:10\tfct_orders\tmutant join/1");
    expect(result.exitCode).toBe(1);
  });

  test("a minimum score for the model's tier, set on the base, turns survivors above it into infos", () => {
    using repo = quickstartBranch({ "slp.yml": "mutate:\n  min_score: {standard: 80}\n" });
    const result = runCli(["mutate", "--base", "main"], repo.path);
    expect(result.stdout).toContain("INFO\tmodels/marts/fct_orders.sql:10\tfct_orders\tmutant join/1");
    expect(result.exitCode).toBe(0);
  });

  test("--max-mutants caps round robin across operators and reports what it cut", () => {
    using repo = quickstartBranch();
    const result = runCli(["mutate", "--base", "main", "--max-mutants", "3"], repo.path);
    // One of each of the first three operators (cmp, join, literal), in code order.
    expect(result.stdout).toContain(
      "fct_orders: score 66.67% (2 killed, 1 survived) of 3 mutants; the cap of 3 left out literal 3, ratio 1, where 1\n",
    );
    expect(result.stdout).toContain("SURVIVED\tfct_orders\tjoin/1\tline 10\tleft join -> inner join\n");
  });

  test("--exclude leaves a changed model out", () => {
    using repo = quickstartBranch(
      {},
      {
        "models/staging/stg_orders.sql":
          "select id as order_id, customer_id, status, amount_cents, cast(ordered_at as timestamp) as ordered_at\nfrom {{ source('shop', 'raw_orders') }}\nwhere id > 0\n",
      },
    );
    const result = runCli(["mutate", "--base", "main", "--exclude", "marts"], repo.path);
    expect(result.stdout).not.toContain("fct_orders");
    expect(result.stdout).toContain("INFO\tmodels/staging/stg_orders.sql\tstg_orders\tthe sql changed and the model has no unit test");
    expect(result.exitCode).toBe(0);
  });

  test("nothing changed since the base: nothing to judge, OK", () => {
    using repo = quickstartBranch();
    const result = runCli(["mutate", "--base", "HEAD"], repo.path);
    expect(result.stdout).toBe("slp mutate: OK (0 killed, 0 equivalent, in 0 models; models changed since HEAD)\n");
    expect(result.exitCode).toBe(0);
  });

  test("a base that does not exist cannot be judged: exit 2", () => {
    using repo = quickstartBranch();
    const result = runCli(["mutate", "--base", "no-such-branch"], repo.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("no-such-branch");
  });

  test("a changed upstream model is mutated with its own unit tests; one without tests is an info, a mart without tests a block", () => {
    using repo = quickstartBranch(
      {},
      {
        "models/staging/stg_orders.sql":
          "select id as order_id, customer_id, status, amount_cents, cast(ordered_at as timestamp) as ordered_at\nfrom {{ source('shop', 'raw_orders') }}\nwhere id > 0\n",
        "models/marts/fct_new.sql": "select 1 as id\n",
      },
    );
    const result = runCli(["mutate", "--base", "main"], repo.path);
    expect(result.stdout).toContain(
      "INFO\tmodels/staging/stg_orders.sql\tstg_orders\tthe sql changed and the model has no unit test, so no mutant of it was run",
    );
    expect(result.stdout).toContain(
      "BLOCK\tmodels/marts/fct_new.sql\tfct_new\tthe sql changed and the model has no unit test; nothing can tell it from a wrong one (README §3 Stage D) (fix: test)\t[MUTANT]\n",
    );
    expect(result.exitCode).toBe(1);
  });
});

describe("slp mutate verdicts (test/fixtures/mutate-run/project)", () => {
  /** The fixture project copied outside any git repository, and the run's output folder. */
  const run = (args: string[]) => {
    const out = tempDir("slp-mutate-out-");
    cpSync(PROJECT, join(out.path, "project"), { recursive: true });
    return { out, promise: runMain(["mutate", "--project-dir", join(out.path, "project"), "--out", join(out.path, "out"), ...args], ROOT) };
  };

  test("a survivor names the edge it threatens and the row that would reach it; a failing test is left out and listed", async () => {
    const { out, promise } = run(["--select", "fct_large"]);
    using _ = out;
    const result = await promise;
    expect(result.stdout).toContain(
      "INFO\tmodels/marts/_marts.yml\tfct_large\tunit test a_test_that_fails is left out of every verdict: it fails on the unmutated model\t[MUTANT]\n",
    );
    expect(result.stdout).toContain(
      "BLOCK\tmodels/marts/fct_large.sql:4\tfct_large\tmutant boundary/1 (boundary-moved): > -> >= at line 4 survived every unit test; a unit test that cannot tell the code from this is a unit test the model does not have yet; it threatens edge 'amount=100 → row excluded' (unit test large_payments_only); a given row with amount = 100 would reach it (fix: test)\t[MUTANT]\n",
    );
    expect(result.stderr).toMatch(/cannot read the base main \(.*\): no tests\/mutation_equivalents.yml is read, so every survivor blocks/);
    expect(result.exitCode).toBe(1);
    const artifact = JSON.parse(readFileSync(join(out.path, "out", "fct_large.json"), "utf8"));
    expect(artifact.baseline).toEqual({
      passed: ["large_payments_only"],
      excluded: [{ test: "a_test_that_fails", reason: "it fails on the unmutated model" }],
    });
  });

  test("a mutant DuckDB refuses is rejected, never counted as killed", async () => {
    const { out, promise } = run(["--select", "fct_kinds"]);
    using _ = out;
    const result = await promise;
    expect(result.stdout).toContain("REJECTED\tfct_kinds\tgroup/1\tline 3\tkind, amount -> amount\n");
    expect(result.stdout).toContain("fct_kinds: no score (2 rejected) of 2 mutants\n");
    expect(result.exitCode).toBe(0);
  });

  test("a mutant that never ends times out; the run goes on", async () => {
    const { out, promise } = run(["--select", "fct_countdown", "--timeout-ms", "300"]);
    using _ = out;
    const result = await promise;
    expect(result.stdout).toContain("TIMEOUT\tfct_countdown\twhere/1\tline 5\tn < 3 -> true\n");
    expect(result.stdout).toContain("KILLED\tfct_countdown\tliteral/3\tline 5\t3 -> 4\tby three_steps_per_payment\n");
    expect(result.exitCode).toBe(1); // union all -> union survives: no duplicate row in the fixture
  });

  test("no unit test passing unmutated is exit 2, never a clean sweep", async () => {
    const { out, promise } = run(["--select", "fct_broken"]);
    using _ = out;
    const result = await promise;
    expect(result.stdout).toEndWith("slp mutate: ERROR no unit test of fct_broken passes unmutated, so no mutant can be judged\n");
    expect(result.exitCode).toBe(2);
  });

  test("a selected mart without a unit test blocks", async () => {
    const { out, promise } = run(["--select", "fct_untested"]);
    using _ = out;
    const result = await promise;
    expect(result.stdout).toContain(
      "BLOCK\tmodels/marts/fct_untested.sql\tfct_untested\tthe model has no unit test; nothing can tell it from a wrong one (README §3 Stage D) (fix: test)\t[MUTANT]\n",
    );
    expect(result.exitCode).toBe(1);
    expect(existsSync(join(out.path, "out", "fct_untested.json"))).toBe(false);
  });

  test("a budget spent before the mutants start leaves them not_run: exit 2", async () => {
    const { out, promise } = run(["--select", "fct_large", "--budget-ms", "0"]);
    using _ = out;
    const result = await promise;
    expect(result.stdout).toContain("NOT_RUN\tfct_large\twhere/1");
    expect(result.exitCode).toBe(2);
  });

  test("--exclude leaves out what its selectors choose: a model, or a unit test its mutants then do not face", async () => {
    const models = async (args: string[]) => {
      const { out, promise } = run([...args, "--format", "json"]);
      using _ = out;
      const result = await promise;
      return JSON.parse(result.stdout).data.models.map(
        (model: { model: string; baseline: { passed: string[] } }) => `${model.model}: ${model.baseline.passed.join(" ")}`,
      );
    };
    expect(await models(["--select", "fct_large", "fct_kinds"])).toEqual([
      "fct_kinds: kinds_are_counted",
      "fct_large: large_payments_only",
    ]);
    expect(await models(["--select", "fct_large", "fct_kinds", "--exclude", "fct_kinds"])).toEqual(["fct_large: large_payments_only"]);
    expect(await models(["--select", "fct_large", "fct_kinds", "--exclude", "tag:nothing_has_it", "kinds_are_counted"])).toEqual([
      "fct_large: large_payments_only",
    ]);
  });

  test("--select that names nothing is exit 2", async () => {
    const { out, promise } = run(["--select", "no_such_model"]);
    using _ = out;
    expect((await promise).exitCode).toBe(2);
  });

  test("the same run writes the same bytes", async () => {
    const first = run(["--select", "fct_large"]);
    const second = run(["--select", "fct_large"]);
    using a = first.out;
    using b = second.out;
    const [one, two] = [await first.promise, await second.promise];
    expect(one.stdout).toBe(two.stdout);
    for (const file of ["fct_large.json", "mutation-report.json"])
      expect(readFileSync(join(a.path, "out", file), "utf8")).toBe(readFileSync(join(b.path, "out", file), "utf8"));
  });
});

describe("slp mutate --dry-run: what a real run would plant, nothing run", () => {
  /** A real run's artifact mutants, without their verdicts: what the dry run must list. */
  const planted = (artifact: { mutants: Record<string, unknown>[] }) =>
    artifact.mutants.map(({ verdict: _verdict, caught_by: _caught, reason: _reason, ...mutant }) => mutant);
  const dryData = (stdout: string) => {
    const envelope = JSON.parse(stdout);
    expect(schemaErrors(MutateDryRun, envelope.data, "data")).toEqual([]);
    return envelope.data;
  };

  test("on a branch of the quickstart: the reference's lines, the summary, exit 0, nothing written; the listing is the real run's", () => {
    using repo = quickstartBranch();
    const dry = runCli(["mutate", "--dry-run", "--base", "main"], repo.path);
    expect(dry.stdout).toStartWith(
      "fct_orders\tratio/1        line 7    orders.amount_cents / 100.0 -> 100.0 / orders.amount_cents\tratio-inverted\n",
    );
    expect(dry.stdout).toContain("fct_orders\tjoin/1         line 10   left join -> inner join\tjoin-type-swapped\n");
    expect(dry.stdout).toContain("fct_orders: 8 mutants to plant of 8 sites\n");
    expect(dry.stdout).toEndWith("slp mutate: 1 changed model(s) listed, nothing run\n");
    expect(dry.exitCode).toBe(0);
    expect(existsSync(join(repo.path, "mutation"))).toBe(false);

    const data = dryData(runCli(["mutate", "--dry-run", "--base", "main", "--format", "json"], repo.path).stdout);
    expect(data.models.map((model: { model: string }) => model.model)).toEqual(["fct_orders"]);
    expect(runCli(["mutate", "--base", "main"], repo.path).exitCode).toBe(1);
    const artifact = JSON.parse(readFileSync(join(repo.path, "mutation", "fct_orders.json"), "utf8"));
    expect(data.models[0].mutants).toEqual(planted(artifact));
    expect({ sites: data.models[0].sites, elided: data.models[0].elided, sites_from: data.models[0].sites_from }).toEqual({
      sites: artifact.cap.sites,
      elided: artifact.cap.elided,
      sites_from: artifact.sites_from,
    });
  });

  test("the cap cuts round robin exactly as a real run does, and says what it leaves out", async () => {
    const args = ["--select", "fct_countdown", "--max-mutants", "3"];
    using out = tempDir("slp-mutate-dry-");
    cpSync(PROJECT, join(out.path, "project"), { recursive: true });
    const project = ["--project-dir", join(out.path, "project"), "--out", join(out.path, "out")];
    const dry = await runMain(["mutate", "--dry-run", ...project, ...args, "--format", "json"], ROOT);
    const data = dryData(dry.stdout);
    expect(dry.exitCode).toBe(0);
    expect(existsSync(join(out.path, "out"))).toBe(false);
    await runMain(["mutate", ...project, ...args], ROOT);
    const artifact = JSON.parse(readFileSync(join(out.path, "out", "fct_countdown.json"), "utf8"));
    expect(data.models[0].mutants).toEqual(planted(artifact));
    expect(data.models[0].mutants.length).toBe(3);
    expect(data.models[0].elided).toEqual(artifact.cap.elided);
    expect(Object.keys(data.models[0].elided).length).toBeGreaterThan(0);
    const text = await runMain(["mutate", "--dry-run", ...project, ...args], ROOT);
    const cut = Object.entries(artifact.cap.elided)
      .map(([code, n]) => `${code} ${n}`)
      .join(", ");
    expect(text.stdout).toContain(`fct_countdown: 3 mutants to plant of ${artifact.cap.sites} sites; the cap of 3 leaves out ${cut}\n`);
  });

  test("in a warehouse dialect, with the scanner's sites: the real run's listing too", async () => {
    using out = tempDir("slp-mutate-dry-snowflake-");
    cpSync(join(ROOT, "examples", "snowflake-shop"), join(out.path, "project"), { recursive: true });
    const project = ["--project-dir", join(out.path, "project"), "--out", join(out.path, "out"), "--select", "stg_orders"];
    const dry = await runMain(["mutate", "--dry-run", ...project, "--format", "json"], ROOT);
    const data = dryData(dry.stdout);
    expect(data.models[0].sites_from.kind).toBe("scanner");
    await runMain(["mutate", ...project], ROOT);
    expect(data.models[0].mutants).toEqual(planted(JSON.parse(readFileSync(join(out.path, "out", "stg_orders.json"), "utf8"))));
  });

  test("no unit test, no equivalents, no DuckDB: a mart without a test is listed, a broken equivalents file on the base is not read, DuckDB is never loaded", async () => {
    using repo = quickstartBranch(
      { "tests/mutation_equivalents.yml": "- {model: fct_orders}\n" },
      { "models/marts/fct_new.sql": "select 1 as id where 2 > 1\n" },
    );
    expect(runCli(["mutate", "--base", "main"], repo.path).exitCode).toBe(2);
    const { Database } = await import("../src/engine/duckdb.ts");
    const load = Database.load;
    Database.load = () => {
      throw new Error("the dry run loaded DuckDB");
    };
    let result: Awaited<ReturnType<typeof runMain>>;
    try {
      result = await runMain(["mutate", "--dry-run", "--base", "main"], repo.path);
    } finally {
      Database.load = load;
    }
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("fct_new\tboundary/1     line 1    > -> >=\tboundary-moved\n");
    expect(result.stdout).toEndWith("slp mutate: 2 changed model(s) listed, nothing run\n");
    expect(result.exitCode).toBe(0);
  });

  test("nothing changed: 0 models listed, exit 0; --select a unit test's name, which a dry run cannot look up, is exit 2", () => {
    using repo = quickstartBranch();
    const none = runCli(["mutate", "--dry-run", "--base", "HEAD"], repo.path);
    expect(none.stdout).toBe("slp mutate: 0 changed model(s) listed, nothing run\n");
    expect(none.exitCode).toBe(0);
    const byTest = runCli(["mutate", "--dry-run", "--select", "cents_become_currency_units"], repo.path);
    expect(byTest.stderr).toContain("a dry run reads no unit test, so --select names models");
    expect(byTest.exitCode).toBe(2);
    const byModel = runCli(["mutate", "--dry-run", "--select", "fct_orders::cents_become_currency_units"], repo.path);
    expect(byModel.stdout).toEndWith("slp mutate: 1 selected model(s) listed, nothing run\n");
  });

  test("a model that cannot be rendered is exit 2, naming its file", () => {
    using repo = quickstartBranch({}, { "models/marts/fct_new.sql": "select {{ no_such_macro() }} as id\n" });
    const result = runCli(["mutate", "--dry-run", "--base", "main", "--format", "json"], repo.path);
    const envelope = JSON.parse(result.stdout);
    expect(result.exitCode).toBe(2);
    expect(envelope.errors[0].file).toBe("models/marts/fct_new.sql");
    expect(envelope.errors[0].message).toStartWith("fct_new cannot be rendered, so its mutants cannot be listed: ");
    expect(envelope.data.models.map((model: { model: string }) => model.model)).toEqual(["fct_orders"]);
  });

  test("a model calling a package packages.yml names but dbt deps never installed is exit 2 saying to run dbt deps", () => {
    using repo = quickstartBranch(
      {},
      {
        "packages.yml": "packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n",
        "models/marts/fct_new.sql": "select {{ dbt_utils.generate_surrogate_key(['id']) }} as id\n",
      },
    );
    const result = runCli(["mutate", "--dry-run", "--base", "main", "--format", "json"], repo.path);
    const envelope = JSON.parse(result.stdout);
    expect(result.exitCode).toBe(2);
    expect(envelope.errors[0].file).toBe("models/marts/fct_new.sql");
    expect(envelope.errors[0].message).toContain(
      "the model calls dbt_utils.generate_surrogate_key, but package dbt_utils is not installed: packages.yml:2 names it (dbt-labs/dbt_utils)",
    );
    expect(envelope.errors[0].fix).toStartWith("run `dbt deps` in the project folder");
  });
});

describe("slp mutate as a tcr step, and in explain", () => {
  test("a tcr step of mutate reverts a change whose mutant survives", () => {
    using repo = tempDir("slp-mutate-tcr-");
    cpSync(QUICKSTART, repo.path, { recursive: true });
    writeTree(repo.path, { "slp.yml": "tcr:\n  steps: [mutate]\n", ".gitignore": "mutation/\n" });
    initRepo(repo.path);
    commitAll(repo.path, "quickstart");
    git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
    const sql = join(repo.path, "models", "marts", "fct_orders.sql");
    const before = readFileSync(sql, "utf8");
    writeFileSync(sql, before.replace("-- One row per order", "-- Revenue orders: one row per order"));
    const result = runCli(["tcr", "reword the model's comment"], repo.path);
    expect(result.stdout).toContain("mutant join/1 (join-type-swapped): left join -> inner join at line 10 survived every unit test");
    expect(result.exitCode).toBe(1);
    expect(readFileSync(sql, "utf8")).toBe(before);
  });

  test("a tcr step of mutate leaves no output of its own for the next step to commit: the folder it makes ignores itself", () => {
    using repo = tempDir("slp-mutate-tcr-");
    cpSync(QUICKSTART, repo.path, { recursive: true });
    writeTree(repo.path, { "slp.yml": "tcr:\n  steps: [mutate]\n" });
    initRepo(repo.path);
    commitAll(repo.path, "quickstart");
    git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
    const sql = join(repo.path, "models", "marts", "fct_orders.sql");
    writeFileSync(sql, readFileSync(sql, "utf8").replace("-- One row per order", "-- Revenue orders: one row per order"));
    expect(runCli(["tcr", "reword the model's comment"], repo.path).exitCode).toBe(1);
    expect(git(repo.path, ["status", "--porcelain", "--untracked-files=all"])).toBe("");
    expect(readFileSync(join(repo.path, "mutation", ".gitignore"), "utf8")).toEndWith("\n*\n");
    expect(existsSync(join(repo.path, "mutation", "fct_orders.json"))).toBe(true);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    expect(runCli(["tcr", "notes"], repo.path).exitCode).toBe(0);
    expect(git(repo.path, ["show", "--name-only", "--format=", "HEAD"])).toBe("NOTES.md");
  });

  test("a folder that is there already is the user's: mutate writes into it and adds no .gitignore", () => {
    using repo = quickstartBranch({ "mutation/README.md": "the team commits its mutation artifacts\n" });
    expect(runCli(["mutate", "--base", "main"], repo.path).exitCode).toBe(1);
    expect(existsSync(join(repo.path, "mutation", ".gitignore"))).toBe(false);
    expect(git(repo.path, ["status", "--porcelain", "--untracked-files=all", "mutation"]).split("\n").sort()).toEqual([
      "?? mutation/fct_orders.json",
      "?? mutation/mutation-report.json",
    ]);
  });

  test("slp explain prints an operator from its definition", () => {
    const result = runCli(["explain", "join-type-swapped"], ROOT);
    expect(result.stdout).toStartWith("join join-type-swapped (slp mutate operator, from the reference)\n");
    expect(result.stdout).toContain("Plants a mutant in:\n  select * from a left join b on a.id = b.id\n");
    expect(result.exitCode).toBe(0);
  });
});

describe("slp mutate in a warehouse dialect", () => {
  test("Snowflake mutants run translated; with no Snowflake grammar the scanner finds the sites, and says so", async () => {
    using out = tempDir("slp-mutate-snowflake-");
    cpSync(join(ROOT, "examples", "snowflake-shop"), join(out.path, "project"), { recursive: true });
    const result = await runMain(
      ["mutate", "--project-dir", join(out.path, "project"), "--out", join(out.path, "out"), "--select", "stg_orders"],
      ROOT,
    );
    expect(result.stdout).toContain(
      "INFO\tmodels/staging/stg_orders.sql\tstg_orders\tsites found by the masked-text scanner, a fallback that knows only the reference's operator classes: the SQL parser (no grammar) cannot read this SQL (the SQL parser has no grammar for snowflake)\t[MUTANT]\n",
    );
    expect(result.stdout).toContain("KILLED\tstg_orders\tliteral/1\tline 4\t'placed' -> 'placed_'\tby negative_amounts_become_zero\n");
    expect(result.stdout).toContain("SURVIVED\tstg_orders\tboundary/1\tline 5\t< -> <=\n");
    expect(result.exitCode).toBe(1);
  });
});

describe("the --html page in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test("Stryker's web component renders the quickstart's report offline: both models, the scores, the survivor in the model's own source", async () => {
    using repo = quickstartBranch(
      {},
      {
        "models/marts/finance/fct_revenue_daily.sql": `-- changed\n${readFileSync(join(QUICKSTART, "models", "marts", "finance", "fct_revenue_daily.sql"), "utf8")}`,
      },
    );
    expect(runCli(["mutate", "--base", "main", "--html"], repo.path).exitCode).toBe(1);
    const tab = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const requests: string[] = [];
    tab.on("request", (request) => requests.push(request.url()));
    await tab.goto(`file://${join(repo.path, "mutation", "mutation-report.html")}`);
    // The component renders into shadow roots: their text is read inside the page, waiting until it holds `needle`.
    const textWith = async (needle: string): Promise<string> => {
      const handle = await tab.waitForFunction((wanted: string) => {
        const walk = (node: any): string =>
          [
            node.shadowRoot ? walk(node.shadowRoot) : "",
            ...[...node.childNodes].map((child: any) => (child.nodeType === 3 ? child.textContent : walk(child))),
          ].join(" ");
        const text = walk((globalThis as any).document.body).replace(/\s+/g, " ");
        return text.includes(wanted) ? text : false;
      }, needle);
      return (await handle.jsonValue()) as string;
    };
    const overview = await textWith("Mutation Score");
    expect(overview).toContain("fct_orders.sql 87.50 87.50 7 1");
    expect(overview).toContain("finance/fct_revenue_daily.sql 100.00 100.00 1 0");
    await tab.goto(`file://${join(repo.path, "mutation", "mutation-report.html")}#mutant/fct_orders.sql`);
    const file = await textWith("Select next mutant");
    expect(file).toContain("left join {{ ref('stg_customers') }} as customers join-type-swapped Survived");
    expect(file).toMatch(/Survived \( ?1 ?\)/);
    expect(requests.every((url) => url.startsWith("file://"))).toBe(true);
  });
});
