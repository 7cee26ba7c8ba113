/**
 * `slp review`: the document a pull request carries for Stage E's three
 * readings, from the spec, the pre-registration, the diffs, the unit results
 * and the mutation results, after the branch's history as gate reads it
 * (--base). Markdown on stdout; `--html FILE` writes the same as one page
 * and leaves stdout the one-line summary. A reading, not a gate: compare, unit and mutate block; review
 * exits 0 once the document is written, and 2 when it cannot read its inputs.
 */
import { maskEnvValues } from "../src/core/env-values.ts";
import { Type } from "@sinclair/typebox";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { InputError } from "../src/core/errors.ts";
import { summaryLine } from "../src/core/findings.ts";
import type { Report } from "../src/core/report.ts";
import { isMapping, type Mapping } from "../src/core/values.ts";
import { assertOneDiffPerModel, expandDiffArguments, readDiffFiles, readInputText } from "../src/project/history/diff-files.ts";
import { parseJson } from "../src/project/files/json.ts";
import { repositoryRoot } from "../src/project/slp/slp-yml.ts";
import { lineageEnvironment, MartsPathOption, ProjectDirOption, resolveProjectOnDisk } from "../src/project/slp/options.ts";
import { sensitiveLineage } from "../src/rules/shared/sensitive-lineage.ts";
import { openWorkTree } from "../src/project/open.ts";
import { buildReview, type MutationRead } from "../src/report/review.ts";
import { CheckContext, readCheckProject } from "../src/rules/context/check.ts";
import { defineTask, type TaskEnvironment } from "../src/runner/define-task.ts";
import type { ReviewHistory } from "../src/schemas/review.ts";
import type { UnitData } from "../src/schemas/unit.ts";
import compare from "./compare.ts";
import unit from "./unit.ts";

/** A mutation artifact larger than this is not one slp mutate wrote. */
const MUTATION_FILE_LIMIT = 16 * 1024 * 1024;

export default defineTask({
  name: "review",
  description:
    "Write the pull request's review document: grain and key, the numbers against their bands, each known edge with its unit test and mutants",
  informational: true,
  formats: ["markdown", "github"],
  input: Type.Object({
    diffs: Type.Optional(
      Type.Array(Type.String(), {
        positional: true,
        metavar: "DIFF.json",
        description: "the diffs, one per model (default: the project's diff/*.json); a quoted glob works",
      }),
    ),
    base: Type.Optional(
      Type.String({
        metavar: "REF",
        description: "the branch this one targets: a pre-registration identical to the merge-base's is inherited, not this branch's",
      }),
    ),
    html: Type.Optional(
      Type.String({
        metavar: "FILE",
        description: "write the review as one self-contained HTML page; stdout then carries only the summary line",
      }),
    ),
    projectDir: ProjectDirOption,
    martsPath: MartsPathOption,
  }),
  async run({ input, environment, run }): Promise<Report> {
    const resolved = resolveProjectOnDisk(environment.cwd, input.projectDir, input.martsPath);
    const project = await readCheckProject(
      openWorkTree(resolved.dir, environment.env),
      resolved.dir,
      resolved.dirAsGiven,
      resolved.martsPaths,
    );
    project.lineage = lineageEnvironment(resolved, environment);
    const context = new CheckContext(project);
    const paths = input.diffs?.length
      ? expandDiffArguments(environment.cwd, input.diffs)
      : defaultDiffs(environment.cwd, input.projectDir, resolved.dir);
    const diffs = readDiffFiles(environment.cwd, paths);
    assertOneDiffPerModel(diffs);
    const stale =
      input.base === undefined
        ? null
        : await (await import("../src/project/history/stale.ts")).readStaleSet(project, input.base, project.model.store);

    // The unit tests wait on DuckDB's start; compare and the history reading run meanwhile.
    const [compared, unitReport, history] = await Promise.all([
      paths.length === 0
        ? null
        : (run(compare, { diffs: paths, base: input.base, projectDir: input.projectDir, martsPath: input.martsPath }) as Promise<Report>),
      run(unit, { projectDir: input.projectDir }) as Promise<Report>,
      branchHistory(resolved.dir, input.base, input.martsPath, environment, project),
    ]);
    const tests = (unitReport.data as UnitData | undefined)?.tests ?? [];
    const lineage = await sensitiveLineage(context);

    const data = buildReview({
      projectAsGiven: input.projectDir,
      context,
      base: input.base ?? null,
      inherited: stale?.models ?? new Set(),
      diffs,
      compare: compared
        ? { summary: compared.summary ?? summaryLine(compared.command, compared.findings, compared.note), findings: compared.findings }
        : null,
      unit: {
        summary: unitReport.summary ?? "slp unit ran",
        status: new Map(tests.map((test) => [`${test.model}::${test.name}`, test.status])),
      },
      mutation: (model) => readMutation(resolved.dir, model),
      derivedSensitive: lineage?.derivedNames ?? [],
      history,
    });
    const [{ reviewMarkdown }, html] = await Promise.all([
      import("../src/report/review-markdown.ts"),
      input.html === undefined ? null : import("../src/report/review-html.ts"),
    ]);
    const markdown = reviewMarkdown(data);
    if (html && input.html !== undefined) writeOutput(environment.cwd, input.html, html.reviewHtml(data));
    const summary = `slp review: ${data.models.length} ${data.models.length === 1 ? "model" : "models"}${input.html ? `, written to ${input.html}` : ""}`;
    return {
      command: "review",
      findings: [],
      // With --html the document is the page: stdout keeps the summary (--format markdown still prints the Markdown).
      text: input.html === undefined ? markdown : `${summary}\n`,
      markdown,
      summary,
      data,
      notes: resolved.config.warnings,
    };
  },
});

/**
 * The branch's history as gate reads it, with --base; without one, or
 * outside git, why it was not read (the review says so rather than leave
 * the section out).
 */
async function branchHistory(
  dir: string,
  base: string | undefined,
  martsPath: string[] | undefined,
  environment: TaskEnvironment,
  project: Awaited<ReturnType<typeof readCheckProject>>,
): Promise<ReviewHistory> {
  // Reading git loads isomorphic-git and gate's readers: only with --base.
  if (base === undefined) {
    return historyNotRead(
      existsSync(join(repositoryRoot(dir), ".git"))
        ? "no --base REF given: slp review --base main reads the branch's commits as gate does"
        : "this project is not in a git repository: there is no branch history to read",
    );
  }
  const { readReviewHistory } = await import("../src/rules/context/review-history.ts");
  const workTree = new Map([...project.models.values()].map((model) => [model.name, model.preRegistration] as const));
  return readReviewHistory({ dir, base, martsPath, environment, store: project.model.store, workTree });
}

/** The section when the history is not read: why, instead of leaving it out. */
function historyNotRead(reason: string): ReviewHistory {
  return { read: false, reason, merge_base: null, commits: 0, agent_branch: false, branch: [], models: [] };
}

/** Without arguments: the project's diff/*.json, as paths relative to where slp runs (what compare is given). */
function defaultDiffs(cwd: string, projectAsGiven: string, projectDir: string): string[] {
  const folder = join(projectDir, "diff");
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) =>
      relative(cwd, join(resolve(cwd, projectAsGiven), "diff", name))
        .split(sep)
        .join("/"),
    );
}

/**
 * `mutation/<model>.json` (spec/rules.md §4.9), read for what review shows: the
 * counts and the survivors. No file: the mutation check has not run. A file
 * that is not such an artifact is exit 2 naming it, never read as "no survivor".
 */
function readMutation(projectDir: string, model: string): MutationRead | null {
  const folder = join(projectDir, "mutation");
  const path = join(folder, `${model}.json`);
  // A model named with a path in it must not make review read outside the project.
  if (dirname(path) !== folder || !existsSync(path)) return null;
  const file = relative(projectDir, path).split(sep).join("/");
  const fix = "run slp mutate again to rewrite it";
  if (statSync(path).size > MUTATION_FILE_LIMIT)
    throw new InputError(`is larger than ${MUTATION_FILE_LIMIT / 1024 / 1024} MiB; not a mutation artifact`, { file, fix });
  const value = parseJson(readInputText(projectDir, file, fix), { file, fix });
  const count = (key: string) =>
    isMapping(value) && Number.isInteger(value[key]) && (value[key] as number) >= 0 ? (value[key] as number) : null;
  const [killed, survived, equivalent] = [count("killed"), count("survived"), count("equivalent")];
  if (
    !isMapping(value) ||
    value.model !== model ||
    !Array.isArray(value.mutants) ||
    killed === null ||
    survived === null ||
    equivalent === null
  ) {
    throw new InputError(
      `is not the mutation artifact of ${model}: it needs model, mutants, killed, survived and equivalent (spec/rules.md §4.9)`,
      { file, fix },
    );
  }
  const survivors: MutationRead["survivors"] = [];
  for (const mutant of value.mutants) {
    if (!isMapping(mutant) || typeof mutant.verdict !== "string") throw new InputError("holds a mutant without a verdict", { file, fix });
    if (mutant.verdict !== "survived") continue;
    const m = mutant as Mapping;
    if (
      typeof m.id !== "string" ||
      typeof m.operator !== "string" ||
      typeof m.original !== "string" ||
      typeof m.replacement !== "string" ||
      !Number.isInteger(m.line)
    ) {
      throw new InputError("holds a surviving mutant without its id, operator, original, replacement and line", { file, fix });
    }
    survivors.push({ id: m.id, operator: m.operator, original: m.original, replacement: m.replacement, line: m.line as number });
  }
  return { killed, survived, equivalent, survivors };
}

function writeOutput(cwd: string, path: string, content: string): void {
  const target = resolve(cwd, path);
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, maskEnvValues(content));
  } catch (error) {
    throw new InputError(`cannot be written: ${(error as Error).message}`, { file: path, fix: "choose a path you can write to" });
  }
}
