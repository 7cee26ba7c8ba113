/**
 * A record CI can trust, checked from outside with git: tcr runs the
 * repository's commit hooks as git commit does (a failing one is red), and
 * `gate --verify-commits` re-runs check and unit on a branch tcr built and
 * reports the commits that claim a green step and are red, the commits tcr
 * did not make, and the strike resets (blocks under tcr: required).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";
import { breakSpec, edit, FCT_ORDERS_YML, quickstartRepo, status, strikes, tcrEnvelope } from "./support/tcr.ts";

const STEPS = ["check"];

function hook(repo: string, name: string, body: string, dir = join(repo, ".git", "hooks")): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
}

describe("slp tcr: the repository's hooks", () => {
  test("a failing pre-commit hook is red, with its output; the change is reverted and a strike counted", () => {
    using repo = quickstartRepo(STEPS);
    hook(repo.path, "pre-commit", 'echo "lint: trailing space in NOTES.md"\necho "on stderr too" >&2\nexit 1');
    writeFileSync(join(repo.path, "NOTES.md"), "x \n");
    const result = runCli(["tcr", "notes"], repo.path);
    expect(result.stdout).toContain("hook pre-commit: exit 1\n  lint: trailing space in NOTES.md\n  on stderr too\n");
    expect(result.stdout).toContain("slp tcr: red at pre-commit hook, reverted 1 file");
    expect(result.exitCode).toBe(1);
    expect(status(repo.path)).toBe("");
    expect(strikes(repo.path)).toBe("1");
    const envelope = tcrEnvelope(runCli(["tcr", "--dry-run", "nothing", "--format", "json"], repo.path).stdout);
    expect(envelope.data.hooks).toEqual([]);
  });

  test("pre-commit sees the staged change in GIT_INDEX_FILE and may stage more; commit-msg may add to the message", () => {
    using repo = quickstartRepo(STEPS);
    hook(repo.path, "pre-commit", "git diff --cached --name-only > .git/seen-by-hook\necho formatted >> NOTES.md\ngit add NOTES.md");
    hook(repo.path, "commit-msg", 'echo "Reviewed-by: the commit-msg hook" >> "$1"');
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const result = runCli(["tcr", "notes"], repo.path);
    expect(result.stdout).toContain("slp tcr: green, committed");
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(repo.path, ".git", "seen-by-hook"), "utf8")).toBe("NOTES.md\n");
    expect(git(repo.path, ["show", "HEAD:NOTES.md"])).toBe("x\nformatted");
    expect(git(repo.path, ["log", "-1", "--format=%(trailers:key=Reviewed-by,valueonly)"]).trim()).toBe("the commit-msg hook");
    expect(git(repo.path, ["log", "-1", "--format=%(trailers:key=Slp-Tcr,valueonly)"]).trim()).toBe("green");
    expect(status(repo.path)).toBe("");
  });

  test("a failing commit-msg hook is red; hooks come from core.hooksPath; a hook that is not executable is ignored, as git ignores it", () => {
    using repo = quickstartRepo(STEPS);
    using hooks = tempDir("slp-hooks-");
    git(repo.path, ["config", "core.hooksPath", hooks.path]);
    hook(repo.path, "commit-msg", 'grep -q "^JIRA-" "$1" || { echo "the message must start with a ticket"; exit 1; }', hooks.path);
    writeFileSync(join(hooks.path, "pre-commit"), "#!/bin/sh\nexit 1\n");
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const red = runCli(["tcr", "notes"], repo.path);
    expect(red.stdout).toContain("hook commit-msg: exit 1\n  the message must start with a ticket\n");
    expect(red.stdout).toContain("slp tcr: red at commit-msg hook");
    expect(red.stderr).toContain("WARNING hooks not executable, ignored as git ignores them: pre-commit");
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    const green = runCli(["tcr", "JIRA-1 notes"], repo.path);
    expect(green.exitCode).toBe(0);
  });

  test("post-commit runs after the branch moved", () => {
    using repo = quickstartRepo(STEPS);
    hook(repo.path, "post-commit", "git rev-parse HEAD > .git/after-commit");
    writeFileSync(join(repo.path, "NOTES.md"), "x\n");
    expect(runCli(["tcr", "notes"], repo.path).exitCode).toBe(0);
    expect(readFileSync(join(repo.path, ".git", "after-commit"), "utf8").trim()).toBe(git(repo.path, ["rev-parse", "HEAD"]));
  });
});

describe("slp gate --verify-commits on a branch tcr built", () => {
  /** Two green tcr steps, a reset recorded by a third, a commit made with plain git, and one forged to look like tcr's while check blocks. */
  async function agentBranch(required: boolean) {
    const repo = quickstartRepo(STEPS);
    git(repo.path, ["checkout", "-q", "main"]);
    writeFileSync(join(repo.path, "slp.yml"), required ? "tcr:\n  steps: [check]\n  required: true\n" : "tcr:\n  steps: [check]\n");
    commitAll(repo.path, "slp.yml");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--ff-only", "main"]);
    // Built in-process (the loop itself is tested through the real CLI elsewhere); gate runs as a subprocess below.
    writeFileSync(join(repo.path, "NOTES.md"), "one\n");
    expect((await runMain(["tcr", "first step"], repo.path)).exitCode).toBe(0);
    for (let i = 0; i < 5; i++) {
      breakSpec(repo.path);
      await runMain(["tcr", `red ${i}`], repo.path);
    }
    expect((await runMain(["tcr", "--reset", "the spec edge was misworded"], repo.path)).exitCode).toBe(0);
    writeFileSync(join(repo.path, "NOTES.md"), "two\n");
    expect((await runMain(["tcr", "after the reset"], repo.path)).exitCode).toBe(0);
    writeFileSync(join(repo.path, "NOTES.md"), "three\n");
    commitAll(repo.path, "by hand");
    breakSpec(repo.path);
    commitAll(repo.path, "forged\n\nSlp-Tcr: green\nSlp-Tcr-Steps: check\nSlp-Tcr-Strikes: 0\nSlp-Version: 0.1.0\n");
    return repo;
  }

  test("reports the red claim, the commit tcr did not make and the reset (INFO)", async () => {
    using repo = await agentBranch(false);
    const label = (rev: string) => `${git(repo.path, ["rev-parse", "--short=7", rev])} by Agent Smith`;
    const plain = runCli(["gate", "--base", "main"], repo.path);
    expect(plain.stdout).not.toMatch(/\[G1[123]\]/);
    const result = runCli(["gate", "--base", "main", "--verify-commits"], repo.path);
    expect(result.stdout).toContain(
      `INFO\tmodels/marts/fct_orders.yml:4\tfct_orders\tcommit ${label("HEAD")} claims a green tcr step, but check blocks there: this marts model has no meta.spec`,
    );
    expect(result.stdout).toContain(
      `INFO\t\t\tcommit ${label("HEAD~1")} was not made by slp tcr; on an agent branch every commit is a green tcr step (Rule 5)\t[G12]`,
    );
    expect(result.stdout).toContain(
      `INFO\t\t\tcommit ${label("HEAD~2")} follows a reset of the strike count (5 strikes cleared by Agent Smith <agent@example.com>: the spec edge was misworded)`,
    );
    expect(result.stdout.match(/\[G11\]/g)?.length).toBe(2);
    expect(result.stdout).not.toContain(label("HEAD~3"));
  }, 30_000);

  test("tcr: required in slp.yml on the base turns them into blocks, without the flag", async () => {
    using repo = await agentBranch(true);
    const result = runCli(["gate", "--base", "main", "--format", "json"], repo.path);
    const envelope = JSON.parse(result.stdout);
    const record = envelope.findings.filter((finding: { rule: string }) => ["G11", "G12", "G13"].includes(finding.rule));
    expect(record.map((finding: { rule: string; severity: string }) => `${finding.rule} ${finding.severity}`).sort()).toEqual([
      "G11 BLOCK",
      "G11 BLOCK",
      "G12 BLOCK",
      "G13 BLOCK",
    ]);
    expect(result.exitCode).toBe(1);
  }, 30_000);

  test("a clean merge of the base into the branch is not reported; a merge resolved by hand is", () => {
    using repo = quickstartRepo(STEPS);
    writeFileSync(join(repo.path, "NOTES.md"), "one\n");
    expect(runCli(["tcr", "first step"], repo.path).exitCode).toBe(0);
    git(repo.path, ["checkout", "-q", "main"]);
    edit(repo.path, "data/README.md", (text) => `${text}\nfrom main\n`);
    commitAll(repo.path, "main moves on");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--no-edit", "main"]);
    const clean = runCli(["gate", "--base", "main", "--verify-commits"], repo.path);
    expect(clean.stdout).not.toContain("[G12]");

    git(repo.path, ["checkout", "-q", "main"]);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("one row per order.", "one row per order (main)."));
    commitAll(repo.path, "main again");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    git(repo.path, ["merge", "-q", "--no-commit", "main"]);
    edit(repo.path, FCT_ORDERS_YML, (text) => text.replace("(main).", "(main, and by hand)."));
    git(repo.path, ["add", "-A"]);
    git(repo.path, ["commit", "-q", "--no-edit"]);
    const byHand = runCli(["gate", "--base", "main", "--verify-commits"], repo.path);
    expect(byHand.stdout).toContain(
      "is a merge whose tree is not git's own merge of its parents: models/marts/fct_orders.yml written by hand (a conflict resolved, or an edit), and slp tcr did not make it\t[G12]",
    );
  }, 30_000);
});
