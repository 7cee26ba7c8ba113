/**
 * The TCR loop's memory, kept in the git directory (never in the work tree,
 * so a revert cannot erase it): the count of consecutive reds, the strike
 * resets the next commit must record, a JSONL log of every attempt, and the
 * changes red steps took out of the work tree.
 */
import { maskEnvValues } from "../core/env-values.ts";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Five reds in a row stop the agent (framework Rule 5). */
export const STRIKE_LIMIT = 5;

export interface Attempt {
  time: string;
  message: string;
  result: "green" | "red" | "stopped" | "cannot-judge" | "reset" | "dry-run" | "nothing-to-commit" | "restored";
  /** The step that went red (or could not judge), when one did. */
  step: string | null;
  steps: { name: string; verdict: string }[];
  files: string[];
  commit: string | null;
  strikes: number;
  /** Where a red step's change was saved, relative to the git directory. */
  saved?: string | null;
  reason?: string;
}

/** A strike reset not yet recorded in a commit. */
export interface Reset {
  /** The count it cleared. */
  was: number;
  by: string;
  reason: string;
}

export class Ledger {
  readonly #dir: string;

  constructor(gitdir: string) {
    this.#dir = join(gitdir, "slp");
  }

  get dir(): string {
    return this.#dir;
  }

  get strikesFile(): string {
    return join(this.#dir, "tcr-strikes");
  }

  get logFile(): string {
    return join(this.#dir, "tcr-log.jsonl");
  }

  get resetsFile(): string {
    return join(this.#dir, "tcr-resets.json");
  }

  strikes(): number {
    if (!existsSync(this.strikesFile)) return 0;
    const value = Number.parseInt(readFileSync(this.strikesFile, "utf8").trim(), 10);
    return Number.isFinite(value) && value > 0 ? value : 0;
  }

  setStrikes(count: number): void {
    mkdirSync(this.#dir, { recursive: true });
    writeFileSync(this.strikesFile, `${count}\n`);
  }

  /** Resets since the last tcr commit, oldest first. */
  pendingResets(): Reset[] {
    if (!existsSync(this.resetsFile)) return [];
    try {
      const value = JSON.parse(readFileSync(this.resetsFile, "utf8")) as unknown;
      return Array.isArray(value) ? (value as Reset[]) : [];
    } catch {
      return [];
    }
  }

  addReset(reset: Reset): void {
    mkdirSync(this.#dir, { recursive: true });
    writeFileSync(this.resetsFile, `${JSON.stringify([...this.pendingResets(), reset], null, 2)}\n`);
  }

  /** Called once a commit carries the pending resets in its trailers. */
  clearResets(): void {
    rmSync(this.resetsFile, { force: true });
  }

  /** A new folder for a reverted change: `reverted/<n>-<short head>`, numbered in order. */
  nextRevertedDir(shortHead: string): string {
    const root = join(this.#dir, "reverted");
    const numbers = existsSync(root)
      ? readdirSync(root)
          .map((name) => Number.parseInt(name, 10))
          .filter(Number.isFinite)
      : [];
    const next = Math.max(0, ...numbers) + 1;
    return join(root, `${String(next).padStart(4, "0")}-${shortHead}`);
  }

  /** Every attempt logged, oldest first; a line that is not an attempt (cut short by a crash, edited by hand) is left out. */
  attempts(): Attempt[] {
    if (!existsSync(this.logFile)) return [];
    const attempts: Attempt[] = [];
    for (const line of readFileSync(this.logFile, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      try {
        const value = JSON.parse(line) as Attempt;
        if (typeof value === "object" && value !== null && typeof value.result === "string") attempts.push(value);
      } catch {
        // not an attempt
      }
    }
    return attempts;
  }

  /** The saved reverted changes, by number, oldest first: `reverted/<n>-<short head>` folders. */
  savedChanges(): { number: number; head: string; dir: string }[] {
    const root = join(this.#dir, "reverted");
    if (!existsSync(root)) return [];
    return readdirSync(root)
      .map((name) => ({ name, match: /^(\d+)-([0-9a-f]+)$/.exec(name) }))
      .filter((entry) => entry.match !== null)
      .map(({ name, match }) => ({ number: Number.parseInt(match?.[1] as string, 10), head: match?.[2] as string, dir: join(root, name) }))
      .sort((a, b) => a.number - b.number);
  }

  log(attempt: Attempt): void {
    mkdirSync(this.#dir, { recursive: true });
    appendFileSync(this.logFile, maskEnvValues(`${JSON.stringify(attempt)}\n`));
  }
}
