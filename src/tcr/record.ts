/**
 * The loop's record as CI can check it (`gate --verify-commits`): which
 * commits of a branch tcr made (their trailers), which follow a strike reset,
 * which merges hold more than git's own merge of their parents, and, for
 * each that claims a green tcr step, whether check and unit are
 * green there: each re-run in-process on the commit's files, and judged
 * against its first parent's, as tcr judges a step against HEAD. Every
 * commit the branch brings is read, those of side branches merged into it
 * too: a red step committed by hand on a side branch does not vanish in the
 * merge.
 */
import { EXIT } from "../core/exit-codes.ts";
import { describeReportError } from "../core/report.ts";
import { TreeCheckout } from "../git/checkout.ts";
import { mergeEdits, type MergeEdits } from "../git/merge.ts";
import type { Repository } from "../git/repository.ts";
import type { Branch } from "../project/history/history.ts";
import type { BranchInventories, WalkStep } from "../rules/context/gate-inventory.ts";
import { inputFor, runStage, stageSummary, type StageResult } from "../runner/compose.ts";
import type { Task, TaskEnvironment } from "../runner/define-task.ts";
import { registryOf } from "../runner/registry.ts";
import { ResourcePool } from "../runner/shared.ts";
import { findingKey, stageFindings } from "../runner/stage-findings.ts";
import type { Config } from "../schemas/config.ts";
import type { Finding } from "../schemas/finding.ts";
import { readTrailers, TRAILER, trailerValues } from "./trailers.ts";

/** The steps a commit's claim is checked with. */
export const VERIFIED_STEPS = ["check", "unit"] as const;

export interface RecordCommit {
  commit: string;
  /** `<short sha> by <author>`. */
  label: string;
  /** The first parent, the state the commit is judged against. */
  parent: string | null;
  /** The commit says tcr made it with every step green (`Slp-Tcr: green`). */
  byTcr: boolean;
  /** The strike resets recorded in it (`Slp-Tcr-Reset`). */
  resets: string[];
  merge: boolean;
  /**
   * For a merge tcr did not make: where its tree differs from git's own merge
   * of its parents (conflicts resolved, or anything else written by hand);
   * null for any other commit.
   */
  edits: MergeEdits | null;
}

/** A merge whose tree is git's own merge of its parents: nothing in it was written by hand. */
export function cleanMerge(commit: RecordCommit): boolean {
  return commit.edits !== null && commit.edits.unreproducible === null && commit.edits.paths.length === 0;
}

export interface RedClaim {
  commit: RecordCommit;
  step: string;
  /** A block the commit has and its parent has not; null when the step could not judge there. */
  finding: Finding | null;
  /** Why the step could not judge at the commit (its parent could). */
  error: string | null;
}

export interface RecordOptions {
  repo: Repository;
  /** The project folder relative to the repository root. */
  prefix: string;
  /** Every commit the branch brings (side branches merged in included), parents first, head last. */
  walk: WalkStep[];
  /** slp.yml as the base has it. */
  config: Config;
  /** The marts paths gate judges with (--marts-path, else the base's slp.yml), check's at every commit too. */
  martsPaths: string[];
  environment: TaskEnvironment;
  /** check and unit, as the registry has them. */
  tasks: Task<any, any>[];
}

/** The record gate verifies: when --verify-commits says so, else when slp.yml on the base says tcr: required; null otherwise. */
export async function verifiedRecord(
  flag: boolean | undefined,
  branch: Branch,
  read: BranchInventories,
  environment: TaskEnvironment,
): Promise<TcrRecord | null> {
  if (!(flag ?? tcrRequired(read.config.config))) return null;
  const registry = registryOf(environment.registry);
  const tasks = VERIFIED_STEPS.map((name) => registry.builtIns.find((task) => task.name === name)).filter((task) => task !== undefined);
  return TcrRecord.read({
    repo: branch.repo,
    prefix: branch.prefix,
    walk: read.range,
    config: read.config.config,
    martsPaths: read.martsPaths,
    environment,
    tasks,
  });
}

export function tcrRequired(config: Config): boolean {
  return config.tcr === "required" || (typeof config.tcr === "object" && config.tcr.required === true);
}

export class TcrRecord {
  /** slp.yml (on the base) says tcr: required: the record's reports block. */
  readonly required: boolean;
  readonly commits: RecordCommit[];
  readonly #options: RecordOptions;
  #claims?: Promise<RedClaim[]>;

  private constructor(options: RecordOptions, commits: RecordCommit[]) {
    this.#options = options;
    this.required = tcrRequired(options.config);
    this.commits = commits;
  }

  static async read(options: RecordOptions): Promise<TcrRecord> {
    const { repo } = options;
    const commits: RecordCommit[] = [];
    for (const step of options.walk) {
      const commit = await repo.readCommit(step.commit);
      const trailers = readTrailers(commit.message);
      const merge = commit.parents.length > 1;
      // tcr never makes a merge, so a merge's green trailer was written by hand: the merge is
      // judged by its tree (git's own merge of its parents, or edits made by hand), not its message.
      const byTcr = !merge && trailerValues(trailers, TRAILER.tcr).some((value) => value.trim().toLowerCase() === "green");
      commits.push({
        commit: step.commit,
        label: step.label,
        parent: commit.parents[0] ?? null,
        byTcr,
        resets: trailerValues(trailers, TRAILER.reset),
        merge,
        edits: merge ? await mergeEdits(repo, step.commit) : null,
      });
    }
    return new TcrRecord(options, commits);
  }

  /** An agent branch: tcr: required says every branch is one; otherwise one where tcr made a commit. */
  get agentBranch(): boolean {
    return this.required || this.commits.some((commit) => commit.byTcr);
  }

  /** Every commit that claims a green tcr step where check or unit is red (re-run once per distinct tree). */
  redClaims(): Promise<RedClaim[]> {
    this.#claims ??= this.#verify();
    return this.#claims;
  }

  async #verify(): Promise<RedClaim[]> {
    const claiming = this.commits.filter((commit) => commit.byTcr && commit.parent !== null);
    if (claiming.length === 0) return [];
    const { repo, prefix, tasks } = this.#options;
    const checkout = TreeCheckout.open(repo, prefix);
    // One embedded database for every unit run, instead of one opened per commit.
    const pool = new ResourcePool();
    const environment: TaskEnvironment = { ...this.#options.environment, shared: pool };
    const byKey = new Map<string, Map<string, StageResult>>();
    const judge = async (commit: string): Promise<Map<string, StageResult>> => {
      const key = await checkout.moveTo(commit);
      let results = byKey.get(key);
      if (!results) {
        results = new Map();
        for (const task of tasks)
          results.set(
            task.name,
            await runStage(task, inputFor(task, { projectDir: checkout.projectDir, martsPath: this.#options.martsPaths }), environment),
          );
        byKey.set(key, results);
      }
      return results;
    };
    const claims: RedClaim[] = [];
    try {
      for (const commit of claiming) {
        const before = await judge(commit.parent as string);
        const after = await judge(commit.commit);
        for (const task of tasks) claims.push(...compare(commit, task.name, before.get(task.name), after.get(task.name)));
      }
    } finally {
      checkout.close();
      pool.close();
    }
    return claims;
  }
}

/** What a step says at a commit that it did not say at the parent. */
function compare(commit: RecordCommit, step: string, before: StageResult | undefined, after: StageResult | undefined): RedClaim[] {
  if (!after || after.exitCode === EXIT.ok) return [];
  if (after.exitCode === EXIT.cannotJudge) {
    const error = errorOf(after);
    if (before?.exitCode === EXIT.cannotJudge && errorOf(before) === error) return [];
    return [{ commit, step, finding: null, error }];
  }
  const known = new Set(before && before.exitCode !== EXIT.cannotJudge ? stageFindings(before.report).map(findingKey) : []);
  const blocks = stageFindings(after.report).filter((finding) => finding.severity === "BLOCK" && !known.has(findingKey(finding)));
  if (blocks.length === 0 && stageFindings(after.report).some((finding) => finding.severity === "BLOCK")) return [];
  if (blocks.length === 0) return [{ commit, step, finding: null, error: stageSummary(after) }];
  return blocks.map((finding) => ({ commit, step, finding, error: null }));
}

function errorOf(result: StageResult): string {
  const error = result.report.errors?.[0];
  return error ? describeReportError(error, false) : stageSummary(result);
}
