/**
 * What `slp mutate` judges and what it judges by, read from git: the models
 * whose SQL changed against the base (marts, and models upstream of a mart),
 * and, from the base commit only, slp.yml and tests/mutation_equivalents.yml,
 * so a branch can neither loosen its minimum score nor excuse its own
 * survivors. The project graph here is the refs each model's SQL names; it
 * moves to the project model's DAG when that lands.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { GitError, InputError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";
import { Repository } from "../git/repository.ts";
import { loadConfig, type LoadedConfig } from "../project/slp/slp-yml.ts";
import type { RefNode, UnitProject as DbtProject } from "../project/dbt/unit-project.ts";
import { configAt } from "../project/history/history.ts";
import { normaliseMartsPath } from "../project/files/paths.ts";
import { blobId, readText } from "../project/files/source.ts";
import { sqlInputs } from "../project/dbt/sql-inputs.ts";
import { parseYamlWithPositions } from "../project/files/yaml.ts";
import { MutationEquivalents, type MutationEquivalent } from "../schemas/mutation.ts";
import { schemaProblems } from "../schemas/validate.ts";
import { readProjectBytes } from "../project/files/files.ts";
import { EQUIVALENTS_FILE } from "../project/history/protected.ts";

export interface BaseReading {
  /** The base as given, and the commit it names; null when the project is in no git repository. */
  ref: string | null;
  commit: string | null;
  repo: Repository | null;
  /** The merge-base of the base and HEAD: what "changed" is measured against. */
  mergeBase: string | null;
  /** The project dir relative to the repository root ("" at the root). */
  prefix: string;
  config: LoadedConfig;
  equivalents: MutationEquivalent[];
  /** Where the equivalents were read from, for the notes. */
  equivalentsFrom: string | null;
  /** Why the base could not be read (only with --select, which needs no base): then nothing is read from it. */
  unreadable: string | null;
}

/**
 * Opens the base: its commit, slp.yml and equivalents (unless told not to:
 * a dry run reads none). When the base cannot
 * be read and is not required (--select without --base), nothing is read
 * from it: no equivalents (every survivor blocks) and the work tree's slp.yml.
 */
export async function readBase(
  projectDir: string,
  base: string,
  required: boolean,
  options: { equivalents?: boolean } = {},
): Promise<BaseReading> {
  try {
    return await readBaseCommit(projectDir, base, options.equivalents !== false);
  } catch (error) {
    if (required || !(error instanceof GitError)) throw error;
    return {
      ref: null,
      commit: null,
      repo: null,
      mergeBase: null,
      prefix: "",
      config: loadConfig(projectDir),
      equivalents: [],
      equivalentsFrom: null,
      unreadable: error.message,
    };
  }
}

async function readBaseCommit(projectDir: string, base: string, withEquivalents: boolean): Promise<BaseReading> {
  const repo = Repository.open(projectDir);
  repo.assertFullHistory();
  const commit = await repo.resolveCommit(base);
  const head = await repo.resolveCommit("HEAD");
  const mergeBase = await repo.mergeBase(commit, head, [base, "HEAD"]);
  const prefix = repo.relativePath(projectDir);
  const config = await configAt(repo, commit, base);
  const path = prefix === "" ? EQUIVALENTS_FILE : `${prefix}/${EQUIVALENTS_FILE}`;
  const [file] = withEquivalents ? await repo.filesIn(commit, [path]) : [];
  const equivalents = file ? parseEquivalents(await repo.readText(file, base), `${EQUIVALENTS_FILE} at ${base}`) : [];
  return {
    ref: base,
    commit,
    repo,
    mergeBase,
    prefix,
    config,
    equivalents,
    equivalentsFrom: file ? `${EQUIVALENTS_FILE} at ${base}` : null,
    unreadable: null,
  };
}

/** tests/mutation_equivalents.yml: a list of {model, operator, original, occurrence, reason}; anything else is exit 2. */
function parseEquivalents(text: string, file: string): MutationEquivalent[] {
  const parsed = parseYamlWithPositions(text, { file });
  const value = parsed.value ?? [];
  const problems = schemaProblems(MutationEquivalents, value, EQUIVALENTS_FILE);
  if (problems.length > 0) {
    const problem = problems[0] as (typeof problems)[number];
    throw new InputError(problem.sentence, {
      file,
      line: parsed.lineOf(problem.path) ?? undefined,
      fix: "list each equivalent mutant as {model, operator, original, occurrence, reason} (schemas/mutation_equivalents.schema.json)",
    });
  }
  return value as MutationEquivalent[];
}

/** The models `slp mutate` selects by change: changed SQL, and a mart or upstream of one. */
export interface ChangedModels {
  models: string[];
  /** The changed models that are marts (a mart with no unit test blocks). */
  marts: Set<string>;
}

export async function changedModels(project: DbtProject, base: BaseReading, martsPaths: readonly string[]): Promise<ChangedModels> {
  const repo = base.repo as Repository;
  const models = project.refNodes.filter(
    (node): node is RefNode & { file: string } => node.kind === "model" && node.file !== null && node.file.endsWith(".sql"),
  );
  const inRepo = (file: string) => (base.prefix === "" ? file : `${base.prefix}/${file}`);
  const before = new Map(
    (
      await repo.filesIn(
        base.mergeBase as string,
        models.map((node) => inRepo(node.file)),
      )
    ).map((file) => [file.path, file.oid]),
  );
  const marts = martsPaths.map(normaliseMartsPath);
  const isMart = (node: RefNode & { file: string }) => marts.some((path) => node.file.startsWith(path));
  // Reverse reachability over refs: a model feeds a mart when a mart reads it, directly or through others.
  const readers = new Map<string, string[]>();
  for (const node of models) {
    for (const input of sqlInputs(readText(project.dir, node.file))) {
      const ref = /^ref\('(.*)'\)$/.exec(input)?.[1];
      if (ref) readers.set(ref, [...(readers.get(ref) ?? []), node.name]);
    }
  }
  const martNames = new Set(models.filter(isMart).map((node) => node.name));
  const feedsMart = new Set<string>();
  const visit = (name: string, seen: Set<string>): boolean => {
    if (martNames.has(name) || feedsMart.has(name)) return true;
    if (seen.has(name)) return false;
    seen.add(name);
    const found = (readers.get(name) ?? []).some((reader) => visit(reader, seen));
    if (found) feedsMart.add(name);
    return found;
  };
  const selected = new Set<string>();
  const changedMarts = new Set<string>();
  for (const node of models) {
    const oid = before.get(inRepo(node.file));
    if (oid !== undefined && oid === workTreeBlobId(project.dir, node.file)) continue;
    if (!visit(node.name, new Set())) continue;
    selected.add(node.name);
    if (martNames.has(node.name)) changedMarts.add(node.name);
  }
  return { models: [...selected].sort(compareCodePoints), marts: changedMarts };
}

/** The git blob id of a file in the work tree, or null when it is gone. */
function workTreeBlobId(dir: string, file: string): string | null {
  if (!existsSync(join(dir, file))) return null;
  // The safe read: a model that is a FIFO, a device or a link out of the repository is refused, never read.
  return blobId(readProjectBytes(dir, file));
}
