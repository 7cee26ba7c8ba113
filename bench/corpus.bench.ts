/**
 * Speed on a real project (issue 22): the corpus's largest project, the
 * BigQuery project teamster-kipptaf (about 1,450 SQL files), timed with the
 * binary and a warm cache when its extract is on this machine (corpus/
 * manifest.ts says where), and skipped, saying so, when it is not. Budgets:
 * gate over a three-commit branch 2 s; unit 0.5 s plus 20 ms per test; one
 * test alone 0.52 s; one `tcr --dry-run` attempt, green or red, 3 s.
 *
 * The extract is cloned (it is never changed) and its tests that do not pass
 * at the time (failures and refusals the corpus lists) have their yml taken
 * out on main, so every tcr attempt is judged on its own change: a test
 * failing at HEAD would make every attempt "cannot judge".
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { corpusDataDir, extractRoot, type ManifestProject, readManifest, unitArgs } from "../corpus/manifest.ts";
import { commitAll, git } from "../test/support/git-repo.ts";
import { buildOnce } from "./binary.bench.ts";
import type { Benchmark } from "./harness.ts";

export const LARGEST = "teamster-kipptaf";

/** What setup prepared once for every benchmark of the project. */
interface Prepared {
  slp: string;
  /** The project folder in the clone, on the branch with three commits. */
  branchDir: string;
  /** The project folder in a second work tree on a branch of main, where tcr attempts are made. */
  tcrDir: string;
  /** The tests that pass, each `model::test`, with its model's SQL file. */
  tests: { name: string; model: string; modelFile: string }[];
  /** The tested model tcr attempts change: the first whose change alone is green (gate asks no pre-registration of it). */
  tcrFile: string;
}

let prepared: Prepared | null = null;

/** The project, or why it is skipped. */
function largest(): { project: ManifestProject; root: string } | { skipped: string } {
  const project = readManifest().find((entry) => entry.name === LARGEST);
  if (!project) return { skipped: `${LARGEST} is not in corpus/projects.yml` };
  const root = extractRoot(project, corpusDataDir());
  if (root === null) return { skipped: `no extract of ${LARGEST} in ${corpusDataDir()} (bun corpus/extract.ts ${LARGEST})` };
  return { project, root };
}

function prepare(workDir: string): Prepared {
  if (prepared) return prepared;
  const found = largest();
  if ("skipped" in found) throw new Error(found.skipped);
  const { project, root } = found;
  const slp = buildOnce(workDir);
  const clone = join(workDir, "corpus-largest");
  git(workDir, ["clone", "-q", root, clone]);
  const dir = join(clone, project.subfolder);
  const run = Bun.spawnSync([slp, "unit", ...unitArgs(project), "--format", "json"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const tests: { status: string; model: string; name: string; file: string }[] = JSON.parse(run.stdout.toString()).data?.tests ?? [];
  const notPassing = new Set(tests.filter((test) => test.status !== "pass").map((test) => test.file));
  for (const file of notPassing) git(dir, ["rm", "-q", file]);
  commitAll(clone, "bench: keep only the tests that pass");
  const passing = tests.filter((test) => test.status === "pass" && !notPassing.has(test.file));
  const modelFiles = new Map<string, string>();
  for (const file of git(dir, ["ls-files", "--", "models"]).split("\n")) {
    const model = /([^/]+)\.sql$/.exec(file)?.[1];
    if (model) modelFiles.set(model, file);
  }
  const testsWithFiles = passing.flatMap((test) => {
    const modelFile = modelFiles.get(test.model);
    return modelFile ? [{ name: `${test.model}::${test.name}`, model: test.model, modelFile }] : [];
  });
  if (testsWithFiles.length === 0) throw new Error(`${LARGEST}: no unit test passes, so there is nothing to time`);
  // The tcr branch: a work tree of its own, so the gate branch's commits are not under it.
  const tcrTree = join(workDir, "corpus-largest-tcr");
  git(clone, ["worktree", "add", "-q", "-b", "bench/tcr", tcrTree]);
  const tcrDir = join(tcrTree, project.subfolder);
  const tcrFile = [...new Set(testsWithFiles.map((test) => test.modelFile))].find((file) => {
    const path = join(tcrDir, file);
    const original = readFileSync(path, "utf8");
    writeFileSync(path, `${original}\n-- bench: is this change alone green?\n`);
    const green = Bun.spawnSync([slp, "tcr", "bench: probe", "--dry-run"], { cwd: tcrDir, stdout: "pipe", stderr: "pipe" }).exitCode === 0;
    writeFileSync(path, original);
    return green;
  });
  if (tcrFile === undefined) throw new Error(`${LARGEST}: no tested model's change alone is a green tcr step`);
  // The gate branch: three commits, each changing one tested model's SQL.
  git(clone, ["checkout", "-q", "-b", "bench/change"]);
  const touched = [...new Set(testsWithFiles.map((test) => test.modelFile))].slice(0, 3);
  for (const [i, file] of touched.entries()) {
    appendFileSync(join(dir, file), `\n-- bench: change ${i + 1}\n`);
    commitAll(clone, `bench: change ${file}`);
  }
  prepared = { slp, branchDir: dir, tcrDir, tests: testsWithFiles, tcrFile };
  return prepared;
}

/** A benchmark of the project (its budget fixed, or from the tests there are); a skipped one says why instead of running. */
function corpusBenchmark(
  name: string,
  budget: number | ((p: Prepared) => number),
  timed: (p: Prepared) => { argv: string[]; cwd: string },
  extra: Pick<Benchmark, "expectExit" | "beforeEach"> = {},
): Benchmark {
  const found = largest();
  const benchmark: Benchmark & { budgetMs: number } = {
    name: `${LARGEST}: ${name}`,
    budgetMs: typeof budget === "number" ? budget : Number.NaN,
    runs: 5,
    skip: "skipped" in found ? found.skipped : undefined,
    setup(workDir) {
      const p = prepare(workDir);
      if (typeof budget === "function") benchmark.budgetMs = budget(p);
      return timed(p);
    },
    ...extra,
  };
  return benchmark;
}

/** One tcr attempt per run, each on a change of its own (the model's translation is not in the cache, as after an agent's edit). */
function tcrAttempt(kind: "green" | "red"): Benchmark {
  let file = "";
  let original = "";
  let step = 0;
  return corpusBenchmark(
    `one tcr --dry-run attempt, ${kind}`,
    3000,
    (p) => {
      file = join(p.tcrDir, p.tcrFile);
      original = readFileSync(file, "utf8");
      return { argv: [p.slp, "tcr", `bench: a ${kind} step`, "--dry-run"], cwd: p.tcrDir };
    },
    {
      expectExit: kind === "green" ? 0 : 1,
      beforeEach() {
        step++;
        // Red: the model selects a column no input has, so its tests cannot pass (unit at HEAD runs too).
        const body = kind === "green" ? original : original.replace(/\bselect\b/i, "select no_such_column_in_bench,");
        writeFileSync(file, `${body}\n-- bench: attempt ${step}\n`);
      },
    },
  );
}

export const benchmarks: Benchmark[] = [
  corpusBenchmark("gate, three-commit branch", 2000, (p) => ({ argv: [p.slp, "gate", "--base", "main"], cwd: p.branchDir }), {
    // Blocks or passes: both are verdicts on this branch (a pre-registration it lacks is a block).
    expectExit: [0, 1],
  }),
  // 0.5 s fixed plus 20 ms per test, for the tests there are.
  corpusBenchmark(
    "unit, every test",
    (p) => 500 + 20 * p.tests.length,
    (p) => ({ argv: [p.slp, "unit"], cwd: p.branchDir }),
  ),
  corpusBenchmark("unit, one test alone (--select)", 520, (p) => ({
    argv: [p.slp, "unit", "--select", (p.tests[0] as Prepared["tests"][number]).name],
    cwd: p.branchDir,
  })),
  tcrAttempt("green"),
  tcrAttempt("red"),
];
