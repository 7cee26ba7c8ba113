/**
 * The TCR loop's memory, kept in the git directory (never in the work tree,
 * so a revert cannot erase it): the count of consecutive reds, and a JSONL
 * log of every attempt.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Five reds in a row stop the agent (framework Rule 5). */
export const STRIKE_LIMIT = 5;

export interface Attempt {
  time: string;
  message: string;
  result: "green" | "red" | "stopped" | "refused" | "reset" | "dry-run" | "nothing-to-commit";
  /** The step that went red, when one did. */
  step: string | null;
  steps: { name: string; verdict: "green" | "red" | "skipped" }[];
  files: string[];
  commit: string | null;
  strikes: number;
}

export class Ledger {
  readonly #dir: string;

  constructor(gitdir: string) {
    this.#dir = join(gitdir, "slp");
  }

  get strikesFile(): string {
    return join(this.#dir, "tcr-strikes");
  }

  get logFile(): string {
    return join(this.#dir, "tcr-log.jsonl");
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

  log(attempt: Attempt): void {
    mkdirSync(this.#dir, { recursive: true });
    appendFileSync(this.logFile, `${JSON.stringify(attempt)}\n`);
  }
}
