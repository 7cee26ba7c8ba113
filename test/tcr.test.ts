/**
 * The TCR loop against real temporary repositories, checked from outside
 * with the git CLI: green commits (with tcr's trailers), red saves the change
 * as a patch and puts the tree back to HEAD (ignored files untouched), five
 * reds stop, --reset clears with a reason, a red step's findings are there in
 * full, blocks already at HEAD do not make a step red, a step that cannot
 * judge changes nothing, and unsafe states refuse.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";
import {
  breakCentsEdge,
  breakSpec,
  edit,
  FCT_ORDERS_YML,
  QUICKSTART,
  preRegisterDownstream,
  quickstartRepo,
  ROOT,
  FCT_ORDERS_SQL,
  status,
  strikes,
  tcrEnvelope,
  workTreeAsStaged,
} from "./support/tcr.ts";

const STEPS = ["check"];

/** Both branches edit one line of data/README.md, then main is merged into the branch: a conflict. */
function startConflictingMerge(dir: string): void {
  edit(dir, "data/README.md", (text) => `${text}\nbranch\n`);
  commitAll(dir, "branch edit");
  git(dir, ["checkout", "-q", "main"]);
  edit(dir, "data/README.md", (text) => `${text}\nmain\n`);
  commitAll(dir, "main edit");
  git(dir, ["checkout", "-q", "agent/work"]);
  const identity = {
    GIT_AUTHOR_NAME: "A",
    GIT_AUTHOR_EMAIL: "a@example.com",
    GIT_COMMITTER_NAME: "A",
    GIT_COMMITTER_EMAIL: "a@example.com",
  };
  Bun.spawnSync(["git", "merge", "main"], { cwd: dir, env: { ...process.env, ...identity } });
}

function trailer(dir: string, key: string, commit = "HEAD"): string {
  return git(dir, ["log", "-1", `--format=%(trailers:key=${key},valueonly)`, commit]).trim();
}

describe("slp tcr: green", () => {
  test("stages new, modified and deleted files, commits with the message and tcr's trailers, prints the short sha", () => {
    using repo = quickstartRepo(STEPS);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("one row per order.", "one row per order (revenue only)."));
    writeFileSync(join(repo.path, "models", "marts", "notes.md"), "why the change\n");
    rmSync(join(repo.path, "data", "README.md"));
    const result = runCli(["tcr", "describe the revenue filter"], repo.path);
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
    // git itself reads the trailers: tcr made it green, with these steps, after these strikes, by this version.
    expect(trailer(repo.path, "Slp-Tcr")).toBe("green");
    expect(trailer(repo.path, "Slp-Tcr-Steps")).toBe("check");
    expect(trailer(repo.path, "Slp-Tcr-Strikes")).toBe("0");
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    expect(trailer(repo.path, "Slp-Version")).toBe(version);
    // The branch moved with a reflog entry, as git commit leaves one.
    expect(git(repo.path, ["reflog", "-1", "--format=%gs", "agent/work"])).toBe("commit (slp tcr): describe the revenue filter");
  });

  test("the strikes before a commit are in its trailers; a message's own trailers are kept in one block", async () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    await runMain(["tcr", "red one"], repo.path);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = await runMain(["tcr", "notes\n\nCo-authored-by: Ann <ann@example.com>"], repo.path);
    expect(result.exitCode).toBe(0);
    expect(trailer(repo.path, "Slp-Tcr-Strikes")).toBe("1");
    expect(trailer(repo.path, "Co-authored-by")).toBe("Ann <ann@example.com>");
    expect(git(repo.path, ["log", "-1", "--format=%B"])).toMatch(/^notes\n\nCo-authored-by: Ann <ann@example.com>\nSlp-Tcr: green\n/);
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
  test("restores the tree to HEAD, removes new untracked files, keeps ignored ones, lists what it reverted, saves the change", () => {
    using repo = quickstartRepo(STEPS);
    const head = git(repo.path, ["rev-parse", "HEAD"]);
    const before = workTreeAsStaged(repo.path);
    breakSpec(repo.path);
    writeFileSync(join(repo.path, "models", "marts", "scratch.sql"), "select 1\n");
    writeFileSync(join(repo.path, "models", "marts", "new_dir_file.yml"), "version: 2\n");
    rmSync(join(repo.path, "models", "marts", "fct_orders.sql"));
    writeFileSync(join(repo.path, "quickstart.duckdb"), "ignored build output");
    edit(repo.path, "data/README.md", (text) => `${text}\nstaged edit\n`);
    git(repo.path, ["add", "data/README.md"]);

    const result = runCli(["tcr", "drop the spec"], repo.path);
    expect(result.stdout).toContain("BLOCK\tmodels/marts/fct_orders.yml:4\tfct_orders\t");
    expect(result.stdout).toContain("[S1]");
    expect(result.stdout).toContain("reverted:\n");
    expect(result.stdout).toContain(`  modified ${FCT_ORDERS_YML}\n`);
    expect(result.stdout).toContain("  added    models/marts/scratch.sql\n");
    expect(result.stdout).toContain("  deleted  models/marts/fct_orders.sql\n");
    expect(result.stdout).toContain("  modified data/README.md\n");
    expect(result.stdout).toContain("saved: .git/slp/reverted/0001-");
    expect(result.stdout).toContain(`slp tcr: red at check, reverted 5 files to ${head.slice(0, 7)} (strike 1 of 5)`);
    expect(result.exitCode).toBe(1);

    expect(status(repo.path)).toBe("");
    expect(workTreeAsStaged(repo.path)).toBe(before);
    expect(existsSync(join(repo.path, "models", "marts", "scratch.sql"))).toBe(false);
    expect(readFileSync(join(repo.path, "quickstart.duckdb"), "utf8")).toBe("ignored build output");
    expect(git(repo.path, ["rev-parse", "HEAD"])).toBe(head);
    expect(strikes(repo.path)).toBe("1");
  });

  test("the saved patch brings the reverted change back with git apply, new and deleted files included", () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    writeFileSync(join(repo.path, "models", "marts", "scratch.sql"), "select 1\n");
    writeFileSync(join(repo.path, "logo.bin"), new Uint8Array([0, 1, 2, 255, 254, 0, 10]));
    rmSync(join(repo.path, "data", "README.md"));
    const changed = workTreeAsStaged(repo.path);

    const result = runCli(["tcr", "try something", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(envelope.data.outcome).toBe("reverted");
    const saved = envelope.data.saved;
    expect(saved.patch).toMatch(/^\.git\/slp\/reverted\/0001-[0-9a-f]{7}\/change\.patch$/);
    expect(saved.files.sort()).toEqual([`${saved.dir}/files/logo.bin`, `${saved.dir}/files/models/marts/scratch.sql`]);
    expect(readFileSync(join(repo.path, saved.dir, "files", "models", "marts", "scratch.sql"), "utf8")).toBe("select 1\n");
    // A red attempt's message says it was red, and where; never the green claim a commit would have carried.
    expect(readFileSync(join(repo.path, saved.dir, "message.txt"), "utf8")).toStartWith(
      "try something\n\nSlp-Tcr: red\nSlp-Tcr-Red: check\nSlp-Tcr-Steps: check\nSlp-Tcr-Strikes: 0\n",
    );
    expect(status(repo.path)).toBe("");

    git(repo.path, ["apply", saved.patch]);
    expect(workTreeAsStaged(repo.path)).toBe(changed);
    expect([...readFileSync(join(repo.path, "logo.bin"))]).toEqual([0, 1, 2, 255, 254, 0, 10]);
  });

  test("five reds in a row exit 3; the sixth call refuses without touching the tree; --reset needs a reason, clears and is recorded", async () => {
    using repo = quickstartRepo(STEPS);
    const codes: number[] = [];
    for (let i = 1; i <= 5; i++) {
      breakSpec(repo.path);
      codes.push((await runMain(["tcr", `attempt ${i}`], repo.path)).exitCode);
    }
    expect(codes).toEqual([1, 1, 1, 1, 3]);
    expect(strikes(repo.path)).toBe("5");

    breakSpec(repo.path);
    const sixth = await runMain(["tcr", "attempt 6", "--format", "json"], repo.path);
    const stopped = tcrEnvelope(sixth.stdout);
    expect(stopped.summary).toContain("stop and ask a human");
    expect(stopped.data.outcome).toBe("stopped");
    expect(sixth.exitCode).toBe(3);
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);

    const bare = runCli(["tcr", "--reset"], repo.path);
    expect(bare.stderr).toContain("argument --reset: expected one argument");
    expect(bare.exitCode).toBe(2);
    const blank = await runMain(["tcr", "--reset", " "], repo.path);
    expect(blank.stderr).toContain("a reset needs a reason");
    expect(blank.exitCode).toBe(2);
    expect(strikes(repo.path)).toBe("5");

    const reset = runCli(["tcr", "--reset", "the spec was misread; a human fixed it", "--format", "json"], repo.path);
    const resetEnvelope = tcrEnvelope(reset.stdout);
    expect(resetEnvelope.summary).toContain("strike count reset to 0 (it was 5)");
    expect(resetEnvelope.data.reset).toEqual({
      was: 5,
      by: "Agent Smith <agent@example.com>",
      reason: "the spec was misread; a human fixed it",
    });
    expect(reset.exitCode).toBe(0);
    const log = readFileSync(join(repo.path, ".git", "slp", "tcr-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(log.map((entry) => entry.result)).toEqual(["red", "red", "red", "red", "stopped", "stopped", "reset"]);
    expect(log[0].step).toBe("check");
    expect(log[0].files).toEqual([FCT_ORDERS_YML]);
    expect(log[6].reason).toBe("the spec was misread; a human fixed it");

    const afterReset = await runMain(["tcr", "attempt 7"], repo.path);
    expect(afterReset.exitCode).toBe(1);
    expect(strikes(repo.path)).toBe("1");
    // The next commit records the reset; the one after it does not again.
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    expect((await runMain(["tcr", "green after the reset"], repo.path)).exitCode).toBe(0);
    expect(trailer(repo.path, "Slp-Tcr-Reset")).toBe(
      "5 strikes cleared by Agent Smith <agent@example.com>: the spec was misread; a human fixed it",
    );
    expect(trailer(repo.path, "Slp-Tcr-Strikes")).toBe("1");
    writeFileSync(join(repo.path, "NOTES.md"), "y\n");
    expect((await runMain(["tcr", "and another"], repo.path)).exitCode).toBe(0);
    expect(trailer(repo.path, "Slp-Tcr-Reset")).toBe("");
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

describe("slp tcr: a red step's findings in full", () => {
  test("unit: each failing test is a finding with model, file and line, and the rows only in expected and only in actual", () => {
    using repo = quickstartRepo();
    breakCentsEdge(repo.path);
    const result = runCli(["tcr", "break the cents edge", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(envelope.exit_code).toBe(1);
    expect(envelope.data.red_step).toBe("unit");
    // The default steps mutate the changed mart too; its survivors against a model already wrong wait for its tests.
    expect(envelope.data.red_steps).toEqual(["unit"]);
    expect(envelope.notes).toContain(
      "mutate: the mutants of fct_orders wait until its unit tests pass (a survivor of a model already wrong says nothing)",
    );
    expect(envelope.findings).toEqual([
      {
        severity: "BLOCK",
        rule: "UNIT",
        name: "unit-test-failed",
        file: FCT_ORDERS_YML,
        model: "fct_orders",
        line: 79,
        message:
          "unit test cents_become_currency_units (edge: amount_cents=1999 → order_total=19.99) fails: 1 row only in expected, 1 only in actual: only in expected (order_id=3, customer_email=bruno@example.com, order_total=19.99); only in actual (order_id=3, customer_email=bruno@example.com, order_total=199.9)",
        // The test is the base's, so the SQL is what to fix.
        fix: "sql",
      },
    ]);
    const unit = envelope.data.steps.find((step: { name: string }) => step.name === "unit");
    expect(unit.verdict).toBe("red");
    const failed = unit.data.tests.find((test: { status: string }) => test.status === "fail");
    expect(failed.diff.rows).toEqual([
      { side: "expected", values: ["3", "bruno@example.com", "19.99"] },
      { side: "actual", values: ["3", "bruno@example.com", "199.9"] },
    ]);
    expect(status(repo.path)).toBe("");
  });

  test("unit, as text: the finding, then the failing test with its diff, then each step's line", () => {
    using repo = quickstartRepo();
    breakCentsEdge(repo.path);
    const result = runCli(["tcr", "break the cents edge"], repo.path);
    expect(result.stdout).toContain(
      "BLOCK\tmodels/marts/fct_orders.yml:79\tfct_orders\tunit test cents_become_currency_units (edge: amount_cents=1999 → order_total=19.99) fails: ",
    );
    expect(result.stdout).toContain(
      "FAIL\tfct_orders::cents_become_currency_units\n\t@@ | order_id | customer_email    | order_total\n\t→  | 3        | bruno@example.com | 19.99→199.9\n",
    );
    expect(result.stdout).toMatch(/^gate: slp gate: OK/m);
    expect(result.stdout).toContain("slp tcr: red at unit");
    expect(result.exitCode).toBe(1);
  });

  test("check: each finding with its place, in the envelope's findings and the step's", () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    const envelope = tcrEnvelope(runCli(["tcr", "json", "--format", "json"], repo.path).stdout);
    expect(envelope.command).toBe("tcr");
    expect(envelope.exit_code).toBe(1);
    expect(envelope.data.outcome).toBe("reverted");
    const [step] = envelope.data.steps;
    expect({ name: step.name, verdict: step.verdict, exit_code: step.exit_code, summary: step.summary }).toEqual({
      name: "check",
      verdict: "red",
      exit_code: 1,
      summary: "slp check: 2 blocks, 2 infos - BLOCKED",
    });
    expect(envelope.data.files).toEqual([{ path: FCT_ORDERS_YML, kind: "modified", before_mode: "100644", after_mode: "100644" }]);
    expect(envelope.data.strikes).toBe(1);
    const s1 = envelope.findings.find((finding: { rule: string }) => finding.rule === "S1");
    expect(s1).toMatchObject({ severity: "BLOCK", file: FCT_ORDERS_YML, model: "fct_orders" });
    expect(Object.keys(s1).sort()).toEqual(["file", "fix", "line", "message", "model", "name", "rule", "severity"]);
    expect(s1.fix).toBe("human");
    expect(step.findings).toEqual(envelope.findings);
    // S1 is the human's, and the change only took the spec away: the advice says stop and ask, not fix the SQL.
    expect(envelope.data.next).toStartWith("stop and ask a human: P2 inconsistent-pre-registration at models/marts/fct_orders.yml:18");
    expect(envelope.data.next).toContain("S1 missing-spec at models/marts/fct_orders.yml:4");
  });
});

describe("slp tcr: blocks already at HEAD", () => {
  /** A human's spec commit on main adds an edge no unit test names yet: check blocks on HEAD (T2) before the agent starts. */
  function repoWithNewEdge() {
    const repo = tempDir("slp-tcr-edge-");
    cpSync(QUICKSTART, repo.path, { recursive: true });
    writeFileSync(join(repo.path, ".gitignore"), "*.duckdb\ntarget/\n");
    initRepo(repo.path);
    commitAll(repo.path, "quickstart");
    edit(repo.path, FCT_ORDERS_YML, (text) =>
      text.replace(
        '          - "amount_cents=1999 → order_total=19.99"\n',
        '          - "amount_cents=1999 → order_total=19.99"\n          - "a refunded order → row excluded"\n',
      ),
    );
    commitAll(repo.path, "spec: the refunded-order edge");
    git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
    return repo;
  }

  test("the agent commits its pre-registration alone; the edge's T2 is reported as already at HEAD", () => {
    using repo = repoWithNewEdge();
    expect(runCli(["check"], repo.path).exitCode).toBe(1);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("about one order in five", "about one order in five; refunds excluded next"));
    const result = runCli(["tcr", "pre-register the refunds change", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(envelope.data.outcome).toBe("committed");
    expect(envelope.exit_code).toBe(0);
    const check = envelope.data.steps[0];
    expect(check.verdict).toBe("green");
    expect(check.exit_code).toBe(1);
    expect(check.already_at_head.map((finding: { rule: string }) => finding.rule)).toEqual(["T2"]);
    expect(check.findings.filter((finding: { severity: string }) => finding.severity === "BLOCK")).toEqual([]);
    expect(git(repo.path, ["log", "-1", "--format=%s"])).toBe("pre-register the refunds change");
  });

  test("as text: the block at HEAD is listed apart; a new block still makes the step red", () => {
    using repo = repoWithNewEdge();
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("about one order in five", "about one order in five; refunds next"));
    const green = runCli(["tcr", "pre-register"], repo.path);
    expect(green.stdout).toContain(
      "already at HEAD (1 finding, not this step's doing; they do not make it red):\n  check: BLOCK\tmodels/marts/fct_orders.yml:17\tfct_orders\tno unit test names the edge 'a refunded order → row excluded'",
    );
    expect(green.stdout).toMatch(/^check: slp check: 1 block, 5 infos - BLOCKED \(green for tcr: every block is already at HEAD\)$/m);
    expect(green.exitCode).toBe(0);

    edit(repo.path, "models/marts/finance/fct_revenue_daily.yml", (text) => text.replace("      spec:", "      not_a_spec:"));
    const red = runCli(["tcr", "lose a spec", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(red.stdout);
    expect(envelope.data.outcome).toBe("reverted");
    expect(
      envelope.findings.some((finding: { rule: string; model: string }) => finding.rule === "S1" && finding.model === "fct_revenue_daily"),
    ).toBe(true);
    expect(envelope.findings.some((finding: { rule: string }) => finding.rule === "T2")).toBe(false);
  });
});

describe("slp tcr: --dry-run judges what the real run judges", () => {
  test("a spec edit check accepts: red at gate in a dry run and for real, and the dry run changes nothing", () => {
    using repo = quickstartRepo();
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("that counts as revenue", "that counts as net revenue"));
    const before = status(repo.path);
    const dry = runCli(["tcr", "reword the grain", "--dry-run", "--format", "json"], repo.path);
    const dryEnvelope = tcrEnvelope(dry.stdout);
    expect(dryEnvelope.data.outcome).toBe("would-revert");
    expect(dryEnvelope.data.red_step).toBe("gate");
    expect(dryEnvelope.data.candidate).toMatch(/^[0-9a-f]{40}$/);
    expect(status(repo.path)).toBe(before);
    expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);

    const real = tcrEnvelope(runCli(["tcr", "reword the grain", "--format", "json"], repo.path).stdout);
    expect(real.data.outcome).toBe("reverted");
    expect(real.data.red_step).toBe("gate");
    expect(real.findings.map((finding: { rule: string }) => finding.rule)).toEqual(
      dryEnvelope.findings.map((finding: { rule: string }) => finding.rule),
    );
    // The candidate is the same commit: same tree, same parent, same message.
    expect(git(repo.path, ["rev-parse", `${real.data.candidate}^{tree}`])).toBe(
      git(repo.path, ["rev-parse", `${dryEnvelope.data.candidate}^{tree}`]),
    );
  });

  test("says what it would commit, and the index is untouched", () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = runCli(["tcr", "try", "--dry-run"], repo.path);
    expect(result.stdout).toContain("would commit:\n  added    NOTES.md\n");
    expect(result.exitCode).toBe(0);
    expect(status(repo.path)).toBe("?? NOTES.md");
  });

  test("says what it would revert and changes nothing", () => {
    using repo = quickstartRepo(STEPS);
    breakSpec(repo.path);
    const result = runCli(["tcr", "try", "--dry-run"], repo.path);
    expect(result.stdout).toContain(`would revert:\n  modified ${FCT_ORDERS_YML}\n`);
    expect(result.stdout).toContain("(dry run, nothing changed)");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);
    expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);
  });
});

describe("slp tcr: a step that cannot judge HEAD either (the environment) reverts nothing and counts no strike", () => {
  test("an unknown base: exit 2, the change stays, the envelope says what to fix", () => {
    using repo = quickstartRepo();
    breakSpec(repo.path);
    const result = runCli(["tcr", "x", "--format", "json"], repo.path, { SLP_BASE: "trunk" });
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(2);
    expect(envelope.status).toBe("error");
    expect(envelope.data.outcome).toBe("cannot-judge");
    expect(envelope.errors[0].message).toContain(
      "the base branch trunk does not exist here, neither as a local branch nor as origin/trunk",
    );
    expect(envelope.errors[0].fix).toContain("git fetch origin trunk");
    expect(envelope.data.next).toContain("git fetch origin trunk");
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);
    expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);
  });

  test("a clone with main only as origin/main: the base is origin/main, and tcr says so", () => {
    using origin = quickstartRepo();
    git(origin.path, ["checkout", "-q", "main"]);
    using clone = tempDir("slp-tcr-clone-");
    git(clone.path, ["clone", "-q", origin.path, "repo"]);
    const repo = join(clone.path, "repo");
    git(repo, ["config", "user.name", "Agent Smith"]);
    git(repo, ["config", "user.email", "agent@example.com"]);
    git(repo, ["checkout", "-q", "-b", "agent/work"]);
    git(repo, ["branch", "-q", "-D", "main"]);
    writeFileSync(join(repo, "NOTES.md"), "x\n");
    const result = runCli(["tcr", "notes"], repo);
    expect(result.stderr).toContain("WARNING main is not a branch in this clone; the base is origin/main");
    expect(result.stdout).toMatch(/^gate: slp gate: OK/m);
    expect(result.exitCode).toBe(0);
    const envelope = tcrEnvelope(runCli(["tcr", "nothing", "--format", "json"], repo).stdout);
    expect(envelope.data.base).toMatchObject({ name: "main", ref: "origin/main" });
  });

  test("HEAD cannot be judged either (a broken yml committed by hand): nothing reverted, no strike, the envelope says HEAD has it too", () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "models", "marts", "broken.yml"), "version: 2\nmodels:\n  - name: x\n   bad: indent\n");
    commitAll(repo.path, "a broken yml, by hand");
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = runCli(["tcr", "notes", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(2);
    expect(envelope.data.outcome).toBe("cannot-judge");
    const [check] = envelope.data.steps;
    expect({ verdict: check.verdict, cause: check.cause, head: check.at_head.exit_code }).toEqual({
      verdict: "error",
      cause: "environment",
      head: 2,
    });
    expect(check.at_head.errors[0].file).toBe("models/marts/broken.yml");
    expect(envelope.summary).toContain(
      "and cannot judge HEAD either, so it is not this change's doing; nothing reverted, no strike (the count stays 0)",
    );
    expect(envelope.data.next).toContain("HEAD has it too");
    expect(status(repo.path)).toBe("?? NOTES.md");
    expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);
  });

  test("a git problem (a shallow clone): gate cannot judge HEAD either, nothing reverted, the fix named", () => {
    using origin = quickstartRepo();
    using clone = tempDir("slp-tcr-shallow-");
    git(clone.path, ["clone", "-q", "--depth", "1", "--no-single-branch", `file://${origin.path}`, "repo"]);
    const repo = join(clone.path, "repo");
    git(repo, ["config", "user.name", "Agent Smith"]);
    git(repo, ["config", "user.email", "agent@example.com"]);
    git(repo, ["checkout", "-q", "-b", "agent/shallow"]);
    writeFileSync(join(repo, "NOTES.md"), "x\n");
    const result = runCli(["tcr", "notes", "--format", "json"], repo);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(2);
    const gate = envelope.data.steps.find((step: { name: string }) => step.name === "gate");
    expect({ verdict: gate.verdict, cause: gate.cause }).toEqual({ verdict: "error", cause: "environment" });
    expect(envelope.errors[0].message).toContain("this clone is shallow");
    expect(envelope.errors[0].fix).toContain("git fetch --unshallow");
    expect(status(repo)).toBe("?? NOTES.md");
    expect(existsSync(join(repo, ".git", "slp", "tcr-strikes"))).toBe(false);
  });

  test("a bad slp.yml at HEAD stops before anything", () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "slp.yml"), "tcr:\n  steps: check\n");
    commitAll(repo.path, "a bad slp.yml, by hand");
    breakSpec(repo.path);
    const result = runCli(["tcr", "x"], repo.path);
    expect(result.stderr).toContain("ERROR slp.yml:1: slp.yml.tcr: must configure the TCR loop");
    expect(result.exitCode).toBe(2);
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_YML}`);
  });
});

describe("slp tcr: a step the change made unable to judge is red (it judges HEAD)", () => {
  /** SQL the agent broke: DuckDB rejects a column that is not there, so every unit test of the model errors. */
  function breakSql(dir: string): void {
    edit(dir, FCT_ORDERS_SQL, (text) => text.replace("/ 100.0", "/ 100.0 + no_such_column"));
    edit(dir, FCT_ORDERS_YML, (text) => text.replace("about one order in five", "about one order in five; reworked"));
    preRegisterDownstream(dir, "reworked");
  }

  test("a unit test the change's SQL makes error: reverted, saved, a strike; the envelope names the error it introduced", () => {
    using repo = quickstartRepo();
    breakSql(repo.path);
    const result = runCli(["tcr", "a column that is not there", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(1);
    expect(envelope.status).toBe("blocked");
    expect(envelope.data.outcome).toBe("reverted");
    expect(envelope.data.red_step).toBe("unit");
    const unit = envelope.data.steps.find((step: { name: string }) => step.name === "unit");
    expect({ verdict: unit.verdict, exit_code: unit.exit_code, cause: unit.cause }).toEqual({
      verdict: "red",
      exit_code: 2,
      cause: "change",
    });
    expect(unit.at_head).toMatchObject({ exit_code: 0, errors: [] });
    expect(unit.at_head.summary).toStartWith("slp unit: 5 passed - OK");
    expect(unit.errors[0].message).toContain('Referenced column "no_such_column" not found');
    const introduced = envelope.findings.filter((finding: { rule: string }) => finding.rule === "E_UNIT");
    // The model's error, once, at its line, naming the three tests it stopped.
    expect(introduced.length).toBe(1);
    expect(introduced[0]).toMatchObject({ severity: "BLOCK", name: "cannot-judge", file: FCT_ORDERS_SQL, model: "fct_orders", line: 7 });
    expect(introduced[0].message).toContain(
      'unit tests cancelled_orders_are_excluded, cents_become_currency_units, partially_shipped_orders_are_kept cannot run: DuckDB rejected the SQL of model fct_orders: Binder Error: Referenced column "no_such_column" not found in FROM clause! (line 7, column 35)',
    );
    expect(envelope.summary).toMatch(
      /^slp tcr: red at unit \(this change made it unable to judge: models\/marts\/fct_orders\.sql:7:35: fct_orders: DuckDB rejected .*\), reverted 3 files to [0-9a-f]{7} \(strike 1 of 5\)$/,
    );
    expect(envelope.data.next).toStartWith("fix the error this change introduced (models/marts/fct_orders.sql:7:35: ");
    expect(envelope.data.saved.patch).toMatch(/^\.git\/slp\/reverted\/0001-/);
    expect(status(repo.path)).toBe("");
    expect(strikes(repo.path)).toBe("1");
  });

  test("as text: the model's error as one block, in place once under its first test, and the step's line says HEAD judges", () => {
    using repo = quickstartRepo();
    breakSql(repo.path);
    const result = runCli(["tcr", "a column that is not there"], repo.path);
    expect(result.stdout).toContain(
      "BLOCK\tmodels/marts/fct_orders.sql:7\tfct_orders\tunit tests cancelled_orders_are_excluded, cents_become_currency_units, partially_shipped_orders_are_kept cannot run: DuckDB rejected the SQL of model fct_orders: Binder Error:",
    );
    expect(result.stdout).toContain("[E_UNIT]\n");
    expect(result.stdout).toContain(
      "ERROR\tfct_orders::cancelled_orders_are_excluded\n\tmodels/marts/fct_orders.sql:7:35: DuckDB rejected the SQL of model fct_orders: Binder Error:",
    );
    expect(result.stdout).toContain(
      "ERROR\tfct_orders::cents_become_currency_units\n\tnot run: the SQL of model fct_orders is refused, as under fct_orders::cancelled_orders_are_excluded above\n",
    );
    expect(result.stdout).toMatch(
      /^unit: slp unit: 3 errors, 2 passed - ERROR .* \(red for tcr: it judges HEAD, so this change made it unable to judge; at HEAD: slp unit: 5 passed - OK .*\)$/m,
    );
    expect(result.stdout).toContain("reverted:\n  modified models/marts/fct_orders.sql\n");
    expect(result.exitCode).toBe(1);
  });

  test("an agent looping on broken SQL is stopped by the fifth strike", async () => {
    using repo = quickstartRepo();
    const codes: number[] = [];
    for (let i = 1; i <= 5; i++) {
      breakSql(repo.path);
      codes.push((await runMain(["tcr", `attempt ${i}`], repo.path)).exitCode);
    }
    expect(codes).toEqual([1, 1, 1, 1, 3]);
    expect(strikes(repo.path)).toBe("5");
    expect(status(repo.path)).toBe("");
  });

  test("a dry run says it would revert, and changes nothing", () => {
    using repo = quickstartRepo();
    breakSql(repo.path);
    const before = status(repo.path);
    const result = runCli(["tcr", "try", "--dry-run", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(1);
    expect(envelope.data.outcome).toBe("would-revert");
    expect(envelope.summary).toContain("red at unit (this change made it unable to judge: ");
    expect(status(repo.path)).toBe(before);
    expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);
  });

  test("a yml the change breaks: red at check, the place named, the file removed and saved", () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "models", "marts", "broken.yml"), "version: 2\nmodels:\n  - name: x\n   bad: indent\n");
    const result = runCli(["tcr", "x", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(1);
    expect(envelope.data.outcome).toBe("reverted");
    expect(envelope.data.steps[0]).toMatchObject({ verdict: "red", exit_code: 2, cause: "change" });
    expect(envelope.findings).toEqual([
      expect.objectContaining({ severity: "BLOCK", rule: "E_INPUT", name: "cannot-judge", file: "models/marts/broken.yml", line: 4 }),
    ]);
    expect(envelope.summary).toContain("red at check (this change made it unable to judge: models/marts/broken.yml:4: ");
    expect(envelope.data.saved.files).toEqual([`${envelope.data.saved.dir}/files/models/marts/broken.yml`]);
    expect(status(repo.path)).toBe("");
    expect(strikes(repo.path)).toBe("1");
  });

  test("a bad slp.yml in the work tree: check cannot judge it, HEAD's copy it can: red, slp.yml put back", () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "slp.yml"), "tcr:\n  steps: check\n");
    const result = runCli(["tcr", "x", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(1);
    expect(envelope.data.outcome).toBe("reverted");
    expect(envelope.findings[0]).toMatchObject({ rule: "E_CONFIG", file: "slp.yml" });
    expect(envelope.notes).toContain("slp.yml has uncommitted changes; tcr reads its steps and base from HEAD's copy");
    expect(readFileSync(join(repo.path, "slp.yml"), "utf8")).toBe("tcr:\n  steps: [check]\n");
    expect(status(repo.path)).toBe("");
  });

  test("HEAD is judged with the packages the work tree installed (ignored dbt_packages/): the change's error is red, not the environment", () => {
    using repo = tempDir("slp-tcr-packages-");
    cpSync(join(ROOT, "test", "fixtures", "tcr", "packages"), repo.path, { recursive: true });
    writeFileSync(join(repo.path, ".gitignore"), "dbt_packages/\n");
    initRepo(repo.path);
    commitAll(repo.path, "shop");
    git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
    expect(git(repo.path, ["ls-files", "dbt_packages"])).toBe("");
    edit(repo.path, "models/marts/fct_totals.sql", (text) => text.replace("as order_total", "+ no_such_column as order_total"));
    const result = runCli(["tcr", "break it", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(envelope.data.steps[0]).toMatchObject({ name: "unit", verdict: "red", cause: "change", at_head: { exit_code: 0 } });
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe("");
    // The borrowed packages are the work tree's own, untouched.
    expect(existsSync(join(repo.path, "dbt_packages", "shop_utils", "macros", "cents.sql"))).toBe(true);
  });
});

describe("slp tcr: the steps come from slp.yml as committed at HEAD", () => {
  test("a step that takes gate out of the work tree's slp.yml is still judged by gate", () => {
    using repo = quickstartRepo(["check", "gate"]);
    writeFileSync(join(repo.path, "slp.yml"), "tcr:\n  steps: [check]\n");
    edit(repo.path, FCT_ORDERS_YML, (text) =>
      text.replace("        data_type: double\n        data_tests: [not_null]\n", "        data_type: double\n"),
    );
    const result = runCli(["tcr", "drop a test and the gate"], repo.path);
    expect(result.stdout).toContain("[G1]");
    expect(result.stdout).toContain("slp tcr: red at gate");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe("");
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
});

describe("slp tcr: the default steps (check, gate, unit, mutate)", () => {
  test("green on the quickstart: every step runs, the change is committed", () => {
    using repo = quickstartRepo();
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = runCli(["tcr", "notes"], repo.path);
    expect(result.stdout).toMatch(/^check: slp check: .* - OK/m);
    expect(result.stdout).toMatch(/^gate: slp gate: OK/m);
    expect(result.stdout).toMatch(/^unit: slp unit: 5 passed - OK/m);
    // No model changed against main: mutate judges none.
    expect(result.stdout).toMatch(/^mutate: slp mutate: OK \(0 killed, 0 equivalent, in 0 models; models changed since main\)$/m);
    expect(result.exitCode).toBe(0);
    expect(status(repo.path)).toBe("");
    expect(trailer(repo.path, "Slp-Tcr-Steps")).toBe("check gate unit mutate");
  });

  test("gate judges the change being committed, not only what is already committed", async () => {
    using repo = quickstartRepo();
    // check still passes (the key keeps its unique test); removing a test is gate's G1.
    edit(repo.path, FCT_ORDERS_YML, (text) =>
      text.replace(
        "      - name: order_total\n        data_type: double\n        data_tests: [not_null]\n",
        "      - name: order_total\n        data_type: double\n",
      ),
    );
    const result = await runMain(["tcr", "drop a test"], repo.path);
    expect(result.stdout).toContain("[G1]");
    expect(result.stdout).toContain("slp tcr: red at gate");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe("");
    expect(git(repo.path, ["rev-list", "--count", "HEAD"])).toBe("1");
  });
});

describe("slp tcr and slp's own outputs", () => {
  test("slp ci writes mutation/ where git ignores it: a red step reverts the change and leaves it, a green one commits only the change", () => {
    using repo = quickstartRepo(STEPS);
    edit(repo.path, FCT_ORDERS_SQL, (text) => text.replace("-- One row per order", "-- Revenue orders: one row per order"));
    breakSpec(repo.path);
    expect(runCli(["ci"], repo.path).stdout).toContain("mutate: slp mutate: 1 block - BLOCKED");
    const artifact = readFileSync(join(repo.path, "mutation", "fct_orders.json"), "utf8");
    expect(status(repo.path)).toBe(` M ${FCT_ORDERS_SQL}\n M ${FCT_ORDERS_YML}`);
    expect(git(repo.path, ["status", "--porcelain", "--ignored", "mutation"])).toBe("!! mutation/");

    const red = tcrEnvelope(runCli(["tcr", "reword and lose the spec", "--format", "json"], repo.path).stdout);
    expect(red.data.outcome).toBe("reverted");
    expect(red.data.files.map((file: { path: string }) => file.path)).toEqual([FCT_ORDERS_SQL, FCT_ORDERS_YML]);
    expect(readFileSync(join(repo.path, "mutation", "fct_orders.json"), "utf8")).toBe(artifact);

    edit(repo.path, FCT_ORDERS_SQL, (text) => text.replace("-- One row per order", "-- Revenue orders: one row per order"));
    expect(runCli(["ci"], repo.path).exitCode).toBe(1);
    const green = runCli(["tcr", "reword"], repo.path);
    expect(green.exitCode).toBe(0);
    expect(git(repo.path, ["show", "--name-only", "--format=", "HEAD"])).toBe(FCT_ORDERS_SQL);
    expect(status(repo.path)).toBe("");
    expect(existsSync(join(repo.path, "mutation", "mutation-report.json"))).toBe(true);
  });
});

describe("slp tcr and slp's own outputs: Stage E", () => {
  test("slp diff's folder and query ledger, made by slp, are ignored; a diff/ the team commits stays theirs", () => {
    using repo = quickstartRepo();
    git(repo.path, ["rm", "-rq", "diff"]);
    commitAll(repo.path, "no committed diffs");
    expect(runCli(["diff"], repo.path).exitCode).toBe(0);
    expect(existsSync(join(repo.path, "diff", "fct_orders.json"))).toBe(true);
    expect(existsSync(join(repo.path, ".slp", "queries.jsonl"))).toBe(true);
    expect(status(repo.path)).toBe("");
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    expect(runCli(["tcr", "notes"], repo.path).exitCode).toBe(0);
    expect(git(repo.path, ["show", "--name-only", "--format=", "HEAD"])).toBe("NOTES.md");

    // The quickstart as it is commits its diffs: slp writes into that folder and adds no .gitignore.
    using committed = quickstartRepo();
    edit(committed.path, "diff/fct_orders.json", (text) => text.replace(/\n$/, "\n\n"));
    commitAll(committed.path, "a diff as the team committed it");
    expect(runCli(["diff"], committed.path).exitCode).toBe(0);
    expect(existsSync(join(committed.path, "diff", ".gitignore"))).toBe(false);
    // slp diff rewrote the committed file (tcr would commit or revert it like any tracked file); its ledger is ignored.
    expect(status(committed.path).split("\n")).toContain(" M diff/fct_orders.json");
    expect(status(committed.path)).not.toContain("??");
  });
});
