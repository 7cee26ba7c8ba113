/**
 * `slp guard`: a write to a protected path refused before it happens, as
 * paths on the command line and as Claude Code, Codex and Cursor pre-tool
 * hooks; the hook settings `slp init --hooks` writes run it and fail closed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandEffects } from "../src/guard/commands.ts";
import { matchKey, mayBeShortName, resolveLinks } from "../src/guard/paths.ts";
import { expandBraces, tokenize } from "../src/guard/shell.ts";
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
    expect(result.stderr).toContain("give the paths about to be written, --command LINE, or --hook AGENT");
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
  test("splits words and operators the way a shell does, quotes, redirections and here-documents included", () => {
    expect(tokenize(`echo "a b" 'c' d\\ e 2>&1 >> f && g|h`).map((t) => t.text)).toEqual([
      "echo",
      '"a b"',
      "'c'",
      "d\\ e",
      "2>&",
      "1",
      ">>",
      "f",
      "&&",
      "g",
      "|",
      "h",
    ]);
    expect(tokenize("cat <<'EOF' > x\nrm -rf macros\nEOF\nls").find((t) => t.text === "<<")?.body).toBe("rm -rf macros\n");
    expect(commandEffects("ls > out.txt; cat in.txt", "/r")).toEqual([{ kind: "path", cwd: "/r", path: "out.txt", via: "ls > out.txt" }]);
  });

  test("brace expansion is decided statically; a quoted brace is not expanded", () => {
    expect(expandBraces("build/{a,b}/x")).toEqual(["build/a/x", "build/b/x"]);
    expect(expandBraces("f{1..3}")).toEqual(["f1", "f2", "f3"]);
    expect(expandBraces("'{a,b}'")).toEqual(["'{a,b}'"]);
    // Past 256 words it is not expanded: the word is decided only when it runs, and refused where it writes.
    expect(expandBraces("{a,b}".repeat(20))).toBeNull();
    expect(commandEffects(`rm ${"{a,b}".repeat(20)}`, "/r").map((effect) => effect.kind)).toEqual(["opaque"]);
  });

  test("a variable the line assigned is put in; one it did not is decided only at run time", () => {
    expect(commandEffects("M=macros; echo > $M/x", "/r")).toEqual([{ kind: "path", cwd: "/r", path: "macros/x", via: "echo > $M/x" }]);
    expect(commandEffects("echo > $M/x", "/r")).toEqual([
      { kind: "opaque", via: "echo > $M/x", why: "$M is decided only when the command runs" },
    ]);
  });
});

describe("the file a path really names", () => {
  test("links are followed, a dangling one to its target, a loop stops", () => {
    using dir = tempDir("slp-guard-links-");
    mkdirSync(join(dir.path, "macros"));
    symlinkSync("macros", join(dir.path, "m_link"));
    symlinkSync("macros/new.sql", join(dir.path, "dangling.sql"));
    symlinkSync("loop_b", join(dir.path, "loop_a"));
    symlinkSync("loop_a", join(dir.path, "loop_b"));
    const real = resolveLinks(dir.path);
    expect(resolveLinks(join(dir.path, "m_link", "x", "y.sql"))).toBe(join(real, "macros", "x", "y.sql"));
    expect(resolveLinks(join(dir.path, "dangling.sql"))).toBe(join(real, "macros", "new.sql"));
    expect(resolveLinks(join(dir.path, "loop_a", "x"))).toMatch(/loop_[ab]\/x$/);
    expect(resolveLinks(join(dir.path, "plain", "x"))).toBe(join(real, "plain", "x"));
  });

  test("spellings other file systems take for one file fold together; different names stay apart", () => {
    expect(matchKey("Macros./X.SQL ")).toBe("macros/x.sql");
    expect(matchKey("docs/cafe\u0301/x.md")).toBe(matchKey("docs/caf\u00e9/x.md"));
    expect(matchKey("AGENTS.md::$DATA")).toBe("agents.md");
    expect(matchKey("macros\\x.sql")).toBe("macros/x.sql");
    expect(matchKey("docs/cafe/x.md")).not.toBe(matchKey("docs/caf\u00e9/x.md"));
    expect(mayBeShortName("github~1", ".github")).toBe(true);
    expect(mayBeShortName("dbt_pr~1.yml", "dbt_project.yml")).toBe(true);
    expect(mayBeShortName("models~1", "macros")).toBe(false);
  });
});

/** The table of tricks: test/fixtures/guard/cases.yml. */
interface TrickGroup {
  trick: string;
  deny?: string[];
  allow?: string[];
}
interface TrickTable {
  links: Record<string, string>;
  paths: TrickGroup[];
  commands: TrickGroup[];
}

const TRICKS = join(import.meta.dir, "fixtures", "guard");
const TABLE = Bun.YAML.parse(readFileSync(join(TRICKS, "cases.yml"), "utf8")) as TrickTable;

describe("the table of tricks (test/fixtures/guard/cases.yml)", () => {
  let dir: TempDir;
  beforeAll(() => {
    dir = tempDir("slp-guard-tricks-");
    cpSync(join(TRICKS, "project"), dir.path, { recursive: true });
    for (const [link, target] of Object.entries(TABLE.links)) symlinkSync(target, join(dir.path, link));
    initRepo(dir.path);
    commitAll(dir.path, "base, with the links committed");
  });
  afterAll(() => dir[Symbol.dispose]());

  test("holds at least the 35 path tricks and 42 write commands issue 24 counts, and plain work beside them", () => {
    const count = (groups: TrickGroup[], key: "deny" | "allow") => groups.reduce((sum, group) => sum + (group[key]?.length ?? 0), 0);
    expect(count(TABLE.paths, "deny")).toBeGreaterThanOrEqual(35);
    expect(count(TABLE.commands, "deny")).toBeGreaterThanOrEqual(42);
    expect(count(TABLE.paths, "allow")).toBeGreaterThan(0);
    expect(count(TABLE.commands, "allow")).toBeGreaterThan(0);
  });

  /** Each entry point's answer on one path: true when it refuses. */
  async function pathAnswers(path: string) {
    const cli = await runMain(["guard", path], dir.path);
    const write = await hook(dir.path, "claude", { tool_name: "Write", cwd: dir.path, tool_input: { file_path: path, content: "x" } });
    return { "slp guard PATH": cli.exitCode === 2, "claude Write": denied(write) !== null };
  }

  /** Each entry point's answer on one command line: true when it refuses. */
  async function commandAnswers(command: string) {
    const cli = await runMain(["guard", "--command", command], dir.path);
    const claude = await hook(dir.path, "claude", { tool_name: "Bash", cwd: dir.path, tool_input: { command } });
    const cursor = await hook(dir.path, "cursor", { hook_event_name: "beforeShellExecution", command, cwd: dir.path });
    return { "slp guard --command": cli.exitCode === 2, "claude Bash": denied(claude) !== null, "cursor shell": denied(cursor) !== null };
  }

  for (const [kind, groups, answers] of [
    ["path", TABLE.paths, pathAnswers],
    ["command", TABLE.commands, commandAnswers],
  ] as const) {
    for (const group of groups) {
      test(`${kind}s: ${group.trick}`, async () => {
        const wrong: string[] = [];
        for (const [expected, cases] of [
          [true, group.deny ?? []],
          [false, group.allow ?? []],
        ] as const) {
          for (const input of cases) {
            for (const [entry, refused] of Object.entries(await answers(input))) {
              if (refused !== expected) wrong.push(`${entry} ${refused ? "refuses" : "allows"} ${JSON.stringify(input)}`);
            }
          }
        }
        expect(wrong).toEqual([]);
      });
    }
  }

  test("a refusal names why: the protected path, the glob, the command slp cannot follow, or the human's rule", async () => {
    const reason = async (command: string) =>
      denied(await hook(dir.path, "claude", { tool_name: "Bash", cwd: dir.path, tool_input: { command } })) ?? "";
    expect(await reason("echo x > m_link/x.sql")).toContain("m_link/x.sql is macros/x.sql (links followed");
    expect(await reason("rm -rf macr*")).toContain("the glob macr* matches macros");
    expect(await reason("tar -xzf a.tgz")).toContain("tar extracts the files the archive names, anywhere under the work tree");
    expect(await reason("python3 -c \"open('x','w')\"")).toContain("python3 -c runs a script that can write files or run programs (open)");
    expect(await reason("git commit --no-verify -m x")).toContain("git commit --no-verify skips the hooks");
    expect(await reason("slp tcr --reset ok")).toMatch(/slp tcr --reset .*\[G13\]$/);
    const json = JSON.parse((await runMain(["guard", "--command", "git reset --hard", "--format", "json"], dir.path)).stdout);
    expect(json.findings.map((finding: { rule: string; file: string }) => [finding.rule, finding.file])).toEqual([["G9", "."]]);
  });

  test("the hook command slp init --hooks writes refuses a trick too (a real process, the settings' own shell line)", async () => {
    const { hookCommand } = await import("../src/init/files.ts");
    const bin = join(dir.path, ".test-bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "slp"), `#!/bin/sh\nexec "${process.execPath}" "${CLI_ENTRY}" "$@"\n`);
    chmodSync(join(bin, "slp"), 0o755);
    const run = (command: string) => {
      const event = JSON.stringify({ tool_name: "Bash", cwd: dir.path, tool_input: { command } });
      const result = Bun.spawnSync(["sh", "-c", hookCommand("claude")], {
        cwd: dir.path,
        env: { PATH: `${bin}:/usr/bin:/bin`, CLAUDE_PROJECT_DIR: dir.path },
        stdin: Buffer.from(event),
        stdout: "pipe",
      });
      return result.stdout.toString();
    };
    expect(JSON.parse(run("rm -rf macr*")).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(run("mkdir -p build")).toBe("");
  });
});
