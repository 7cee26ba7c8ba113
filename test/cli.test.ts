/** The real command line, as a subprocess and in-process: tasks, help, version, envelope, determinism. */
import { describe, expect, test } from "bun:test";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtInTasks } from "../tasks/index.ts";
import { allRules } from "../src/rules/index.ts";
import { Envelope } from "../src/schemas/envelope.ts";
import { isValid } from "../src/schemas/validate.ts";
import { VERSION } from "../src/version.ts";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const QUICKSTART = join(ROOT, "examples", "quickstart");

describe("slp (subprocess)", () => {
  test("check passes the quickstart, with its summary note", () => {
    const result = runCli(["check", "--project-dir", "examples/quickstart"], ROOT);
    expect(result.stderr).toBe("");
    expect(result.stdout.split("\n").filter(Boolean).at(-1)).toBe("slp check: 5 infos - OK (2 models in models/marts/, of 4 models read)");
    expect(result.exitCode).toBe(0);
  });

  test("check on a project without models/marts is exit 2 naming its model folders and how to say which are marts", () => {
    const dir = join(ROOT, "test", "fixtures", "input", "default_marts_path_missing");
    const result = runCli(["check", "--project-dir", dir], ROOT);
    expect(result.stderr).toContain("its model folders are models/core/. Say which folders hold the marts: --marts-path models/core");
    expect(result.stdout).toBe("");
    expect(result.exitCode).toBe(2);
    expect(runCli(["check", "--project-dir", dir, "--marts-path", "models/core"], ROOT).exitCode).toBe(0);
  });

  test("--version prints the bare version", () => {
    const result = runCli(["--version"], ROOT);
    expect(result.stdout).toBe(`${VERSION}\n`);
    expect(result.exitCode).toBe(0);
  });

  test("no task prints the usage on stderr and exits 2", () => {
    const result = runCli([], ROOT);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("usage: slp");
    expect(result.exitCode).toBe(2);
  });

  test("rules lists every rule, explain prints one, tasks lists the tasks", () => {
    const rules = runCli(["rules"], ROOT);
    expect(rules.stdout).toMatch(/^T1 +pk-uniqueness-test +check +BLOCK/m);
    // One line a rule of the registry, each starting with its code.
    expect(
      rules.stdout
        .trim()
        .split("\n")
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual(allRules.map((rule) => rule.code));
    expect(rules.exitCode).toBe(0);
    const explain = runCli(["explain", "T1"], ROOT);
    expect(explain.stdout).toStartWith("T1 pk-uniqueness-test (check, BLOCK)");
    expect(explain.stdout).toContain("Enforces: Rule 2");
    const tasks = runCli(["tasks"], ROOT);
    expect(tasks.stdout).toMatch(/^check\s+Check specs/m);
    expect(tasks.stdout).not.toMatch(/^gen\s/m);
  });
});

describe("slp (in-process)", () => {
  test("`slp run check` is `slp check`", async () => {
    const direct = await runMain(["check"], QUICKSTART);
    const viaRun = await runMain(["run", "check"], QUICKSTART);
    expect(viaRun).toEqual(direct);
  });

  test("the same input gives the same bytes, cache cold or warm", async () => {
    const first = await runMain(["check"], QUICKSTART, { SLP_NO_CACHE: "1" });
    const second = await runMain(["check"], QUICKSTART);
    const third = await runMain(["check"], QUICKSTART);
    expect(second.stdout).toBe(first.stdout);
    expect(third.stdout).toBe(first.stdout);
  });

  test("--format json prints exactly one envelope that fits its schema", async () => {
    const result = await runMain(["check", "--format", "json"], QUICKSTART);
    const envelope = JSON.parse(result.stdout);
    expect(isValid(Envelope, envelope)).toBe(true);
    expect(envelope.command).toBe("check");
    expect(envelope.status).toBe("ok");
    expect(envelope.exit_code).toBe(0);
    expect(envelope.findings).toHaveLength(5);
    expect(envelope.errors).toEqual([]);
  });

  test("--format json on an error is still one envelope, status error, exit 2", async () => {
    const result = await runMain(["check", "--marts-path", "models/nowhere", "--format=json"], QUICKSTART);
    const envelope = JSON.parse(result.stdout);
    expect(isValid(Envelope, envelope)).toBe(true);
    expect(envelope.status).toBe("error");
    expect(envelope.errors[0].code).toBe("E_INPUT");
    expect(envelope.errors[0].message).toContain("models/nowhere/ not found");
    expect(result.exitCode).toBe(2);
  });

  test("flags parse like argparse: prefixes, --flag=value, options after positionals", async () => {
    const byPrefix = await runMain(["check", "--proj", QUICKSTART, "--marts=models/marts"], ROOT);
    expect(byPrefix.exitCode).toBe(0);
    const unknown = await runMain(["check", "--nope"], QUICKSTART);
    expect(unknown.stderr).toContain("slp check: error: unrecognized arguments: --nope");
    expect(unknown.exitCode).toBe(2);
    const unknownTask = await runMain(["frobnicate"], QUICKSTART);
    expect(unknownTask.stderr).toContain("invalid choice: 'frobnicate'");
    expect(unknownTask.exitCode).toBe(2);
  });

  test("--help prints the task's flags and exits 0", async () => {
    const result = await runMain(["check", "--help"], QUICKSTART);
    expect(result.stdout).toContain("--project-dir DIR");
    expect(result.stdout).toContain("--marts-path PATH");
    expect(result.exitCode).toBe(0);
  });
});

describe("papercuts a new user hit", () => {
  test("every task, and `slp run` itself, answers --help with exit 0", async () => {
    const run = await runMain(["run", "--help"], QUICKSTART);
    expect(run.stdout).toStartWith("usage: slp run [-h] {task} ...\n");
    expect(run.stdout).toContain("tasks: check, ci, compare");
    expect(run.exitCode).toBe(0);
    for (const task of builtInTasks.filter((candidate) => !candidate.hidden)) {
      for (const argv of [
        [task.name, "--help"],
        ["run", task.name, "-h"],
      ]) {
        const result = await runMain(argv, QUICKSTART);
        expect(result.stdout).toContain(`${task.name} [-h]`);
        expect(result.exitCode).toBe(0);
      }
    }
  });

  test("a project folder that does not exist is said as such, by every command that reads one", async () => {
    for (const command of ["check", "compare", "gate"]) {
      const argv = command === "compare" ? [command, "--project-dir", "/nonexist", "x.json"] : [command, "--project-dir", "/nonexist"];
      const result = await runMain(argv, QUICKSTART);
      expect(result.stderr).toStartWith("ERROR the project folder /nonexist does not exist; ");
      expect(result.exitCode).toBe(2);
    }
  });

  test("gate's base: SLP_BASE, else slp.yml's base as the default branch has it (never the branch's own), else main; ci's gate stage alike", async () => {
    using repo = tempDir("slp-base-default-");
    cpSync(QUICKSTART, repo.path, { recursive: true });
    initRepo(repo.path);
    commitAll(repo.path, "quickstart");
    git(repo.path, ["branch", "trunk"]);
    git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
    writeFileSync(join(repo.path, "NOTES.md"), "a note\n");
    commitAll(repo.path, "notes");
    const gate = (env: Record<string, string> = {}) => runMain(["gate", "--format", "json"], repo.path, env);
    const base = async (env: Record<string, string> = {}) => JSON.parse((await gate(env)).stdout).data.base;
    expect(await base()).toBe("main");
    expect(await base({ SLP_BASE: "trunk" })).toBe("trunk");
    // The branch's own slp.yml naming a base main's slp.yml does not: refused, not followed.
    writeFileSync(join(repo.path, "slp.yml"), "base: trunk\n");
    const refused = await gate();
    expect(refused.exitCode).toBe(2);
    expect(JSON.parse(refused.stdout).errors[0].message).toContain(
      "slp.yml here names base trunk, but slp.yml on main names no base (so main)",
    );
    expect(await base({ SLP_BASE: "trunk" })).toBe("trunk");
    // Once main's slp.yml names it, it is the base.
    rmSync(join(repo.path, "slp.yml"));
    git(repo.path, ["checkout", "-q", "main"]);
    writeFileSync(join(repo.path, "slp.yml"), "base: trunk\n");
    commitAll(repo.path, "the base is trunk");
    git(repo.path, ["checkout", "-q", "agent/work"]);
    writeFileSync(join(repo.path, "slp.yml"), "base: trunk\n");
    expect(await base()).toBe("trunk");
    expect(await base({ SLP_BASE: "" })).toBe("trunk");
    const ci = JSON.parse((await runMain(["ci", "--format", "json"], repo.path)).stdout);
    expect(ci.data.stages.find((stage: { name: string }) => stage.name === "gate").data.base).toBe("trunk");
  });
});

describe("what a run loads", () => {
  /** The modules `argv` loaded, in a process of its own: how many, and whether TypeBox and slp.yml's reader were among them. */
  const loadedBy = (argv: string[]) => {
    const probe = `
      const { main } = await import(${JSON.stringify(join(ROOT, "src", "cli.ts"))});
      const code = await main(${JSON.stringify(argv)}, { stdout() {}, stderr() {}, cwd: ${JSON.stringify(QUICKSTART)}, env: {} });
      const loaded = Object.keys(require.cache);
      console.log(JSON.stringify({ code, typebox: loaded.some((path) => /@sinclair[/]typebox/.test(path)), slpYml: loaded.some((path) => /slp-yml[.]ts$/.test(path)) }));
    `;
    const result = Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(result.stderr.toString()).toBe("");
    return JSON.parse(result.stdout.toString());
  };

  test("--version loads neither TypeBox nor the task registry's reading of slp.yml", () => {
    expect(loadedBy(["--version"])).toEqual({ code: 0, typebox: false, slpYml: false });
  });

  test("check reads slp.yml (and so its schema)", () => {
    expect(loadedBy(["check"])).toEqual({ code: 0, typebox: true, slpYml: true });
  });
});

describe("dbt's spellings of --select", () => {
  test("-s, -m and --models choose what --select chooses, in unit and mutate; an unknown short flag is still refused", async () => {
    const select = await runMain(["unit", "--select", "fct_revenue_daily", "--format", "json"], QUICKSTART);
    const tests = (stdout: string) => JSON.parse(stdout).data.tests.map((test: { name: string }) => test.name);
    expect(tests(select.stdout)).toEqual(["days_without_orders_have_no_row", "orders_of_one_day_add_up"]);
    for (const spelling of [
      ["-s", "fct_revenue_daily"],
      ["-m", "fct_revenue_daily"],
      ["--models", "fct_revenue_daily"],
      ["--models=fct_revenue_daily"],
    ]) {
      const result = await runMain(["unit", ...spelling, "--format", "json"], QUICKSTART);
      expect(tests(result.stdout)).toEqual(tests(select.stdout));
    }
    const mutate = runCli(["mutate", "-s", "fct_revenue_daily", "--dry-run"], QUICKSTART);
    expect(mutate.exitCode).toBe(0);
    expect(mutate.stdout).toContain("fct_revenue_daily\t");
    expect(mutate.stdout).not.toContain("fct_orders\t");
    const unknown = await runMain(["unit", "-x", "fct_orders"], QUICKSTART);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("unrecognized arguments: -x");
  });
});
