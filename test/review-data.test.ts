/**
 * What a review's numbers stand on, through the real CLI on a copy of the
 * quickstart in a git repository: slp diff records the commit and the
 * content it measured (extra.slp); compare and review refuse a diff whose
 * model changed since, naming both commits; a diff without the record (the
 * reference's) is read with a note; the review shows production's and the
 * branch's values beside each delta; the spec's anchor is held against the
 * reconciliation's source of truth.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isValid } from "../src/schemas/validate.ts";
import { runMain } from "./support/cli.ts";
import { commitAll, initRepo } from "./support/git-repo.ts";
import { copyToTemp } from "./support/temp.ts";
import { anchorAgrees, anchorNumber } from "../src/rules/shared/anchor.ts";
import { decimal } from "../src/report/review-words.ts";

const ROOT = join(import.meta.dir, "..");
const QUICKSTART = join(ROOT, "examples", "quickstart");
const FIXTURES = join(import.meta.dir, "fixtures", "review-data");

/** A copy of the quickstart, overlaid with a fixture, committed; its diffs measured by slp diff and slp reconcile. */
async function measuredCopy(overlay?: string) {
  const dir = copyToTemp(QUICKSTART, "slp-review-data-");
  if (overlay) cpSync(join(FIXTURES, overlay), dir.path, { recursive: true });
  initRepo(dir.path);
  const commit = commitAll(dir.path, "the branch");
  const diff = await runMain(["diff", "fct_orders", "fct_revenue_daily"], dir.path);
  expect(diff.exitCode).toBe(0);
  const reconcile = await runMain(["reconcile", "fct_revenue_daily"], dir.path);
  expect(reconcile.exitCode).toBe(0);
  return { dir, commit };
}

const DIFFS = ["diff/fct_orders.json", "diff/fct_revenue_daily.json"];
/** Each CLI test runs diff, reconcile and compare or review on DuckDB: generous on a loaded machine, never what a test asserts. */
const SLOW = 120_000;

describe("a diff records what it measured", () => {
  test(
    "slp diff writes extra.slp: HEAD, clean, the content id of the model's SQL and of every file upstream of it",
    async () => {
      const { dir, commit } = await measuredCopy();
      using _ = dir;
      const diff = JSON.parse(readFileSync(join(dir.path, "diff", "fct_revenue_daily.json"), "utf8"));
      expect(diff.extra.slp.commit).toBe(commit);
      expect(diff.extra.slp.dirty).toBe(false);
      expect(Object.keys(diff.extra.slp.content)).toEqual([
        "models/marts/fct_orders.sql",
        "models/marts/finance/fct_revenue_daily.sql",
        "models/staging/stg_customers.sql",
        "models/staging/stg_orders.sql",
      ]);
      expect(diff.extra.slp.content["models/staging/stg_orders.sql"]).toMatch(/^[0-9a-f]{40}$/);
      // The record is the reference's diff with one more key in extra: the contract's other fields are as before.
      const schema = JSON.parse(readFileSync(join(ROOT, "schemas", "diff.schema.json"), "utf8"));
      expect(isValid(schema, diff)).toBe(true);
      const record = JSON.parse(readFileSync(join(ROOT, "schemas", "diff_provenance.schema.json"), "utf8"));
      expect(isValid(record, diff.extra.slp)).toBe(true);
      // Uncommitted changes to a measured file are recorded as such.
      appendFileSync(join(dir.path, "models", "staging", "stg_orders.sql"), "\n-- a comment\n");
      expect((await runMain(["diff", "fct_orders"], dir.path)).exitCode).toBe(0);
      expect(JSON.parse(readFileSync(join(dir.path, "diff", "fct_orders.json"), "utf8")).extra.slp.dirty).toBe(true);
    },
    SLOW,
  );

  test(
    "compare and review refuse a diff whose model changed since it was measured, naming the model, both commits and the fix",
    async () => {
      const { dir, commit } = await measuredCopy();
      using _ = dir;
      appendFileSync(join(dir.path, "models", "staging", "stg_orders.sql"), "\n-- changed after the diff\n");
      const later = commitAll(dir.path, "a change after the diff");
      for (const argv of [["compare", ...DIFFS], ["review"]]) {
        const result = await runMain(argv, dir.path);
        expect(result.exitCode).toBe(2);
        expect(result.stdout).toBe("");
        expect(result.stderr).toContain("fct_orders was measured at commit");
        expect(result.stderr).toContain(commit.slice(0, 12));
        expect(result.stderr).toContain(later.slice(0, 12));
        expect(result.stderr).toContain("models/staging/stg_orders.sql has changed since");
        expect(result.stderr).toContain("diff/fct_revenue_daily.json: fct_revenue_daily was measured at commit");
        expect(result.stderr).toContain("re-run slp diff fct_orders fct_revenue_daily");
      }
    },
    SLOW,
  );

  test(
    "silent: a diff whose files are unchanged is compared, and the review says it measures this code",
    async () => {
      const { dir, commit } = await measuredCopy();
      using _ = dir;
      // A later commit that touches no measured file leaves the diffs current.
      appendFileSync(join(dir.path, "README.md"), "notes\n");
      commitAll(dir.path, "notes only");
      const compared = await runMain(["compare", ...DIFFS], dir.path);
      expect(compared.stderr).toBe("");
      expect(compared.exitCode).toBe(0);
      expect(compared.stdout).toContain("slp compare: ");
      const review = await runMain(["review"], dir.path);
      expect(review.exitCode).toBe(0);
      expect(review.stdout).toContain(`✅ measured at commit ${commit.slice(0, 12)}; its 4 files are unchanged since`);
      expect(review.stdout).not.toContain("cannot tell whether it measures this code");
    },
    SLOW,
  );

  test(
    "a reference-style diff.json (no extra.slp) is accepted as before, and the review says it cannot tell whether it is current",
    async () => {
      // The quickstart's committed diffs were written without the record.
      const compared = await runMain(["compare", ...DIFFS], QUICKSTART);
      expect(compared.stderr).toBe("");
      const review = await runMain(["review", "--format", "json"], QUICKSTART);
      expect(review.exitCode).toBe(0);
      const data = JSON.parse(review.stdout).data;
      expect(data.models.map((model: { measured_on: unknown }) => model.measured_on)).toEqual([null, null]);
      const markdown = await runMain(["review"], QUICKSTART);
      expect(markdown.stdout).toContain(
        "⚠️ this diff records no commit and no content id (another tool wrote it, or an older slp): the review cannot tell whether it measures this code; re-run slp diff to know",
      );
    },
    SLOW,
  );

  test(
    "a record naming a file outside the project, or not the record slp writes, is exit 2 and never read",
    async () => {
      for (const [overlay, why] of [
        ["record-outside", '"../../../../etc/passwd" is not a path inside the project'],
        ["record-malformed", "extra.slp is not the record slp diff writes"],
      ] as const) {
        using dir = copyToTemp(QUICKSTART, "slp-review-data-");
        cpSync(join(FIXTURES, overlay), dir.path, { recursive: true });
        const result = await runMain(["compare", ...DIFFS], dir.path);
        expect(result.exitCode).toBe(2);
        expect(result.stderr).toContain("diff/fct_orders.json");
        expect(result.stderr).toContain(why);
      }
    },
    SLOW,
  );
});

describe("the review's numbers: production and the branch beside each delta", () => {
  test(
    "Markdown and HTML show rows and each metric before, after, delta and delta %, at most four decimals",
    async () => {
      const { dir } = await measuredCopy();
      using _ = dir;
      const review = await runMain(["review", "--format", "markdown", "--html", "review.html"], dir.path);
      expect(review.exitCode).toBe(0);
      const markdown = (await runMain(["review"], dir.path)).stdout;
      expect(markdown).toContain("|  | production | branch | delta | delta % |");
      expect(markdown).toContain("| rows | 5 | 7 | +2 | +40 % |");
      expect(markdown).toContain("| metric gross\\_revenue | 262.99 | 307.99 | +45 | +17.1109 % |");
      expect(markdown).toContain("| metric order\\_count | 5 | 7 | +2 | +40 % |");
      // The measured percentage in the bands' table, too: four decimals, not 17.1109167649.
      expect(markdown).toContain("| 17.1109 percent |");
      const html = readFileSync(join(dir.path, "review.html"), "utf8");
      expect(html).toContain(
        '<tr data-before-after="rows"><th scope="row">rows</th><td class="num">5</td><td class="num">7</td><td class="num">+2</td><td class="num">+40 %</td></tr>',
      );
      expect(html).toContain(
        '<tr data-before-after="gross_revenue"><th scope="row">metric gross_revenue</th><td class="num">262.99</td><td class="num">307.99</td><td class="num">+45</td><td class="num">+17.1109 %</td></tr>',
      );
    },
    SLOW,
  );

  test(
    "a diff as the reference writes it (no extra) shows its deltas alone, says so, and is accepted with a note",
    async () => {
      using dir = copyToTemp(QUICKSTART, "slp-review-data-");
      cpSync(join(FIXTURES, "reference-diff"), dir.path, { recursive: true });
      const compared = await runMain(["compare", ...DIFFS], dir.path);
      expect(compared.stderr).toBe("");
      const review = await runMain(["review", "--format", "markdown", "--html", "review.html"], dir.path);
      expect(review.exitCode).toBe(0);
      expect(review.stdout).toContain("| rows | – | – | +2 | – |");
      expect(review.stdout).toContain("| metric gross\\_revenue | – | 307.99 | – | +17.1109 % |");
      expect(review.stdout).toContain("_– : the diff does not record this value (slp diff records both sides; another tool may not)_");
      expect(review.stdout).toContain("the review cannot tell whether it measures this code");
      const html = readFileSync(join(dir.path, "review.html"), "utf8");
      expect(html).toContain('data-check="measured-on"');
      expect(html).toContain('<td class="num">–</td><td class="num">–</td><td class="num">+2</td>');
    },
    SLOW,
  );

  test("numbers print with at most four decimals, and small ones with four significant digits", () => {
    expect(decimal(17.110916764896004)).toBe("17.1109");
    expect(decimal(14203118.4)).toBe("14,203,118.4");
    expect(decimal(45.000000000000028)).toBe("45");
    expect(decimal(0.000012346)).toBe("0.00001235");
    expect(decimal(-2)).toBe("-2");
  });
});

describe("the anchor against the reconciliation's source of truth", () => {
  test(
    "fires: the spec's external_validation says 300.00 and the source of truth 307.99: review flags it (compare leaves the anchor to the reader, as the reference does)",
    async () => {
      const { dir } = await measuredCopy("anchor-disagrees");
      using _ = dir;
      const review = await runMain(["review"], dir.path);
      expect(review.exitCode).toBe(0);
      expect(review.stdout).toContain(
        "⛔ the anchor says 300 and the reconciliation's source of truth says 307.99: one of them is wrong, and a reconciliation against the wrong truth proves nothing",
      );
    },
    SLOW,
  );

  test(
    "silent: the anchor's 307.99 is the source of truth's",
    async () => {
      const { dir } = await measuredCopy();
      using _ = dir;
      const review = await runMain(["review"], dir.path);
      expect(review.stdout).toContain("✅ the anchor's 307.99 is the reconciliation's source of truth");
      expect(review.stdout).not.toContain("the anchor says");
    },
    SLOW,
  );

  test("the anchor's number: after the last =, or the only one; dates, words and several numbers without = are not numbers", () => {
    expect(anchorNumber("gross_revenue 2025-12 = R$ 14,203,118.40 in accounting closing")).toEqual({
      value: 14203118.4,
      text: "14,203,118.40",
      decimals: 2,
    });
    expect(anchorNumber("Q1 revenue in the ledger is 14,203,118.40")?.value).toBe(14203118.4);
    expect(anchorNumber("gross_revenue for 2025-12 = 307.99 in the monthly close")?.value).toBe(307.99);
    expect(anchorNumber("Q1 revenue in the ledger, 2 of its 3 accounts")).toBeNull();
    expect(anchorNumber("the finance ledger")).toBeNull();
    const anchor = anchorNumber("= 307.99") as NonNullable<ReturnType<typeof anchorNumber>>;
    expect(anchorAgrees(anchor, 307.99)).toBe(true);
    expect(anchorAgrees(anchor, 307.994)).toBe(true);
    expect(anchorAgrees(anchor, 308)).toBe(false);
  });
});
