/**
 * What a step makes of HEAD itself: the yardstick a step's verdict is
 * measured by. A red step's blocks that HEAD has too (a human's spec commit
 * that adds an edge, say) do not make it red; a step that cannot judge the
 * change is red only when it can judge HEAD (the change made it unable to),
 * and the environment's doing when it cannot judge HEAD either. Worked out
 * only for a step that is not green, by running it on HEAD (gate at HEAD, the
 * others on HEAD's files checked out under the git directory, with the
 * ignored inputs the work tree has installed: dbt packages, profiles.yml).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { EXIT } from "../core/exit-codes.ts";
import type { ReportError } from "../core/report.ts";
import { isMapping } from "../core/values.ts";
import { TreeCheckout } from "../git/checkout.ts";
import type { Repository } from "../git/repository.ts";
import type { Change } from "../git/worktree.ts";
import { parseYaml } from "../project/files/yaml.ts";
import { runStage, stageSummary, takesInput } from "../runner/compose.ts";
import type { TaskEnvironment } from "../runner/define-task.ts";
import { findingKey, stageFindings } from "../runner/stage-findings.ts";
import { VERSION } from "../version.ts";
import type { TcrStep } from "./run.ts";

/** What a step made of HEAD. */
export interface HeadVerdict {
  exitCode: number;
  summary: string;
  /** The keys (rule, file, model, message) of its blocks. */
  blocks: Set<string>;
  /** Why it could not judge HEAD (exit 2), else []. */
  errors: ReportError[];
}

interface Stored {
  version: string;
  head: string;
  /** Step key -> what the step made of HEAD; only verdicts, never "could not judge" (the environment may be fixed by the next call). */
  entries: Record<string, { exit_code: number; summary: string; blocks: string[] }>;
}

/** Ignored inputs a step reads besides the project's tracked files: HEAD's checkout borrows them from the work tree. */
const PROFILES = "profiles.yml";
const DEFAULT_PACKAGES = "dbt_packages";

export class Baseline {
  readonly #repo: Repository;
  readonly #prefix: string;
  readonly #head: string;
  readonly #environment: TaskEnvironment;
  readonly #file: string;
  /** The step's change: a path it touches is not borrowed (it is not HEAD's, and not ignored). */
  readonly #changes: readonly Change[];
  #checkout: TreeCheckout | null = null;

  constructor(repo: Repository, prefix: string, head: string, environment: TaskEnvironment, changes: readonly Change[]) {
    this.#repo = repo;
    this.#prefix = prefix;
    this.#head = head;
    this.#environment = environment;
    this.#changes = changes;
    this.#file = join(repo.worktreeGitdir, "slp", "tcr-baseline.json");
  }

  /**
   * What the step makes of HEAD, or null when tcr cannot run it there (it
   * takes neither a commit nor a project folder). Remembered per HEAD;
   * `fresh` runs it again all the same (a verdict that decides a strike is
   * never taken from a run made in another environment).
   */
  async atHead(step: TcrStep, input: Record<string, unknown>, options: { fresh?: boolean } = {}): Promise<HeadVerdict | null> {
    const key = `${step.name}\0${JSON.stringify(input, Object.keys(input).sort())}`;
    const stored = this.#read();
    const known = stored.entries[key];
    if (known && !options.fresh) return { exitCode: known.exit_code, summary: known.summary, blocks: new Set(known.blocks), errors: [] };
    const atHead = await this.#inputAtHead(step, input);
    if (!atHead) return null;
    const result = await runStage(step.task, atHead, this.#environment);
    const summary = stageSummary(result);
    if (result.exitCode === EXIT.cannotJudge) {
      delete stored.entries[key];
      this.#write(stored);
      return { exitCode: result.exitCode, summary, blocks: new Set(), errors: result.report.errors ?? [] };
    }
    const blocks = stageFindings(result.report)
      .filter((finding) => finding.severity === "BLOCK")
      .map(findingKey);
    stored.entries[key] = { exit_code: result.exitCode, summary, blocks };
    this.#write(stored);
    return { exitCode: result.exitCode, summary, blocks: new Set(blocks), errors: [] };
  }

  close(): void {
    this.#checkout?.close();
    this.#checkout = null;
  }

  /** The step's input pointed at HEAD: gate's head, or the project as HEAD has it; null for a step tcr cannot point there. */
  async #inputAtHead(step: TcrStep, input: Record<string, unknown>): Promise<Record<string, unknown> | null> {
    if (step.judgesCommit) return { ...input, head: this.#head };
    // A step that reads the branch's history from the project's repository (mutate) cannot run on HEAD's checkout, which has none.
    if (step.takesBase || !takesInput(step.task, "projectDir")) return null;
    if (!this.#checkout) {
      const checkout = TreeCheckout.open(this.#repo, this.#prefix);
      this.#checkout = checkout;
      await checkout.moveTo(this.#head);
      for (const path of this.#borrowable(checkout.projectDir)) checkout.borrow(path, join(this.#repo.root, ...path.split("/")));
    }
    return { ...input, projectDir: this.#checkout.projectDir };
  }

  /**
   * The repository paths of the ignored inputs HEAD's checkout lacks and the
   * work tree has (dbt packages where HEAD's dbt_project.yml installs them, a
   * profiles.yml in the project): without them HEAD could not be judged as
   * the step was. A path the change adds to is not ignored, so not borrowed.
   */
  #borrowable(checkoutProject: string): string[] {
    const inRepo = (path: string) => (this.#prefix === "" ? path : `${this.#prefix}/${path}`);
    const touched = (path: string) => this.#changes.some((change) => change.path === path || change.path.startsWith(`${path}/`));
    return [packagesPath(checkoutProject), PROFILES]
      .filter((path): path is string => path !== null)
      .map(inRepo)
      .filter(
        (path) =>
          !touched(path) &&
          !existsSync(join(this.#checkout?.root ?? "", ...path.split("/"))) &&
          existsSync(join(this.#repo.root, ...path.split("/"))),
      );
  }

  #read(): Stored {
    try {
      const stored = JSON.parse(readFileSync(this.#file, "utf8")) as Stored;
      if (stored.version === VERSION && stored.head === this.#head && isMapping(stored.entries)) return stored;
    } catch {
      // none yet, or unreadable: start again
    }
    return { version: VERSION, head: this.#head, entries: {} };
  }

  #write(stored: Stored): void {
    writeFileSync(this.#file, `${JSON.stringify(stored)}\n`);
  }
}

/** Where HEAD's dbt_project.yml installs packages (dbt's packages-install-path), when that is a folder inside the project. */
function packagesPath(projectDir: string): string | null {
  let path = DEFAULT_PACKAGES;
  try {
    const config = parseYaml(readFileSync(join(projectDir, "dbt_project.yml"), "utf8"), { file: "dbt_project.yml" });
    if (isMapping(config) && typeof config["packages-install-path"] === "string") path = config["packages-install-path"];
  } catch {
    // no dbt_project.yml, or one HEAD's step will report itself
  }
  const clean = path.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  return clean === "" || isAbsolute(clean) || clean.split("/").includes("..") ? null : clean;
}
