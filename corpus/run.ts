/**
 * `bun run corpus [name...]`: runs slp, as the real CLI, on every corpus
 * project whose extract is on this machine (or the named ones): the models
 * it renders, its unit tests, `check`, and `gate` on a synthetic one-commit
 * change in a temporary clone, each timed and bounded. Writes
 * corpus/results.json and corpus/RESULTS.md; a project not named keeps its
 * committed results.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_FILE, settingsFromText } from "../src/project/dbt/dbt-project.ts";
import { corpusDataDir, extractRoot, type ManifestProject, martsArgs, readManifest, renderArgs, unitArgs } from "./manifest.ts";
import { type ProjectResultT, RESULTS_JSON, RESULTS_MD, type ResultsT, readResults, readTriage, resultsMarkdown } from "./results.ts";

const CLI = join(import.meta.dir, "..", "src", "cli.ts");
/** One slp command on one project may take this long; past it the step is recorded as a timeout. */
const STEP_TIMEOUT_MS = 300_000;
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "corpus",
  GIT_AUTHOR_EMAIL: "corpus@localhost",
  GIT_COMMITTER_NAME: "corpus",
  GIT_COMMITTER_EMAIL: "corpus@localhost",
};

interface Envelope {
  exit_code: number;
  summary: string;
  data?: any;
  errors?: { message: string; file: string | null; line: number | null }[];
}

export interface StepRun {
  exit: number | null;
  ms: number;
  summary: string;
  envelope: Envelope | null;
}

/** Runs `slp <args> --format json` in `cwd`, as a user would. */
export function slp(args: string[], cwd: string, env: Record<string, string | undefined> = process.env): StepRun {
  const started = performance.now();
  const result = Bun.spawnSync([process.execPath, CLI, ...args, "--format", "json"], {
    cwd,
    env: { ...env, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: STEP_TIMEOUT_MS,
  });
  const ms = Math.round(performance.now() - started);
  if (result.exitCode === null) return { exit: null, ms, summary: `timed out after ${STEP_TIMEOUT_MS / 1000} s`, envelope: null };
  const stdout = result.stdout.toString();
  try {
    const envelope = JSON.parse(stdout) as Envelope;
    // An error's summary is only "slp <task>: ERROR": the first error says what stopped it.
    const error = envelope.errors?.[0];
    const where = error?.file ? `${error.file}${error.line ? `:${error.line}` : ""}: ` : "";
    const summary = error ? `${envelope.summary}: ${where}${error.message}` : envelope.summary;
    return { exit: result.exitCode, ms, summary, envelope };
  } catch {
    const said = `${result.stderr.toString()}${stdout}`.trim().split("\n")[0] ?? "";
    return { exit: result.exitCode, ms, summary: said, envelope: null };
  }
}

function git(args: string[], cwd: string): string {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: { ...process.env, ...GIT_IDENTITY }, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} in ${cwd}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/**
 * What slp said, as results.json keeps it: on one line (a message can run over
 * several, as a macro's compiler error does), at most 300 characters; a longer
 * one (a refusal quoting a whole template) keeps its start and its end, where
 * the reason is.
 */
const firstLine = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 150)} … ${line.slice(-150)}` : line;
};

/** The models refused in mutate's dry run, from its summary: "<model> cannot be rendered, so its mutants cannot be listed: <why>". */
function renderRefusals(summary: string): { name: string; construct: string }[] {
  const refusals: { name: string; construct: string }[] = [];
  const pattern =
    /([\w.-]+) cannot be rendered, so its mutants cannot be listed: (.*?)(?=; [\w.-]+ cannot be rendered, so|\s\(dry run|$)/gs;
  for (const match of summary.matchAll(pattern)) refusals.push({ name: match[1]!, construct: firstLine(match[2]!) });
  return refusals.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The project's model folders, as slp reads dbt_project.yml. */
function modelPaths(projectDir: string): string[] {
  return settingsFromText(readFileSync(join(projectDir, PROJECT_FILE), "utf8"), PROJECT_FILE, undefined).paths.model;
}

/** Runs the corpus on one project in a temporary clone of its extract. */
export function runProject(project: ManifestProject, root: string): ProjectResultT {
  const clone = mkdtempSync(join(tmpdir(), `slp-corpus-${project.name}-`));
  try {
    git(["clone", "-q", root, clone], tmpdir());
    const dir = join(clone, project.subfolder);

    const selectAll = modelPaths(dir).flatMap((path) => ["--select", `path:${path}`]);
    const models = slp(["mutate", "--dry-run", ...selectAll, ...renderArgs(project)], dir);
    const listed: { model: string; file: string }[] = models.envelope?.data?.models ?? [];
    const modelRefusals = renderRefusals(models.envelope?.summary ?? "");

    const unit = slp(["unit", ...unitArgs(project)], dir);
    const tests: any[] = unit.envelope?.data?.tests ?? [];
    const key = (test: any) => `${test.model}::${test.name}`;
    const passed = tests.filter((test) => test.status === "pass").map(key);
    const failed = tests.filter((test) => test.status === "fail").map((test) => ({ name: key(test), detail: failureDetail(test.diff) }));
    const refused = tests
      .filter((test) => test.status === "error")
      .map((test) => ({ name: key(test), construct: firstLine(test.error?.message ?? "error") }));

    const check = slp(["check", ...martsArgs(project)], dir);

    const changed = listed[0]?.file ?? firstModelFile(dir);
    const gate = syntheticGate(clone, project, changed);

    const readNothing = listed.length === 0 && modelRefusals.length === 0 && unit.envelope?.data?.tests === undefined;
    return {
      name: project.name,
      repo: project.repo,
      commit: project.commit,
      adapter: project.adapter,
      models: { step: stepOf(models), rendered: listed.length, refused: modelRefusals },
      unit: { step: stepOf(unit), passed, failed, refused, disabled: unit.envelope?.data?.counts?.disabled ?? 0 },
      check: stepOf(check),
      gate: { ...stepOf(gate), changed },
      refusedWhole: readNothing ? firstLine(unit.summary || models.summary) : null,
    };
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}

const stepOf = (step: StepRun) => ({ exit: step.exit, ms: step.ms, summary: firstLine(step.summary) });

/** A failed test's diff in one line: how many rows were missing and unexpected. */
function failureDetail(diff: { rows: { side: string }[] } | null): string {
  if (!diff) return "failed";
  const expected = diff.rows.filter((row) => row.side === "expected").length;
  const actual = diff.rows.filter((row) => row.side === "actual").length;
  return `${expected} expected row(s) not returned, ${actual} returned row(s) not expected`;
}

function firstModelFile(dir: string): string {
  const files = git(["ls-files", "--", `${modelPaths(dir)[0]}/`], dir)
    .split("\n")
    .filter((file) => file.endsWith(".sql"))
    .sort();
  return files[0] ?? "";
}

/** `slp gate --base main` after one commit that adds a comment to one model's SQL: the smallest change an agent makes. */
function syntheticGate(clone: string, project: ManifestProject, changed: string): StepRun {
  const dir = join(clone, project.subfolder);
  if (!changed) return { exit: null, ms: 0, summary: "no model file to change", envelope: null };
  git(["checkout", "-q", "-b", "corpus-change"], clone);
  appendFileSync(join(dir, changed), "\n-- corpus: a synthetic one-line change\n");
  git(["commit", "-q", "--no-verify", "-am", "corpus: touch one model"], clone);
  return slp(["gate", "--base", "main", ...martsArgs(project)], dir);
}

function slpCommit(): string {
  const result = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: import.meta.dir, stdout: "pipe" });
  return result.stdout.toString().trim();
}

if (import.meta.main) {
  const wanted = process.argv.slice(2);
  const dataDir = corpusDataDir();
  const manifest = readManifest();
  for (const name of wanted)
    if (!manifest.some((project) => project.name === name)) throw new Error(`no project '${name}' in corpus/projects.yml`);
  const previous: ResultsT | null = existsSync(RESULTS_JSON) ? readResults() : null;
  const results: ProjectResultT[] = [];
  for (const project of manifest) {
    const root = extractRoot(project, dataDir);
    const kept = previous?.projects.find((result) => result.name === project.name);
    if ((wanted.length > 0 && !wanted.includes(project.name)) || root === null) {
      if (root === null && (wanted.length === 0 || wanted.includes(project.name)))
        console.log(`${project.name}: no extract in ${dataDir} (bun corpus/extract.ts ${project.name})`);
      if (kept) results.push(kept);
      continue;
    }
    const result = runProject(project, root);
    results.push(result);
    console.log(
      `${project.name.padEnd(36)} models ${result.models.rendered}/${result.models.refused.length}  unit ${result.unit.passed.length}/${result.unit.failed.length}/${result.unit.refused.length}  check ${result.check.exit}  gate ${result.gate.exit}`,
    );
  }
  const output: ResultsT = { slp: slpCommit(), projects: results };
  writeFileSync(RESULTS_JSON, `${JSON.stringify(output, null, 2)}\n`);
  writeFileSync(RESULTS_MD, resultsMarkdown(output, readTriage()));
}
