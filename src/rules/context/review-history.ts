/**
 * The branch's history as `slp review` shows it first: what gate reports
 * about the record (I1 and G17 on a pre-registration's edits, G12's commits
 * outside tcr and merges edited by hand, G13's strike resets) and the strikes
 * tcr counted, read the way gate reads them (the same walk, inventories and
 * record), each with its commit and what happened. Loaded only by review
 * with --base, which alone reads git.
 */
import { existsSync, readFileSync } from "node:fs";
import { formatNumber } from "../../core/numbers.ts";
import { plural, sortByText } from "../../core/text.ts";
import { canonicalJson, isMapping, isStringList, type Mapping, type Value } from "../../core/values.ts";
import { openBranch } from "../../project/history/history.ts";
import type { ParseStore } from "../../project/model.ts";
import type { TaskEnvironment } from "../../runner/define-task.ts";
import type { ReviewHistory, ReviewHistoryEntry } from "../../schemas/review.ts";
import { Ledger, type Attempt } from "../../tcr/ledger.ts";
import { cleanMerge, TcrRecord } from "../../tcr/record.ts";
import { readTrailers, TRAILER, trailerValues } from "../../tcr/trailers.ts";
import { GateContext } from "./gate.ts";
import { readInventories } from "./gate-history.ts";

/** Paths a merge entry names before it counts the rest (as G12 does). */
const NAMED_PATHS = 10;

export interface HistoryOptions {
  /** The project folder, absolute. */
  dir: string;
  base: string;
  martsPath: string[] | undefined;
  environment: TaskEnvironment;
  store: ParseStore;
  /** Each model's pre-registration in the work tree (what review reads), by name. */
  workTree: ReadonlyMap<string, Value>;
}

export async function readReviewHistory(options: HistoryOptions): Promise<ReviewHistory> {
  const branch = await openBranch({ dir: options.dir, base: options.base, head: "HEAD" });
  const { repo } = branch;
  const short = (oid: string) => repo.shortSha(oid);
  const models = new Map<string, ReviewHistoryEntry[]>();
  const add = (model: string, entry: ReviewHistoryEntry) => models.set(model, [...(models.get(model) ?? []), entry]);
  const branchWide: ReviewHistoryEntry[] = [];
  let agentBranch = false;

  if (branch.commits.length > 0) {
    const read = await readInventories(branch, options.martsPath, options.store);
    const ctx = new GateContext({ ...read, baseName: options.base });
    for (const model of ctx.headModels) {
      if (model.preRegistration === null) continue;
      for (const entry of await preRegistrationEdits(ctx, model.name)) add(model.name, entry);
    }
    for (const [name, value] of options.workTree) {
      const head = ctx.after.models.get(name)?.preRegistration ?? null;
      if (!isMapping(value) || canonicalJson(value) === canonicalJson(head)) continue;
      add(name, {
        commit: null,
        rule: null,
        kind: "pre-registration-uncommitted",
        text: `the pre-registration in the work tree is not the one committed at ${short(branch.headCommit)} (this review reads the work tree's): ${changesText(head, value)}`,
      });
    }
    // The record as gate --verify-commits reads it, without re-running the steps at every commit (that is G11's, in gate).
    const record = await TcrRecord.read({
      repo,
      prefix: branch.prefix,
      walk: read.range,
      config: read.config.config,
      martsPaths: read.martsPaths,
      environment: options.environment,
      tasks: [],
    });
    agentBranch = record.agentBranch;
    for (const commit of record.commits) {
      const id = short(commit.commit);
      if (commit.byTcr) {
        const strikes = trailerValues(readTrailers((await repo.readCommit(commit.commit)).message), TRAILER.strikes)
          .map((value) => Number.parseInt(value, 10))
          .find((value) => Number.isFinite(value) && value > 0);
        if (strikes !== undefined) {
          branchWide.push({
            commit: id,
            rule: null,
            kind: "strikes",
            text: `the green step ${by(commit.label)} after ${plural(strikes, "red attempt")} in a row (${plural(strikes, "strike")}, each reverted by tcr)`,
          });
        }
      }
      for (const reset of commit.resets) {
        branchWide.push({
          commit: id,
          rule: "G13",
          kind: "strike-reset",
          text: `a tcr step ${by(commit.label)} after a reset of the strike count (${reset}): five reds in a row stop the agent until a human has looked`,
        });
      }
      if (!record.agentBranch || commit.byTcr || cleanMerge(commit)) continue;
      const edits = commit.edits;
      branchWide.push(
        edits === null
          ? {
              commit: id,
              rule: "G12",
              kind: "commit-outside-tcr",
              text: `a commit ${by(commit.label)} that slp tcr did not make: check and the unit tests did not judge it, and no strike could count`,
            }
          : {
              commit: id,
              rule: "G12",
              kind: "merge-by-hand",
              text:
                edits.unreproducible !== null
                  ? `a merge ${by(commit.label)} that gate cannot redo (${edits.unreproducible}): what in it was written by hand cannot be told`
                  : `a merge ${by(commit.label)} holding more than git's own merge of its parents: ${namedPaths(edits.paths)} written by hand (a conflict resolved, or an edit)`,
            },
      );
    }
  }
  const pending = pendingStrikes(new Ledger(repo.worktreeGitdir));
  if (pending) branchWide.push(pending);
  return {
    read: true,
    reason: null,
    merge_base: short(branch.mergeBase),
    commits: branch.range.length,
    agent_branch: agentBranch,
    branch: branchWide,
    models: sortByText(models.keys()).map((model) => ({ model, entries: models.get(model) ?? [] })),
  };
}

/** I1's edits of one model's pre-registration, each with what moved; G17 when the branch had committed the model's measured diff by then. */
async function preRegistrationEdits(ctx: GateContext, name: string): Promise<ReviewHistoryEntry[]> {
  const versions = ctx.preRegistrationVersions(name);
  const edits = versions.filter((version, i) => i > 0 && version.text !== versions[i - 1]?.text);
  if (edits.length === 0) return [];
  const diff = `${ctx.diffFolder === "." ? "" : `${ctx.diffFolder}/`}${name}.json`;
  const ids = await ctx.fileAlongWalk(diff);
  const measured = ids.findIndex((id, index) => index > 0 && id !== null && id !== ids[index - 1]);
  const valueAt = (index: number) => ctx.walk[index]?.declared.models.get(name)?.preRegistration ?? null;
  const first = versions[0]?.index ?? 0;
  return edits.map((edit) => {
    const previous = versions[versions.indexOf(edit) - 1] as { index: number };
    const step = ctx.walk[edit.index];
    const late = measured !== -1 && edit.index >= measured;
    const after = late
      ? `, once this branch had its measured diff ${diff} (committed in ${shortOf(ctx.walk[measured]?.label ?? "")}): a prediction changed after the result predicts nothing`
      : "";
    return {
      commit: step ? shortOf(step.label) : null,
      rule: late ? "G17" : "I1",
      kind: "pre-registration-edited" as const,
      text: `pre-registration edited ${by(step?.label ?? "")} (first written ${first === 0 ? `on ${ctx.baseName}` : `in ${shortOf(ctx.walk[first]?.label ?? "")}`}): ${changesText(valueAt(previous.index), valueAt(edit.index))}${after}`,
    };
  });
}

/** The short id a walk label (`<short sha> by <author>`) starts with. */
function shortOf(label: string): string {
  return label.split(" ")[0] ?? label;
}

/** `by <author>`, from a walk label. */
function by(label: string): string {
  const at = label.indexOf(" by ");
  return at === -1 ? "" : label.slice(at + 1);
}

/** What tcr's ledger holds that git does not: the red attempts since the last commit or reset, when the count is not zero. */
function pendingStrikes(ledger: Ledger): ReviewHistoryEntry | null {
  const count = ledger.strikes();
  if (count === 0) return null;
  const attempts: Attempt[] = [];
  if (existsSync(ledger.logFile)) {
    for (const line of readFileSync(ledger.logFile, "utf8").split("\n")) {
      let attempt: Attempt;
      try {
        attempt = JSON.parse(line) as Attempt;
      } catch {
        continue;
      }
      if (attempt.result === "green" || attempt.result === "reset") attempts.length = 0;
      else if (attempt.result === "red") attempts.push(attempt);
    }
  }
  const reds = attempts
    .slice(-count)
    .map((attempt) => `"${attempt.message}" (${attempt.step ?? "a step"} red${attempt.saved ? `, saved in ${attempt.saved}` : ""})`);
  return {
    commit: null,
    rule: null,
    kind: "strikes-pending",
    text: `${plural(count, "strike")} since the last commit, not in git (tcr's ledger in the git directory)${reds.length > 0 ? `: ${reds.join("; ")}` : ""}`,
  };
}

/** `a, b and c`, the first ten then how many more (G12's wording). */
function namedPaths(paths: readonly string[]): string {
  const named = paths.slice(0, NAMED_PATHS);
  const rest = paths.length - named.length;
  if (rest > 0) return `${named.join(", ")} and ${rest} more`;
  return named.length === 1 ? (named[0] as string) : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
}

type Band = { min: number | null; max: number };

/** The bands a pre-registration declares, by name: row_delta, removed_pks, each metric's value or delta_pct. */
function bandsOf(value: Value | null): Map<string, Band> {
  const bands = new Map<string, Band>();
  if (!isMapping(value)) return bands;
  const interval = (body: Value | undefined, withMin = true): Band | null =>
    isMapping(body) && typeof body.max === "number" && (!withMin || typeof body.min === "number")
      ? { min: withMin ? (body.min as number) : null, max: body.max }
      : null;
  const rowDelta = interval(value.row_delta);
  if (rowDelta) bands.set("row_delta", rowDelta);
  const removed = interval(value.removed_pks, false);
  if (removed) bands.set("removed_pks", removed);
  const metrics: Mapping = isMapping(value.metrics) ? value.metrics : {};
  for (const name of sortByText(Object.keys(metrics))) {
    const body = metrics[name];
    if (!isMapping(body)) continue;
    const by = "value" in body ? "value" : "delta_pct";
    const band = interval(body[by]);
    if (band) bands.set(`metric ${name} (${by})`, band);
  }
  return bands;
}

function bandText(band: Band): string {
  return band.min === null ? `at most ${formatNumber(band.max)}` : `${formatNumber(band.min)}..${formatNumber(band.max)}`;
}

/** How one band moved: narrowed (inside the old one), widened (holding it), or moved. */
function moved(before: Band, after: Band): string {
  const lo = (band: Band) => band.min ?? 0;
  if (lo(after) >= lo(before) && after.max <= before.max) return "narrowed";
  if (lo(after) <= lo(before) && after.max >= before.max) return "widened";
  return "moved";
}

/** What changed between two versions of a pre-registration: each band that moved, then the other fields by name. */
export function changesText(before: Value | null, after: Value | null): string {
  const was = bandsOf(before);
  const now = bandsOf(after);
  const changes: string[] = [];
  for (const name of [...new Set([...was.keys(), ...now.keys()])]) {
    const a = was.get(name);
    const b = now.get(name);
    if (a && b) {
      if (a.min !== b.min || a.max !== b.max) changes.push(`${name} ${bandText(a)} → ${bandText(b)} (${moved(a, b)})`);
    } else if (b) changes.push(`${name} ${bandText(b)} added`);
    else if (a) changes.push(`${name} ${bandText(a)} removed`);
  }
  const fields = (value: Value | null): Mapping => (isMapping(value) ? value : {});
  for (const key of ["type", "altered_columns", "reason"]) {
    const a = fields(before)[key];
    const b = fields(after)[key];
    if (canonicalJson(a ?? null) === canonicalJson(b ?? null)) continue;
    if (key === "altered_columns" && isStringList(a ?? []) && isStringList(b ?? []))
      changes.push(`altered_columns [${((a ?? []) as string[]).join(", ")}] → [${((b ?? []) as string[]).join(", ")}]`);
    else if (key === "reason") changes.push("the reason rewritten");
    else changes.push(`${key} ${String(a ?? "none")} → ${String(b ?? "none")}`);
  }
  return changes.length > 0 ? changes.join("; ") : "rewritten, no band or field changed in meaning";
}
