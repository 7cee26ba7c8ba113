/**
 * The agent's loop (framework Rule 5): one change, then check, gate and the
 * unit tests; green commits it, red puts the work tree back to HEAD and
 * counts a strike; the fifth red in a row stops the agent until a human
 * resets the count.
 */
import { EXIT } from "../core/exit-codes.ts";
import { asSlpError, InputError } from "../core/errors.ts";
import { exitCodeFor, summaryLine } from "../core/findings.ts";
import type { Report } from "../core/report.ts";
import { Repository } from "../git/repository.ts";
import { WorkTree, type Change, type Identity } from "../git/worktree.ts";
import type { Finding } from "../schemas/finding.ts";
import type { Task, TaskEnvironment } from "../runner/define-task.ts";
import { runTask } from "../runner/runner.ts";
import { Ledger, STRIKE_LIMIT, type Attempt } from "./ledger.ts";

export interface TcrStep {
  name: string;
  task: Task<any, any>;
  input: Record<string, unknown>;
  /** The step reads history up to a commit (`--head`): it is given the candidate commit. */
  judgesCommit: boolean;
}

export interface TcrOptions {
  message: string;
  /** Absolute path of the dbt project; the repository is the one that holds it. */
  projectDir: string;
  base: string;
  steps: TcrStep[];
  dryRun: boolean;
  /** `Name <email>`; else git's own identity. */
  author?: string;
  environment: TaskEnvironment;
}

interface StepOutcome {
  name: string;
  verdict: "green" | "red" | "skipped";
  exit_code: number | null;
  summary: string | null;
}

export async function resetStrikes(projectDir: string): Promise<Report> {
  const repo = Repository.open(projectDir);
  const ledger = new Ledger(repo.worktreeGitdir);
  const was = ledger.strikes();
  ledger.setStrikes(0);
  ledger.log(attempt("reset", { message: "", strikes: 0, files: [], commit: null, step: null, steps: [] }));
  return tcrReport(`slp tcr: strike count reset to 0 (it was ${was})`, EXIT.ok, { strikes: 0, was });
}

export async function runTcr(options: TcrOptions): Promise<Report> {
  const repo = Repository.open(options.projectDir);
  const worktree = new WorkTree(repo);
  const ledger = new Ledger(repo.worktreeGitdir);
  const strikes = ledger.strikes();

  if (strikes >= STRIKE_LIMIT) {
    ledger.log(attempt("stopped", { message: options.message, strikes, files: [], commit: null, step: null, steps: [] }));
    return tcrReport(
      `slp tcr: stopped after ${strikes} reds in a row; stop and ask a human (framework Rule 5). Once a human has looked, \`slp tcr --reset\` clears the count`,
      EXIT.stop,
      { strikes, outcome: "stopped" },
    );
  }
  const { head, branch } = await refuseUnsafe(repo, worktree, options);
  const author = await authorOf(worktree, options);
  const { changes } = await worktree.changes();
  const files = changes.map((change) => change.path);
  const short = repo.shortSha(head);
  // The step's change, staged and written as a commit the branch does not point at yet,
  // so gate judges this change and not only what is already committed. A dry run changes
  // nothing, so there gate reads the committed history.
  const candidate = changes.length > 0 && !options.dryRun ? await worktree.writeCandidate(options.message, author) : null;

  const outcomes: StepOutcome[] = options.steps.map((step) => ({ name: step.name, verdict: "skipped", exit_code: null, summary: null }));
  let failed: { index: number; findings: Finding[]; lines: string[] } | null = null;
  for (const [index, step] of options.steps.entries()) {
    const outcome = outcomes[index] as StepOutcome;
    try {
      const input = candidate && step.judgesCommit ? { ...step.input, head: candidate } : step.input;
      const report = (await runTask(step.task, input, options.environment)) as Report;
      const code = report.exitCode ?? exitCodeFor(report.findings);
      outcome.exit_code = code;
      outcome.summary = report.summary ?? summaryLine(report.command, report.findings, report.note);
      outcome.verdict = code === EXIT.ok ? "green" : "red";
      if (code !== EXIT.ok) failed = { index, findings: report.findings, lines: [...(report.lines ?? [])] };
    } catch (thrown) {
      const error = asSlpError(thrown);
      outcome.exit_code = EXIT.cannotJudge;
      outcome.summary = `ERROR ${error.describe()}`;
      outcome.verdict = "red";
      failed = { index, findings: [], lines: [] };
    }
    if (failed) break;
  }
  const stepLines = outcomes.filter((o) => o.verdict !== "skipped").map((o) => `${o.name}: ${o.summary}`);
  const stepNames = outcomes.map(({ name, verdict }) => ({ name, verdict }));

  if (!failed) {
    if (changes.length === 0) {
      ledger.log(attempt("nothing-to-commit", { message: options.message, strikes, files, commit: null, step: null, steps: stepNames }));
      return tcrReport(`slp tcr: green, but nothing changed since ${short}; nothing to commit (the strike count stays ${strikes})`, EXIT.ok, {
        outcome: "nothing-to-commit",
        steps: outcomes,
        commit: null,
        files: [],
        strikes,
      }, stepLines);
    }
    if (options.dryRun) {
      ledger.log(attempt("dry-run", { message: options.message, strikes, files, commit: null, step: null, steps: stepNames }));
      return tcrReport(`slp tcr: green; would commit ${plural(changes.length)} (dry run, nothing changed)`, EXIT.ok, {
        outcome: "would-commit",
        steps: outcomes,
        commit: null,
        files: changes,
        strikes,
      }, [...stepLines, ...listChanges("would commit:", changes)]);
    }
    const commit = candidate as string;
    await worktree.advanceBranch(branch, commit);
    ledger.setStrikes(0);
    ledger.log(attempt("green", { message: options.message, strikes: 0, files, commit, step: null, steps: stepNames }));
    return tcrReport(`slp tcr: green, committed ${repo.shortSha(commit)} (${plural(changes.length)})`, EXIT.ok, {
      outcome: "committed",
      steps: outcomes,
      commit,
      files: changes,
      strikes: 0,
    }, stepLines);
  }

  const redStep = outcomes[failed.index] as StepOutcome;
  if (options.dryRun) {
    ledger.log(attempt("dry-run", { message: options.message, strikes, files, commit: null, step: redStep.name, steps: stepNames }));
    return tcrReport(`slp tcr: red at ${redStep.name}; would revert ${plural(changes.length)} to ${short} (dry run, nothing changed)`, EXIT.blocked, {
      outcome: "would-revert",
      steps: outcomes,
      commit: null,
      files: changes,
      strikes,
    }, [...failed.lines, ...stepLines, ...listChanges("would revert:", changes)], failed.findings);
  }
  const reverted = await worktree.restore();
  const count = strikes + 1;
  ledger.setStrikes(count);
  const stopped = count >= STRIKE_LIMIT;
  ledger.log(attempt(stopped ? "stopped" : "red", {
    message: options.message,
    strikes: count,
    files: reverted.map((change) => change.path),
    commit: null,
    step: redStep.name,
    steps: stepNames,
  }));
  const summary = stopped
    ? `slp tcr: red at ${redStep.name}, reverted ${plural(reverted.length)} to ${short}; that is ${count} reds in a row: stop and ask a human (framework Rule 5)`
    : `slp tcr: red at ${redStep.name}, reverted ${plural(reverted.length)} to ${short} (strike ${count} of ${STRIKE_LIMIT})`;
  return tcrReport(summary, stopped ? EXIT.stop : EXIT.blocked, {
    outcome: stopped ? "stopped" : "reverted",
    steps: outcomes,
    commit: null,
    files: reverted,
    strikes: count,
  }, [...failed.lines, ...stepLines, ...listChanges("reverted:", reverted)], failed.findings);
}

// --- internal ---

/** Refuses, changing nothing, whatever a commit or a revert must not touch; returns HEAD and its branch. */
async function refuseUnsafe(repo: Repository, worktree: WorkTree, options: TcrOptions): Promise<{ head: string; branch: string }> {
  if (options.message.trim() === "") {
    throw new InputError("the commit message is empty", { fix: 'say what this step changes: slp tcr "add the cancelled-orders edge test"' });
  }
  let head: string;
  try {
    head = await repo.resolveCommit("HEAD");
  } catch {
    throw new InputError("this repository has no commit yet, so there is nothing to revert to", {
      fix: "make a first commit by hand, then work in the loop",
    });
  }
  const branch = await repo.currentBranch();
  if (branch === null) {
    throw new InputError("HEAD is detached, so a green step would commit on no branch", { fix: "check out the branch you work on" });
  }
  if (branch === options.base) {
    throw new InputError(`HEAD is ${branch}, the base branch; the loop commits on a branch of its own, never on ${branch}`, {
      fix: `create one first: git checkout -b agent/<topic>`,
    });
  }
  const operation = worktree.operationInProgress();
  if (operation) {
    throw new InputError(`${operation} is in progress; committing or reverting now would mix its changes into this step`, {
      fix: "finish it or abort it (git merge --abort, git rebase --abort, ...) first",
    });
  }
  const conflicts = worktree.conflictedPaths();
  if (conflicts.length > 0) {
    throw new InputError(`the index has unresolved conflicts in ${conflicts.join(", ")}`, {
      fix: "resolve them and git add the files, or ask a human",
    });
  }
  return { head, branch };
}

async function authorOf(worktree: WorkTree, options: TcrOptions): Promise<Identity> {
  if (options.author) {
    const match = /^\s*(.+?)\s*<([^<>\s]+)>\s*$/.exec(options.author);
    if (!match) throw new InputError(`--author must read "Name <email>", not "${options.author}"`, { fix: 'e.g. --author "Agent <agent@example.com>"' });
    return { name: match[1] as string, email: match[2] as string };
  }
  const identity = await worktree.identity(options.environment.env);
  if (!identity) {
    throw new InputError("git does not say who commits (no user.name / user.email)", {
      fix: 'set them (git config user.name "..." and git config user.email "...") or pass --author "Name <email>"',
    });
  }
  return identity;
}

function listChanges(title: string, changes: Change[]): string[] {
  if (changes.length === 0) return [];
  return [title, ...changes.map((change) => `  ${change.kind.padEnd(8)} ${change.path}`)];
}

function plural(count: number): string {
  return `${count} ${count === 1 ? "file" : "files"}`;
}

function attempt(result: Attempt["result"], rest: Omit<Attempt, "time" | "result">): Attempt {
  return { time: new Date().toISOString(), result, ...rest };
}

function tcrReport(summary: string, exitCode: number, data: Record<string, unknown>, lines: string[] = [], findings: Finding[] = []): Report {
  return { command: "tcr", findings, summary, exitCode, data, lines };
}
