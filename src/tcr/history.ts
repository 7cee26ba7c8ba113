/**
 * The loop's memory, shown and used: `slp tcr --status` (the strike count,
 * the last attempts, the changes red attempts saved) and `slp tcr --restore N`
 * (saved change N back in the work tree, never over uncommitted work).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { InputError } from "../core/errors.ts";
import { EXIT } from "../core/exit-codes.ts";
import type { Report } from "../core/report.ts";
import { plural } from "../core/text.ts";
import { Repository } from "../git/repository.ts";
import { WorkTree } from "../git/worktree.ts";
import type { TcrData } from "../schemas/tcr.ts";
import { type Attempt, Ledger, STRIKE_LIMIT } from "./ledger.ts";
import { attempt, emptyData, firstLine, tcrReport } from "./run.ts";

/** How many of the last attempts --status shows (the log keeps them all). */
export const SHOWN_ATTEMPTS = 10;

type History = NonNullable<TcrData["history"]>;

/** `slp tcr --status`: reads the ledger, changes nothing. */
export function tcrStatus(projectDir: string): Report {
  const repo = Repository.open(projectDir);
  const ledger = new Ledger(repo.worktreeGitdir);
  const strikes = ledger.strikes();
  const shown = (path: string) => relative(projectDir, path).split("\\").join("/");
  const saved: History["saved"] = ledger.savedChanges().map((change) => ({
    number: change.number,
    head: change.head,
    dir: shown(change.dir),
    patch: shown(join(change.dir, "change.patch")),
    subject: savedSubject(change.dir),
  }));
  const numberOf = new Map(ledger.savedChanges().map((change) => [basename(change.dir), change.number]));
  const attempts: History["attempts"] = ledger
    .attempts()
    .slice(-SHOWN_ATTEMPTS)
    .map((entry) => ({
      result: entry.result,
      subject: entry.result === "reset" ? (entry.reason ?? "") : firstLine(entry.message ?? ""),
      red_steps: redSteps(entry),
      files: Array.isArray(entry.files) ? entry.files : [],
      commit: entry.commit ?? null,
      strikes: typeof entry.strikes === "number" ? entry.strikes : 0,
      saved: entry.saved ? (numberOf.get(basename(entry.saved)) ?? null) : null,
    }));
  const data = emptyData("status", strikes, statusNext(strikes, saved.length));
  data.history = { attempts, saved };
  const lines = [
    `strikes: ${strikes} of ${STRIKE_LIMIT}`,
    ...(attempts.length ? [`last ${plural(attempts.length, "attempt")}, oldest first:`, ...attempts.map(attemptLine)] : ["no attempt yet"]),
    ...(saved.length
      ? [
          "saved reverted attempts (slp tcr --restore N):",
          ...saved.map((change) => `  ${change.number}\t${change.patch}\ton ${change.head}: ${change.subject}`),
        ]
      : []),
  ];
  const summary = `slp tcr: ${plural(strikes, "strike")} of ${STRIKE_LIMIT}, ${plural(saved.length, "saved reverted attempt")}`;
  return tcrReport(summary, EXIT.ok, data, lines);
}

/**
 * `slp tcr --restore N`: applies saved change N to the work tree (not the
 * index), as `git apply` does: all or nothing. Refused, changing nothing,
 * when a path it writes has uncommitted changes (the user's work would be
 * mixed with or lost under the saved one) or when it does not apply to the
 * work tree as it is (HEAD moved on since).
 */
export async function restoreAttempt(
  projectDir: string,
  number: number,
  environment: { env: Record<string, string | undefined> },
): Promise<Report> {
  const repo = Repository.open(projectDir);
  const ledger = new Ledger(repo.worktreeGitdir);
  const change = ledger.savedChanges().find((candidate) => candidate.number === number);
  const patch = change ? join(change.dir, "change.patch") : null;
  if (!change || !patch || !existsSync(patch)) {
    throw new InputError(`there is no saved reverted attempt ${number}`, {
      fix: "slp tcr --status lists the saved ones with their numbers",
    });
  }
  const shown = (path: string) => relative(projectDir, path).split("\\").join("/");
  const worktree = new WorkTree(repo, environment.env);
  const head = await repo.resolveCommit("HEAD");
  const paths = worktree.patchPaths(patch);
  // What the work tree holds that HEAD does not (untracked files included), as git would stage it.
  const indexFile = join(ledger.dir, "tcr-restore-index");
  let changed: string[];
  try {
    changed = (await worktree.stage(head, indexFile)).changes.map((entry) => entry.path);
  } finally {
    rmSync(indexFile, { force: true });
  }
  const wanted = new Set(paths);
  const overlap = changed.filter((path) => wanted.has(path));
  if (overlap.length > 0) {
    throw new InputError(
      `saved attempt ${number} writes ${overlap.join(", ")}, which ${overlap.length === 1 ? "has" : "have"} uncommitted changes in the work tree; restoring would overwrite them`,
      {
        file: overlap[0],
        fix: "commit them with slp tcr, or move them aside, then run slp tcr --restore again",
      },
    );
  }
  const applied = worktree.applyPatch(patch);
  if (!applied.applied) {
    throw new InputError(
      `saved attempt ${number} does not apply to the work tree as it is: ${applied.error.split("\n").slice(-2).join(" / ")}`,
      {
        file: shown(patch),
        fix: `it was made on ${change.head}; apply it by hand (git apply --3way ${relative(repo.root, patch).split("\\").join("/")}, from the repository root) or redo the change`,
      },
    );
  }
  const strikes = ledger.strikes();
  const saved = relative(repo.worktreeGitdir, change.dir).split("\\").join("/");
  ledger.log(attempt("restored", { message: savedSubject(change.dir), strikes, files: paths, commit: null, step: null, steps: [], saved }));
  const data = emptyData("restored", strikes, "fix what made it red, then run tcr again; nothing was committed");
  data.head = head;
  data.restored = { number, files: paths };
  data.saved = {
    dir: shown(change.dir),
    patch: shown(patch),
    apply: `git apply ${relative(repo.root, patch).split("\\").join("/")} (from the repository root)`,
    files: [],
    moved_aside: existsSync(join(change.dir, "aside")) ? [shown(join(change.dir, "aside"))] : [],
  };
  const aside = data.saved.moved_aside.length
    ? [`ignored files this attempt moved aside are not restored; they are in ${data.saved.moved_aside[0]}`]
    : [];
  return tcrReport(
    `slp tcr: restored saved attempt ${number} (${plural(paths.length, "file")}) to the work tree; nothing committed, the strike count stays ${strikes}`,
    EXIT.ok,
    data,
    ["restored:", ...paths.map((path) => `  ${path}`), ...aside],
  );
}

function statusNext(strikes: number, saved: number): string {
  if (strikes >= STRIKE_LIMIT)
    return 'stop and ask a human (framework Rule 5); once a human has looked, slp tcr --reset "why" clears the count';
  return saved > 0 ? "make the next change, or bring a saved attempt back with slp tcr --restore N" : "make the next change, then run tcr";
}

function redSteps(entry: Attempt): string[] {
  if (entry.result !== "red" && entry.result !== "stopped" && !(entry.result === "dry-run" && entry.step)) return [];
  const red = Array.isArray(entry.steps) ? entry.steps.filter((step) => step.verdict === "red").map((step) => step.name) : [];
  // A hook that failed before any step ran is the attempt's only red.
  return red.length > 0 ? red : entry.step ? [entry.step] : [];
}

function attemptLine(entry: History["attempts"][number]): string {
  const what =
    entry.result === "green" && entry.commit
      ? `committed ${entry.commit.slice(0, 7)}`
      : entry.red_steps.length
        ? `red at ${entry.red_steps.join(", ")}`
        : "";
  const saved = entry.saved === null ? "" : `, saved as ${entry.saved}`;
  return `  ${entry.result.padEnd(17)} ${entry.subject}${what ? ` (${what}${saved})` : saved ? ` (${saved.slice(2)})` : ""}; strikes ${entry.strikes}`;
}

/** The first line of a saved attempt's message. */
function savedSubject(dir: string): string {
  try {
    return firstLine(readFileSync(join(dir, "message.txt"), "utf8"));
  } catch {
    return "";
  }
}
