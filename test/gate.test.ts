/**
 * `slp gate` end to end on real repositories: what the fixture folders cannot
 * build (packed objects, shallow clones, merges, worktrees), the refusals
 * (exit 2), and the output envelopes, through main() and the real CLI.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir, writeTree } from "./support/temp.ts";

const SPEC = `      spec:
        grain: one row per order
        primary_key: [order_id]
        tier: standard
        metrics: {}
        known_edges: []
        sensitive_columns: []
`;

function martsYml(tests = "[unique, not_null]", spec = SPEC): string {
  return `version: 2
models:
  - name: fct_orders
    meta:
${spec}    columns:
      - name: order_id
        data_tests: ${tests}
`;
}

const PROJECT = {
  "dbt_project.yml": "name: shop\n",
  "models/marts/fct_orders.yml": martsYml(),
  "models/marts/fct_orders.sql": "select 1 as order_id\n",
  "models/staging/stg_orders.yml": "version: 2\nmodels:\n  - name: stg_orders\n",
};

/** main with the project, then branch `pr`; returns the repository folder's disposable. */
function repoWithBranch(files: Record<string, string> = PROJECT, prefix = "") {
  const repo = tempDir("slp-gate-");
  initRepo(repo.path);
  writeTree(repo.path, Object.fromEntries(Object.entries(files).map(([path, text]) => [`${prefix}${path}`, text])));
  commitAll(repo.path, "main");
  git(repo.path, ["checkout", "-q", "-b", "pr"]);
  return repo;
}

/** Writes files (null deletes) and commits them. */
function commit(dir: string, files: Record<string, string | null>, message = "step"): string {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) git(dir, ["rm", "-q", path]);
    else writeTree(dir, { [path]: text });
  }
  return commitAll(dir, message);
}

describe("reading git", () => {
  test("gives the same verdict after git gc (packfiles, packed refs)", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "models/marts/fct_orders.yml": martsYml("[not_null]"), "macros/m.sql": "{% macro m() %}1{% endmacro %}\n" });
    commit(repo.path, { "models/staging/stg_orders.yml": "version: 2\nmodels:\n  - name: stg_orders\n    description: x\n" });
    const loose = await runMain(["gate", "--base", "main"], repo.path);
    git(repo.path, ["gc", "-q", "--aggressive", "--prune=now"]);
    git(repo.path, ["pack-refs", "--all"]);
    const objects = readdirSync(join(repo.path, ".git", "objects")).filter((entry) => /^[0-9a-f]{2}$/.test(entry));
    expect(objects).toEqual([]);
    expect(existsSync(join(repo.path, ".git", "refs", "heads", "main"))).toBe(false);
    const packed = await runMain(["gate", "--base", "main"], repo.path);
    expect(packed).toEqual(loose);
    expect(packed.exitCode).toBe(1);
    expect(packed.stdout).toContain("[G1]");
    expect(packed.stdout).toContain("macros/m.sql:1\t\t");
    expect(packed.stdout).toEndWith("slp gate: 2 blocks - BLOCKED\n");
  });

  test("judges the commits of a side branch merged in: its red commit is named, though the first-parent walk skips it", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "models/staging/stg_orders.yml": "version: 2\nmodels:\n  - name: stg_orders\n    description: a\n" });
    git(repo.path, ["checkout", "-q", "-b", "side"]);
    commit(repo.path, { "models/marts/fct_orders.yml": martsYml(undefined, SPEC.replace("tier: standard", "tier: gold")) }, "side: red");
    commit(repo.path, { "models/marts/fct_orders.yml": martsYml() }, "side: green again");
    git(repo.path, ["checkout", "-q", "pr"]);
    git(repo.path, ["merge", "-q", "--no-ff", "-m", "merge side", "side"], {
      GIT_AUTHOR_DATE: "1767229200 +0000",
      GIT_COMMITTER_DATE: "1767229200 +0000",
    });
    const result = await runMain(["gate", "--base", "main"], repo.path);
    // The first-parent walk is the first pr commit and the merge (the count); the side branch's red commit is judged all the same.
    const red = git(repo.path, ["rev-parse", "--short=7", "side~1"]);
    expect(result.stdout).toContain(`commit ${red} by Agent Smith carries a meta.spec the schema rejects`);
    expect(result.stdout).toEndWith("slp gate: 1 info - OK (2 commits)\n");
    expect(result.exitCode).toBe(0);
    // Judged from the side branch's tip, the same commit is named.
    const side = await runMain(["gate", "--base", "main", "--head", "side"], repo.path);
    expect(side.stdout).toContain(`commit ${red} by Agent Smith carries a meta.spec the schema rejects`);
  });

  test("a branch that merged the base in is judged against the new merge-base, base commits not walked", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "models/staging/stg_orders.yml": "version: 2\nmodels:\n  - name: stg_orders\n    description: a\n" });
    git(repo.path, ["checkout", "-q", "main"]);
    commit(repo.path, { "models/marts/fct_orders.yml": martsYml("[not_null]") }, "main: a human drops a test");
    git(repo.path, ["checkout", "-q", "pr"]);
    git(repo.path, ["merge", "-q", "--no-ff", "-m", "merge main", "main"], {
      GIT_AUTHOR_DATE: "1767229200 +0000",
      GIT_COMMITTER_DATE: "1767229200 +0000",
    });
    const result = await runMain(["gate", "--base", "main"], repo.path);
    expect(result.stdout).toBe("slp gate: OK (2 commits)\n");
  });

  test("reads a project in a subfolder, from inside it or with --project-dir", async () => {
    using repo = repoWithBranch(PROJECT, "warehouse/");
    commit(repo.path, { "warehouse/models/marts/fct_orders.yml": martsYml("[not_null]"), ".github/workflows/ci.yml": "on: push\n" });
    const expected =
      "BLOCK\t../.github/workflows/ci.yml:1\t\t../.github/workflows/ci.yml changed on this branch; it is a protected path, and Rule 8 says the agent stops and asks a human, who changes it in a pull request of their own (fix: human)\t[G9]\n" +
      "BLOCK\tmodels/marts/fct_orders.yml:3\tfct_orders\ttest 'unique' on fct_orders.order_id exists on main but not on this branch (fix: test)\t[G1]\n" +
      "slp gate: 2 blocks - BLOCKED\n";
    expect((await runMain(["gate", "--base", "main", "--project-dir", "warehouse"], repo.path)).stdout).toBe(expected);
    expect((await runMain(["gate", "--base", "main"], join(repo.path, "warehouse"))).stdout).toBe(expected);
  });

  test("runs from a linked worktree", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "models/marts/fct_orders.yml": martsYml("[not_null]") });
    git(repo.path, ["checkout", "-q", "main"]);
    using other = tempDir("slp-worktree-");
    git(repo.path, ["worktree", "add", "-q", join(other.path, "wt"), "pr"]);
    const result = await runMain(["gate", "--base", "main"], join(other.path, "wt"));
    expect(result.stdout).toContain("test 'unique' on fct_orders.order_id exists on main");
    expect(result.exitCode).toBe(1);
  });

  test("a base that exists only as origin/<base> (a fresh clone) is read there, with a warning", () => {
    using origin = repoWithBranch();
    commit(origin.path, { "models/marts/fct_orders.yml": martsYml("[not_null]") });
    using clone = tempDir("slp-gate-clone-");
    git(clone.path, ["clone", "-q", "--branch", "pr", origin.path, "repo"]);
    const repo = join(clone.path, "repo");
    expect(git(repo, ["branch", "--list", "main"])).toBe("");
    const result = runCli(["gate", "--base", "main"], repo);
    expect(result.stderr).toBe(
      "WARNING main is not a branch in this clone; the base is origin/main (git fetch origin main keeps it current)\n",
    );
    expect(result.stdout).toContain("[G1]");
    expect(result.exitCode).toBe(1);
  });

  test("accepts shas, ~N and tags as refs", async () => {
    using repo = repoWithBranch();
    const first = commit(repo.path, { "models/marts/fct_orders.yml": martsYml("[not_null]") });
    commit(repo.path, { "macros/m.sql": "x\n" });
    git(repo.path, ["tag", "-a", "-m", "release", "v1", "main"]);
    const bySha = await runMain(["gate", "--base", "v1", "--head", first.slice(0, 10)], repo.path);
    expect(bySha.stdout).toContain("[G1]");
    expect(bySha.stdout).not.toContain("[G9]");
    const byParent = await runMain(["gate", "--base", "v1", "--head", "pr~1"], repo.path);
    expect(byParent).toEqual(bySha);
  });

  test("reads a changed binary file under a protected folder as a change, not an error", async () => {
    using repo = repoWithBranch({ ...PROJECT, ".github/logo.png": "\x89PNG" });
    writeFileSync(join(repo.path, ".github", "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]));
    commitAll(repo.path, "new logo");
    const result = await runMain(["gate", "--base", "main"], repo.path);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toStartWith("BLOCK\t.github/logo.png:1\t\t");
  });
});

describe("summary notes", () => {
  test("no commits between the merge-base and head: OK (no commits), before anything is read", async () => {
    using repo = repoWithBranch();
    // A marts folder missing at head would be exit 2, but an empty range is judged first.
    const result = await runMain(["gate", "--base", "pr", "--head", "main", "--marts-path", "nowhere"], repo.path);
    expect(result).toEqual({ stdout: "slp gate: OK (no commits)\n", stderr: "", exitCode: 0 });
  });

  test("commits that touch nothing gate reads: OK (no changes)", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "README.md": "# shop\n" });
    const result = await runMain(["gate", "--base", "main"], repo.path);
    expect(result.stdout).toBe("slp gate: OK (no changes)\n");
  });
});

describe("could not judge (exit 2)", () => {
  test("a shallow clone says to fetch the full history", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "models/marts/fct_orders.yml": martsYml("[not_null]") });
    using clone = tempDir("slp-shallow-");
    git(clone.path, ["clone", "-q", "--depth", "1", "--branch", "pr", `file://${repo.path}`, "c"]);
    const result = await runMain(["gate", "--base", "origin/pr"], join(clone.path, "c"));
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("shallow");
    expect(result.stderr).toContain("fetch-depth: 0");
  });

  test("a ref that does not exist is named", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "README.md": "x\n" });
    const result = await runMain(["gate", "--base", "mian"], repo.path);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith(
      "ERROR the base branch mian does not exist here, neither as a local branch nor as origin/mian; fetch it (git fetch origin mian)",
    );
  });

  test("histories that share no commit have no merge-base", async () => {
    using repo = repoWithBranch();
    git(repo.path, ["checkout", "-q", "--orphan", "other"]);
    commitAll(repo.path, "unrelated");
    const result = await runMain(["gate", "--base", "main"], repo.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("share no history");
  });

  test("a marts path with no file at head: nothing to check is not OK", async () => {
    using repo = repoWithBranch();
    commit(repo.path, { "README.md": "x\n" });
    const result = await runMain(["gate", "--base", "main", "--marts-path", "./models/core/"], repo.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toStartWith("ERROR models/core/ holds no file at HEAD; nothing to check is not OK");
  });

  test("a project in a subfolder without models/marts at head: exit 2 naming the model folders head has", async () => {
    using repo = tempDir("slp-gate-");
    initRepo(repo.path);
    const tree = {
      "analytics/dbt_project.yml": "name: shop\nversion: '1.0'\nprofile: shop\n",
      "analytics/models/staging/stg_orders.sql": "select 1 as id\n",
      "analytics/models/reporting/fct_orders.sql": "select 1 as id\n",
    };
    commit(repo.path, tree);
    git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
    commit(repo.path, { "analytics/models/staging/stg_orders.sql": "select 2 as id\n" });
    const result = await runMain(["gate", "--base", "main", "--project-dir", "analytics"], repo.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      "ERROR models/marts/ holds no file at HEAD; nothing to check is not OK; slp looks for marts models (the ones whose numbers people read) in models/marts/ unless told otherwise; its model folders are models/reporting/, models/staging/. Say which folders hold the marts: --marts-path models/reporting (repeatable), or marts_paths: [models/reporting] in slp.yml (slp.yml as the base branch has it)",
    );
  });

  test("a yml that cannot be read at a commit in the middle of the walk is exit 2 naming file and commit", async () => {
    using repo = repoWithBranch();
    const bad = commit(repo.path, { "models/staging/stg_orders.yml": "models: [\n" });
    commit(repo.path, { "models/staging/stg_orders.yml": PROJECT["models/staging/stg_orders.yml"] });
    const result = await runMain(["gate", "--base", "main"], repo.path);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("models/staging/stg_orders.yml");
    expect(result.stderr).toContain(`at commit ${bad.slice(0, 7)}`);
  });

  test("without --base it judges against the default base (SLP_BASE, slp.yml base, main), as ci and tcr do", async () => {
    using repo = repoWithBranch();
    const defaulted = await runMain(["gate", "--format", "json"], repo.path);
    const given = await runMain(["gate", "--base", "main", "--format", "json"], repo.path);
    expect(defaulted.stdout).toBe(given.stdout);
    expect(JSON.parse(defaulted.stdout).data.base).toBe("main");
  });
});

describe("settings come from the base", () => {
  test("slp.yml's marts paths are the base's, whatever the branch writes", async () => {
    const files = { ...PROJECT, "slp.yml": "marts_paths: [models/staging]\n" };
    using repo = repoWithBranch(files);
    commit(repo.path, {
      "slp.yml": "marts_paths: [models/marts]\n",
      "models/staging/stg_orders.sql": "select 2 as order_id\n",
      "models/staging/stg_orders.yml": "version: 2\nmodels:\n  - name: stg_orders\n    meta:\n      spec: {grain: x}\n",
    });
    const result = await runMain(["gate", "--base", "main"], repo.path);
    expect(result.stdout).toContain("slp.yml:1\t\tslp.yml changed on this branch");
    // stg_orders is marts by the base's slp.yml: its sql changed without a pre-registration, its spec is new.
    expect(result.stdout).toContain("stg_orders\tthe sql of this model changed");
    expect(result.stdout).toContain("[I4]");
    // --marts-path replaces slp.yml's choice.
    const flagged = await runMain(["gate", "--base", "main", "--marts-path", "models/marts"], repo.path);
    expect(flagged.stdout).not.toContain("[G8]");
  });
});

describe("output", () => {
  test("--format json prints one envelope with the findings and the walk", async () => {
    using repo = repoWithBranch();
    const head = commit(repo.path, { "models/marts/fct_orders.yml": martsYml("[not_null]") });
    const result = await runMain(["gate", "--base", "main", "--format", "json"], repo.path);
    expect(result.exitCode).toBe(1);
    const envelope = JSON.parse(result.stdout);
    expect(Object.keys(envelope).sort()).toEqual([
      "command",
      "data",
      "errors",
      "exit_code",
      "findings",
      "notes",
      "status",
      "summary",
      "version",
    ]);
    expect(envelope).toMatchObject({
      command: "gate",
      status: "blocked",
      exit_code: 1,
      summary: "slp gate: 1 block - BLOCKED",
      errors: [],
    });
    expect(envelope.findings).toEqual([
      {
        severity: "BLOCK",
        rule: "G1",
        name: "test-removed",
        file: "models/marts/fct_orders.yml",
        model: "fct_orders",
        // The model's entry at head: the test is gone, the model it was on is where to look.
        line: 3,
        message: "test 'unique' on fct_orders.order_id exists on main but not on this branch",
        // An agent puts back a test it removed; a test the base has is not its to take out.
        fix: "test",
      },
    ]);
    expect(envelope.data.commits).toEqual([{ commit: head, label: `${head.slice(0, 7)} by Agent Smith` }]);
    expect(envelope.data.marts_paths).toEqual(["models/marts/"]);
  });

  test("--format json on a refusal is an error envelope", async () => {
    using repo = repoWithBranch();
    const result = await runMain(["gate", "--base", "nope", "--format", "json"], repo.path);
    expect(result.exitCode).toBe(2);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.status).toBe("error");
    expect(envelope.errors[0].code).toBe("E_GIT");
  });

  test("the real CLI, as a subprocess, blocks and exits 1", () => {
    using repo = repoWithBranch();
    commit(repo.path, { "packages.yml": "packages: []\n" });
    const result = runCli(["gate", "--base", "main"], repo.path);
    expect(result.stdout).toBe(
      "BLOCK\tpackages.yml:1\t\tpackages.yml changed on this branch; the versions the project builds with are a human decision (fix: human)\t[G6]\nslp gate: 1 block - BLOCKED\n",
    );
    expect(result.exitCode).toBe(1);
  });
});
