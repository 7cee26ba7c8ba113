/**
 * The agent's loop (framework Rule 5): one change, then check, gate and the
 * unit tests; green commits it, red saves it as a patch, puts the work tree
 * back to HEAD and counts a strike; the fifth red in a row stops the agent
 * until a human resets the count. A step that cannot judge changes nothing.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { asSlpError, InputError, type SlpError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import { sortFindings } from "../core/findings.ts";
import { describeReportError, envelopeError, type Report, type ReportError } from "../core/report.ts";
import { gitText } from "../git/cli.ts";
import { Hooks, type HookRun } from "../git/hooks.ts";
import { Repository } from "../git/repository.ts";
import { WorkTree, type Change, type Identity, type RestoreOutcome, type SavedChange, type Snapshot } from "../git/worktree.ts";
import { baseFallbackNote } from "../project/history/history.ts";
import { runStage, stageSummary, type StageResult } from "../runner/compose.ts";
import type { Task, TaskEnvironment } from "../runner/define-task.ts";
import { CANNOT_JUDGE, errorFindings, findingKey, stageDetails, stageFindings } from "../runner/stage-findings.ts";
import type { Finding } from "../schemas/finding.ts";
import { findingLine } from "../report/text.ts";
import type { TcrData, TcrStepOutcome } from "../schemas/tcr.ts";
import { VERSION } from "../version.ts";
import { adviceAfterRed } from "./advice.ts";
import { Baseline } from "./baseline.ts";
import { byExpectedCost } from "./step-order.ts";
import { Ledger, STRIKE_LIMIT, type Attempt } from "./ledger.ts";
import { asRedMessage, cleanMessage, readTrailers, TRAILER, withTrailers, type Trailers } from "./trailers.ts";

export interface TcrStep {
  name: string;
  task: Task<any, any>;
  input: Record<string, unknown>;
  /** The step reads history up to a commit (`--head`): it is given the candidate commit. */
  judgesCommit: boolean;
  /** The step compares against a base branch (`--base`). */
  takesBase: boolean;
}

export interface TcrOptions {
  message: string;
  /** Absolute path of the dbt project; the repository is the one that holds it. */
  projectDir: string;
  /** The base branch as configured; `origin/<base>` is used when only that exists. */
  base: string;
  steps: TcrStep[];
  dryRun: boolean;
  /** `Name <email>`; else git's own identity. */
  author?: string;
  environment: TaskEnvironment;
  /** Remarks about how the loop was configured (slp.yml read from HEAD). */
  notes?: string[];
}

/** `slp tcr --reset REASON`: clears the count; the next commit records who did and why. */
export async function resetStrikes(projectDir: string, reason: string, environment: TaskEnvironment): Promise<Report> {
  if (reason.trim() === "") {
    throw new InputError("a reset needs a reason", {
      fix: 'say why the count may start again: slp tcr --reset "the spec was wrong; fixed on main"',
    });
  }
  const repo = Repository.open(projectDir);
  const ledger = new Ledger(repo.worktreeGitdir);
  const was = ledger.strikes();
  const by = whoIsGit(repo.root, environment.env);
  ledger.setStrikes(0);
  ledger.addReset({ was, by, reason: reason.trim() });
  ledger.log(attempt("reset", { message: "", strikes: 0, files: [], commit: null, step: null, steps: [], reason: reason.trim() }));
  const data = emptyData("reset", 0, "work in the loop again; the next commit records this reset in its trailers");
  data.reset = { was, by, reason: reason.trim() };
  return tcrReport(`slp tcr: strike count reset to 0 (it was ${was}); the next commit records the reset`, EXIT.ok, data);
}

export async function runTcr(options: TcrOptions): Promise<Report> {
  const repo = Repository.open(options.projectDir);
  const ledger = new Ledger(repo.worktreeGitdir);
  const strikes = ledger.strikes();
  if (strikes >= STRIKE_LIMIT) {
    ledger.log(attempt("stopped", { message: options.message, strikes, files: [], commit: null, step: null, steps: [] }));
    return tcrReport(
      `slp tcr: stopped after ${strikes} reds in a row; stop and ask a human (framework Rule 5). Once a human has looked, \`slp tcr --reset "why"\` clears the count`,
      EXIT.stop,
      emptyData("stopped", strikes, "stop and ask a human (framework Rule 5)"),
    );
  }
  const worktree = new WorkTree(repo, options.environment.env);
  const { head, branch } = await refuseUnsafe(repo, worktree, options);
  const author = parseAuthor(options.author);
  return new Step(repo, worktree, ledger, options, { head, branch, strikes, author }).run();
}

// --- one step of the loop ---

interface StepState {
  head: string;
  branch: string;
  strikes: number;
  author: Identity | undefined;
}

interface Judged {
  step: TcrStep;
  result: StageResult;
  outcome: TcrStepOutcome;
}

class Step {
  readonly #repo: Repository;
  readonly #worktree: WorkTree;
  readonly #ledger: Ledger;
  readonly #options: TcrOptions;
  readonly #state: StepState;
  readonly #short: string;
  readonly #indexFile: string;
  readonly #data: TcrData;
  readonly #notes: string[];
  readonly #hooks: HookRun[] = [];
  /** What the steps' own reports warn about (an unknown slp.yml key, a stale manifest). */
  readonly #stepNotes: string[] = [];
  /** The configured steps, cheapest first: every one runs, whatever an earlier one found. */
  readonly #steps: TcrStep[];

  constructor(repo: Repository, worktree: WorkTree, ledger: Ledger, options: TcrOptions, state: StepState) {
    this.#repo = repo;
    this.#worktree = worktree;
    this.#ledger = ledger;
    this.#options = options;
    this.#state = state;
    this.#short = repo.shortSha(state.head);
    this.#indexFile = join(ledger.dir, "tcr-index");
    this.#notes = [...(options.notes ?? [])];
    this.#data = emptyData("cannot-judge", state.strikes, "");
    this.#data.branch = state.branch;
    this.#data.head = state.head;
    this.#steps = byExpectedCost(options.steps);
    this.#data.steps = this.#steps.map((step) => skipped(step.name));
  }

  async run(): Promise<Report> {
    try {
      return await this.#run();
    } catch (thrown) {
      return this.#cannotJudge(asSlpError(thrown), null);
    } finally {
      rmSync(this.#indexFile, { force: true });
    }
  }

  async #run(): Promise<Report> {
    const { head } = this.#state;
    const options = this.#options;
    const resolved = this.#steps.some((step) => step.takesBase) ? await this.#repo.resolveBase(options.base) : null;
    const merged = resolved ? await mergedRemoteBase(this.#repo, resolved, head) : null;
    const base = merged ?? resolved;
    if (base) {
      this.#data.base = { name: options.base, ref: base.ref, commit: base.commit };
      if (merged) this.#notes.push(mergedBaseNote(resolved?.ref ?? options.base, merged.ref));
      else if (base.ref !== options.base) this.#notes.push(baseFallbackNote(options.base, base.ref));
    }
    const staged = await this.#worktree.stage(head, this.#indexFile);
    this.#data.files = staged.changes.map(changeData);
    // A dry run changes nothing, so it runs no hook (a hook may format files, or stage more).
    const settings = options.dryRun || staged.changes.length === 0 ? null : this.#worktree.commitSettings();
    const hooks = settings ? new Hooks(this.#repo.root, settings.hooksDir, options.environment.env) : null;
    const hookSet: Record<string, string> = { GIT_INDEX_FILE: this.#indexFile, ...authorVariables(this.#state.author) };

    // The candidate: the commit this step would make, hooks and all, that the steps judge.
    let candidateTree = staged;
    let message = withTrailers(options.message, this.#trailers());
    let candidate: string | null = null;
    if (staged.changes.length > 0) {
      const hooked = hooks ? this.#runCommitHooks(hooks, hookSet, message) : null;
      const failedHook = hooked?.failed ?? null;
      if (hooked) message = hooked.message;
      if (hooks?.ignored.length) this.#notes.push(`hooks not executable, ignored as git ignores them: ${hooks.ignored.join(", ")}`);
      if (failedHook) return this.#red([], [], staged, message, failedHook);
      if (hooks) candidateTree = await this.#worktree.snapshotOf(head, this.#indexFile);
      candidate = this.#worktree.commit(candidateTree.tree, head, message, { author: this.#state.author, sign: settings?.sign === true });
      this.#data.candidate = candidate;
      this.#data.trailers = readTrailers(message).map(([key, value]) => ({ key, value }));
    }

    const baseline = new Baseline(
      this.#repo,
      this.#repo.relativePath(options.projectDir),
      head,
      options.environment,
      candidateTree.changes,
    );
    // Every step runs, cheapest first: the attempt is judged once, on all their findings (one attempt, one strike).
    const judged: Judged[] = [];
    try {
      for (const [index, step] of this.#steps.entries()) {
        const input = {
          ...step.input,
          ...(base && step.takesBase ? { base: base.ref } : {}),
          ...(step.judgesCommit && candidate ? { head: candidate } : {}),
        };
        const result = await runStage(step.task, input, options.environment);
        this.#stepNotes.push(...(result.report.notes ?? []));
        const outcome = await this.#judge(step, input, result, baseline);
        this.#data.steps[index] = outcome;
        judged.push({ step, result, outcome });
      }
    } finally {
      baseline.close();
    }
    this.#mutantsWaitForUnitTests(judged);
    // A red step makes the attempt red even when another could not judge; with none red, one that could not judge changes nothing.
    const red = judged.filter((item) => item.outcome.verdict === "red");
    if (red.length > 0) return this.#red(red, judged, staged, message, null);
    const error = judged.find((item) => item.outcome.verdict === "error");
    if (error) return this.#cannotJudge(null, error);
    return this.#green(judged, staged, candidate, message, hooks, hookSet);
  }

  /**
   * A mutant of a model whose own unit tests fail is judged against a model already wrong: its survivors are noise
   * beside the failing test, which is the fault. They wait (a note says so) until the model's unit tests pass.
   */
  #mutantsWaitForUnitTests(judged: Judged[]): void {
    const failing = new Set(
      judged
        .filter((item) => item.step.task.name === "unit" && item.outcome.verdict === "red")
        .flatMap((item) => blocks(item.outcome.findings).map((finding) => finding.model))
        .filter(Boolean),
    );
    if (failing.size === 0) return;
    for (const item of judged) {
      if (item.step.task.name !== "mutate" || item.outcome.verdict !== "red") continue;
      const waiting = new Set<string>();
      item.outcome.findings = item.outcome.findings.filter((finding) => {
        const waits = finding.severity === "BLOCK" && failing.has(finding.model);
        if (waits) waiting.add(finding.model);
        return !waits;
      });
      for (const model of [...waiting].sort())
        this.#stepNotes.push(
          `mutate: the mutants of ${model} wait until its unit tests pass (a survivor of a model already wrong says nothing)`,
        );
      if (blocks(item.outcome.findings).length === 0) item.outcome.verdict = "green";
    }
  }

  /**
   * pre-commit on the staged index, then prepare-commit-msg and commit-msg on
   * the message, as `git commit -m` runs them; the message as they leave it,
   * and the first hook that failed (null when none did).
   */
  #runCommitHooks(hooks: Hooks, set: Record<string, string>, message: string): { failed: string | null; message: string } {
    const preCommit = hooks.run("pre-commit", [], set);
    if (preCommit) this.#hooks.push(preCommit);
    if (preCommit && preCommit.exitCode !== 0) return { failed: "pre-commit hook", message };
    const file = join(this.#repo.worktreeGitdir, "COMMIT_EDITMSG");
    const shown = relative(this.#repo.root, file).split("\\").join("/");
    writeFileSync(file, message);
    for (const [name, args] of [
      ["prepare-commit-msg", [shown, "message"]],
      ["commit-msg", [shown]],
    ] as const) {
      const run = hooks.run(name, [...args], set);
      if (!run) continue;
      this.#hooks.push(run);
      if (run.exitCode !== 0) return { failed: `${name} hook`, message };
    }
    const text = cleanMessage(readFileSync(file, "utf8"));
    if (text === "") {
      this.#hooks.push({ name: "commit-msg", exitCode: 1, output: "the hooks left the commit message empty; git aborts such a commit" });
      return { failed: "commit-msg hook", message };
    }
    return { failed: null, message: text };
  }

  /**
   * A step's verdict, measured against what the same step makes of HEAD:
   * blocks HEAD already has do not make it red, and a step that cannot judge
   * the change (exit 2) is red when it judges HEAD (the change made it unable
   * to: its errors are the findings), else the environment's doing.
   */
  async #judge(step: TcrStep, input: Record<string, unknown>, result: StageResult, baseline: Baseline): Promise<TcrStepOutcome> {
    const judged = result.exitCode === EXIT.ok || result.exitCode === EXIT.blocked;
    const outcome: TcrStepOutcome = {
      name: step.name,
      verdict: result.exitCode === EXIT.ok ? "green" : judged ? "red" : "error",
      exit_code: result.exitCode,
      summary: stageSummary(result),
      findings: sortFindings(stageFindings(result.report)),
      already_at_head: [],
      errors: judged ? [] : (result.report.errors ?? []).map(envelopeError),
      cause: null,
      at_head: null,
      data: result.report.data ?? null,
    };
    if (outcome.verdict === "green" || (judged && blocks(outcome.findings).length === 0)) return outcome;
    // What decides a strike for an error is never read from a run made in another environment.
    const atHead = await baseline.atHead(step, input, { fresh: !judged });
    if (atHead) outcome.at_head = { exit_code: atHead.exitCode, summary: atHead.summary, errors: atHead.errors.map(envelopeError) };
    const headJudged = atHead !== null && (atHead.exitCode === EXIT.ok || atHead.exitCode === EXIT.blocked);
    if (!judged) {
      outcome.cause = headJudged ? "change" : "environment";
      if (!headJudged) return outcome;
      outcome.verdict = "red";
      outcome.findings = sortFindings([...introducedErrors(result), ...outcome.findings]);
    }
    if (!headJudged) return outcome;
    const isAtHead = (finding: Finding) => finding.severity === "BLOCK" && atHead.blocks.has(findingKey(finding));
    outcome.already_at_head = outcome.findings.filter(isAtHead);
    outcome.findings = outcome.findings.filter((finding) => !isAtHead(finding));
    if (blocks(outcome.findings).length === 0) outcome.verdict = "green";
    return outcome;
  }

  #green(
    judged: Judged[],
    staged: Snapshot,
    candidate: string | null,
    message: string,
    hooks: Hooks | null,
    hookSet: Record<string, string>,
  ): Report {
    const { strikes } = this.#state;
    const lines = [...this.#alreadyLines(judged), ...this.#hookLines(), ...this.#stepLines()];
    const files = staged.changes.map((change) => change.path);
    const stepNames = this.#data.steps.map(({ name, verdict }) => ({ name, verdict }));
    if (staged.changes.length === 0) {
      this.#ledger.log(
        attempt("nothing-to-commit", { message: this.#options.message, strikes, files, commit: null, step: null, steps: stepNames }),
      );
      this.#data.outcome = "nothing-to-commit";
      this.#data.next = "make the next change, then run tcr again";
      return this.#report(
        `slp tcr: green, but nothing changed since ${this.#short}; nothing to commit (the strike count stays ${strikes})`,
        EXIT.ok,
        lines,
      );
    }
    if (this.#options.dryRun) {
      this.#ledger.log(attempt("dry-run", { message: this.#options.message, strikes, files, commit: null, step: null, steps: stepNames }));
      this.#data.outcome = "would-commit";
      this.#data.next = "run the same tcr without --dry-run to commit it";
      return this.#report(
        `slp tcr: green; would commit ${plural(staged.changes.length)} (dry run, nothing changed; hooks run only for real)`,
        EXIT.ok,
        [...lines, ...listChanges("would commit:", staged.changes)],
      );
    }
    const commit = candidate as string;
    this.#worktree.advance(commit, this.#state.head, firstLine(message), this.#indexFile);
    const postCommit = hooks?.run("post-commit", [], { ...hookSet, GIT_INDEX_FILE: this.#worktree.indexFile });
    if (postCommit) this.#hooks.push(postCommit);
    this.#ledger.setStrikes(0);
    this.#ledger.clearResets();
    this.#ledger.log(attempt("green", { message: this.#options.message, strikes: 0, files, commit, step: null, steps: stepNames }));
    this.#data.outcome = "committed";
    this.#data.commit = commit;
    this.#data.strikes = 0;
    this.#data.next = "make the next small change, then run tcr again";
    // The lines again: post-commit's output belongs in them.
    return this.#report(`slp tcr: green, committed ${this.#repo.shortSha(commit)} (${plural(staged.changes.length)})`, EXIT.ok, [
      ...this.#alreadyLines(judged),
      ...this.#hookLines(),
      ...this.#stepLines(),
    ]);
  }

  /** One red attempt, one strike: the red steps' findings together (or the hook that failed before any step ran). */
  async #red(red: Judged[], judged: Judged[], staged: Snapshot, message: string, hook: string | null): Promise<Report> {
    const { strikes } = this.#state;
    const redSteps = hook ? [hook] : red.map((item) => item.step.name);
    const redStep = listed(redSteps);
    const findings = redFindings(red);
    // A step the change made unable to judge: the summary and the next step name the error it introduced.
    const introducedBy = red.find((item) => item.outcome.cause === "change");
    const introduced = introducedBy
      ? (introducedBy.outcome.errors[0] ?? {
          code: "E_STEP",
          message: introducedBy.outcome.summary ?? "",
          file: null,
          line: null,
          fix: null,
        })
      : null;
    const redAt = hook
      ? hook
      : listed(
          red.map((item) =>
            item === introducedBy && introduced
              ? `${item.step.name} (this change made it unable to judge: ${describeReportError(introduced, false)})`
              : item.step.name,
          ),
        );
    const details = red.flatMap((item) => stageDetails(item.result.report));
    const why = [...details, ...this.#alreadyLines(judged), ...this.#hookLines(), ...this.#stepLines()];
    this.#data.red_step = redSteps[0] ?? null;
    this.#data.red_steps = redSteps;
    const stepNames = this.#data.steps.map(({ name, verdict }) => ({ name, verdict }));
    if (this.#options.dryRun) {
      this.#ledger.log(
        attempt("dry-run", {
          message: this.#options.message,
          strikes,
          files: staged.changes.map((c) => c.path),
          commit: null,
          step: redSteps[0] ?? null,
          steps: stepNames,
        }),
      );
      this.#data.outcome = "would-revert";
      this.#data.next = `${nextAfterRed(findings, introduced, redStep).join("\n")}; a real run would revert the change and count a strike`;
      return this.#report(
        `slp tcr: red at ${redAt}; would revert ${plural(staged.changes.length)} to ${this.#short} (dry run, nothing changed)`,
        EXIT.blocked,
        [...why, ...listChanges("would revert:", staged.changes)],
        findings,
      );
    }
    // The work tree as it is now (a pre-commit hook may have changed it), saved before anything is undone.
    const current = this.#hooks.length > 0 ? await this.#worktree.stage(this.#state.head, this.#indexFile) : staged;
    const saved = await this.#worktree.save(
      this.#state.head,
      current,
      this.#ledger.nextRevertedDir(this.#short),
      asRedMessage(message, redSteps),
    );
    this.#data.files = current.changes.map(changeData);
    this.#data.saved = this.#savedData(saved, []);
    const plan = await this.#worktree.planRestore(current.changes, join(saved.dir, "aside"));
    this.#data.saved.moved_aside = plan.movedAside;
    const restored = this.#worktree.applyRestore(plan);
    const savedLines = this.#savedLines();
    if (restored.failed) return this.#revertIncomplete(redStep, restored, findings, [...why, ...savedLines]);
    this.#worktree.resetIndex();
    const count = strikes + 1;
    const stopped = count >= STRIKE_LIMIT;
    this.#ledger.setStrikes(count);
    this.#ledger.log(
      attempt(stopped ? "stopped" : "red", {
        message: this.#options.message,
        strikes: count,
        files: current.changes.map((change) => change.path),
        commit: null,
        step: redSteps[0] ?? null,
        steps: stepNames,
        saved: relative(this.#repo.worktreeGitdir, saved.dir).split("\\").join("/"),
      }),
    );
    this.#data.outcome = stopped ? "stopped" : "reverted";
    this.#data.strikes = count;
    this.#data.next = stopped
      ? "stop and ask a human (framework Rule 5); the change is saved"
      : `${nextAfterRed(findings, introduced, redStep).join("\n")}, then run tcr again; the reverted change is in ${this.#data.saved?.patch}`;
    const reverted = plural(current.changes.length);
    const summary = stopped
      ? `slp tcr: red at ${redAt}, reverted ${reverted} to ${this.#short}; that is ${count} reds in a row: stop and ask a human (framework Rule 5)`
      : `slp tcr: red at ${redAt}, reverted ${reverted} to ${this.#short} (strike ${count} of ${STRIKE_LIMIT})`;
    return this.#report(
      summary,
      stopped ? EXIT.stop : EXIT.blocked,
      [...why, ...listChanges("reverted:", current.changes), ...savedLines],
      findings,
    );
  }

  #revertIncomplete(redStep: string, restored: RestoreOutcome, findings: Finding[], lines: string[]): Report {
    const failed = restored.failed as NonNullable<RestoreOutcome["failed"]>;
    this.#data.outcome = "revert-incomplete";
    this.#data.restore = { done: restored.done, failed: { ...failed.step, error: failed.error }, left: restored.left };
    this.#data.next = `make ${failed.step.path} writable (or move it), finish the revert by hand (the list below, or git checkout HEAD -- . and git clean -fd), then run tcr again`;
    this.#ledger.log(
      attempt("cannot-judge", {
        message: this.#options.message,
        strikes: this.#state.strikes,
        files: this.#data.files.map((file) => file.path),
        commit: null,
        step: this.#data.red_step,
        steps: this.#data.steps.map(({ name, verdict }) => ({ name, verdict })),
      }),
    );
    const left = restored.left.map((step) => `  ${step.action} ${step.path}`);
    return this.#report(
      `slp tcr: red at ${redStep}, but the revert stopped at ${failed.step.action} ${failed.step.path} (${failed.error}); ${restored.left.length} of ${restored.done + restored.left.length} restore steps are left, the index is unchanged, no strike counted`,
      EXIT.cannotJudge,
      [...lines, "left to restore:", ...left],
      findings,
      [
        {
          code: "E_REVERT",
          message: `cannot ${failed.step.action} ${failed.step.path}: ${failed.error}`,
          file: failed.step.path,
          line: null,
          fix: this.#data.next,
        },
      ],
    );
  }

  /** Exit 2: nothing reverted, no strike; the report says what to fix. */
  #cannotJudge(error: SlpError | null, judged: Judged | null): Report {
    const errors: ReportError[] = error
      ? [{ code: error.code, message: error.message, file: error.file ?? null, line: error.line ?? null, fix: error.fix ?? null }]
      : (judged?.result.report.errors ?? []);
    const what = judged ? judged.step.name : "tcr";
    const first = errors[0];
    const describe = first ? describeReportError(first, false) : (judged?.outcome.summary ?? "");
    // Not this change's doing: the same step cannot judge HEAD either (or cannot be run there).
    const notTheChange = !judged
      ? ""
      : judged.outcome.at_head
        ? ", and cannot judge HEAD either, so it is not this change's doing"
        : ", and tcr cannot run it at HEAD to tell whether this change caused it";
    this.#data.outcome = "cannot-judge";
    this.#data.red_step = judged ? judged.step.name : null;
    this.#data.next = `fix what ${what} could not judge${first ? ` (${describeReportError(first)})` : ""}${
      judged?.outcome.at_head ? "; HEAD has it too, so the fix is in the environment or in HEAD, not in this change" : ""
    }, then run tcr again; nothing was reverted`;
    this.#ledger.log(
      attempt("cannot-judge", {
        message: this.#options.message,
        strikes: this.#state.strikes,
        files: this.#data.files.map((file) => file.path),
        commit: null,
        step: judged?.step.name ?? null,
        steps: this.#data.steps.map(({ name, verdict }) => ({ name, verdict })),
      }),
    );
    const details = judged ? stageDetails(judged.result.report) : [];
    // A test runner's cases already show each error in place; other steps' errors are printed here.
    const errorLines = details.length > 0 ? [] : errors.map((e) => `ERROR ${describeReportError(e)}`);
    return this.#report(
      `slp tcr: ${what} could not judge (${describe})${notTheChange}; nothing reverted, no strike (the count stays ${this.#state.strikes})`,
      EXIT.cannotJudge,
      [...details, ...errorLines, ...this.#hookLines(), ...this.#stepLines()],
      judged?.outcome.findings ?? [],
      errors,
    );
  }

  #trailers(): Trailers {
    return [
      [TRAILER.tcr, "green"],
      [TRAILER.steps, this.#steps.map((step) => step.name).join(" ")],
      [TRAILER.strikes, String(this.#state.strikes)],
      ...this.#ledger
        .pendingResets()
        .map((reset): [string, string] => [TRAILER.reset, `${reset.was} strikes cleared by ${reset.by}: ${reset.reason}`]),
      [TRAILER.version, VERSION],
    ];
  }

  #savedData(saved: SavedChange, movedAside: string[]): NonNullable<TcrData["saved"]> {
    const shown = (path: string) => relative(this.#options.projectDir, path).split("\\").join("/");
    const fromRoot = relative(this.#repo.root, saved.patch).split("\\").join("/");
    return {
      dir: shown(saved.dir),
      patch: shown(saved.patch),
      apply: `git apply ${fromRoot} (from the repository root)`,
      files: saved.files.map(shown),
      moved_aside: movedAside,
    };
  }

  #savedLines(): string[] {
    const saved = this.#data.saved;
    if (!saved) return [];
    return [
      `saved: ${saved.patch}; ${saved.apply} brings it back`,
      ...(saved.moved_aside.length
        ? [`moved aside (ignored files in the way, kept in ${saved.dir}/aside): ${saved.moved_aside.join(", ")}`]
        : []),
    ];
  }

  #alreadyLines(judged: Judged[]): string[] {
    const already = judged.flatMap((item) => item.outcome.already_at_head.map((finding) => ({ step: item.step.name, finding })));
    if (already.length === 0) return [];
    return [
      `already at HEAD (${plural(already.length, "finding")}, not this step's doing; they do not make it red):`,
      ...already.map(({ step, finding }) => `  ${step}: ${findingLine(finding)}`),
    ];
  }

  #hookLines(): string[] {
    return this.#hooks.flatMap((hook) => [
      `hook ${hook.name}: exit ${hook.exitCode}`,
      ...hook.output
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => `  ${line}`),
    ]);
  }

  #stepLines(): string[] {
    return this.#data.steps
      .filter((step) => step.verdict !== "skipped")
      .map((step) => {
        const excused = step.verdict === "green" && step.exit_code !== EXIT.ok ? " (green for tcr: every block is already at HEAD)" : "";
        // HEAD's summary, and its first error when the summary does not say it already.
        const headError = step.at_head?.errors[0];
        const unsaid =
          headError && !step.at_head?.summary.includes(headError.message.replace(/^[a-z-]+: /, ""))
            ? `; ERROR ${describeReportError(headError, false)}`
            : "";
        const atHead = step.at_head ? `${step.at_head.summary}${unsaid}` : "";
        const cause =
          step.cause === "change"
            ? ` (red for tcr: it judges HEAD, so this change made it unable to judge; at HEAD: ${atHead})`
            : step.cause === "environment"
              ? step.at_head
                ? ` (at HEAD too: ${atHead})`
                : " (tcr cannot run it at HEAD to tell)"
              : "";
        return `${step.name}: ${step.summary}${excused}${cause}`;
      });
  }

  #report(summary: string, exitCode: number, lines: string[], findings: Finding[] = [], errors: ReportError[] = []): Report {
    // One line per kind of fix (advice.ts), each a `next:` line.
    const next = this.#data.next ? this.#data.next.split("\n").map((line) => `next: ${line}`) : [];
    this.#data.hooks = this.#hooks.map((hook) => ({ name: hook.name, exit_code: hook.exitCode, output: hook.output }));
    const notes = [...new Set([...this.#notes, ...this.#stepNotes])];
    return { command: "tcr", findings, summary, exitCode, data: this.#data, lines: [...lines, ...next], notes, errors };
  }
}

// --- internal ---

/**
 * The base as the branch has taken it: AGENTS.md has the agent take the
 * human's change with `git fetch origin && git merge origin/main`, which
 * leaves the local main where it was. Judged against that stale main, the
 * human's own commits would look like the branch's (a test the human
 * dropped, a G1 block). So when origin/<base> is newer than the local base
 * (a descendant of it) and HEAD has merged it, the base is origin/<base>;
 * otherwise null, and the base stays as resolved.
 */
async function mergedRemoteBase(
  repo: Repository,
  base: { ref: string; commit: string },
  head: string,
): Promise<{ ref: string; commit: string } | null> {
  if (base.ref.startsWith("origin/")) return null;
  const remote = `origin/${base.ref}`;
  let commit: string;
  try {
    commit = await repo.resolveCommit(remote);
  } catch {
    return null;
  }
  if (commit === base.commit) return null;
  const [localIsBehind, headHasIt] = await Promise.all([repo.mergeBases(base.commit, commit), repo.mergeBases(commit, head)]);
  const ancestor = (bases: string[], of: string) => bases.length === 1 && bases[0] === of;
  return ancestor(localIsBehind, base.commit) && ancestor(headHasIt, commit) ? { ref: remote, commit } : null;
}

function mergedBaseNote(local: string, remote: string): string {
  return `${local} is behind ${remote}, which this branch has merged; the base is ${remote} (git fetch does not move a local ${local})`;
}

/** Refuses, changing nothing, whatever a commit or a revert must not touch; returns HEAD and its branch. */
async function refuseUnsafe(repo: Repository, worktree: WorkTree, options: TcrOptions): Promise<{ head: string; branch: string }> {
  if (options.message.trim() === "") {
    throw new InputError("the commit message is empty", {
      fix: 'say what this step changes: slp tcr "add the cancelled-orders edge test"',
    });
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
  if (branch === options.base || `origin/${branch}` === options.base) {
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

function parseAuthor(author: string | undefined): Identity | undefined {
  if (author === undefined) return undefined;
  const match = /^\s*(.+?)\s*<([^<>\s]+)>\s*$/.exec(author);
  if (!match)
    throw new InputError(`--author must read "Name <email>", not "${author}"`, { fix: 'e.g. --author "Agent <agent@example.com>"' });
  return { name: match[1] as string, email: match[2] as string };
}

function authorVariables(author: Identity | undefined): Record<string, string> {
  return author ? { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email } : {};
}

/** `Name <email>` of whoever git would record as committer here, or "someone git does not name". */
function whoIsGit(root: string, env: Record<string, string | undefined>): string {
  try {
    return gitText(root, ["var", "GIT_COMMITTER_IDENT"], { env }).replace(/\s+\d+\s+[+-]\d{4}$/, "");
  } catch {
    return "someone git does not name";
  }
}

function changeData(change: Change): TcrData["files"][number] {
  return { path: change.path, kind: change.kind, before_mode: change.before?.mode ?? null, after_mode: change.after?.mode ?? null };
}

function listChanges(title: string, changes: Change[]): string[] {
  if (changes.length === 0) return [];
  const modes = (change: Change) =>
    change.kind === "mode" || change.kind === "typechange" ? ` (${change.before?.mode} -> ${change.after?.mode})` : "";
  return [title, ...changes.map((change) => `  ${change.kind.padEnd(8)} ${change.path}${modes(change)}`)];
}

function skipped(name: string): TcrStepOutcome {
  return {
    name,
    verdict: "skipped",
    exit_code: null,
    summary: null,
    findings: [],
    already_at_head: [],
    errors: [],
    cause: null,
    at_head: null,
    data: null,
  };
}

/** Names as a sentence lists them: `check`, `check and unit`, `check, gate and unit`. */
function listed(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The findings of every red step of one attempt, each once (two steps may report the same), sorted. */
function blocks(findings: Finding[]): Finding[] {
  return findings.filter((finding) => finding.severity === "BLOCK");
}

function redFindings(red: Judged[]): Finding[] {
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const finding of red.flatMap((item) => item.outcome.findings)) {
    const key = `${findingKey(finding)}\0${finding.line ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(finding);
  }
  return sortFindings(findings);
}

/** What made a step unable to judge the change, as findings; one from its summary when it named no error. */
function introducedErrors(result: StageResult): Finding[] {
  const findings = errorFindings(result.report);
  if (findings.length > 0) return findings;
  return [
    { severity: "BLOCK", rule: "E_STEP", name: CANNOT_JUDGE, file: "", model: "", line: null, message: stageSummary(result), fix: "sql" },
  ];
}

export function emptyData(outcome: TcrData["outcome"], strikes: number, next: string): TcrData {
  return {
    outcome,
    branch: null,
    head: null,
    base: null,
    candidate: null,
    commit: null,
    red_step: null,
    red_steps: [],
    steps: [],
    hooks: [],
    files: [],
    strikes,
    strike_limit: STRIKE_LIMIT,
    saved: null,
    restore: null,
    trailers: [],
    reset: null,
    restored: null,
    history: null,
    next,
  };
}

export function firstLine(message: string): string {
  return message.split("\n")[0] ?? "";
}

function plural(count: number, word = "file"): string {
  return `${count} ${count === 1 ? word : `${word}s`}`;
}

export function attempt(result: Attempt["result"], rest: Omit<Attempt, "time" | "result">): Attempt {
  return { time: new Date().toISOString(), result, ...rest };
}

export function tcrReport(summary: string, exitCode: number, data: TcrData, lines: string[] = []): Report {
  return { command: "tcr", findings: [], summary, exitCode, data, lines: [...lines, `next: ${data.next}`] };
}

/**
 * The advice after a red: the error the change made a step unable to judge by, first, then one line per kind of fix
 * the other blocks carry (two faults in one attempt are both named, whatever kinds they are).
 */
function nextAfterRed(findings: Finding[], introduced: ReportError | null, redStep: string): string[] {
  if (!introduced) return adviceAfterRed(findings, redStep);
  const others = findings.filter((finding) => finding.severity === "BLOCK" && finding.name !== CANNOT_JUDGE);
  return [
    `fix the error this change introduced (${describeReportError(introduced)})`,
    ...(others.length > 0 ? adviceAfterRed(others, redStep) : []),
  ];
}
