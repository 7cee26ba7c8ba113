/**
 * The GitHub files slp ships and writes, linted by actionlint: the release
 * workflow, the workflow `slp init` writes (with and without an agent login,
 * in a subfolder project too), and action.yml through a workflow that uses it.
 * And .pre-commit-hooks.yaml runs commands slp has.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { initFiles, WORKFLOW_FILE } from "../src/init/files.ts";
import { parseYaml } from "../src/project/files/yaml.ts";
import { parseArgs } from "../src/runner/args.ts";
import { VERSION } from "../src/version.ts";
import { builtInTasks } from "../tasks/index.ts";
import { lintWorkflow } from "./support/actionlint.ts";
import { runMain } from "./support/cli.ts";
import { copyToTemp } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const PLAIN = join(import.meta.dir, "fixtures", "init", "plain-dbt-project");

describe("actionlint finds nothing in", () => {
  test(".github/workflows/release.yml", async () => {
    const path = ".github/workflows/release.yml";
    expect(await lintWorkflow(readFileSync(join(ROOT, path), "utf8"), path)).toEqual([]);
  });

  test.each([
    ["without --agent-login", []],
    ["with --agent-login", ["--agent-login", "data-agent[bot]"]],
  ])("the workflow slp init writes, %s", async (_name, flags) => {
    using repo = copyToTemp(PLAIN, "slp-workflow-");
    expect((await runMain(["init", ...(flags as string[])], repo.path)).exitCode).toBe(0);
    const path = ".github/workflows/slp.yml";
    expect(await lintWorkflow(readFileSync(join(repo.path, path), "utf8"), path)).toEqual([]);
  });

  test("the workflow slp init writes for a project in a subfolder", async () => {
    using repo = copyToTemp(PLAIN, "slp-workflow-");
    Bun.spawnSync(["git", "init", "-q", repo.path]);
    const { cpSync } = await import("node:fs");
    cpSync(PLAIN, join(repo.path, "warehouse"), { recursive: true });
    expect((await runMain(["init", "--project-dir", "warehouse"], repo.path)).exitCode).toBe(0);
    const text = readFileSync(join(repo.path, ".github/workflows/slp.yml"), "utf8");
    expect(text).toContain('"$SLP" check --project-dir warehouse --format github');
    expect(await lintWorkflow(text, ".github/workflows/slp.yml")).toEqual([]);
  });

  test("a workflow that uses action.yml with its inputs (actionlint cannot open the action itself: see below)", async () => {
    const workflow = `on: pull_request
jobs:
  slp:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: slp
        uses: ./
        with:
          command: check --format github
          version: 0.1.0
      - run: echo "exit \${{ steps.slp.outputs.exit-code }}"
`;
    expect(await lintWorkflow(workflow, ".github/workflows/uses-action.yml")).toEqual([]);
  });
});

/** Every `run:` script of a workflow or composite action, as bash reads it (`bash -n`: syntax only, nothing runs). */
function runScripts(document: Record<string, any>): string[] {
  const steps = document.runs ? document.runs.steps : Object.values(document.jobs ?? {}).flatMap((job: any) => job.steps ?? []);
  return steps.filter((step: any) => typeof step.run === "string").map((step: any) => step.run as string);
}

/** The workflow `slp init` writes for the plain project, as text. */
function initWorkflow(): string {
  using repo = copyToTemp(PLAIN, "slp-workflow-");
  const { files } = initFiles({ projectDir: repo.path, version: VERSION, hooks: false, ownedModels: [] });
  return files.find((file) => file.path === WORKFLOW_FILE)?.content ?? "";
}

describe("the shell in them parses as bash", () => {
  test.each([".github/workflows/release.yml", "action.yml", WORKFLOW_FILE])("%s", (path) => {
    const text = path === WORKFLOW_FILE ? initWorkflow() : readFileSync(join(ROOT, path), "utf8");
    const document = parseYaml(text, { file: path }) as Record<string, any>;
    const scripts = runScripts(document);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      const checked = Bun.spawnSync(["bash", "-n"], { stdin: Buffer.from(script.replace(/\$\{\{[^}]*\}\}/g, "x")), stderr: "pipe" });
      expect({ script, error: checked.stderr.toString() }).toEqual({ script, error: "" });
    }
  });
});

describe("action.yml", () => {
  const action = parseYaml(readFileSync(join(ROOT, "action.yml"), "utf8"), { file: "action.yml" }) as Record<string, any>;

  test("is a composite action whose steps name their shell, and reads only inputs and outputs it declares", () => {
    expect(typeof action.name).toBe("string");
    expect(typeof action.description).toBe("string");
    expect(action.runs.using).toBe("composite");
    for (const step of action.runs.steps) expect(step.shell).toBe("bash");
    const text = readFileSync(join(ROOT, "action.yml"), "utf8");
    const used = [...text.matchAll(/\binputs\.([\w-]+)/g)].map((match) => match[1]);
    expect([...new Set(used)].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const input of Object.values(action.inputs) as Record<string, unknown>[]) expect(typeof input.description).toBe("string");
    const ids = action.runs.steps.map((step: any) => step.id).filter(Boolean);
    for (const output of Object.values(action.outputs) as { value: string }[]) {
      expect(ids).toContain(output.value.match(/steps\.([\w-]+)\./)?.[1]);
    }
  });

  test("knows an asset name for every platform slp ships", async () => {
    const { PLATFORMS, releaseAsset } = await import("../src/build/platforms.ts");
    const text = readFileSync(join(ROOT, "action.yml"), "utf8");
    for (const platform of PLATFORMS) expect(text).toContain(`asset=${releaseAsset(platform)};`);
  });
});

describe(".pre-commit-hooks.yaml", () => {
  const hooks = parseYaml(readFileSync(join(ROOT, ".pre-commit-hooks.yaml"), "utf8"), { file: ".pre-commit-hooks.yaml" }) as Record<
    string,
    any
  >[];

  test("each hook runs an slp task with flags it takes, installed by npm", () => {
    expect(hooks.map((hook) => hook.id)).toEqual(["slp-guard", "slp-check", "slp-unit"]);
    for (const hook of hooks) {
      const [program, name, ...flags] = (hook.entry as string).split(" ");
      expect(program).toBe("slp");
      const task = builtInTasks.find((candidate) => candidate.name === name);
      expect(task).toBeDefined();
      expect(() => parseArgs(task!, hook.pass_filenames ? [...flags, "models/a.sql"] : flags)).not.toThrow();
      expect(hook.language).toBe("node");
    }
  });

  test("the package npm installs from this repository runs without a separate Bun (Bun is a dependency)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.dependencies.bun).toBeDefined();
    expect(pkg.bin.slp).toBe("bin/slp.cjs");
  });
});
