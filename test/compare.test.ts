/**
 * compare and diff-from-row end to end: the real CLI as a subprocess, the
 * git failures that only a built repository shows (shallow clone, no
 * repository), and a row converted by diff-from-row passing compare.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { buildHistory, git } from "./support/git-repo.ts";
import { copyToTemp, tempDir, writeTree } from "./support/temp.ts";

const PASSING = join(FIXTURES, "C0", "silent", "no_window");
const REPOSITORY = join(import.meta.dir, "..");
const QUICKSTART = join(REPOSITORY, "examples", "quickstart");
const INHERITED = join(FIXTURES, "C7", "silent", "inherited_pre_registration_with_base");

describe("slp compare as a subprocess", () => {
  test("passes a diff inside its intervals: exit 0, the read-out, the file count", () => {
    const result = runCli(["compare", "diff/fct_orders.json"], PASSING);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toEndWith("slp compare: 6 infos - OK (1 file)\n");
    expect(result.stdout).toContain("\tfct_orders\trow_delta 8,400, declared 0..12,000 (a band 12,000 wide)\t[I2]\n");
  });

  test("blocks a diff edited out of range: exit 1 and the C1 line", () => {
    using dir = copyToTemp(PASSING);
    const file = join(dir.path, "diff", "fct_orders.json");
    writeTree(dir.path, { "diff/fct_orders.json": readFileSync(file, "utf8").replace('"row_delta": 8400', '"row_delta": 15000') });
    const result = runCli(["compare", "diff/fct_orders.json"], dir.path);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      "BLOCK\tdiff/fct_orders.json:3\tfct_orders\trow_delta is 15,000, pre-registration allows 0..12,000 (fix: sql)\t[C1]\n",
    );
    expect(result.stdout).toEndWith("slp compare: 1 block, 6 infos - BLOCKED\n");
  });

  test("expands a quoted glob itself", () => {
    const result = runCli(["compare", "diff/*.json"], PASSING);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("diff/fct_orders.json:1\tfct_orders\t");
  });
});

describe("the quickstart's diffs (the README's walkthrough)", () => {
  test("pass: one diff per pre-registered model, read through a quoted glob", () => {
    const result = runCli(["compare", "--project-dir", "examples/quickstart", "examples/quickstart/diff/*.json"], REPOSITORY);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toEndWith("slp compare: 14 infos - OK (2 files)\n");
  });

  test("block once a diff is edited out of its interval", () => {
    using dir = copyToTemp(QUICKSTART);
    const file = join(dir.path, "diff", "fct_orders.json");
    writeTree(dir.path, { "diff/fct_orders.json": readFileSync(file, "utf8").replace('"row_delta": 2', '"row_delta": 9') });
    const result = runCli(["compare", "diff/fct_orders.json", "diff/fct_revenue_daily.json"], dir.path);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      "BLOCK\tdiff/fct_orders.json:30\tfct_orders\trow_delta is 9, pre-registration allows 0..5 (fix: sql)\t[C1]\n",
    );
    expect(result.stdout).toEndWith("slp compare: 1 block, 14 infos - BLOCKED\n");
  });
});

describe("slp compare --base, where git cannot answer", () => {
  test("a shallow clone is exit 2 telling the user to fetch the full history, never a pass", async () => {
    using origin = tempDir("slp-origin-");
    using clone = tempDir("slp-shallow-");
    buildHistory(origin.path, INHERITED);
    git(clone.path, ["clone", "-q", "--depth", "1", "--no-single-branch", "--branch", "pr", `file://${origin.path}`, "."]);
    const result = await runMain(["compare", "--base", "origin/main", "diff/fct_orders.json"], clone.path);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("ERROR this clone is shallow");
    expect(result.stderr).toContain("fetch-depth: 0");
  });

  test("a project outside any git repository is exit 2", async () => {
    using dir = copyToTemp(join(INHERITED, "after"));
    const result = await runMain(["compare", "--base", "main", "diff/fct_orders.json"], dir.path);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("is not inside a git repository");
  });

  test("the same history passes with --base and blocks without it (C7 asks for the inherited model's diff)", async () => {
    using repo = tempDir("slp-base-");
    buildHistory(repo.path, INHERITED);
    const withBase = await runMain(["compare", "--base", "main", "diff/fct_orders.json", "--format", "json"], repo.path);
    expect(withBase.exitCode).toBe(0);
    const envelope = JSON.parse(withBase.stdout) as { data: { base: { ref: string; merge_base: string; inherited: string[] } } };
    expect(envelope.data.base.ref).toBe("main");
    expect(envelope.data.base.merge_base).toBe(git(repo.path, ["rev-parse", "main"]));
    expect(envelope.data.base.inherited).toEqual(["fct_returns"]);
    const withoutBase = await runMain(["compare", "diff/fct_orders.json"], repo.path);
    expect(withoutBase.exitCode).toBe(1);
    expect(withoutBase.stdout).toContain("\tfct_returns\tthis model has a pre-registration and no diff.json among the 1 file read;");
  });
});

describe("slp diff-from-row as a subprocess", () => {
  const ROW =
    "row_delta,removed_pks,gross_revenue_delta_pct,gross_revenue_changed,window_column,window_start,window_end\n8400,0,0.5,310,order_date,2025-01-01,2025-06-30\n";

  test("reads the row from standard input and prints the diff.json", () => {
    using dir = tempDir();
    const result = runCli(["diff-from-row", "--model", "fct_orders"], dir.path, {}, ROW);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      altered_columns: ["gross_revenue"],
      metrics: { gross_revenue: { delta_pct: 0.5 } },
      model: "fct_orders",
      removed_pks: 0,
      row_delta: 8400,
      window: { column: "order_date", end: "2025-06-30", start: "2025-01-01" },
    });
  });

  test("fails closed on a bad row: exit 2, the reason on stderr, nothing on stdout", () => {
    using dir = tempDir();
    const result = runCli(["diff-from-row", "--model", "fct_orders", "-"], dir.path, {}, "row_delta,removed_pks\n1,-4\n");
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      'ERROR (standard input):2: removed_pks is "-4"; keys that disappeared cannot be fewer than 0; correct the diff query\'s output\n',
    );
  });

  test("--out writes the file (folders included), and compare passes on it", async () => {
    using dir = copyToTemp(PASSING);
    writeTree(dir.path, { "result.csv": ROW });
    const converted = await runMain(
      ["diff-from-row", "--model", "fct_orders", "result.csv", "--out", "built/diff/fct_orders.json"],
      dir.path,
    );
    expect(converted).toEqual({ exitCode: 0, stdout: "wrote built/diff/fct_orders.json\n", stderr: "" });
    const written = readFileSync(join(dir.path, "built", "diff", "fct_orders.json"), "utf8");
    expect(written.endsWith("}\n")).toBe(true);
    expect(JSON.parse(written).row_delta).toBe(8400);
    const compared = await runMain(["compare", "built/diff/fct_orders.json"], dir.path);
    expect(compared.exitCode).toBe(0);
    expect(compared.stdout).toEndWith("slp compare: 6 infos - OK (1 file)\n");
  });

  test("with no FILE and nothing piped in, says what to give", async () => {
    using dir = tempDir();
    const result = await runMain(["diff-from-row", "--model", "fct_orders"], dir.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toStartWith("ERROR no row to read: give a FILE, or pipe the query's result into standard input");
  });
});

describe("a row of 20,000 columns (found by fuzzing: 100,000 took 13.6 s in a pairwise duplicate scan)", () => {
  const width = 10_000;
  const changed = Array.from({ length: width }, (_, i) => `c${i}_changed`);
  const moved = Array.from({ length: width }, (_, i) => `m${i}_delta_pct`);
  const header = ["row_delta", "removed_pks", ...changed, ...moved];
  const row = ["8400", "0", ...changed.map(() => "1"), ...moved.map(() => "0.5")];

  test("diff-from-row converts it, and compare blocks each column and metric no one pre-registered, on its line", async () => {
    using dir = copyToTemp(PASSING);
    writeTree(dir.path, { "wide.csv": `${header.join(",")}\n${row.join(",")}\n` });
    const converted = await runMain(["diff-from-row", "--model", "fct_orders", "wide.csv", "--out", "diff/fct_orders.json"], dir.path);
    expect(converted).toEqual({ exitCode: 0, stdout: "wrote diff/fct_orders.json\n", stderr: "" });
    const text = readFileSync(join(dir.path, "diff", "fct_orders.json"), "utf8");
    const diff = JSON.parse(text);
    expect(diff.altered_columns).toHaveLength(width);
    expect(diff.altered_columns[0]).toBe("c0");
    expect(Object.keys(diff.metrics)).toHaveLength(width);
    const compared = await runMain(["compare", "diff/fct_orders.json", "--format", "json"], dir.path);
    expect(compared.exitCode).toBe(1);
    const findings = JSON.parse(compared.stdout).findings as { rule: string; message: string; line: number }[];
    expect(
      findings.filter((finding) => finding.rule === "C3" && finding.message.endsWith("is not in pre_registration.altered_columns")),
    ).toHaveLength(width);
    const c4 = findings.filter((finding) => finding.rule === "C4" && finding.message.endsWith("was not pre-registered"));
    expect(c4).toHaveLength(width);
    const lines = text.split("\n");
    for (const name of ["m0", "m5000", "m9999"]) {
      const finding = c4.find((candidate) => candidate.message.startsWith(`metric ${name} moved`));
      expect(lines[(finding?.line ?? 0) - 1]).toStartWith(`    "${name}": {`);
    }
  });

  test("a column named twice among them is refused by name", async () => {
    using dir = tempDir();
    writeTree(dir.path, { "wide.csv": `${[...header, "m7777_delta_pct"].join(",")}\n${[...row, "0.5"].join(",")}\n` });
    const refused = await runMain(["diff-from-row", "--model", "fct_orders", "wide.csv"], dir.path);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toStartWith("ERROR wide.csv: the column m7777_delta_pct appears twice in the header");
  });
});

test("a glob character in a real file name is taken literally", async () => {
  using dir = copyToTemp(PASSING);
  cpSync(join(dir.path, "diff", "fct_orders.json"), join(dir.path, "diff", "fct_orders[1].json"));
  const result = await runMain(["compare", "diff/fct_orders[1].json"], dir.path);
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toContain("diff/fct_orders[1].json:1\tfct_orders\t");
});
