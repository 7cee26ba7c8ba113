/**
 * Gate through merges, on real repositories git builds: every commit a pull
 * request brings is judged, those of a side branch merged in too; what a
 * merge of the base brings is the base's; a merge that is git's own merge of
 * its parents wrote nothing, one edited by hand is named with its edits.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_FILE_EDITS, mergeEdits, mergeLines } from "../src/git/merge.ts";
import { Repository } from "../src/git/repository.ts";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir, writeTree } from "./support/temp.ts";
import { breakSpec, edit, FCT_ORDERS_YML, quickstartRepo } from "./support/tcr.ts";

/** A repository with `files` on main, then branch `pr`. */
function repoWith(files: Record<string, string>) {
  const repo = tempDir("slp-merge-");
  initRepo(repo.path);
  writeTree(repo.path, files);
  commitAll(repo.path, "main");
  git(repo.path, ["checkout", "-q", "-b", "pr"]);
  return repo;
}

function commit(dir: string, files: Record<string, string | null>, message = "step"): string {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) git(dir, ["rm", "-q", path]);
    else writeTree(dir, { [path]: text });
  }
  return commitAll(dir, message);
}

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("");

describe("a merge's hand edits, against git's own merge", () => {
  test("merges git makes by itself have none: both sides editing one file apart, adds, deletes, modes, folders", async () => {
    using repo = repoWith({ "a.txt": TEN, "b.txt": "b\n", "c.txt": "c\n", "run.sh": "echo\n", "d/x.txt": "x\n", "gone.txt": "g\n" });
    commit(repo.path, {
      "a.txt": TEN.replace("line 2\n", "line two\n"),
      "b.txt": "b, by pr\n",
      "new/pr.txt": "pr\n",
      "same.txt": "both\n",
      "d/y.txt": "y\n",
      "gone.txt": null,
    });
    git(repo.path, ["checkout", "-q", "main"]);
    commit(repo.path, {
      "a.txt": TEN.replace("line 9\n", "line nine\n"),
      "c.txt": "c, by main\n",
      "same.txt": "both\n",
      "d/z.txt": "z\n",
      "main-only/m.txt": "m\n",
    });
    chmodSync(join(repo.path, "run.sh"), 0o755);
    commitAll(repo.path, "main: executable");
    git(repo.path, ["checkout", "-q", "pr"]);
    git(repo.path, ["merge", "-q", "--no-edit", "main"]);
    const merged = Repository.open(repo.path);
    expect(await mergeEdits(merged, git(repo.path, ["rev-parse", "HEAD"]))).toEqual({ paths: [], unreproducible: null });
    // A commit that is no merge has none either.
    expect(await mergeEdits(merged, git(repo.path, ["rev-parse", "HEAD^1"]))).toEqual({ paths: [], unreproducible: null });
  });

  test("a file one side moved takes the other side's edit at its new path, as git's rename detection does", async () => {
    using repo = repoWith({ "models/a.sql": TEN, "other.txt": "o\n" });
    commit(repo.path, { "models/a.sql": TEN.replace("line 3\n", "line three\n") });
    git(repo.path, ["checkout", "-q", "main"]);
    git(repo.path, ["mv", "models/a.sql", "models/renamed.sql"]);
    commitAll(repo.path, "main: a move");
    git(repo.path, ["checkout", "-q", "pr"]);
    git(repo.path, ["merge", "-q", "--no-edit", "main"]);
    expect(git(repo.path, ["show", "HEAD:models/renamed.sql"])).toContain("line three");
    const repository = Repository.open(repo.path);
    expect(await mergeEdits(repository, git(repo.path, ["rev-parse", "HEAD"]))).toEqual({ paths: [], unreproducible: null });
    // The same merge with the old path put back by hand is named.
    git(repo.path, ["checkout", "-q", "-b", "again", "HEAD^1"]);
    git(repo.path, ["merge", "-q", "--no-commit", "main"]);
    writeTree(repo.path, { "models/a.sql": "back\n" });
    commitAll(repo.path, "merge main, and a file put back");
    expect(await mergeEdits(repository, git(repo.path, ["rev-parse", "HEAD"]))).toEqual({ paths: ["models/a.sql"], unreproducible: null });
  });

  test("a conflict resolved by hand and an edit slipped into a clean merge are named, path by path", async () => {
    using repo = repoWith({ "a.txt": TEN, "b.txt": "b\n", "keep.txt": "k\n" });
    commit(repo.path, { "a.txt": TEN.replace("line 5\n", "line five (pr)\n") });
    git(repo.path, ["checkout", "-q", "main"]);
    commit(repo.path, { "a.txt": TEN.replace("line 5\n", "line five (main)\n"), "b.txt": "b, main\n" });
    git(repo.path, ["checkout", "-q", "pr"]);
    expect(() => git(repo.path, ["merge", "-q", "--no-edit", "main"])).toThrow();
    writeTree(repo.path, { "a.txt": TEN.replace("line 5\n", "line five\n"), "keep.txt": "k, by hand\n", "extra/new.txt": "new\n" });
    commitAll(repo.path, "merge main");
    const edits = await mergeEdits(Repository.open(repo.path), git(repo.path, ["rev-parse", "HEAD"]));
    expect(edits).toEqual({ paths: ["a.txt", "extra/new.txt", "keep.txt"], unreproducible: null });
  });

  test("a merge gate cannot redo is refused by name, never passed: three parents at once", async () => {
    using repo = repoWith({ "a.txt": "a\n" });
    git(repo.path, ["checkout", "-q", "-b", "one", "main"]);
    commit(repo.path, { "one.txt": "1\n" });
    git(repo.path, ["checkout", "-q", "-b", "two", "main"]);
    commit(repo.path, { "two.txt": "2\n" });
    git(repo.path, ["checkout", "-q", "pr"]);
    commit(repo.path, { "pr.txt": "pr\n" });
    git(repo.path, ["merge", "-q", "--no-edit", "one", "two"]);
    expect(await mergeEdits(Repository.open(repo.path), git(repo.path, ["rev-parse", "HEAD"]))).toEqual({
      paths: [],
      unreproducible: "it merges 3 parents at once, which gate does not redo",
    });
  });

  test("the line merge: apart is clean, touching or overlapping conflicts unless both sides wrote the same", () => {
    const base = ["a\n", "b\n", "c\n", "d\n", "e\n"];
    expect(mergeLines(base, ["A\n", "b\n", "c\n", "d\n", "e\n"], ["a\n", "b\n", "c\n", "d\n", "E\n"])?.join("")).toBe("A\nb\nc\nd\nE\n");
    // Adjacent lines changed by each side touch: git stops there.
    expect(mergeLines(base, ["a\n", "B\n", "c\n", "d\n", "e\n"], ["a\n", "b\n", "C\n", "d\n", "e\n"])).toBeNull();
    expect(mergeLines(base, ["a\n", "X\n", "c\n", "d\n", "e\n"], ["a\n", "Y\n", "c\n", "d\n", "e\n"])).toBeNull();
    expect(mergeLines(base, ["a\n", "X\n", "c\n", "d\n", "e\n"], ["a\n", "X\n", "c\n", "d\n", "e\n"])?.join("")).toBe("a\nX\nc\nd\ne\n");
  });

  test("the line merge is bounded in edits, not time: a long file edited at both ends merges, a rewrite past the bound is named", () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`);
    const ours = ["first\n", ...long.slice(1)];
    const theirs = [...long.slice(0, -1), "last\n"];
    expect(mergeLines(long, ours, theirs)).toEqual(["first\n", ...long.slice(1, -1), "last\n"]);
    // Reversed: no line is new, so only the alignment finds how far apart the two are, and it stops at the bound.
    const reversed = long.slice(0, MAX_FILE_EDITS * 2).reverse();
    expect(mergeLines(long.slice(0, MAX_FILE_EDITS * 2), reversed, ["x\n", ...long.slice(1, MAX_FILE_EDITS * 2)])).toBeNull();
  });
});

describe("gate judges every commit the branch brings", () => {
  test("a spec the schema rejects, committed on a side branch merged with --no-ff, is named (I6)", async () => {
    const spec = (tier: string) =>
      `version: 2\nmodels:\n  - name: fct_orders\n    meta:\n      spec:\n        grain: one row per order\n        primary_key: [order_id]\n        tier: ${tier}\n        metrics: {}\n        known_edges: []\n        sensitive_columns: []\n`;
    using repo = repoWith({
      "dbt_project.yml": "name: shop\n",
      "models/marts/fct_orders.yml": spec("standard"),
      "models/marts/fct_orders.sql": "select 1 as order_id\n",
    });
    commit(repo.path, { "models/marts/fct_orders.sql": "select 2 as order_id\n" });
    git(repo.path, ["checkout", "-q", "-b", "side"]);
    const red = commit(repo.path, { "models/marts/fct_orders.yml": spec("platinum") }, "red on the side");
    commit(repo.path, { "models/marts/fct_orders.yml": spec("standard") }, "green again");
    git(repo.path, ["checkout", "-q", "pr"]);
    git(repo.path, ["merge", "-q", "--no-ff", "--no-edit", "side"]);
    const result = await runMain(["gate", "--base", "main"], repo.path);
    expect(result.stdout).toContain(`commit ${red.slice(0, 7)} by Agent Smith carries a meta.spec the schema rejects`);
    expect(result.stdout).toContain("[I6]");
  });

  test("a linear history reads the same commits, in the same order, as the first-parent walk", async () => {
    using repo = repoWith({ "a.txt": "a\n" });
    commit(repo.path, { "a.txt": "b\n" });
    commit(repo.path, { "b.txt": "b\n" });
    const repository = Repository.open(repo.path);
    const head = git(repo.path, ["rev-parse", "HEAD"]);
    const base = git(repo.path, ["rev-parse", "main"]);
    const walk = await repository.firstParentRange(base, head);
    expect(walk).toEqual(git(repo.path, ["rev-list", "--reverse", "main..HEAD"]).split("\n"));
    expect(await repository.branchRange(base, head, walk)).toEqual(walk);
  });

  test("with merges, the range is git's rev-list HEAD ^main: side branches in, the base's commits out", async () => {
    using repo = repoWith({ "a.txt": "a\n" });
    commit(repo.path, { "p1.txt": "1\n" });
    git(repo.path, ["checkout", "-q", "-b", "side"]);
    commit(repo.path, { "s1.txt": "1\n" });
    commit(repo.path, { "s2.txt": "2\n" });
    git(repo.path, ["checkout", "-q", "main"]);
    commit(repo.path, { "m1.txt": "1\n" });
    git(repo.path, ["checkout", "-q", "pr"]);
    git(repo.path, ["merge", "-q", "--no-ff", "--no-edit", "side"]);
    git(repo.path, ["merge", "-q", "--no-edit", "main"]);
    commit(repo.path, { "p2.txt": "2\n" });
    const repository = Repository.open(repo.path);
    const head = git(repo.path, ["rev-parse", "HEAD"]);
    const base = git(repo.path, ["rev-parse", "main"]);
    const range = await repository.branchRange(base, head, await repository.firstParentRange(base, head));
    expect([...range].sort()).toEqual(git(repo.path, ["rev-list", "HEAD", "^main"]).split("\n").sort());
    // Parents before children, head last.
    for (const [i, oid] of range.entries()) {
      for (const parent of (await repository.readCommit(oid)).parents) {
        const at = range.indexOf(parent);
        if (at !== -1) expect(at).toBeLessThan(i);
      }
    }
    expect(range.at(-1)).toBe(head);
  });
});

describe("gate under tcr: required, through merges (the real CLI)", () => {
  /** The quickstart with tcr: required on main, and one green tcr step on agent/work. */
  async function requiredRepo() {
    const repo = quickstartRepo(["check"]);
    git(repo.path, ["checkout", "-q", "main"]);
    writeFileSync(join(repo.path, "slp.yml"), "tcr:\n  steps: [check]\n  required: true\n");
    commitAll(repo.path, "slp.yml");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--ff-only", "main"]);
    writeFileSync(join(repo.path, "NOTES.md"), "one\n");
    expect((await runMain(["tcr", "first step"], repo.path)).exitCode).toBe(0);
    return repo;
  }

  test("red commits made by hand on a side branch and merged --no-ff block (G11, G12); the clean merge itself does not", async () => {
    using repo = await requiredRepo();
    git(repo.path, ["checkout", "-q", "-b", "side"]);
    breakSpec(repo.path);
    commitAll(repo.path, "forged\n\nSlp-Tcr: green\nSlp-Tcr-Steps: check\nSlp-Tcr-Strikes: 0\nSlp-Version: 0.1.0\n");
    writeFileSync(join(repo.path, "NOTES.md"), "two\n");
    commitAll(repo.path, "by hand");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--no-ff", "--no-edit", "side"]);
    const label = (rev: string) => `${git(repo.path, ["rev-parse", "--short=7", rev])} by Agent Smith`;
    const result = runCli(["gate", "--base", "main"], repo.path);
    expect(result.stdout).toContain(
      `BLOCK\tmodels/marts/fct_orders.yml:4\tfct_orders\tcommit ${label("side~1")} claims a green tcr step, but check blocks there`,
    );
    expect(result.stdout).toContain(
      `BLOCK\t\t\tcommit ${label("side")} was not made by slp tcr; on an agent branch every commit is a green tcr step (Rule 5) (fix: human)\t[G12]`,
    );
    expect(result.stdout).not.toContain(label("HEAD"));
    expect(result.exitCode).toBe(1);
  }, 60_000);

  test("merging the base in, which git merges cleanly, is silent; the base's own commits are not judged", async () => {
    using repo = await requiredRepo();
    edit(repo.path, "data/README.md", (text) => `${text}\nfrom the agent\n`);
    expect((await runMain(["tcr", "a note at the end"], repo.path)).exitCode).toBe(0);
    git(repo.path, ["checkout", "-q", "main"]);
    edit(repo.path, "data/README.md", (text) => `A human's line first.\n\n${text}`);
    commitAll(repo.path, "a human's change, by hand");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--no-edit", "main"]);
    const result = runCli(["gate", "--base", "main"], repo.path);
    expect(result.stdout).not.toContain("[G12]");
    expect(result.stdout).not.toContain("[G11]");
    expect(result.exitCode).toBe(0);
  }, 60_000);

  test("a merge resolved by hand is named with its edits, and those edits are judged (G9)", async () => {
    using repo = await requiredRepo();
    git(repo.path, ["checkout", "-q", "main"]);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("one row per order.", "one row per order (main)."));
    commitAll(repo.path, "main moves on");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--no-commit", "main"]);
    writeFileSync(join(repo.path, "CODEOWNERS"), "* @agent\n");
    git(repo.path, ["add", "-A"]);
    git(repo.path, ["commit", "-q", "--no-edit"]);
    const label = `${git(repo.path, ["rev-parse", "--short=7", "HEAD"])} by Agent Smith`;
    const result = runCli(["gate", "--base", "main"], repo.path);
    expect(result.stdout).toContain(
      `BLOCK\t\t\tcommit ${label} is a merge whose tree is not git's own merge of its parents: CODEOWNERS written by hand (a conflict resolved, or an edit), and slp tcr did not make it (fix: human)\t[G12]`,
    );
    expect(result.stdout).toMatch(/BLOCK\tCODEOWNERS:1\t\tCODEOWNERS changed on this branch.*\[G9\]/);
    expect(result.exitCode).toBe(1);
  }, 60_000);
});
