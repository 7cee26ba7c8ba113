/**
 * `slp init` on a plain dbt project (test/fixtures/init/plain-dbt-project:
 * marts with no specs, an incremental mart): it adds Spec-Lock-Diff without
 * overwriting anything, then gate passes a branch that touches nothing
 * protected and check lists exactly the specs still missing. And the
 * CODEOWNERS it writes protects exactly what gate protects.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCodeowners } from "../src/project/slp/codeowners.ts";
import { parseConfig } from "../src/project/slp/slp-yml.ts";
import { DEFAULT_MARTS_PATHS } from "../src/project/files/paths.ts";
import { protectedEntries, protectedPatterns } from "../src/project/history/protected.ts";
import { codeowners, MODELS_SECTION, PROTECTED_SECTION, WORKFLOW_FILE } from "../src/init/files.ts";
import { Config } from "../src/schemas/config.ts";
import { VERSION } from "../src/version.ts";
import { MAX_MUTANTS } from "../tasks/mutate.ts";
import { DEFAULT_STEPS } from "../tasks/tcr.ts";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
const PLAIN = join(import.meta.dir, "fixtures", "init", "plain-dbt-project");
const QUICKSTART = join(ROOT, "examples", "quickstart");

function plainRepo(): TempDir {
  const dir = tempDir("slp-init-");
  cpSync(PLAIN, dir.path, { recursive: true });
  initRepo(dir.path);
  commitAll(dir.path, "a dbt project before slp");
  return dir;
}

describe("slp init on a plain dbt project", () => {
  test("writes every file, then gate passes a branch that touches nothing protected and check lists only the missing specs", async () => {
    using repo = plainRepo();
    const init = runCli(["init", "--agent-login", "data-agent[bot]"], repo.path);
    expect(init.stderr).toBe("");
    expect(init.stdout).toStartWith(
      ["wrote CODEOWNERS", "wrote AGENTS.md", `wrote ${WORKFLOW_FILE}`, "wrote slp.yml", "wrote .slp-version", "wrote tcr.sh", ""].join(
        "\n",
      ),
    );
    expect(init.exitCode).toBe(0);
    expect(statSync(join(repo.path, "tcr.sh")).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(repo.path, ".slp-version"), "utf8")).toBe(`${VERSION}\n`);
    expect(readFileSync(join(repo.path, WORKFLOW_FILE), "utf8")).toContain(
      "AGENT_PR: ${{ github.event.pull_request.user.login == 'data-agent[bot]' }}",
    );
    commitAll(repo.path, "add Spec-Lock-Diff");

    git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
    // A new staging model no mart reads yet (a change upstream of a mart would owe that mart a pre-registration, G15).
    writeFileSync(
      join(repo.path, "models", "staging", "stg_refunds.sql"),
      "select id as refund_id, order_id, amount_cents\nfrom {{ source('shop', 'refunds') }}\n",
    );
    commitAll(repo.path, "staging: refunds");
    const gate = await runMain(["gate"], repo.path);
    expect(gate.stdout).toBe("slp gate: OK (1 commit)\n");
    expect(gate.exitCode).toBe(0);

    const check = await runMain(["check", "--format", "json"], repo.path);
    const findings = JSON.parse(check.stdout).findings.map(
      (f: { rule: string; model: string; file: string }) => `${f.rule} ${f.model} ${f.file}`,
    );
    expect(findings).toEqual(["S1 fct_events models/marts/fct_events.yml", "S1 fct_orders models/marts/fct_orders.yml"]);
    expect(check.exitCode).toBe(1);
  });

  test("lists the incremental model's yml and sql in CODEOWNERS by name (S5)", () => {
    using repo = plainRepo();
    expect(runCli(["init"], repo.path).exitCode).toBe(0);
    const text = readFileSync(join(repo.path, "CODEOWNERS"), "utf8");
    const models = text
      .slice(text.indexOf(MODELS_SECTION))
      .split("\n")
      .filter((line) => line.startsWith("/"));
    expect(models.map((line) => line.split(/\s+/)[0])).toEqual(["/models/marts/fct_events.sql", "/models/marts/fct_events.yml"]);
  });

  test("overwrites nothing: a file that differs is listed and nothing changes; the same files again are kept", async () => {
    using repo = plainRepo();
    writeFileSync(join(repo.path, "AGENTS.md"), "# our own agent rules\n");
    mkdirSync(join(repo.path, ".claude"));
    writeFileSync(join(repo.path, ".claude", "settings.json"), `${JSON.stringify({ model: "opus" })}\n`);
    const refused = await runMain(["init", "--hooks"], repo.path);
    expect(refused.stderr).toBe(
      "ERROR slp init would change 2 files that already exist: AGENTS.md, .claude/settings.json; nothing was changed; move them aside, run slp init again and merge back what you need, or run slp init --force to replace them\n",
    );
    expect(refused.exitCode).toBe(2);
    expect(git(repo.path, ["status", "--porcelain"])).toBe("?? .claude/\n?? AGENTS.md");
    expect(existsSync(join(repo.path, "CODEOWNERS"))).toBe(false);

    const forced = await runMain(["init", "--hooks", "--force"], repo.path);
    expect(forced.exitCode).toBe(0);
    const settings = JSON.parse(readFileSync(join(repo.path, ".claude", "settings.json"), "utf8"));
    expect(settings.model).toBe("opus");
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toContain("guard --hook claude");

    const again = await runMain(["init", "--hooks"], repo.path);
    expect(again.stdout).toStartWith("kept CODEOWNERS\nkept AGENTS.md\n");
    expect(again.exitCode).toBe(0);
  });

  test("a CODEOWNERS GitHub reads first (.github/CODEOWNERS) is a conflict too", async () => {
    using repo = plainRepo();
    mkdirSync(join(repo.path, ".github"));
    writeFileSync(join(repo.path, ".github", "CODEOWNERS"), "* @someone\n");
    const result = await runMain(["init"], repo.path);
    expect(result.stderr).toStartWith(
      "ERROR slp init would change a file that already exists: CODEOWNERS (GitHub reads .github/CODEOWNERS first); nothing was changed",
    );
    expect(result.exitCode).toBe(2);
  });

  test("refuses a folder that is not a dbt project, and a login that is not one", async () => {
    using dir = tempDir();
    expect((await runMain(["init"], dir.path)).stderr).toStartWith("ERROR . has no dbt_project.yml, so it is not a dbt project");
    using repo = plainRepo();
    const bad = await runMain(["init", "--agent-login", "x' || true || '"], repo.path);
    expect(bad.stderr).toContain("--agent-login x' || true || ' is not a GitHub login");
    expect(bad.exitCode).toBe(2);
  });
});

describe("the CODEOWNERS slp init writes", () => {
  /** The patterns of the protected section, as CODEOWNERS lines (without the leading slash). */
  function protectedLines(text: string): string[] {
    const section = text.slice(text.indexOf(PROTECTED_SECTION), text.indexOf(MODELS_SECTION));
    return section
      .split("\n")
      .filter((line) => line.startsWith("/"))
      .map((line) => (line.split(/\s+/)[0] as string).slice(1));
  }

  /** A file a change to the pattern would touch. */
  function sampleFile(pattern: string): string {
    return pattern.endsWith("/") ? `${pattern}sample.sql` : pattern.replace("*", "sample.sql");
  }

  test("owns every path gate protects (G9's list and the other rules' paths), and the reverse", () => {
    const entries = protectedEntries({ prefix: "" });
    const text = codeowners(entries, [], VERSION);
    const owners = parseCodeowners(text, "CODEOWNERS");
    for (const pattern of protectedPatterns({ prefix: "" })) expect(owners.owns(sampleFile(pattern))).toBe(true);
    expect(protectedLines(text).sort()).toEqual(entries.map((entry) => entry.pattern).sort());
  });

  test("every path it lists is one gate blocks a branch for, by the rule it names", async () => {
    const entries = protectedEntries({ prefix: "" });
    const lines = protectedLines(codeowners(entries, [], VERSION));
    using repo = tempDir("slp-init-owners-");
    cpSync(QUICKSTART, repo.path, { recursive: true });
    mkdirSync(join(repo.path, "tests"), { recursive: true });
    writeFileSync(join(repo.path, "tests", "sample.sql"), "select 1 as id where false\n");
    initRepo(repo.path);
    commitAll(repo.path, "base");
    for (const pattern of lines) {
      const entry = entries.find((candidate) => candidate.pattern === pattern);
      git(repo.path, ["checkout", "-q", "-B", "agent/touch", "main"]);
      const file = pattern === "analyses/reconciliation_*" ? "analyses/reconciliation_fct_revenue_daily.sql" : sampleFile(pattern);
      mkdirSync(join(repo.path, file, ".."), { recursive: true });
      // dbt_project.yml stays a valid one (a broken one is exit 2 before any rule): the change is a comment.
      if (file === "dbt_project.yml") appendFileSync(join(repo.path, file), `# changed by the agent: ${pattern}\n`);
      else writeFileSync(join(repo.path, file), `-- changed by the agent: ${pattern}\n`);
      // G5 blocks a reconciliation query changed together with the model it checks.
      if (entry?.rule === "G5") writeFileSync(join(repo.path, "models/marts/finance/fct_revenue_daily.sql"), "select 1 as day\n");
      commitAll(repo.path, `touch ${pattern}`);
      const gate = JSON.parse((await runMain(["gate", "--format", "json"], repo.path)).stdout);
      const rules = gate.findings.filter((f: { severity: string }) => f.severity === "BLOCK").map((f: { rule: string }) => f.rule);
      expect({ pattern, blocked: rules.includes(entry?.rule) }).toEqual({ pattern, blocked: true });
    }
  });
});

describe("the slp.yml slp init writes", () => {
  const template = readFileSync(join(ROOT, "src", "init", "templates", "slp.yml.txt"), "utf8");

  test("is valid, and writes out every setting slp.yml has, each at its default (one whose default is worked out, commented out)", () => {
    const { config, warnings } = parseConfig(template, "slp.yml");
    expect(warnings).toEqual([]);
    const lines = template.split("\n");
    for (const key of Object.keys(Config.properties)) {
      const written = lines.some((line) => line.startsWith(`${key}:`) || line.startsWith(`# ${key}:`));
      expect({ key, written }).toEqual({ key, written: true });
    }
    expect(Object.keys(config).sort()).toEqual(["base", "lineage", "marts_paths", "mutate", "protected_paths", "tasks", "tcr"]);
    expect(config.lineage).toBe("all");
    expect(config.mutate).toEqual({ max_mutants: MAX_MUTANTS, min_score: {} });
    expect(config.marts_paths).toEqual(DEFAULT_MARTS_PATHS);
    expect(config.protected_paths).toEqual([]);
    expect(config.base).toBe("main");
    expect(config.tcr).toEqual({ steps: DEFAULT_STEPS, required: false });
    expect(config.tasks).toEqual({});
  });

  test("comments every setting", () => {
    const lines = template.split("\n");
    for (const key of Object.keys(Config.properties)) {
      const at = lines.findIndex((line) => line.startsWith(`${key}:`) || line.startsWith(`# ${key}:`));
      expect({ key, commented: (lines[at - 1] ?? "").startsWith("#") }).toEqual({ key, commented: true });
    }
  });
});
