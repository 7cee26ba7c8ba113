/**
 * The output formats: a golden file per format per task (the real CLI
 * in-process on test/fixtures/formats/project, which blocks and informs in
 * every command), SARIF validated against the official 2.1.0 schema, JUnit
 * read back by a real JUnit parser, GitHub's workflow-command escaping, the
 * job summary, the comment size limit, --quiet and --output.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseTestResults } from "test-results-parser";
import type { Report } from "../src/core/report.ts";
import { PLAIN_CONTEXT } from "../src/report/format.ts";
import { escapeData, escapeProperty, plainLines } from "../src/report/github.ts";
import { markdownOf } from "../src/report/markdown.ts";
import { COMMENT_LIMIT, fitToLimit, mdInline } from "../src/report/markdown-text.ts";
import { FORMATS } from "../src/report/renderers.ts";
import type { Finding } from "../src/schemas/finding.ts";
import { runCli, runMain, type CliResult } from "./support/cli.ts";
import { expectGolden } from "./support/fixtures.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { validateAgainst } from "./support/official-schema.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const FORMATS_DIR = join(import.meta.dir, "fixtures", "formats");
const PROJECT = join(FORMATS_DIR, "project");
const GOLDEN = join(import.meta.dir, "golden");
const SARIF_SCHEMA = join(import.meta.dir, "support", "schemas", "sarif-2.1.0.json");
const EXTENSION: Record<string, string> = {
  text: "txt",
  json: "json",
  github: "txt",
  sarif: "sarif",
  junit: "xml",
  markdown: "md",
  reference: "txt",
};
/**
 * Outside GitHub Actions: paths relative to where slp runs, no job summary;
 * git's clock fixed, so the commit tcr judges has the same id every run; and
 * no cache, so a golden never depends on the runs before it (mutate's kept
 * verdicts show in its data as `cached`).
 */
const NOT_IN_ACTIONS = {
  GITHUB_WORKSPACE: "",
  GITHUB_STEP_SUMMARY: "",
  GIT_AUTHOR_DATE: "1767225600 +0000",
  GIT_COMMITTER_DATE: "1767225600 +0000",
  SLP_NO_CACHE: "1",
};

/** Compares a run's stdout with test/golden/<task>/<format>.<ext>. */
function expectTaskGolden(task: string, format: string, stdout: string): void {
  expectGolden(join(GOLDEN, task, `${format}.${EXTENSION[format]}`), stdout);
}

/**
 * A repository holding the project in a subfolder (`warehouse/`): main has a
 * uniqueness test that can fail, the branch made it warn, so gate blocks.
 */
let repo: TempDir;
beforeAll(() => {
  repo = tempDir("slp-formats-");
  initRepo(repo.path);
  const project = join(repo.path, "warehouse");
  cpSync(PROJECT, project, { recursive: true });
  // ci's mutate stage writes warehouse/mutation/; ignored (as the README advises), so tcr leaves it be.
  writeFileSync(join(repo.path, ".git", "info", "exclude"), "mutation/\n");
  const yml = join(project, "models", "marts", "orders.yml");
  const weakened = readFileSync(yml, "utf8");
  writeFileSync(yml, weakened.replace("          - unique:\n              config: {severity: warn}\n", "          - unique\n"));
  commitAll(repo.path, "orders with a uniqueness test");
  git(repo.path, ["checkout", "-q", "-b", "feature"]);
  writeFileSync(yml, weakened);
  commitAll(repo.path, "the uniqueness test only warns");
  // An uncommitted step for tcr to judge (a comment: no other command reads it differently).
  const sql = join(project, "models", "marts", "orders.sql");
  writeFileSync(sql, `${readFileSync(sql, "utf8")}-- the next step\n`);
});
afterAll(() => repo[Symbol.dispose]());

/** Each task as a user runs it, from the folder above the project (so paths show the project's place). */
const RUNS: Record<string, { argv: string[]; cwd: () => string; exitCode: number }> = {
  check: { argv: ["check", "--project-dir", "project"], cwd: () => FORMATS_DIR, exitCode: 1 },
  compare: { argv: ["compare", "project/diff/orders.json", "--project-dir", "project"], cwd: () => FORMATS_DIR, exitCode: 1 },
  unit: { argv: ["unit", "--project-dir", "project"], cwd: () => FORMATS_DIR, exitCode: 1 },
  gate: { argv: ["gate", "--base", "main", "--project-dir", "warehouse"], cwd: () => repo.path, exitCode: 1 },
  ci: { argv: ["ci", "--base", "main", "--project-dir", "warehouse"], cwd: () => repo.path, exitCode: 1 },
  tcr: { argv: ["tcr", "the next step", "--dry-run", "--project-dir", "warehouse"], cwd: () => repo.path, exitCode: 1 },
};

describe("golden files: every format of every task", () => {
  for (const [task, run] of Object.entries(RUNS)) {
    for (const format of FORMATS) {
      test(`${task} --format ${format}`, async () => {
        const result = await runMain([...run.argv, "--format", format], run.cwd(), NOT_IN_ACTIONS);
        expect(result.exitCode).toBe(run.exitCode);
        expect(result.stderr).toBe("");
        expectTaskGolden(task, format, result.stdout);
      });
    }
  }
});

describe("sarif", () => {
  test("every task's log is valid against the official SARIF 2.1.0 schema, with the registry's rule metadata", async () => {
    for (const [task, run] of Object.entries(RUNS)) {
      const result = await runMain([...run.argv, "--format", "sarif"], run.cwd(), NOT_IN_ACTIONS);
      const log = JSON.parse(result.stdout);
      expect({ task, errors: validateAgainst(SARIF_SCHEMA, log) }).toEqual({ task, errors: [] });
      const [only] = log.runs;
      expect(only.results.length).toBeGreaterThan(0);
      for (const sarifResult of only.results) {
        const rule = only.tool.driver.rules[sarifResult.ruleIndex];
        expect(rule.id).toBe(sarifResult.ruleId);
        const location = sarifResult.locations[0]?.physicalLocation?.artifactLocation;
        if (location) {
          expect(location.uriBaseId).toBe("%SRCROOT%");
          expect(location.uri).not.toStartWith("/");
        }
      }
    }
  });

  test("T1's rule carries its summary, rationale and slp explain's text as help", async () => {
    const result = await runMain([...RUNS.check!.argv, "--format", "sarif"], FORMATS_DIR, NOT_IN_ACTIONS);
    const rule = JSON.parse(result.stdout).runs[0].tool.driver.rules.find((r: { id: string }) => r.id === "T1");
    const explain = await runMain(["explain", "T1"], FORMATS_DIR);
    expect(rule.name).toBe("pk-uniqueness-test");
    expect(rule.help.text).toBe(explain.stdout);
    expect(rule.defaultConfiguration.level).toBe("error");
    expect(rule.shortDescription.text.length).toBeGreaterThan(10);
  });

  test("a failed unit test is a result on its test's line", async () => {
    const result = await runMain([...RUNS.unit!.argv, "--format", "sarif"], FORMATS_DIR, NOT_IN_ACTIONS);
    const [failed] = JSON.parse(result.stdout).runs[0].results;
    expect(failed.ruleId).toBe("UNIT");
    expect(failed.level).toBe("error");
    expect(failed.locations[0].physicalLocation.artifactLocation.uri).toBe("project/models/marts/orders.yml");
    expect(failed.locations[0].physicalLocation.region.startLine).toBeGreaterThan(1);
  });

  test("paths are relative to GITHUB_WORKSPACE when it is set", async () => {
    const result = await runMain(["check", "--project-dir", "formats/project", "--format", "sarif"], join(FORMATS_DIR, ".."), {
      GITHUB_WORKSPACE: FORMATS_DIR,
    });
    const uris = JSON.parse(result.stdout).runs[0].results.map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri);
    expect(uris).toContain("project/models/marts/orders.yml");
  });
});

describe("junit", () => {
  test("a real JUnit parser reads each task's document: one testcase per rule and model, failures where a BLOCK is", async () => {
    using dir = tempDir();
    for (const [task, run] of Object.entries(RUNS)) {
      const result = await runMain([...run.argv, "--format", "junit"], run.cwd(), NOT_IN_ACTIONS);
      const file = join(dir.path, `${task}.xml`);
      writeFileSync(file, result.stdout);
      const parsed = parseTestResults({ type: "junit", files: [file] });
      expect(parsed.failed + parsed.errors).toBeGreaterThan(0);
      expect(parsed.total).toBe(parsed.suites.reduce((sum, suite) => sum + suite.cases.length, 0));
      if (task === "check") {
        // 13 check rules x 3 models, and T1 on orders fails.
        expect(parsed.total).toBe(39);
        const t1 = parsed.suites.find((suite) => suite.name === "T1 pk-uniqueness-test");
        expect(t1?.cases.find((testCase) => testCase.name === "orders")?.status).toBe("FAIL");
        expect(t1?.cases.find((testCase) => testCase.name === "stg_orders")?.status).toBe("PASS");
      }
      if (task === "unit") expect({ total: parsed.total, failed: parsed.failed }).toEqual({ total: 2, failed: 1 });
      if (task === "ci") expect(parsed.suites.some((suite) => suite.name === "orders")).toBe(true);
    }
  });

  test("a run that could not judge is an erroring testcase, never an empty green document", async () => {
    using dir = tempDir();
    const result = await runMain(["check", "--project-dir", "nowhere", "--format", "junit"], FORMATS_DIR);
    expect(result.exitCode).toBe(2);
    const file = join(dir.path, "error.xml");
    writeFileSync(file, result.stdout);
    const parsed = parseTestResults({ type: "junit", files: [file] });
    expect({ total: parsed.total, errors: parsed.errors }).toEqual({ total: 1, errors: 1 });
  });
});

describe("github", () => {
  test("data escapes %, CR and LF; properties also , and :", () => {
    expect(escapeData("100% done\r\nnext")).toBe("100%25 done%0D%0Anext");
    expect(escapeProperty("a,b:c%\n")).toBe("a%2Cb%3Ac%25%0A");
  });

  test("a line that could be read as a workflow command is printed with command processing stopped", () => {
    expect(plainLines(["PASS\tmodel::test\tedge"])).toBe("PASS\tmodel::test\tedge\n");
    const hostile = plainLines(["edge one\n  ::add-mask::secret", "slp unit: OK"]);
    const [first, ...rest] = hostile.split("\n");
    const token = /^::stop-commands::(slp-[0-9a-f]{32})$/.exec(first as string)?.[1];
    expect(token).toBeDefined();
    expect(rest).toEqual(["edge one", "  ::add-mask::secret", "slp unit: OK", `::${token}::`, ""]);
    expect(plainLines(["an old ##[set-env name=X]y command"])).toStartWith("::stop-commands::");
  });

  test("an agent's edge text cannot become a command of its own: every annotation is one line", async () => {
    const result = await runMain([...RUNS.check!.argv, "--format", "github"], FORMATS_DIR, NOT_IN_ACTIONS);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.filter((line) => line.startsWith("::error ")).length).toBe(2);
    expect(lines.filter((line) => line.startsWith("::notice ")).length).toBe(1);
    expect(lines.at(-1)).toBe("slp check: 2 blocks, 1 info - BLOCKED");
    expect(lines.find((line) => line.startsWith("::notice "))).toContain("title=I5 edge-readout (orders)::edge 'status='cancelled'");
  });

  test("the job summary is appended to GITHUB_STEP_SUMMARY as Markdown", async () => {
    using dir = tempDir();
    const summary = join(dir.path, "summary.md");
    writeFileSync(summary, "earlier step\n");
    const result = await runMain([...RUNS.check!.argv, "--format", "github"], FORMATS_DIR, {
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_WORKSPACE: "",
    });
    expect(result.exitCode).toBe(1);
    const written = readFileSync(summary, "utf8");
    expect(written).toStartWith("earlier step\n### ⛔ slp check: 2 blocks, 1 info - BLOCKED\n");
    expect(written).toContain("| ⛔ BLOCK | T1 pk-uniqueness-test |");
    // Other formats leave the job summary alone.
    await runMain([...RUNS.check!.argv, "--format", "sarif"], FORMATS_DIR, { GITHUB_STEP_SUMMARY: summary });
    expect(readFileSync(summary, "utf8")).toBe(written);
  });

  test("a run that could not judge is an ::error annotation", async () => {
    const result = await runMain(["check", "--project-dir", "nowhere", "--format", "github"], FORMATS_DIR, NOT_IN_ACTIONS);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toStartWith("::error title=slp check could not judge::");
    expect(result.stderr).toStartWith("ERROR ");
  });
});

describe("markdown", () => {
  test("text from the repository renders as written: no markup, no HTML, no mention, no broken table", () => {
    expect(mdInline("a | *b* <i>c</i> & @team `x` [l](u)\nnext")).toBe(
      "a \\| \\*b\\* &lt;i&gt;c&lt;/i&gt; &amp; @&#8203;team \\`x\\` \\[l\\](u)<br>next",
    );
  });

  const finding = (i: number, severity: "BLOCK" | "INFO"): Finding => ({
    severity,
    rule: severity === "BLOCK" ? "T1" : "I5",
    name: severity === "BLOCK" ? "pk-uniqueness-test" : "edge-readout",
    file: `models/marts/m${String(i).padStart(4, "0")}.yml`,
    model: `m${i}`,
    line: null,
    fix: "sql",
    message: `${"a long finding message ".repeat(8)}${i}`,
  });

  test("a report too long for a comment is cut to 65,536 characters, blocks kept, with the count of what is left out", () => {
    const findings = [
      ...Array.from({ length: 400 }, (_, i) => finding(i, "INFO")),
      ...Array.from({ length: 100 }, (_, i) => finding(i, "BLOCK")),
    ];
    const report: Report = { command: "check", findings };
    const text = markdownOf(report, PLAIN_CONTEXT);
    expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(text.split("\n").filter((line) => line.startsWith("| ⛔ BLOCK")).length).toBe(100);
    const shown = text.split("\n").filter((line) => line.startsWith("| ℹ️ INFO")).length;
    expect(shown).toBeLessThan(400);
    expect(text).toContain(`**${400 - shown} more findings not shown** (${400 - shown} infos)`);
    // Nothing is cut when it fits.
    expect(markdownOf({ command: "check", findings: findings.slice(0, 3) }, PLAIN_CONTEXT)).not.toContain("not shown");
  });

  test("a document too long is cut at a line, an open code fence closed, and the cut said", () => {
    const document = `# title\n\n\`\`\`\n${"x".repeat(100)}\n`.repeat(50);
    const cut = fitToLimit(document, "the rest is elsewhere", 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut).toContain("more lines did not fit");
    expect(cut).toEndWith("the rest is elsewhere.\n");
    expect(cut.split("\n").filter((line) => line === "```").length % 2).toBe(0);
  });
});

describe("--quiet and --output", () => {
  test("--quiet hides INFO lines; the summary still counts them", async () => {
    const result = await runMain([...RUNS.check!.argv, "--quiet"], FORMATS_DIR);
    expect(result.stdout.split("\n").filter((line) => line.startsWith("INFO"))).toEqual([]);
    expect(result.stdout).toContain("BLOCK\tmodels/marts/orders.yml:27\torders\t");
    expect(result.stdout).toEndWith("slp check: 2 blocks, 1 info - BLOCKED\n");
    const json = await runMain([...RUNS.check!.argv, "--quiet", "--format", "json"], FORMATS_DIR);
    expect(JSON.parse(json.stdout).findings.length).toBe(3);
  });

  test("--output writes the report to the file; the terminal gets the summary line", async () => {
    using dir = tempDir();
    const out = join(dir.path, "reports", "slp.sarif");
    const result = await runMain([...RUNS.check!.argv, "--format", "sarif", "--output", out], FORMATS_DIR, NOT_IN_ACTIONS);
    expect(result.stdout).toBe("slp check: 2 blocks, 1 info - BLOCKED\n");
    expect(result.exitCode).toBe(1);
    expect(validateAgainst(SARIF_SCHEMA, JSON.parse(readFileSync(out, "utf8")))).toEqual([]);
  });

  test("--output on a run that could not judge writes the format's error document", async () => {
    using dir = tempDir();
    const out = join(dir.path, "slp.sarif");
    const result = await runMain(["check", "--project-dir", "nowhere", "--format", "sarif", "--output", out], FORMATS_DIR);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    const log = JSON.parse(readFileSync(out, "utf8"));
    expect(validateAgainst(SARIF_SCHEMA, log)).toEqual([]);
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(false);
  });

  test("informational tasks take text and json only, and a format refused writes no document in it", async () => {
    const result = await runMain(["rules", "--format", "sarif"], FORMATS_DIR);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("argument --format: invalid choice: 'sarif' (choose from 'text', 'json')");
    expect(result.stdout).toBe("");
  });
});

describe("the real CLI", () => {
  test("slp check --format github and --format sarif --output as a subprocess", () => {
    using dir = tempDir();
    const github: CliResult = runCli([...RUNS.check!.argv, "--format", "github"], FORMATS_DIR, NOT_IN_ACTIONS);
    expect(github.exitCode).toBe(1);
    expect(github.stdout).toContain("::error file=project/models/marts/orders.yml,line=27,title=T1 pk-uniqueness-test (orders)::");
    const out = join(dir.path, "check.xml");
    const junit = runCli([...RUNS.check!.argv, "--format", "junit", "--output", out], FORMATS_DIR, NOT_IN_ACTIONS);
    expect(junit.stdout).toBe("slp check: 2 blocks, 1 info - BLOCKED\n");
    expect(readFileSync(out, "utf8")).toStartWith(
      '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="slp check" tests="39" failures="2"',
    );
  });
});
