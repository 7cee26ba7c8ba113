/**
 * The TCR loop against real temporary repositories, checked from outside
 * with the git CLI: green commits, red puts the tree back to HEAD (ignored
 * files untouched), five reds stop, --reset clears, unsafe states refuse.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const QUICKSTART = join(ROOT, "examples", "quickstart");
const FCT_ORDERS_YML = "models/marts/fct_orders.yml";

/** The quickstart as a repository: committed on main, then a branch `agent/work` checked out. */
function quickstartRepo(steps?: string[]): TempDir {
  const dir = tempDir("slp-tcr-");
  cpSync(QUICKSTART, dir.path, { recursive: true });
  writeFileSync(join(dir.path, ".gitignore"), "*.duckdb\ntarget/\n");
  if (steps) writeFileSync(join(dir.path, "slp.yml"), `tcr:\n  steps: [${steps.join(", ")}]\n`);
  initRepo(dir.path);
  commitAll(dir.path, "quickstart");
  git(dir.path, ["checkout", "-q", "-b", "agent/work"]);
  return dir;
}

function status(dir: string): string {
  return git(dir, ["status", "--porcelain", "--untracked-files=all"]);
}

function edit(dir: string, path: string, change: (text: string) => string): void {
  writeFileSync(join(dir, path), change(readFileSync(join(dir, path), "utf8")));
}

/** A change check blocks on: the standard mart loses its spec (S1). */
function breakSpec(dir: string): void {
  edit(dir, FCT_ORDERS_YML, (text) => text.replace("    meta:\n      spec:", "    meta:\n      not_a_spec:"));
}

function strikes(dir: string): string {
  return readFileSync(join(dir, ".git", "slp", "tcr-strikes"), "utf8").trim();
}

const STEPS = ["check"];

/** Both branches edit one line of data/README.md, then main is merged into the branch: a conflict. */
function startConflictingMerge(dir: string): void {
  edit(dir, "data/README.md", (text) => `${text}\nbranch\n`);
  commitAll(dir, "branch edit");
  git(dir, ["checkout", "-q", "main"]);
  edit(dir, "data/README.md", (text) => `${text}\nmain\n`);
  commitAll(dir, "main edit");
  git(dir, ["checkout", "-q", "agent/work"]);
  const identity = { GIT_AUTHOR_NAME: "A", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "A", GIT_COMMITTER_EMAIL: "a@example.com" };
  Bun.spawnSync(["git", "merge", "main"], { cwd: dir, env: { ...process.env, ...identity } });
}

describe("slp tcr: green", () => {
  test("stages new, modified and deleted files, commits with the message, prints the short sha", async () => {
    using repo = quickstartRepo(STEPS);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("one row per order.", "one row per order (revenue only)."));
    writeFileSync(join(repo.path, "models", "marts", "notes.md"), "why the change\n");
    rmSync(join(repo.path, "data", "README.md"));
    const result = await runMain(["tcr", "describe the revenue filter"], repo.path);
    expect(result.stderr).toBe("");
    const sha = git(repo.path, ["rev-parse", "--short=7", "HEAD"]);
    expect(result.stdout).toContain(`slp tcr: green, committed ${sha} (3 files)`);
    expect(result.exitCode).toBe(0);
    expect(git(repo.path, ["log", "-1", "--format=%s"])).toBe("describe the revenue filter");
    expect(git(repo.path, ["log", "-1", "--format=%an <%ae>"])).toBe("Agent Smith <agent@example.com>");
    expect(status(repo.path)).toBe("");
    expect(git(repo.path, ["show", "--name-status", "--format=", "HEAD"]).split("\n").sort()).toEqual(
      ["A\tmodels/marts/notes.md", "D\tdata/README.md", `M\t${FCT_ORDERS_YML}`].sort(),
    );
    expect(strikes(repo.path)).toBe("0");
  });

  test("a green step with nothing changed commits nothing and keeps the strike count", async () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    await runMain(["tcr", "red one"], repo.path);
    const head = git(repo.path, ["rev-parse", "HEAD"]);
    const result = await runMain(["tcr", "nothing"], repo.path);
    expect(result.stdout).toContain("nothing to commit (the strike count stays 1)");
    expect(result.exitCode).toBe(0);
    expect(git(repo.path, ["rev-parse", "HEAD"])).toBe(head);
    expect(strikes(repo.path)).toBe("1");
  });

  test("--author overrides git's identity", async () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = await runMain(["tcr", "note", "--author", "Bot <bot@example.com>"], repo.path);
    expect(result.exitCode).toBe(0);
    expect(git(repo.path, ["log", "-1", "--format=%an <%ae>"])).toBe("Bot <bot@example.com>");
  });
});

describe("slp tcr: red", () => {
  test("restores the tree to HEAD, removes new untracked files, keeps ignored ones, lists what it reverted", async () => {
    using repo = quickstartRepo(STEPS);
    const head = git(repo.path, ["rev-parse", "HEAD"]);
    breakSpec(repo.path);
    writeFileSync(join(repo.path, "models", "marts", "scratch.sql"), "select 1\n");
    writeFileSync(join(repo.path, "models", "marts", "new_dir_file.yml"), "version: 2\n");
    rmSync(join(repo.path, "models", "marts", "fct_orders.sql"));
    writeFileSync(join(repo.path, "quickstart.duckdb"), "ignored build output");
    edit(repo.path, "data/README.md", (text) => `${text}\nstaged edit\n`);
    git(repo.path, ["add", "data/README.md"]);

    const result = await runMain(["tcr", "drop the spec"], repo.path);
    expect(result.stdout).toContain("BLOCK\tmodels/marts/fct_orders.yml\tfct_orders\t");
    expect(result.stdout).toContain("[S1]");
    expect(result.stdout).toContain("reverted:\n");
    expect(result.stdout).toContain(`  modified ${FCT_ORDERS_YML}\n`);
    expect(result.stdout).toContain("  added    models/marts/scratch.sql\n");
    expect(result.stdout).toContain("  deleted  models/marts/fct_orders.sql\n");
    expect(result.stdout).toContain("  modified data/README.md\n");
    expect(result.stdout).toContain(`slp tcr: red at check, reverted 5 files to ${head.slice(0, 7)} (strike 1 of 5)`);
    expect(result.exitCode).toBe(1);

    expect(status(repo.path)).toBe("");
    expect(git(repo.path, ["diff", "HEAD", "--stat"])).toBe("");
    expect(existsSync(join(repo.path, "models", "marts", "scratch.sql"))).toBe(false);
    expect(existsSync(join(repo.path, "models", "marts", "fct_orders.sql"))).toBe(true);
    expect(readFileSync(join(repo.path, "quickstart.duckdb"), "utf8")).toBe("ignored build output");
    expect(git(repo.path, ["rev-parse", "HEAD"])).toBe(head);
    expect(strikes(repo.path)).toBe("1");
  });

  test("five reds in a row exit 3; the sixth call refuses without touching the tree; --reset clears", async () => {
    using repo = quickstartRepo(STEPS);
    const codes: number[] = [];
    for (let i = 1; i <= 5; i++) {
      breakSpec(repo.path);
      codes.push((await runMain(["tcr", `attempt ${i}`], repo.path)).exitCode);
    }
    expect(codes).toEqual([1, 1, 1, 1, 3]);
    expect(strikes(repo.path)).toBe("5");

    breakSpec(repo.path);
    const sixth = await runMain(["tcr", "attempt 6"], repo.path);
    expect(sixth.stdout).toContain("stop and ask a human");
    expect(sixth.exitCode).toBe(3);
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);

    const reset = await runMain(["tcr", "--reset"], repo.path);
    expect(reset.stdout).toContain("strike count reset to 0 (it was 5)");
    expect(reset.exitCode).toBe(0);
    const log = readFileSync(join(repo.path, ".git", "slp", "tcr-log.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(log.map((entry) => entry.result)).toEqual(["red", "red", "red", "red", "stopped", "stopped", "reset"]);
    expect(log[0].step).toBe("check");
    expect(log[0].files).toEqual([FCT_ORDERS_YML]);

    const afterReset = await runMain(["tcr", "attempt 7"], repo.path);
    expect(afterReset.exitCode).toBe(1);
    expect(strikes(repo.path)).toBe("1");
  });

  test("a green step resets the count", async () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    await runMain(["tcr", "red"], repo.path);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    expect((await runMain(["tcr", "green"], repo.path)).exitCode).toBe(0);
    expect(strikes(repo.path)).toBe("0");
  });
});

describe("slp tcr: refuses, changing nothing", () => {
  test("on the base branch", async () => {
    using repo = quickstartRepo(STEPS);
    git(repo.path, ["checkout", "-q", "main"]);
    breakSpec(repo.path);
    const result = await runMain(["tcr", "on main"], repo.path);
    expect(result.stderr).toContain("HEAD is main, the base branch");
    expect(result.exitCode).toBe(2);
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);
  });

  test("SLP_BASE names the base branch", async () => {
    using repo = quickstartRepo(STEPS);
    const result = await runMain(["tcr", "x"], repo.path, { SLP_BASE: "agent/work" });
    expect(result.stderr).toContain("HEAD is agent/work, the base branch");
    expect(result.exitCode).toBe(2);
  });

  test("with an empty message", async () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    const result = await runMain(["tcr", ""], repo.path);
    expect(result.stderr).toContain("the commit message is empty");
    expect(result.exitCode).toBe(2);
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);
  });

  test("during a merge with conflicts", async () => {
    using repo = quickstartRepo(STEPS);
    startConflictingMerge(repo.path);
    const before = status(repo.path);
    const result = await runMain(["tcr", "mid-merge"], repo.path);
    expect(result.stderr).toContain("a merge is in progress");
    expect(result.exitCode).toBe(2);
    expect(status(repo.path)).toBe(before);
  });

  test("with conflicts left in the index", async () => {
    using repo = quickstartRepo(STEPS);
    startConflictingMerge(repo.path);
    rmSync(join(repo.path, ".git", "MERGE_HEAD"));
    const result = await runMain(["tcr", "conflicted"], repo.path);
    expect(result.stderr).toContain("unresolved conflicts in data/README.md");
    expect(result.exitCode).toBe(2);
  });

  test("in a repository with no commit", async () => {
    using dir = tempDir("slp-tcr-empty-");
    cpSync(QUICKSTART, dir.path, { recursive: true });
    writeFileSync(join(dir.path, "slp.yml"), "tcr:\n  steps: [check]\n");
    initRepo(dir.path);
    const result = await runMain(["tcr", "first"], dir.path);
    expect(result.stderr).toContain("no commit yet");
    expect(result.exitCode).toBe(2);
    expect(status(dir.path)).not.toBe("");
  });
});

describe("slp tcr: --dry-run and --format json", () => {
  test("--dry-run says what it would revert and changes nothing", async () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    const result = await runMain(["tcr", "try", "--dry-run"], repo.path);
    expect(result.stdout).toContain(`would revert:\n  modified ${FCT_ORDERS_YML}\n`);
    expect(result.stdout).toContain("(dry run, nothing changed)");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);
    expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);
  });

  test("--dry-run says what it would commit", async () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = await runMain(["tcr", "try", "--dry-run"], repo.path);
    expect(result.stdout).toContain("would commit:\n  added    NOTES.md\n");
    expect(result.exitCode).toBe(0);
    expect(status(repo.path)).toBe("?? NOTES.md");
  });

  test("--format json returns one envelope with each step's verdict, the files and the strike count", async () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    const result = await runMain(["tcr", "json", "--format", "json"], repo.path);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.command).toBe("tcr");
    expect(envelope.exit_code).toBe(1);
    expect(envelope.data.outcome).toBe("reverted");
    expect(envelope.data.steps).toEqual([
      { name: "check", verdict: "red", exit_code: 1, summary: "slp check: 2 blocks, 2 infos - BLOCKED" },
    ]);
    expect(envelope.data.files).toEqual([{ path: FCT_ORDERS_YML, kind: "modified" }]);
    expect(envelope.data.strikes).toBe(1);
    expect(envelope.findings.map((finding: { rule: string }) => finding.rule)).toContain("S1");
  });
});

describe("tcr.sh", () => {
  test("finds slp and runs one step of the loop", () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = Bun.spawnSync([join(ROOT, "tcr.sh"), "add notes"], { cwd: repo.path, stdout: "pipe", stderr: "pipe" });
    expect(result.stdout.toString()).toContain("slp tcr: green, committed");
    expect(result.exitCode).toBe(0);
    expect(git(repo.path, ["log", "-1", "--format=%s"])).toBe("add notes");
  });

  test("refuses an empty message before running anything", () => {
    const result = Bun.spawnSync([join(ROOT, "tcr.sh")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(result.stderr.toString()).toContain("usage: tcr.sh");
    expect(result.exitCode).toBe(2);
  });

  test("the real CLI runs tcr as a subprocess", () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    const result = runCli(["tcr", "via subprocess"], repo.path);
    expect(result.stdout).toContain("slp tcr: red at check");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe("");
  });
});

describe("slp tcr: the default steps (check, gate, unit)", () => {
  test("green on the quickstart: every step runs, the change is committed", async () => {
    using repo = quickstartRepo();
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = await runMain(["tcr", "notes"], repo.path);
    expect(result.stdout).toMatch(/^check: slp check: .* - OK/m);
    expect(result.stdout).toMatch(/^gate: slp gate: OK/m);
    expect(result.stdout).toMatch(/^unit: slp unit: 5 passed - OK/m);
    expect(result.exitCode).toBe(0);
    expect(status(repo.path)).toBe("");
  });

  test("gate judges the change being committed, not only what is already committed", async () => {
    using repo = quickstartRepo();
    // check still passes (the key keeps its unique test); removing a test is gate's G1.
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("      - name: order_total\n        data_type: double\n        data_tests: [not_null]\n", "      - name: order_total\n        data_type: double\n"));
    const result = await runMain(["tcr", "drop a test"], repo.path);
    expect(result.stdout).toContain("[G1]");
    expect(result.stdout).toContain("slp tcr: red at gate");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe("");
    expect(git(repo.path, ["rev-list", "--count", "HEAD"])).toBe("1");
  });

  test("a unit test the change breaks is red at unit, with the failure shown", async () => {
    using repo = quickstartRepo();
    edit(repo.path, "models/marts/fct_orders.sql", (text) => text.replace("/ 100.0", "/ 10.0"));
    // The branch's own pre-registration, so gate's G8 lets the sql change through.
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("about one order in five", "about one order in five; amounts now in tenths"));
    const result = await runMain(["tcr", "break the cents edge"], repo.path);
    expect(result.stdout).toMatch(/^gate: slp gate: OK/m);
    expect(result.stdout).toContain("FAIL\tfct_orders::cents_become_currency_units");
    expect(result.stdout).toContain("slp tcr: red at unit");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe("");
  });
});
