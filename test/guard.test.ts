/**
 * `slp guard`: a write to a protected path refused before it happens, as
 * paths on the command line and as Claude Code, Codex and Cursor pre-tool
 * hooks; the hook settings `slp init --hooks` writes run it and fail closed.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tokenize, shellWrites } from "../src/guard/shell.ts";
import { CLI_ENTRY, runCli, runMain } from "./support/cli.ts";
import { commitAll, initRepo } from "./support/git-repo.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const PLAIN = join(import.meta.dir, "fixtures", "init", "plain-dbt-project");

function repo(): TempDir {
  const dir = tempDir("slp-guard-");
  cpSync(PLAIN, dir.path, { recursive: true });
  initRepo(dir.path);
  return dir;
}

async function guard(dir: string, ...paths: string[]) {
  return await runMain(["guard", ...paths], dir);
}

describe("slp guard PATH...", () => {
  test("exits 2 naming each protected path and the rule; passes the others (real CLI)", () => {
    using dir = repo();
    const result = runCli(["guard", "AGENTS.md", "models/marts/fct_orders.sql", "macros/new_macro.sql"], dir.path);
    const lines = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split("\t"));
    expect(lines.map((fields) => [fields[0], fields[1], fields[4]])).toEqual([
      ["BLOCK", "AGENTS.md", "[G9]"],
      ["BLOCK", "macros/new_macro.sql", "[G9]"],
      ["slp guard: 2 blocks - BLOCKED", undefined, undefined],
    ]);
    expect(result.stdout).toContain("AGENTS.md is protected (AGENTS.md: slp gate blocks any change); Rule 8: stop and ask a human");
    expect(result.exitCode).toBe(2);
  });

  test("a path nothing protects is exit 0", async () => {
    using dir = repo();
    const result = await guard(dir.path, "models/marts/fct_new.sql", "models/staging/stg_orders.sql", "/tmp/elsewhere.txt");
    expect(result.stdout).toBe("slp guard: OK (3 paths, none protected)\n");
    expect(result.exitCode).toBe(0);
  });

  test("existing tests and reconciliation queries are protected; new ones may be written, except a generic test", async () => {
    using dir = repo();
    mkdirSync(join(dir.path, "analyses"));
    writeFileSync(join(dir.path, "analyses", "reconciliation_orders.sql"), "select 1\n");
    const rules = async (path: string) =>
      JSON.parse((await runMain(["guard", path, "--format", "json"], dir.path)).stdout).data.protected.map((p: { rule: string }) => p.rule);
    expect(await rules("tests/assert_order_totals_are_positive.sql")).toEqual(["G1"]);
    expect(await rules("tests/assert_new_rule.sql")).toEqual([]);
    expect(await rules("tests/generic/not_negative.sql")).toEqual(["G1"]);
    expect(await rules("tests")).toEqual(["G1"]);
    expect(await rules("analyses/reconciliation_orders.sql")).toEqual(["G5"]);
    expect(await rules("analyses/reconciliation_new.sql")).toEqual([]);
    // Anything else new under a test folder changes how tests are judged; the rest of analyses/ and snapshots/ are G9's.
    expect(await rules("tests/mutation_equivalents.yml")).toEqual(["G1"]);
    expect(await rules("tests/fixtures/orders.csv")).toEqual([]);
    expect(await rules("analyses/scratch.sql")).toEqual(["G9"]);
    expect(await rules("snapshots/orders_snapshot.sql")).toEqual(["G9"]);
    expect(await rules("packages.yml")).toEqual(["G6"]);
  });

  test("in a repository with commits, a test exists once it is committed (a new one staged for a commit may be written)", async () => {
    using dir = repo();
    commitAll(dir.path, "base");
    writeFileSync(join(dir.path, "tests", "assert_new_rule.sql"), "select 1 where false\n");
    expect((await guard(dir.path, "tests/assert_new_rule.sql")).exitCode).toBe(0);
    expect((await guard(dir.path, "tests/assert_order_totals_are_positive.sql")).exitCode).toBe(2);
  });

  test("a folder that holds a protected path is protected, and so are paths given from a subfolder or absolute", async () => {
    using dir = repo();
    expect((await guard(dir.path, "models")).exitCode).toBe(2);
    expect((await guard(dir.path, ".")).exitCode).toBe(2);
    expect((await guard(join(dir.path, "models"), "../dbt_project.yml")).exitCode).toBe(2);
    expect((await guard(dir.path, join(dir.path, "CODEOWNERS"))).exitCode).toBe(2);
    expect((await guard(dir.path, "models/marts")).exitCode).toBe(0);
  });

  test("reads slp.yml's protected_paths and dbt_project.yml's macro-paths", async () => {
    using dir = repo();
    writeFileSync(join(dir.path, "slp.yml"), "protected_paths: [docs/contracts/]\n");
    writeFileSync(join(dir.path, "dbt_project.yml"), "name: jaffle_shop\nmacro-paths: [dbt_macros]\n");
    expect((await guard(dir.path, "docs/contracts/orders.md")).exitCode).toBe(2);
    expect((await guard(dir.path, "dbt_macros/m.sql")).exitCode).toBe(2);
    expect((await guard(dir.path, "slp.yml")).exitCode).toBe(2);
  });

  test("without paths or --hook it is a usage error", async () => {
    using dir = repo();
    const result = await guard(dir.path);
    expect(result.stderr).toContain("give the paths about to be written, or --hook AGENT");
    expect(result.exitCode).toBe(2);
  });
});

/** One event through `slp guard --hook AGENT`: what the agent reads back. */
async function hook(dir: string, agent: string, event: unknown) {
  const stdin = typeof event === "string" ? event : JSON.stringify(event);
  return await runMain(["guard", "--hook", agent], dir, {}, stdin);
}

function denied(result: { stdout: string }): string | null {
  if (result.stdout === "") return null;
  const body = JSON.parse(result.stdout);
  if (body.permission) return body.permission === "deny" ? body.agent_message : null;
  return body.hookSpecificOutput.permissionDecision === "deny" ? body.hookSpecificOutput.permissionDecisionReason : null;
}

describe("slp guard --hook claude (and codex: the same protocol)", () => {
  const event = (dir: string, tool_name: string, tool_input: unknown) => ({
    session_id: "s",
    hook_event_name: "PreToolUse",
    cwd: dir,
    tool_name,
    tool_input,
  });

  test("denies a Write, Edit, MultiEdit or NotebookEdit of a protected path, with the reason; allows the others", async () => {
    using dir = repo();
    const deny = await hook(dir.path, "claude", event(dir.path, "Write", { file_path: join(dir.path, "AGENTS.md"), content: "x" }));
    expect(deny.exitCode).toBe(0);
    expect(JSON.parse(deny.stdout).hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("slp guard: AGENTS.md is protected"),
    });
    expect(
      denied(
        await hook(
          dir.path,
          "claude",
          event(dir.path, "Edit", { file_path: join(dir.path, "macros/cents_to_dollars.sql"), old_string: "a", new_string: "b" }),
        ),
      ),
    ).toContain("[G9]");
    expect(
      denied(await hook(dir.path, "claude", event(dir.path, "MultiEdit", { file_path: join(dir.path, "dbt_project.yml"), edits: [] }))),
    ).toContain("dbt_project.yml");
    expect(
      denied(await hook(dir.path, "claude", event(dir.path, "NotebookEdit", { notebook_path: join(dir.path, ".github/x.ipynb") }))),
    ).toContain(".github/");
    const allow = await hook(
      dir.path,
      "claude",
      event(dir.path, "Write", { file_path: join(dir.path, "models/marts/fct_new.sql"), content: "select 1" }),
    );
    expect(allow).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });

  test("denies a shell command that writes a protected path; allows reading it and running tcr.sh", async () => {
    using dir = repo();
    const bash = (command: string) => hook(dir.path, "claude", event(dir.path, "Bash", { command }));
    for (const command of [
      "echo '* @me' > CODEOWNERS",
      "sed -i 's/table/view/' dbt_project.yml",
      "cd models && rm -rf ../macros",
      "sh -c 'cat x >> AGENTS.md'",
      "git checkout main -- tests/assert_order_totals_are_positive.sql",
      "python -c \"open('.claude/settings.json','w').write('{}')\"",
      "cp /tmp/x .github/workflows/slp.yml",
    ]) {
      expect({ command, denied: denied(await bash(command)) !== null }).toEqual({ command, denied: true });
    }
    for (const command of [
      "cat AGENTS.md",
      "grep -n macro dbt_project.yml",
      "git diff main -- macros/",
      './tcr.sh "add fct_orders spec edge"',
      "bash tcr.sh step",
      "ls .github",
      "dbt build --select fct_orders",
    ]) {
      expect({ command, denied: denied(await bash(command)) }).toEqual({ command, denied: null });
    }
  });

  test("codex: an apply_patch touching a protected file is denied; one that does not is allowed; argv lists are read", async () => {
    using dir = repo();
    const patch = (file: string) => `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n`;
    expect(denied(await hook(dir.path, "codex", event(dir.path, "apply_patch", { command: patch("dbt_project.yml") })))).toContain(
      "dbt_project.yml is protected",
    );
    expect(
      denied(await hook(dir.path, "codex", event(dir.path, "apply_patch", { command: patch("models/marts/fct_orders.sql") }))),
    ).toBeNull();
    expect(
      denied(
        await hook(
          dir.path,
          "codex",
          event(dir.path, "apply_patch", { command: "*** Begin Patch\n*** Add File: models/x.sql\n*** Move to: macros/x.sql\n" }),
        ),
      ),
    ).toContain("macros/x.sql");
    expect(denied(await hook(dir.path, "codex", event(dir.path, "Bash", { command: ["bash", "-lc", "rm tcr.sh"] })))).toContain("tcr.sh");
  });

  test("an event it cannot read is refused, never waved through", async () => {
    using dir = repo();
    for (const stdin of [
      "",
      "not json",
      "[]",
      JSON.stringify({ tool_name: "Write" }),
      JSON.stringify(event(dir.path, "apply_patch", {})),
    ]) {
      const result = await hook(dir.path, "claude", stdin);
      expect({ stdin, reason: denied(result)?.startsWith("slp guard cannot read this tool call") }).toEqual({ stdin, reason: true });
    }
  });
});

describe("slp guard --hook cursor", () => {
  test("beforeShellExecution and preToolUse answer with permission deny or allow", async () => {
    using dir = repo();
    const shell = await hook(dir.path, "cursor", {
      hook_event_name: "beforeShellExecution",
      command: "rm -rf macros",
      cwd: dir.path,
      workspace_roots: [dir.path],
    });
    expect(JSON.parse(shell.stdout)).toEqual({
      permission: "deny",
      user_message: expect.stringContaining("macros is protected"),
      agent_message: expect.stringContaining("macros is protected"),
    });
    const read = await hook(dir.path, "cursor", {
      hook_event_name: "beforeShellExecution",
      command: "cat macros/cents_to_dollars.sql",
      cwd: dir.path,
    });
    expect(JSON.parse(read.stdout)).toEqual({ permission: "allow" });
    const write = await hook(dir.path, "cursor", {
      hook_event_name: "preToolUse",
      tool_name: "Write",
      tool_input: { file_path: join(dir.path, "CODEOWNERS") },
      workspace_roots: [dir.path],
    });
    expect(JSON.parse(write.stdout).permission).toBe("deny");
    const fine = await hook(dir.path, "cursor", {
      hook_event_name: "preToolUse",
      tool_name: "Write",
      tool_input: JSON.stringify({ file_path: "models/marts/new.sql" }),
      workspace_roots: [dir.path],
    });
    expect(JSON.parse(fine.stdout)).toEqual({ permission: "allow" });
    expect(JSON.parse((await hook(dir.path, "cursor", "{")).stdout).permission).toBe("deny");
  });
});

describe("the hook settings slp init --hooks writes", () => {
  /** Runs a settings file's hook command the way the agent does: sh, in the repository, the event on stdin. */
  function runHook(command: string, dir: string, path: string, stdin: string) {
    const result = Bun.spawnSync(["sh", "-c", command], {
      cwd: dir,
      env: { PATH: path, CLAUDE_PROJECT_DIR: dir },
      stdin: Buffer.from(stdin),
      stdout: "pipe",
      stderr: "pipe",
    });
    return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), exitCode: result.exitCode };
  }

  test("run slp guard and deny a protected write; with no slp to run they refuse the call (exit 2)", async () => {
    using dir = repo();
    expect((await runMain(["init", "--hooks"], dir.path)).exitCode).toBe(0);
    const claude = JSON.parse(readFileSync(join(dir.path, ".claude", "settings.json"), "utf8")).hooks.PreToolUse[0];
    expect(claude.matcher).toBe("Write|Edit|MultiEdit|NotebookEdit|Bash");
    expect(claude.hooks[0].onFailure).toBe("block");
    const cursor = JSON.parse(readFileSync(join(dir.path, ".cursor", "hooks.json"), "utf8"));
    expect(Object.keys(cursor.hooks).sort()).toEqual(["beforeShellExecution", "preToolUse"]);
    expect(cursor.hooks.preToolUse[0].failClosed).toBe(true);
    const codex = JSON.parse(readFileSync(join(dir.path, ".codex", "hooks.json"), "utf8")).hooks.PreToolUse[0];

    const bin = join(dir.path, ".test-bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "slp"), `#!/bin/sh\nexec "${process.execPath}" "${CLI_ENTRY}" "$@"\n`);
    chmodSync(join(bin, "slp"), 0o755);
    const event = JSON.stringify({ tool_name: "Write", cwd: dir.path, tool_input: { file_path: join(dir.path, "AGENTS.md") } });
    for (const command of [claude.hooks[0].command, codex.hooks[0].command]) {
      const ran = runHook(command, dir.path, `${bin}:/usr/bin:/bin`, event);
      expect(JSON.parse(ran.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
      expect(ran.exitCode).toBe(0);
      const missing = runHook(command, dir.path, "/usr/bin:/bin", event);
      expect(missing.stderr).toContain("slp guard cannot run (slp is not installed");
      expect(missing.exitCode).toBe(2);
    }
  });
});

describe("reading a command line", () => {
  test("splits words and operators the way a shell does, quotes and redirections included", () => {
    expect(tokenize(`echo "a b" 'c' d\\ e 2>&1 >> f && g|h`).map((t) => t.text)).toEqual([
      "echo",
      "a b",
      "c",
      "d e",
      "2>&",
      "1",
      ">>",
      "f",
      "&&",
      "g",
      "|",
      "h",
    ]);
    expect(shellWrites("ls > out.txt; cat in.txt", "/r")).toEqual([{ cwd: "/r", word: "out.txt" }]);
  });
});
