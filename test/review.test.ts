/**
 * slp review: the quickstart's review (a golden file, its JSON against
 * schemas/review.schema.json, the page rendered in headless Chromium and
 * its structure asserted), the sensitive-column rule on a spec that lists
 * one, band flags, mutation artifacts read or refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "./support/browser.ts";
import { isValid } from "../src/schemas/validate.ts";
import { runCli, runMain } from "./support/cli.ts";
import { UPDATE } from "./support/fixtures.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const QUICKSTART = join(ROOT, "examples", "quickstart");
const SENSITIVE = join(import.meta.dir, "fixtures", "review", "sensitive");
const DERIVED = join(import.meta.dir, "fixtures", "review", "derived");
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

function expectGolden(name: string, text: string): void {
  const file = join(GOLDEN, name);
  if (UPDATE || !existsSync(file)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, text);
    if (!UPDATE) throw new Error(`${file} was missing; it has been written, review it`);
    return;
  }
  expect(text).toBe(readFileSync(file, "utf8"));
}

describe("slp review on the quickstart", () => {
  test("Markdown by default: the three readings of both models, a golden file", async () => {
    const result = await runMain(["review"], QUICKSTART);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expectGolden("quickstart.md", result.stdout);
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
    const markdown = await runMain(["review", "--html", page], SENSITIVE);
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
      expect(structure.scripts).toBe(0);
      // Readable on a phone: the page itself never scrolls sideways (wide tables scroll in their own box).
      expect(structure.overflow).toBe(false);
      expect(structure.text).not.toContain("@example.com");
      expect(requests).toEqual([`file://${page}`]);
      await tab.screenshot({ path: join(process.env.SLP_SCREENSHOTS ?? dir.path, `review-${name}.png`), fullPage: true });
      await context.close();
    }
  });

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
