/**
 * The blocks HEAD itself has, per step: what a red step's findings are
 * measured against, so a block already at HEAD (a human's spec commit that
 * adds an edge, say) does not make every step red. Worked out only for a
 * step that is red, by running it on HEAD (gate at HEAD, the others on HEAD's
 * files checked out under the git directory), and remembered per HEAD.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "../core/exit-codes.ts";
import { TreeCheckout } from "../git/checkout.ts";
import type { Repository } from "../git/repository.ts";
import { runStage, takesInput } from "../runner/compose.ts";
import type { TaskEnvironment } from "../runner/define-task.ts";
import { findingKey, stageFindings } from "../runner/stage-findings.ts";
import { VERSION } from "../version.ts";
import type { TcrStep } from "./run.ts";

interface Stored {
  version: string;
  head: string;
  /** Step key -> the keys of its blocks at HEAD, or null when HEAD could not be judged. */
  entries: Record<string, string[] | null>;
}

export class Baseline {
  readonly #repo: Repository;
  readonly #prefix: string;
  readonly #head: string;
  readonly #environment: TaskEnvironment;
  readonly #file: string;
  #checkout: TreeCheckout | null = null;

  constructor(repo: Repository, prefix: string, head: string, environment: TaskEnvironment) {
    this.#repo = repo;
    this.#prefix = prefix;
    this.#head = head;
    this.#environment = environment;
    this.#file = join(repo.worktreeGitdir, "slp", "tcr-baseline.json");
  }

  /**
   * The finding keys (rule, file, model, message) of the blocks the step has
   * at HEAD, or null when it cannot be run there or HEAD could not be judged.
   */
  async findings(step: TcrStep, input: Record<string, unknown>): Promise<Set<string> | null> {
    const key = `${step.name}\0${JSON.stringify(input, Object.keys(input).sort())}`;
    const stored = this.#read();
    if (key in stored.entries) return toSet(stored.entries[key] ?? null);
    let keys: string[] | null = null;
    const atHead = await this.#inputAtHead(step, input);
    if (atHead) {
      const result = await runStage(step.task, atHead, this.#environment);
      if (result.exitCode !== EXIT.cannotJudge) {
        keys = stageFindings(result.report).filter((finding) => finding.severity === "BLOCK").map(findingKey);
      }
    }
    stored.entries[key] = keys;
    writeFileSync(this.#file, `${JSON.stringify(stored)}\n`);
    return toSet(keys);
  }

  close(): void {
    this.#checkout?.close();
    this.#checkout = null;
  }

  /** The step's input pointed at HEAD: gate's head, or the project as HEAD has it; null for a step that takes neither. */
  async #inputAtHead(step: TcrStep, input: Record<string, unknown>): Promise<Record<string, unknown> | null> {
    if (step.judgesCommit) return { ...input, head: this.#head };
    if (!takesInput(step.task, "projectDir")) return null;
    if (!this.#checkout) {
      this.#checkout = TreeCheckout.open(this.#repo, this.#prefix);
      await this.#checkout.moveTo(this.#head);
    }
    return { ...input, projectDir: this.#checkout.projectDir };
  }

  #read(): Stored {
    try {
      const stored = JSON.parse(readFileSync(this.#file, "utf8")) as Stored;
      if (stored.version === VERSION && stored.head === this.#head && stored.entries) return stored;
    } catch {
      // none yet, or unreadable: start again
    }
    return { version: VERSION, head: this.#head, entries: {} };
  }
}

function toSet(keys: string[] | null): Set<string> | null {
  return keys ? new Set(keys) : null;
}
