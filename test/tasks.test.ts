/** The task runner, the ci task, a repository's own tasks (shell and TypeScript), and the public API. */
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as api from "../src/index.ts";
import { defineTask, type Task, type TaskEnvironment } from "../src/runner/define-task.ts";
import { runTask, TaskCycleError } from "../src/runner/runner.ts";
import { builtInTasks } from "../tasks/index.ts";
import { createRegistry } from "../src/runner/registry.ts";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const USER_TASKS = join(import.meta.dir, "fixtures", "user-tasks");

const environment: TaskEnvironment = { cwd: ROOT, env: {}, log: () => {} };

function counting(name: string, needs: Task<any, any>[] = [], calls: string[] = []): Task<any, string> {
  return defineTask({
    name,
    description: name,
    needs,
    input: Type.Object({ word: Type.String({ default: "default" }) }),
    run({ input }) {
      calls.push(`${name}:${input.word}`);
      return name;
    },
  });
}

describe("runner", () => {
  test("runs needs first, each task at most once, and gives CLI input only to the root", async () => {
    const calls: string[] = [];
    const leaf = counting("leaf", [], calls);
    const left = counting("left", [leaf], calls);
    const right = counting("right", [leaf], calls);
    const root = counting("root", [left, right], calls);
    expect(await runTask(root, { word: "given" }, environment)).toBe("root");
    expect(calls).toEqual(["leaf:default", "left:default", "right:default", "root:given"]);
  });

  test("runs independent needs in parallel (each waits for the other to have started)", async () => {
    let releaseA: () => void = () => {};
    let releaseB: () => void = () => {};
    const startedA = new Promise<void>((resolve) => (releaseA = resolve));
    const startedB = new Promise<void>((resolve) => (releaseB = resolve));
    const a = defineTask({
      name: "a",
      description: "a",
      input: Type.Object({}),
      async run() {
        releaseA();
        await startedB;
        return "a";
      },
    });
    const b = defineTask({
      name: "b",
      description: "b",
      input: Type.Object({}),
      async run() {
        releaseB();
        await startedA;
        return "b";
      },
    });
    const both = defineTask({
      name: "both",
      description: "both",
      needs: [a, b],
      input: Type.Object({}),
      async run({ need }) {
        return `${await need(a)}${await need(b)}`;
      },
    });
    expect(await runTask(both, {}, environment)).toBe("ab");
  });

  test("a cycle is an error naming its path", async () => {
    const a: Task<any, string> = counting("a");
    const b: Task<any, string> = counting("b", [a]);
    (a as unknown as { needs: Task<any, any>[] }).needs = [b];
    const root = counting("root", [a]);
    const error = await runTask(root, {}, environment).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskCycleError);
    expect((error as Error).message).toBe("task cycle: a -> b -> a");
  });
});

describe("slp ci", () => {
  test("runs every stage in order and answers with one report and the worst exit code", async () => {
    const result = await runMain(["ci", "--project-dir", "examples/quickstart", "--format", "json"], ROOT);
    const envelope = JSON.parse(result.stdout);
    const stages = envelope.data.stages.map((stage: { name: string }) => stage.name);
    expect(stages).toEqual(
      createRegistry(builtInTasks, ROOT, async () => api)
        .ciStages()
        .map((task) => task.name),
    );
    expect(stages[0]).toBe("check");
    expect(envelope.exit_code).toBe(Math.max(...envelope.data.stages.map((s: { exit_code: number }) => s.exit_code)));
  });

  test("the real CLI runs check, gate, unit and mutate on a branch of the quickstart", () => {
    using repo = quickstartBranch();
    writeFileSync(join(repo.path, "NOTES.md"), "a change gate reads nothing of\n");
    commitAll(repo.path, "notes");
    const result = runCli(["ci"], repo.path);
    expect(result.stdout).toMatch(/^check: slp check: 5 infos - OK/m);
    expect(result.stdout).toMatch(/^gate: slp gate: OK \(no changes\)$/m);
    expect(result.stdout).toMatch(/^unit: slp unit: 5 passed - OK/m);
    expect(result.stdout).toMatch(/^mutate: slp mutate: OK \(0 killed, 0 equivalent, in 0 models; models changed since main\)$/m);
    expect(result.stdout).toMatch(/^slp ci: 5 infos - OK \(4 stages\)$/m);
    expect(result.exitCode).toBe(0);
  });

  test("the real CLI shows each finding of every stage: a failing unit test with its place and rows, and its diff", () => {
    using repo = quickstartBranch();
    const yml = "models/marts/fct_orders.yml";
    writeFileSync(
      join(repo.path, "models/marts/fct_orders.sql"),
      readFileSync(join(repo.path, "models/marts/fct_orders.sql"), "utf8").replace("/ 100.0", "/ 10.0"),
    );
    writeFileSync(
      join(repo.path, yml),
      readFileSync(join(repo.path, yml), "utf8").replace("about one order in five", "about one order in five; tenths"),
    );
    // The mart downstream of fct_orders predicts this change too (G15).
    const daily = "models/marts/finance/fct_revenue_daily.yml";
    writeFileSync(
      join(repo.path, daily),
      readFileSync(join(repo.path, daily), "utf8").replace("two days gain revenue and orders", "two days gain revenue and orders; tenths"),
    );
    commitAll(repo.path, "break the cents edge");
    const result = runCli(["ci"], repo.path);
    expect(result.stdout).toContain(
      `BLOCK\t${yml}:79\tfct_orders\tunit test cents_become_currency_units (edge: amount_cents=1999 → order_total=19.99) fails: 1 row only in expected, 1 only in actual: only in expected (order_id=3, customer_email=bruno@example.com, order_total=19.99); only in actual (order_id=3, customer_email=bruno@example.com, order_total=199.9) (fix: sql)\t[UNIT]\n`,
    );
    expect(result.stdout).toContain("FAIL\tfct_orders::cents_become_currency_units\n\t@@ | order_id |");
    expect(result.stdout).toMatch(/^unit: slp unit: 1 failed, 4 passed - FAILED/m);
    expect(result.stdout).toMatch(/^slp ci: .* - BLOCKED \(\d+ stages; not green: unit\b/m);
    expect(result.exitCode).toBe(1);
    const envelope = JSON.parse(runCli(["ci", "--format", "json"], repo.path).stdout);
    expect(envelope.findings.find((finding: { rule: string }) => finding.rule === "UNIT")).toMatchObject({
      file: yml,
      model: "fct_orders",
      line: 79,
    });
    // The formats that turn failed tests into annotations do not add this one twice.
    const github = runCli(["ci", "--format", "github"], repo.path).stdout;
    expect(
      github
        .split("\n")
        .filter((line) => line.startsWith("::error") && line.includes("title=UNIT") && line.includes("cents_become_currency_units")),
    ).toHaveLength(1);
  }, 30_000);

  test("a stage that cannot judge makes ci exit 2 and the other stages still run", async () => {
    const result = await runMain(["ci", "--project-dir", "examples/quickstart", "--marts-path", "models/none"], ROOT);
    expect(result.stdout).toContain("check: slp check: ERROR");
    expect(result.stdout).toMatch(/^slp ci: .*ERROR \(\d+ stages?; not green: check/m);
    expect(result.exitCode).toBe(2);
  });
});

/** The quickstart committed on main, with a branch agent/work checked out. */
function quickstartBranch(): TempDir {
  const dir = userRepo();
  commitAll(dir.path, "quickstart");
  git(dir.path, ["checkout", "-q", "-b", "agent/work"]);
  return dir;
}

/** The quickstart with the user-task fixture laid over it, as a repository (slp.yml and .slp/tasks/ are read at its root). */
function userRepo(): TempDir {
  const dir = tempDir("slp-user-tasks-");
  cpSync(join(ROOT, "examples", "quickstart"), dir.path, { recursive: true });
  cpSync(USER_TASKS, dir.path, { recursive: true });
  initRepo(dir.path);
  return dir;
}

describe("a repository's own tasks", () => {
  test("slp tasks lists built-in and user tasks with their descriptions", async () => {
    using repo = userRepo();
    const result = await runMain(["tasks"], repo.path);
    expect(result.stdout).toMatch(/^check\s+Check specs/m);
    expect(result.stdout).toMatch(/^hello\s+\(yours\) echo hello from a shell task$/m);
    expect(result.stdout).toMatch(/^verify\s+\(yours\) check, and count the marts models$/m);
  });

  test("a shell task runs with Bun Shell, extra words appended", async () => {
    using repo = userRepo();
    const result = await runMain(["run", "hello", "and", "two words"], repo.path);
    expect(result.stdout).toBe("hello from a shell task and two words\n");
    expect(result.exitCode).toBe(0);
  });

  test("a shell task can call built-in tasks by name through slp", () => {
    using repo = userRepo();
    const result = runCli(["run", "check-then-say"], repo.path);
    expect(result.stdout).toContain("slp check: 5 infos - OK");
    expect(result.stdout).toContain("check passed\n");
    expect(result.exitCode).toBe(0);
  });

  test("a shell task's exit code is the task's", async () => {
    using repo = userRepo();
    writeFileSync(join(repo.path, "slp.yml"), "tasks:\n  fails: exit 3\n");
    expect((await runMain(["run", "fails"], repo.path)).exitCode).toBe(3);
  });

  test("a program the task runs that is not installed is exit 2, said as slp (never as Bun)", async () => {
    using repo = userRepo();
    const result = await runMain(["run", "lint"], repo.path);
    expect(result.stderr).toBe(
      "slp: the task lint runs slp-fixture-missing-linter, which is not installed (not found on PATH); install slp-fixture-missing-linter, or change the task in slp.yml\n",
    );
    expect(result.stderr).not.toContain("bun");
    expect(result.exitCode).toBe(2);
  });

  test("a task whose program exists keeps its own exit code and stderr", async () => {
    using repo = userRepo();
    writeFileSync(join(repo.path, "slp.yml"), "tasks:\n  complain: \"sh -c 'echo bun: not me 1>&2; exit 1'\"\n  broken: echo >&2\n");
    const result = await runMain(["run", "complain"], repo.path);
    expect(result.stderr).toBe("bun: not me\n");
    expect(result.exitCode).toBe(1);
    const broken = await runMain(["run", "broken"], repo.path);
    expect(broken.stderr).toStartWith("ERROR slp.yml: the task broken is not a command slp's shell can run (Redirection with no file); ");
    expect(broken.exitCode).toBe(2);
  });

  test("a TypeScript task imports the public API, needs a built-in, and takes its own flags", async () => {
    using repo = userRepo();
    const result = await runMain(["run", "verify", "--loud"], repo.path);
    expect(result.stdout).toBe("VERIFY: 2 MARTS MODELS, CHECK EXIT 0\n");
    expect(result.exitCode).toBe(0);
  });

  test("a TypeScript task composes built-ins into one report", async () => {
    using repo = userRepo();
    const result = await runMain(["both"], repo.path);
    expect(result.stdout).toContain("slp both: 2 blocks, 5 infos - BLOCKED (2 stages; not green: check)");
    expect(result.exitCode).toBe(1);
  });

  test("a user task may not take a built-in's name", async () => {
    using repo = userRepo();
    writeFileSync(join(repo.path, "slp.yml"), "tasks:\n  check: echo mine\n");
    const result = await runMain(["run", "check"], repo.path);
    expect(result.exitCode).toBe(0);
    const listed = await runMain(["tasks"], repo.path);
    expect(listed.stderr).toContain("the task name check is taken by a built-in task");
    expect(listed.exitCode).toBe(2);
  });
});

/** The quickstart with the task files that leave a mark when imported, as a repository. */
function unrunRepo(): TempDir {
  const dir = tempDir("slp-user-tasks-unrun-");
  cpSync(join(ROOT, "examples", "quickstart"), dir.path, { recursive: true });
  cpSync(join(import.meta.dir, "fixtures", "user-tasks-unrun"), dir.path, { recursive: true });
  initRepo(dir.path);
  return dir;
}

const marked = (repo: TempDir) =>
  readdirSync(repo.path)
    .filter((name) => name.startsWith("MARKER-"))
    .sort();

describe("a repository's task files run only when their task is run", () => {
  test("slp tasks, slp help, slp --help, slp run --help and a mistyped task list them without running them", async () => {
    using repo = unrunRepo();
    const tasks = await runMain(["tasks"], repo.path);
    expect(tasks.stdout).toMatch(/^leave-mark\s+\(yours\) writes a marker when its file is "imported"$/m);
    expect(tasks.stdout).toMatch(/^worded-late\s+\(yours\) \(description not a literal\)$/m);
    expect(tasks.exitCode).toBe(0);
    const json = JSON.parse((await runMain(["tasks", "--format", "json"], repo.path)).stdout);
    expect(json.data.find((task: { name: string }) => task.name === "worded-late")).toEqual({
      name: "worded-late",
      description: null,
      needs: null,
      origin: "user",
    });
    for (const argv of [["help"], ["--help"], ["-h"]]) {
      const help = await runMain(argv, repo.path);
      expect(help.stdout).toMatch(/^ {2}leave-mark\s+writes a marker when its file is "imported"$/m);
      expect(help.stdout).toMatch(/^ {2}check\s+Check specs/m);
      expect(help.exitCode).toBe(0);
    }
    expect((await runMain(["run", "--help"], repo.path)).stdout).toContain("leave-mark, worded-late");
    const typo = await runMain(["chek"], repo.path);
    expect(typo.stderr).toContain("invalid choice: 'chek'; did you mean 'check'? (choose from check, ");
    expect(typo.stderr).toContain(", leave-mark, worded-late)");
    expect(typo.exitCode).toBe(2);
    expect(marked(repo)).toEqual([]);
  });

  test("the real CLI: a mistyped name is exit 2 with the nearest names, built-in or yours, and runs nothing", () => {
    using repo = unrunRepo();
    const typo = runCli(["leave-mrak"], repo.path);
    expect(typo.stderr).toContain("invalid choice: 'leave-mrak'; did you mean 'leave-mark'?");
    expect(typo.exitCode).toBe(2);
    const far = runCli(["frobnicate"], repo.path);
    expect(far.stderr).toContain("invalid choice: 'frobnicate' (choose from ");
    expect(far.exitCode).toBe(2);
    expect(runCli(["tasks"], repo.path).exitCode).toBe(0);
    expect(marked(repo)).toEqual([]);
  });

  test("slp <task> imports that task's file, and no other", () => {
    using repo = unrunRepo();
    const result = runCli(["leave-mark"], repo.path);
    expect(result.stdout).toBe("marked 12\n");
    expect(result.exitCode).toBe(0);
    expect(marked(repo)).toEqual(["MARKER-leave-mark"]);
    expect(runCli(["run", "worded-late"], repo.path).stdout).toBe("late\n");
    expect(marked(repo)).toEqual(["MARKER-leave-mark", "MARKER-worded-late"]);
  });

  test("a name that is not a string literal is exit 2 naming the file and line, and the file is not run", async () => {
    using repo = unrunRepo();
    const file = join(repo.path, ".slp", "tasks", "leave-mark.ts");
    writeFileSync(file, readFileSync(file, "utf8").replace('name: "leave-mark",', 'name: ["leave", "mark"].join("-"),'));
    for (const argv of [["tasks"], ["chek"], ["worded-late"]]) {
      const result = await runMain(argv, repo.path);
      expect(result.stderr).toStartWith(
        "ERROR .slp/tasks/leave-mark.ts:9: the task's name is not a string literal, and slp lists tasks without running their files;",
      );
      expect(result.exitCode).toBe(2);
    }
    expect((await runMain(["--help"], repo.path)).stderr).toStartWith("WARNING your tasks cannot be listed: .slp/tasks/leave-mark.ts:9:");
    expect(marked(repo)).toEqual([]);
  });

  test("a file whose running defines another name than its text says is exit 2", async () => {
    using repo = unrunRepo();
    const file = join(repo.path, ".slp", "tasks", "leave-mark.ts");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("  input: Type.Object({}),", '  ...{ name: "check" },\n  input: Type.Object({}),'),
    );
    const result = await runMain(["leave-mark"], repo.path);
    expect(result.stderr).toStartWith(
      "ERROR .slp/tasks/leave-mark.ts: .slp/tasks/leave-mark.ts reads as the task leave-mark, but running it defines the task check;",
    );
    expect(result.exitCode).toBe(2);
  });
});

describe("public API", () => {
  test("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "EXIT",
        "Type",
        "VERSION",
        "combineReports",
        "defineTask",
        "run",
        "runStage",
        "task",
      ]
    `);
  });

  test("run() runs a built-in by name", async () => {
    const report = await api.run("check", { projectDir: "examples/quickstart" }, environment);
    expect(report.findings).toHaveLength(5);
  });
});
