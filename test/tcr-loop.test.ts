/**
 * The loop's mechanics, through the real CLI in temporary repositories: every
 * step of an attempt runs (cheapest first) and one red attempt is one strike
 * with all its findings; a red attempt's saved message says red; --status and
 * --restore; a change the index's stat cache must not hide; and a merge of
 * the base branch is a normal step.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";
import {
  breakCentsEdge,
  breakSpec,
  edit,
  FCT_ORDERS_YML,
  quickstartRepo,
  status,
  strikes,
  tcrEnvelope,
  workTreeAsStaged,
} from "./support/tcr.ts";

function trailer(dir: string, key: string, commit = "HEAD"): string {
  return git(dir, ["log", "-1", `--format=%(trailers:key=${key},valueonly)`, commit]).trim();
}

describe("slp tcr: one attempt, one strike", () => {
  test("two faults (a spec check blocks on, a unit test the SQL breaks): every step runs, both reported, one strike", () => {
    using repo = quickstartRepo();
    breakCentsEdge(repo.path);
    breakSpec(repo.path);
    const result = runCli(["tcr", "two faults", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(1);
    expect(envelope.data.outcome).toBe("reverted");
    expect(envelope.data.steps.map((step: { name: string; verdict: string }) => step.verdict)).not.toContain("skipped");
    expect(envelope.data.red_steps).toContain("check");
    expect(envelope.data.red_steps).toContain("unit");
    expect(envelope.data.red_step).toBe("check");
    const rules = envelope.findings.map((finding: { rule: string }) => finding.rule);
    expect(rules).toContain("S1");
    expect(rules).toContain("UNIT");
    expect(envelope.data.strikes).toBe(1);
    expect(strikes(repo.path)).toBe("1");
    expect(status(repo.path)).toBe("");
  });

  test("as text: both steps' findings and the failing test, then the summary names every red step", () => {
    using repo = quickstartRepo(["unit", "check"]);
    breakCentsEdge(repo.path);
    breakSpec(repo.path);
    const result = runCli(["tcr", "two faults"], repo.path);
    expect(result.stdout).toContain("[S1]\n");
    expect(result.stdout).toContain("[UNIT]\n");
    expect(result.stdout).toContain("FAIL\tfct_orders::cents_become_currency_units\n");
    expect(result.stdout).toMatch(/^slp tcr: red at check and unit, reverted 3 files to [0-9a-f]{7} \(strike 1 of 5\)$/m);
    expect(result.exitCode).toBe(1);
  });

  test("steps run cheapest first, whatever order slp.yml lists them in; one fault is one red step", () => {
    using repo = quickstartRepo(["unit", "gate", "check"]);
    breakSpec(repo.path);
    const red = tcrEnvelope(runCli(["tcr", "one fault", "--format", "json"], repo.path).stdout);
    expect(red.data.steps.map((step: { name: string }) => step.name)).toEqual(["check", "gate", "unit"]);
    expect(red.data.red_steps).toEqual(["check"]);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    expect(runCli(["tcr", "notes"], repo.path).exitCode).toBe(0);
    expect(trailer(repo.path, "Slp-Tcr-Steps")).toBe("check gate unit");
  });
});

describe("slp tcr: a red attempt's saved message", () => {
  test("carries Slp-Tcr: red and the red steps, never Slp-Tcr: green", () => {
    using repo = quickstartRepo(["check", "unit"]);
    breakCentsEdge(repo.path);
    breakSpec(repo.path);
    const envelope = tcrEnvelope(runCli(["tcr", "two faults", "--format", "json"], repo.path).stdout);
    const message = readFileSync(join(repo.path, envelope.data.saved.dir, "message.txt"), "utf8");
    expect(message).toStartWith("two faults\n\nSlp-Tcr: red\nSlp-Tcr-Red: check, unit\nSlp-Tcr-Steps: check unit\n");
    expect(message).not.toContain("green");
  });
});

describe("slp tcr --status and --restore", () => {
  /** Two reds (each saved), then a green commit of another file. */
  async function withHistory() {
    const repo = quickstartRepo(["check"]);
    breakSpec(repo.path);
    expect((await runMain(["tcr", "first red"], repo.path)).exitCode).toBe(1);
    breakSpec(repo.path);
    writeFileSync(join(repo.path, "models", "marts", "scratch.sql"), "select 1\n");
    expect((await runMain(["tcr", "second red"], repo.path)).exitCode).toBe(1);
    return repo;
  }

  test("--status: the strikes, the last attempts and the saved ones with their numbers; changes nothing", async () => {
    using repo = await withHistory();
    const text = runCli(["tcr", "--status"], repo.path);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain("strikes: 2 of 5\n");
    expect(text.stdout).toContain("  red               first red (red at check, saved as 1); strikes 1\n");
    expect(text.stdout).toContain("  red               second red (red at check, saved as 2); strikes 2\n");
    expect(text.stdout).toMatch(/^ {2}2\t\.git\/slp\/reverted\/0002-[0-9a-f]{7}\/change\.patch\ton [0-9a-f]{7}: second red$/m);
    expect(text.stdout).toContain("slp tcr: 2 strikes of 5, 2 saved reverted attempts\n");
    const envelope = tcrEnvelope(runCli(["tcr", "--status", "--format", "json"], repo.path).stdout);
    expect(envelope.data.outcome).toBe("status");
    expect(envelope.data.strikes).toBe(2);
    expect(envelope.data.history.attempts.map((a: { subject: string; saved: number }) => [a.subject, a.saved])).toEqual([
      ["first red", 1],
      ["second red", 2],
    ]);
    expect(envelope.data.history.saved.map((s: { number: number }) => s.number)).toEqual([1, 2]);
    expect(status(repo.path)).toBe("");
    expect(strikes(repo.path)).toBe("2");
  });

  test("--status before any attempt: none, and no saved ones", () => {
    using repo = quickstartRepo(["check"]);
    const result = runCli(["tcr", "--status"], repo.path);
    expect(result.stdout).toContain("no attempt yet\n");
    expect(result.stdout).toContain("slp tcr: 0 strikes of 5, 0 saved reverted attempts\n");
    expect(result.exitCode).toBe(0);
  });

  test("--restore N puts the saved change back in the work tree (not the index), the strikes unchanged", async () => {
    using repo = await withHistory();
    breakSpec(repo.path);
    writeFileSync(join(repo.path, "models", "marts", "scratch.sql"), "select 1\n");
    const reverted = workTreeAsStaged(repo.path);
    git(repo.path, ["checkout", "-q", "--", "."]);
    git(repo.path, ["clean", "-qfd"]);
    const result = runCli(["tcr", "--restore", "2", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(0);
    expect(envelope.data.outcome).toBe("restored");
    expect(envelope.data.restored).toEqual({ number: 2, files: [FCT_ORDERS_YML, "models/marts/scratch.sql"] });
    expect(workTreeAsStaged(repo.path)).toBe(reverted);
    expect(git(repo.path, ["diff", "--cached", "--name-only"])).toBe("");
    expect(strikes(repo.path)).toBe("2");
  });

  test("--restore refuses with exit 2, naming the files, when it would overwrite uncommitted work; the work stays", async () => {
    using repo = await withHistory();
    edit(repo.path, FCT_ORDERS_YML, (text) => `${text}# my own edit\n`);
    writeFileSync(join(repo.path, "models", "marts", "scratch.sql"), "select 2\n");
    const before = workTreeAsStaged(repo.path);
    const text = runCli(["tcr", "--restore", "2"], repo.path);
    expect(text.exitCode).toBe(2);
    expect(text.stderr).toContain(
      `saved attempt 2 writes ${FCT_ORDERS_YML}, models/marts/scratch.sql, which have uncommitted changes in the work tree; restoring would overwrite them`,
    );
    const json = runCli(["tcr", "--restore", "2", "--format", "json"], repo.path);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout).errors[0]).toMatchObject({ code: "E_INPUT", file: FCT_ORDERS_YML });
    expect(workTreeAsStaged(repo.path)).toBe(before);
    expect(readFileSync(join(repo.path, "models", "marts", "scratch.sql"), "utf8")).toBe("select 2\n");
  });

  test("--restore alongside work on other files applies; an unknown number, or a number that is not one, is exit 2", async () => {
    using repo = await withHistory();
    writeFileSync(join(repo.path, "NOTES.md"), "mine\n");
    expect(runCli(["tcr", "--restore", "1"], repo.path).exitCode).toBe(0);
    expect(readFileSync(join(repo.path, "NOTES.md"), "utf8")).toBe("mine\n");
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}\n?? NOTES.md`);
    const missing = runCli(["tcr", "--restore", "9"], repo.path);
    expect(missing.stderr).toContain("there is no saved reverted attempt 9");
    expect(missing.exitCode).toBe(2);
    expect(runCli(["tcr", "--restore", "two"], repo.path).exitCode).toBe(2);
    expect(runCli(["tcr", "--status", "--restore", "1"], repo.path).exitCode).toBe(2);
  });
});

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

describe("slp tcr: taking the human's change by merging the base branch", () => {
  /** A human's commit on main that drops a test gate would block were the branch to drop it (G1). */
  function humanDropsATest(dir: string): void {
    edit(dir, FCT_ORDERS_YML, (text) =>
      text.replace("        data_type: double\n        data_tests: [not_null]\n", "        data_type: double\n"),
    );
    commitAll(dir, "human: order_total may be null now");
  }

  test("git merge main: the next step is green with no block and no strike, its change committed", async () => {
    using repo = quickstartRepo();
    writeFileSync(join(repo.path, "NOTES.md"), "one\n");
    expect((await runMain(["tcr", "first step"], repo.path)).exitCode).toBe(0);
    git(repo.path, ["checkout", "-q", "main"]);
    humanDropsATest(repo.path);
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--no-edit", "main"]);
    writeFileSync(join(repo.path, "NOTES.md"), "two, after the merge\n");
    const envelope = tcrEnvelope(runCli(["tcr", "after the merge", "--format", "json"], repo.path).stdout);
    expect(envelope.data.outcome).toBe("committed");
    expect(envelope.data.steps.flatMap((step: { already_at_head: unknown[] }) => step.already_at_head)).toEqual([]);
    expect(envelope.findings.filter((finding: { severity: string }) => finding.severity === "BLOCK")).toEqual([]);
    expect(strikes(repo.path)).toBe("0");
  });

  test("git fetch && git merge origin/main in a clone whose main is stale: judged against origin/main, no block, no strike", async () => {
    using origin = quickstartRepo();
    git(origin.path, ["checkout", "-q", "main"]);
    using clone = tempDir("slp-tcr-clone-");
    git(clone.path, ["clone", "-q", origin.path, "."]);
    git(clone.path, ["checkout", "-q", "-b", "agent/work"]);
    writeFileSync(join(clone.path, "NOTES.md"), "one\n");
    expect((await runMain(["tcr", "first step"], clone.path)).exitCode).toBe(0);
    humanDropsATest(origin.path);
    git(clone.path, ["fetch", "-q", "origin"]);
    git(clone.path, ["merge", "-q", "--no-edit", "origin/main"]);
    writeFileSync(join(clone.path, "NOTES.md"), "two, after the merge\n");
    const result = runCli(["tcr", "after the merge", "--format", "json"], clone.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(0);
    expect(envelope.data.outcome).toBe("committed");
    expect(envelope.data.base.ref).toBe("origin/main");
    expect(envelope.data.steps.flatMap((step: { already_at_head: { rule: string }[] }) => step.already_at_head.map((f) => f.rule))).toEqual(
      [],
    );
    expect(envelope.notes).toContain(
      "main is behind origin/main, which this branch has merged; the base is origin/main (git fetch does not move a local main)",
    );
    expect(strikes(clone.path)).toBe("0");
  });

  test("a branch that has not merged origin/main keeps its local base (silent)", async () => {
    using origin = quickstartRepo();
    git(origin.path, ["checkout", "-q", "main"]);
    using clone = tempDir("slp-tcr-clone-");
    git(clone.path, ["clone", "-q", origin.path, "."]);
    git(clone.path, ["checkout", "-q", "-b", "agent/work"]);
    humanDropsATest(origin.path);
    git(clone.path, ["fetch", "-q", "origin"]);
    writeFileSync(join(clone.path, "NOTES.md"), "one\n");
    const envelope = tcrEnvelope(runCli(["tcr", "notes", "--format", "json"], clone.path).stdout);
    expect(envelope.data.base.ref).toBe("main");
    expect(envelope.notes.some((note: string) => note.includes("behind origin/main"))).toBe(false);
  });
});

describe("slp tcr: numbers with at most four significant decimals", () => {
  test("a unit test's diff and finding show 666.3333, not binary-float noise; the envelope keeps every digit", () => {
    using repo = quickstartRepo(["unit"]);
    edit(repo.path, "models/marts/fct_orders.sql", (text) => text.replace("/ 100.0", "/ 3.0"));
    const text = runCli(["tcr", "thirds", "--dry-run"], repo.path);
    expect(text.stdout).toContain("| 19.99→666.3333\n");
    expect(text.stdout).toContain("only in actual (order_id=3, customer_email=bruno@example.com, order_total=666.3333)");
    expect(text.stdout).not.toContain("666.33333");
    const envelope = tcrEnvelope(runCli(["tcr", "thirds", "--dry-run", "--format", "json"], repo.path).stdout);
    const failed = envelope.data.steps[0].data.tests.find((test: { status: string }) => test.status === "fail");
    expect(failed.diff.rows[1].values[2]).toBe("666.3333333333334");
  });

  test("an expectation that differs only past the fourth decimal is shown in full", () => {
    using repo = quickstartRepo(["unit"]);
    edit(repo.path, "models/marts/fct_orders.sql", (text) => text.replace("/ 100.0", "/ 3.0"));
    edit(repo.path, FCT_ORDERS_YML, (text) =>
      text.replace("customer_email: bruno@example.com, order_total: 19.99}", "customer_email: bruno@example.com, order_total: 666.33333}"),
    );
    const text = runCli(["tcr", "thirds", "--dry-run"], repo.path);
    expect(text.stdout).toContain("| 666.33333→666.3333333333334\n");
  });
});
