/**
 * The loop's mechanics, through the real CLI in temporary repositories: every
 * step of an attempt runs (cheapest first) and one red attempt is one strike
 * with all its findings; a red attempt's saved message says red; --status and
 * --restore; a change the index's stat cache must not hide; and a merge of
 * the base branch is a normal step.
 */
import { describe, expect, test } from "bun:test";
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./support/cli.ts";
import { git } from "./support/git-repo.ts";
import { breakSpec, quickstartRepo } from "./support/tcr.ts";

function trailer(dir: string, key: string, commit = "HEAD"): string {
  return git(dir, ["log", "-1", `--format=%(trailers:key=${key},valueonly)`, commit]).trim();
}

describe("slp tcr: the index's stat cache never hides a step's change", () => {
  /**
   * git trusts an index entry whose stat matches the file unless the entry is
   * "racily clean" (not older than the index file). A file rewritten at the
   * same size in the second the index was written is caught by that check;
   * tcr's private copy of the index once took a fresh timestamp, so git
   * stopped checking it: the next step said "nothing to commit" and the last
   * commit (with a strike reset's trailer) stayed HEAD. Reproduced here
   * without any race: the clock is set by hand (and ctime, which only the
   * system sets, is not trusted, as core.trustctime=false says).
   */
  test("a same-size rewrite in the second the index was written is committed", async () => {
    using repo = quickstartRepo(["check"]);
    git(repo.path, ["config", "core.trustctime", "false"]);
    const notes = join(repo.path, "NOTES.md");
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    writeFileSync(notes, "x\n");
    utimesSync(notes, second, second);
    expect((await runMain(["tcr", "x"], repo.path)).exitCode).toBe(0);
    // The index written in that same second, and the file rewritten in it at the same size.
    utimesSync(join(repo.path, ".git", "index"), second, second);
    writeFileSync(notes, "y\n");
    utimesSync(notes, second, second);
    expect(statSync(notes).size).toBe(2);
    const result = await runMain(["tcr", "y"], repo.path);
    expect(result.stdout).toContain("slp tcr: green, committed");
    expect(git(repo.path, ["log", "-1", "--format=%s"])).toBe("y");
    expect(git(repo.path, ["show", "HEAD:NOTES.md"])).toBe("y");
  });

  test("a strike reset rides on the next commit only, when the commit after it rewrites a file at the same size", async () => {
    using repo = quickstartRepo(["check"]);
    git(repo.path, ["config", "core.trustctime", "false"]);
    const notes = join(repo.path, "NOTES.md");
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    breakSpec(repo.path);
    await runMain(["tcr", "red"], repo.path);
    expect((await runMain(["tcr", "--reset", "looked"], repo.path)).exitCode).toBe(0);
    writeFileSync(notes, "x\n");
    utimesSync(notes, second, second);
    expect((await runMain(["tcr", "green after the reset"], repo.path)).exitCode).toBe(0);
    expect(trailer(repo.path, "Slp-Tcr-Reset")).toStartWith("1 strikes cleared by");
    utimesSync(join(repo.path, ".git", "index"), second, second);
    writeFileSync(notes, "y\n");
    utimesSync(notes, second, second);
    expect((await runMain(["tcr", "and another"], repo.path)).exitCode).toBe(0);
    expect(git(repo.path, ["log", "-1", "--format=%s"])).toBe("and another");
    expect(trailer(repo.path, "Slp-Tcr-Reset")).toBe("");
  });
});
