/**
 * slp review: the quickstart's review (a golden file, its JSON against
 * schemas/review.schema.json, the page rendered in headless Chromium and
 * its structure asserted), the sensitive-column rule on a spec that lists
 * one, band flags, mutation artifacts read or refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "./support/browser.ts";
import { isValid } from "../src/schemas/validate.ts";
import { runCli, runMain } from "./support/cli.ts";
import { expectGolden } from "./support/fixtures.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";
import { historyRepo, type HistoryRepo } from "./support/review-history.ts";
import { changesText } from "../src/rules/context/review-history.ts";
import { edit, FCT_ORDERS_YML, quickstartRepo } from "./support/tcr.ts";

const ROOT = join(import.meta.dir, "..");
const QUICKSTART = join(ROOT, "examples", "quickstart");
const SENSITIVE = join(import.meta.dir, "fixtures", "review", "sensitive");
const DERIVED = join(import.meta.dir, "fixtures", "review", "derived");
const EVERY_TEST = join(import.meta.dir, "fixtures", "review", "every-test");
const GOLDEN = join(import.meta.dir, "golden", "review");
/** What the unit-test rows of the sensitive fixture hold in its sensitive columns. */
const SECRETS = [
  "ana.secret@example.com",
  "bruno.secret@example.com",
  "carla.secret@example.com",
  "99999-000",
  "ana@example.com",
  "bruno@example.com",
];

/** The agent branch with a history (support/review-history.ts), built once for the tests that read it. */
let historyBuilt: Promise<HistoryRepo> | undefined;
const history = () => (historyBuilt ??= historyRepo());
afterAll(async () => {
  if (historyBuilt) (await historyBuilt).repo[Symbol.dispose]();
});
/** Building it runs slp tcr eleven times. */
const BUILD_TIMEOUT = 180_000;

function expectReviewGolden(name: string, text: string): void {
  expectGolden(join(GOLDEN, name), text);
}

describe("slp review on the quickstart", () => {
  test("Markdown by default: the three readings of both models, a golden file", async () => {
    const result = await runMain(["review"], QUICKSTART);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expectReviewGolden("quickstart.md", result.stdout);
    expect(result.stdout).toContain("### fct\\_revenue\\_daily (critical)");
    expect(result.stdout).toContain(
      "✅ reconciliation: the model says 307.99, the source of truth 307.99: a difference of 0 percent; the spec allows 0.1%",
    );
    expect(result.stdout).toContain("⚠️ mutation check not run (no mutation/fct\\_orders.json)");
  });

  test("--format json: one envelope whose data fits schemas/review.schema.json", async () => {
    const result = await runMain(["review", "--format", "json"], QUICKSTART);
    const envelope = JSON.parse(result.stdout);
    const schema = JSON.parse(readFileSync(join(ROOT, "schemas", "review.schema.json"), "utf8"));
    expect(isValid(schema, envelope.data)).toBe(true);
    expect(envelope.data.models.map((model: { model: string }) => model.model)).toEqual(["fct_orders", "fct_revenue_daily"]);
    const orders = envelope.data.models[0];
    expect(orders.uniqueness).toEqual({ can_fail: true, tests: ["unique"], reason: null });
    expect(orders.numbers.map((n: { name: string; inside: boolean }) => [n.name, n.inside])).toEqual([
      ["row_delta", true],
      ["removed_pks", true],
      ["gross_revenue", true],
    ]);
    expect(orders.edges.map((edge: { tests: { status: string }[] }) => edge.tests.map((t) => t.status))).toEqual([
      ["pass"],
      ["pass"],
      ["pass"],
    ]);
  });

  test("--format github puts the review in the job summary", async () => {
    using dir = tempDir();
    const summary = join(dir.path, "summary.md");
    const result = await runMain(["review", "--format", "github"], QUICKSTART, { GITHUB_STEP_SUMMARY: summary });
    expect(result.exitCode).toBe(0);
    expect(readFileSync(summary, "utf8")).toStartWith("## slp review: 2 models\n");
  });

  test("a uniqueness test that cannot fail and a number outside its band are said so", async () => {
    using project = copyToTemp(QUICKSTART);
    const yml = join(project.path, "models", "marts", "fct_orders.yml");
    writeFileSync(
      yml,
      readFileSync(yml, "utf8").replace("data_tests: [unique, not_null]", "data_tests: [{unique: {config: {enabled: false}}}, not_null]"),
    );
    const diff = join(project.path, "diff", "fct_orders.json");
    writeFileSync(diff, readFileSync(diff, "utf8").replace('"row_delta": 2', '"row_delta": 9'));
    const result = await runMain(["review"], project.path);
    expect(result.stdout).toContain("⛔ primary key order\\_id: its uniqueness test cannot fail the build: it is disabled");
    expect(result.stdout).toContain("| row\\_delta | 0..5 (a band 5 wide) | 9 | ⛔ outside |");
    expect(result.stdout).toContain("> ⛔ compare: C1: row\\_delta is 9, pre-registration allows 0..5");
  });
});

describe("sensitive columns never appear with values", () => {
  test("neither in the Markdown, nor in the JSON data, nor on the HTML page", async () => {
    using dir = tempDir();
    const page = join(dir.path, "review.html");
    const written = await runMain(["review", "--html", page], SENSITIVE);
    expect(written.exitCode).toBe(0);
    const markdown = await runMain(["review"], SENSITIVE);
    const json = await runMain(["review", "--format", "json"], SENSITIVE);
    expect(markdown.exitCode).toBe(0);
    const html = readFileSync(page, "utf8");
    for (const text of [markdown.stdout, json.stdout, html]) for (const secret of SECRETS) expect(text).not.toContain(secret);
    // The columns are there, their values are not; the other columns keep theirs.
    expect(markdown.stdout).toContain("| 1 | _sensitive_ | _sensitive_ | test |");
    expect(markdown.stdout).toContain("| 3 | _sensitive_ | pro |");
    const edge = JSON.parse(json.stdout).data.models[0].edges[1].tests[0];
    expect(edge.given[0].rows.rows).toEqual([{ user_id: "3", email: "[sensitive]", phone: "[sensitive]", plan: "pro" }]);
    expect(edge.expect.rows).toEqual([{ user_id: "3", EMAIL: "[sensitive]", plan: "pro" }]);
  });

  test("a column that carries a sensitive value under another name (lineage: email → reach → contact) is masked too", async () => {
    const markdown = await runMain(["review"], DERIVED);
    const json = await runMain(["review", "--format", "json"], DERIVED);
    expect(markdown.exitCode).toBe(0);
    for (const text of [markdown.stdout, json.stdout]) expect(text).not.toContain("dana.secret@example.com");
    const test = JSON.parse(json.stdout).data.models[0].edges[0].tests[0];
    expect(test.given[0].rows.rows).toEqual([{ user_id: "1", reach: "[sensitive]", plan: "pro" }]);
    expect(test.expect.rows).toEqual([{ user_id: "1", contact: "[sensitive]", plan: "pro" }]);
  });

  test("the quickstart's customer_email (listed in fct_orders' spec, meta.sensitive in staging) shows no address", async () => {
    const result = await runMain(["review"], QUICKSTART);
    expect(result.stdout).not.toContain("@example.com");
  });
});

describe("the numbers: bands that cannot fail", () => {
  test("a row_delta floor below -removed_pks.max and a delta_pct floor at -100 are flagged with their numbers", async () => {
    const result = await runMain(["review"], SENSITIVE);
    expect(result.stdout).toContain(
      "⚠️ **cannot fail:** row\\_delta falls below -20 only when more than 20 keys are removed, which removed\\_pks (at most 20) blocks first, so the lower end -100 never fails on its own",
    );
    expect(result.stdout).toContain("⚠️ **cannot fail:** signups can never fail on a fall: below -100 percent it would have changed sign");
  });

  test("an infinite band (YAML .inf) cannot fail at all", async () => {
    using project = copyToTemp(SENSITIVE);
    const yml = join(project.path, "models", "marts", "fct_signups.yml");
    writeFileSync(
      yml,
      readFileSync(yml, "utf8").replace("signups: {delta_pct: {min: -100, max: 0}}", "signups: {delta_pct: {min: -.inf, max: .inf}}"),
    );
    const json = JSON.parse((await runMain(["review", "--format", "json"], project.path)).stdout);
    const signups = json.data.models[0].numbers.find((n: { name: string }) => n.name === "signups");
    expect(signups.cannot_fail).toBe("signups is declared from -infinity to infinity: no number can fail it");
  });
});

describe("mutation results", () => {
  test("survivors are listed under the model's edges", async () => {
    const result = await runMain(["review"], SENSITIVE);
    expect(result.stdout).toContain("⛔ 1 surviving mutant (2 killed, 1 survived, 0 equivalent)");
    expect(result.stdout).toContain("- `literal-altered/1` literal-altered at line 3: 'test' → 'test\\_'");
  });

  test("a mutation file that is not an artifact is exit 2 naming it, never read as no survivor", async () => {
    using project = copyToTemp(SENSITIVE);
    writeFileSync(join(project.path, "mutation", "fct_signups.json"), '{"model": "fct_signups", "mutants": []}');
    const result = await runMain(["review"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("ERROR mutation/fct_signups.json: is not the mutation artifact of fct_signups");
  });
});

describe("--base", () => {
  test("a pre-registration the base branch already has is inherited: not this branch's to review", async () => {
    using repo = copyToTemp(QUICKSTART);
    initRepo(repo.path);
    commitAll(repo.path, "quickstart");
    git(repo.path, ["checkout", "-q", "-b", "feature"]);
    const result = await runMain(["review", "--base", "main", "diff/fct_orders.json", "--format", "json"], repo.path);
    const data = JSON.parse(result.stdout).data;
    expect(data.models.map((model: { model: string }) => model.model)).toEqual(["fct_orders"]);
    expect(data.models[0].pre_registration.inherited).toBe(true);
    expect(data.unreviewed).toEqual(["fct_revenue_daily"]);
  });
});

describe("the branch's history, first", () => {
  test(
    "I1 and G17 edits with the band that moved, a strike, a reset, a commit and a merge outside tcr, a pending strike: each with its commit, before the models",
    async () => {
      const { repo, commits } = await history();
      const result = await runMain(["review", "--base", "main"], repo.path);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe("");
      const text = result.stdout;
      // First after the title: before the inputs line and every model.
      expect(text).toStartWith(
        "## slp review: 2 models\n\n### History of the branch\n\nRead as gate reads it: 8 commits since the merge-base ",
      );
      expect(text.indexOf("### History of the branch")).toBeLessThan(text.indexOf("Project ."));
      expect(text.indexOf(`\`${commits.merge}\``)).toBeLessThan(text.indexOf("### fct\\_orders"));
      for (const line of [
        `- ⚠️ \`${commits.afterStrike}\` the green step by Agent Smith after 1 red attempt in a row (1 strike, each reverted by tcr)`,
        `- ⚠️ \`${commits.afterReset}\` \\[G13\\] a tcr step by Agent Smith after a reset of the strike count (1 strikes cleared by Agent Smith &lt;agent@&#8203;example.com&gt;: a human read the spec)`,
        `- ⛔ \`${commits.byHand}\` \\[G12\\] a commit by Agent Smith that slp tcr did not make`,
        `- ⛔ \`${commits.merge}\` \\[G12\\] a merge by Agent Smith holding more than git's own merge of its parents: CHANGELOG.md written by hand`,
        `- ⚠️ _not committed_ 1 strike since the last commit, not in git (tcr's ledger in the git directory): "drop the spec once more" (check red, saved in slp/reverted/0003-${commits.merge})`,
        "**fct\\_orders**",
        `- ⚠️ \`${commits.narrowed}\` \\[I1\\] pre-registration edited by Agent Smith (first written in ${commits.written}): row\\_delta 0..10 → 0..6 (narrowed)`,
        `- ⛔ \`${commits.narrowedAfterDiff}\` \\[G17\\] pre-registration edited by Agent Smith (first written in ${commits.written}): row\\_delta 0..6 → 0..3 (narrowed), once this branch had its measured diff diff/fct\\_orders.json (committed in ${commits.measured})`,
      ])
        expect(text).toContain(line);
    },
    BUILD_TIMEOUT,
  );

  test(
    "--format json: the history in the data, per model and branch-wide, oldest first, against the schema",
    async () => {
      const { repo, commits } = await history();
      const envelope = JSON.parse((await runMain(["review", "--base", "main", "--format", "json"], repo.path)).stdout);
      const schema = JSON.parse(readFileSync(join(ROOT, "schemas", "review.schema.json"), "utf8"));
      expect(isValid(schema, envelope.data)).toBe(true);
      const data = envelope.data.history;
      expect([data.read, data.reason, data.commits, data.agent_branch]).toEqual([true, null, 8, true]);
      expect(data.branch.map((entry: { commit: string; rule: string; kind: string }) => [entry.commit, entry.rule, entry.kind])).toEqual([
        [commits.afterStrike, null, "strikes"],
        [commits.afterReset, "G13", "strike-reset"],
        [commits.byHand, "G12", "commit-outside-tcr"],
        [commits.merge, "G12", "merge-by-hand"],
        [null, null, "strikes-pending"],
      ]);
      expect(
        data.models.map((model: { model: string; entries: { commit: string; rule: string }[] }) => [
          model.model,
          model.entries.map((entry) => [entry.commit, entry.rule]),
        ]),
      ).toEqual([
        [
          "fct_orders",
          [
            [commits.narrowed, "I1"],
            [commits.narrowedAfterDiff, "G17"],
          ],
        ],
      ]);
    },
    BUILD_TIMEOUT,
  );

  test("a clean tcr branch: the history is read and stated empty; a band changed in the work tree only is said so", async () => {
    using repo = quickstartRepo(["check"]);
    edit(repo.path, "data/README.md", (text) => `${text}\na note\n`);
    expect((await runMain(["tcr", "a note"], repo.path)).exitCode).toBe(0);
    const clean = await runMain(["review", "--base", "main"], repo.path);
    expect(clean.stdout).toContain("### History of the branch\n\nRead as gate reads it: 1 commit since the merge-base ");
    expect(clean.stdout).toContain(
      "Nothing to report: no pre-registration edited, no strike, no strike reset, no commit outside tcr, no merge edited by hand.\n\nProject .",
    );
    const data = JSON.parse((await runMain(["review", "--base", "main", "--format", "json"], repo.path)).stdout).data.history;
    expect([data.branch, data.models]).toEqual([[], []]);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("row_delta: {min: 0, max: 5}", "row_delta: {min: 1, max: 5}"));
    const dirty = JSON.parse((await runMain(["review", "--base", "main", "--format", "json"], repo.path)).stdout).data.history;
    expect(dirty.models).toEqual([
      {
        model: "fct_orders",
        entries: [
          {
            commit: null,
            rule: null,
            kind: "pre-registration-uncommitted",
            text: expect.stringContaining("this review reads the work tree's): row_delta 0..5 → 1..5 (narrowed)") as unknown as string,
          },
        ],
      },
    ]);
  }, 60_000);

  test("a branch tcr made no commit on: commits outside tcr are not counted, and the section says so", async () => {
    using repo = quickstartRepo();
    edit(repo.path, "data/README.md", (text) => `${text}\na note by a human\n`);
    commitAll(repo.path, "a human's note");
    const result = await runMain(["review", "--base", "main"], repo.path);
    expect(result.stdout).toContain(
      "(slp tcr made none of them: not an agent branch, so commits outside tcr are not counted). Nothing to report: no pre-registration edited, no strike, no strike reset.\n",
    );
  });

  test("what moved between two pre-registrations: each band narrowed, widened, moved, added or removed, then the other fields", () => {
    const before = {
      type: "data_change",
      row_delta: { min: 0, max: 10 },
      removed_pks: { max: 5 },
      altered_columns: ["a"],
      metrics: { revenue: { delta_pct: { min: -5, max: 5 } }, orders: { value: { min: 1, max: 2 } } },
    };
    const after = {
      type: "refactoring",
      row_delta: { min: -1, max: 12 },
      altered_columns: ["a", "b"],
      metrics: { revenue: { delta_pct: { min: 0, max: 8 } }, margin: { value: { min: 0, max: 1 } } },
    };
    expect(changesText(before, after)).toBe(
      "row_delta 0..10 → -1..12 (widened); removed_pks at most 5 removed; metric orders (value) 1..2 removed; metric revenue (delta_pct) -5..5 → 0..8 (moved); metric margin (value) 0..1 added; type data_change → refactoring; altered_columns [a] → [a, b]",
    );
    expect(changesText(before, { ...before, reason: "why" })).toBe("the reason rewritten");
    expect(changesText(before, before)).toBe("rewritten, no band or field changed in meaning");
  });

  test("without --base, or outside git, the section says why it was not read", async () => {
    const inRepo = await runMain(["review"], QUICKSTART);
    expect(inRepo.stdout).toContain(
      "### History of the branch\n\nNot read: no --base REF given: slp review --base main reads the branch's commits as gate does.\n",
    );
    using outside = copyToTemp(QUICKSTART);
    const noGit = await runMain(["review"], outside.path);
    expect(noGit.exitCode).toBe(0);
    expect(noGit.stdout).toContain(
      "### History of the branch\n\nNot read: this project is not in a git repository: there is no branch history to read.\n",
    );
    const json = JSON.parse((await runMain(["review", "--format", "json"], outside.path)).stdout).data.history;
    expect(json).toEqual({
      read: false,
      reason: "this project is not in a git repository: there is no branch history to read",
      merge_base: null,
      commits: 0,
      agent_branch: false,
      branch: [],
      models: [],
    });
  });
});

describe("every test beside the edges", () => {
  test("unit tests naming no edge (or one the spec lacks) and each data test with what it asserts", async () => {
    const result = await runMain(["review"], EVERY_TEST);
    expect(result.exitCode).toBe(0);
    const text = result.stdout;
    expect(text).toContain(
      "**Other tests**\n\n- ✅ unit test free\\_plan\\_is\\_kept (pass), names no edge: given ref('stg\\_users'): 1 row, expecting 1 row\n" +
        "- ✅ unit test plan\\_names\\_are\\_lower\\_case (pass), names the edge \"plan='PRO' → row kept as written\", which the spec does not list: given ref('stg\\_users'): 1 row, expecting 1 row",
    );
    // The edges' own tests are not listed again.
    expect(text).not.toContain("- ✅ unit test test\\_plan\\_is\\_excluded");
    for (const row of [
      "| unique | user\\_id | no two rows share a value of user\\_id | ✅ can fail |",
      "| accepted\\_values | plan | plan only takes the values \\[free, pro\\] (null excepted) | ✅ can fail |",
      "| relationships | user\\_id | every user\\_id is found in ref('stg\\_users') as user\\_id (null excepted) | ✅ can fail |",
      "| dbt\\_utils.expression\\_is\\_true | the model | every row satisfies user\\_id &gt; 0 | ✅ can fail |",
      "| dbt\\_utils.unique\\_combination\\_of\\_columns | the model | no two rows share a combination of \\[user\\_id, plan\\] | ✅ can fail |",
      "| dbt\\_utils.accepted\\_range | user\\_id | user\\_id lies within 1..1,000,000 | ✅ can fail |",
      "| dbt\\_expectations.expect\\_column\\_values\\_to\\_not\\_be\\_null | plan | plan is never null | ⚠️ cannot fail: its severity is warn |",
      "| signups\\_match\\_the\\_source | the model | signups\\_match\\_the\\_source holds on the model (no arguments) | ✅ can fail |",
    ])
      expect(text).toContain(row);
    const data = JSON.parse((await runMain(["review", "--format", "json"], EVERY_TEST)).stdout).data.models[0].other_tests;
    expect(data.unit.map((test: { name: string; edge: string | null }) => [test.name, test.edge])).toEqual([
      ["free_plan_is_kept", null],
      ["plan_names_are_lower_case", "plan='PRO' → row kept as written"],
    ]);
    expect(data.data.find((test: { name: string }) => test.name === "accepted_values")).toEqual({
      name: "accepted_values",
      column: "plan",
      arguments: "{values: [free, pro]}",
      asserts: "plan only takes the values [free, pro] (null excepted)",
      cannot_fail: null,
      line: 52,
    });
  });

  test("a model whose unit tests all name its edges lists none of them again; its data tests still are", async () => {
    const data = JSON.parse((await runMain(["review", "--format", "json"], QUICKSTART)).stdout).data.models;
    expect(data.map((model: { other_tests: { unit: unknown[] } }) => model.other_tests.unit)).toEqual([[], []]);
    expect(data[0].other_tests.data.map((test: { name: string; column: string }) => `${test.name} ${test.column}`)).toEqual([
      "unique order_id",
      "not_null order_id",
      "accepted_values status",
      "not_null order_total",
    ]);
  });
});

describe("--html FILE", () => {
  test("writes the page and keeps stdout for the one-line summary; --format markdown still prints the document", async () => {
    using dir = tempDir();
    const page = join(dir.path, "review.html");
    const result = await runMain(["review", "--html", page], QUICKSTART);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`slp review: 2 models, written to ${page}\n`);
    expect(readFileSync(page, "utf8")).toStartWith("<!doctype html>");
    const markdown = await runMain(["review", "--html", page, "--format", "markdown"], QUICKSTART);
    expect(markdown.stdout).toStartWith("## slp review: 2 models\n");
  });
});

describe("the page in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test("the quickstart's review: one section per model, three readings each, a band chart per number, nothing fetched", async () => {
    using dir = tempDir();
    const page = join(dir.path, "review.html");
    const result = runCli(["review", "--html", page], QUICKSTART);
    expect(result.exitCode).toBe(0);
    for (const [width, name] of [
      [390, "phone"],
      [1200, "desktop"],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const tab = await context.newPage();
      const requests: string[] = [];
      tab.on("request", (request) => requests.push(request.url()));
      await tab.goto(`file://${page}`);
      // Runs in the page: its DOM is reached through globalThis (the tests compile without DOM types).
      const structure = await tab.evaluate(() => {
        const page = globalThis as any;
        const document = page.document;
        return {
          title: document.title as string,
          models: [...document.querySelectorAll("section.model")].map((section: any) => ({
            model: section.getAttribute("data-model") as string,
            readings: [...section.querySelectorAll("section[data-reading]")].map(
              (reading: any) => reading.getAttribute("data-reading") as string,
            ),
            charts: [...section.querySelectorAll("figure.band-chart")].map((figure: any) => ({
              number: figure.getAttribute("data-number"),
              inside: figure.getAttribute("data-inside"),
              band: figure.querySelectorAll("svg rect.band").length,
              marker: figure.querySelector("svg g.marker")?.getAttribute("data-value") ?? null,
            })),
            edges: section.querySelectorAll("ol.edges > li").length as number,
          })),
          history: (() => {
            const section = document.querySelector("section.history");
            const box = section?.getBoundingClientRect();
            return section && box.height > 0 && page.getComputedStyle(section).visibility === "visible"
              ? (section.querySelector("p")?.textContent as string)
              : null;
          })(),
          scripts: document.querySelectorAll("script").length as number,
          overflow: document.documentElement.scrollWidth > page.innerWidth,
          text: document.body.textContent as string,
        };
      });
      expect(structure.title).toBe("slp review: 2 models");
      expect(structure.models.map((model) => [model.model, model.readings, model.edges])).toEqual([
        ["fct_orders", ["grain", "numbers", "edges"], 3],
        ["fct_revenue_daily", ["grain", "numbers", "edges"], 2],
      ]);
      expect(structure.models[1]!.charts).toEqual([
        { number: "row_delta", inside: "true", band: 1, marker: "0" },
        { number: "removed_pks", inside: "true", band: 1, marker: "0" },
        { number: "gross_revenue", inside: "true", band: 1, marker: "17.110916764896004" },
        { number: "order_count", inside: "true", band: 1, marker: "40" },
      ]);
      // Without --base the history section is there, visible, saying why it was not read.
      expect(structure.history).toBe("Not read: no --base REF given: slp review --base main reads the branch's commits as gate does.");
      expect(structure.scripts).toBe(0);
      // Readable on a phone: the page itself never scrolls sideways (wide tables scroll in their own box).
      expect(structure.overflow).toBe(false);
      expect(structure.text).not.toContain("@example.com");
      expect(requests).toEqual([`file://${page}`]);
      await tab.screenshot({ path: join(process.env.SLP_SCREENSHOTS ?? dir.path, `review-${name}.png`), fullPage: true });
      await context.close();
    }
  });

  test(
    "the history section first and the other tests, visible (not only in the DOM), no sideways scroll on a phone or a desktop, a screenshot of each",
    async () => {
      const { repo, commits } = await history();
      using dir = tempDir();
      const page = join(dir.path, "review.html");
      // The real binary's entry point, as a subprocess.
      const result = runCli(["review", "--base", "main", "--html", page], repo.path);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(`slp review: 2 models, written to ${page}\n`);
      const shots = process.env.SLP_SCREENSHOTS ?? dir.path;
      for (const [width, name] of [
        [390, "phone"],
        [1280, "desktop"],
      ] as const) {
        const context = await browser.newContext({ viewport: { width, height: 900 } });
        const tab = await context.newPage();
        await tab.goto(`file://${page}`);
        const seen = await tab.evaluate(() => {
          const page = globalThis as any;
          const document = page.document;
          // Visible: laid out with a size, not hidden by CSS, and inside the page's width.
          const visible = (element: any) => {
            if (!element) return false;
            const box = element.getBoundingClientRect();
            const style = page.getComputedStyle(element);
            return (
              box.width > 0 &&
              box.height > 0 &&
              style.visibility === "visible" &&
              style.display !== "none" &&
              Number(style.opacity) > 0 &&
              box.left >= 0 &&
              box.right <= page.innerWidth
            );
          };
          const history = document.querySelector("section.history");
          const firstModel = document.querySelector("section.model");
          return {
            historyVisible: visible(history),
            historyFirst:
              history !== null &&
              firstModel !== null &&
              history.getBoundingClientRect().bottom <= firstModel.getBoundingClientRect().top &&
              history.previousElementSibling?.tagName === "H1",
            entries: [...document.querySelectorAll("section.history li")].map((li: any) => ({
              commit: li.getAttribute("data-commit"),
              rule: li.getAttribute("data-rule"),
              visible: visible(li),
            })),
            otherTests: [...document.querySelectorAll("section.model .other-tests")].map((block: any) => ({
              visible: visible(block),
              rows: [...block.querySelectorAll("tr[data-data-test]")].filter(visible).length,
            })),
            overflow: document.documentElement.scrollWidth > page.innerWidth,
          };
        });
        expect(seen.historyVisible).toBe(true);
        expect(seen.historyFirst).toBe(true);
        expect(seen.entries).toEqual([
          { commit: commits.afterStrike, rule: "", visible: true },
          { commit: commits.afterReset, rule: "G13", visible: true },
          { commit: commits.byHand, rule: "G12", visible: true },
          { commit: commits.merge, rule: "G12", visible: true },
          { commit: "", rule: "", visible: true },
          { commit: commits.narrowed, rule: "I1", visible: true },
          { commit: commits.narrowedAfterDiff, rule: "G17", visible: true },
        ]);
        expect(seen.otherTests).toEqual([
          { visible: true, rows: 4 },
          { visible: true, rows: 4 },
        ]);
        expect(seen.overflow).toBe(false);
        const shot = join(shots, `review-history-${name}.png`);
        await tab.screenshot({ path: shot, fullPage: true });
        expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
        await context.close();
      }
    },
    BUILD_TIMEOUT,
  );

  test("printable: the page prints to PDF with every model in it", async () => {
    using dir = tempDir();
    const page = join(dir.path, "review.html");
    runCli(["review", "--html", page], QUICKSTART);
    const tab = await browser.newPage();
    await tab.goto(`file://${page}`);
    await tab.emulateMedia({ media: "print" });
    expect(
      await tab.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.querySelector("main")).maxWidth),
    ).toBe("none");
    const pdf = await tab.pdf({ format: "A4" });
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    await tab.close();
  });
});

// Keep fixtures of this file honest: the sensitive fixture is a project check reads cleanly.
test("the sensitive fixture checks clean (its spec is valid), so review reads a real project", async () => {
  const result = await runMain(["check"], SENSITIVE);
  expect(result.stdout).toEndWith("slp check: 2 infos - OK (1 model in models/marts/, of 2 models read)\n");
});
