/**
 * An agent branch whose history holds everything slp review must show first:
 * a pre-registration written, narrowed (I1), narrowed again once the branch
 * had its measured diff (G17), a strike, a strike reset, a commit made with
 * plain git and a merge of the base edited by hand (G12), and a red attempt
 * still pending in tcr's ledger. Built with the real slp tcr and git.
 */
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./cli.ts";
import { commitAll, git } from "./git-repo.ts";
import { breakSpec, edit, FCT_ORDERS_YML, quickstartRepo } from "./tcr.ts";
import type { TempDir } from "./temp.ts";

export interface HistoryRepo {
  repo: TempDir;
  /** The short ids of the commits, by what each did. */
  commits: Record<"written" | "narrowed" | "measured" | "narrowedAfterDiff" | "afterStrike" | "afterReset" | "byHand" | "merge", string>;
}

const short = (dir: string) => git(dir, ["rev-parse", "--short=7", "HEAD"]);

async function tcr(dir: string, message: string, exitCode = 0): Promise<void> {
  const result = await runMain(["tcr", message], dir);
  if (result.exitCode !== exitCode) throw new Error(`slp tcr "${message}" exited ${result.exitCode}: ${result.stdout}${result.stderr}`);
}

function band(dir: string, max: number): void {
  edit(dir, FCT_ORDERS_YML, (text) => text.replace(/row_delta: \{min: 0, max: \d+\}/, `row_delta: {min: 0, max: ${max}}`));
}

export async function historyRepo(): Promise<HistoryRepo> {
  const repo = quickstartRepo(["check"]);
  const dir = repo.path;
  band(dir, 10);
  await tcr(dir, "pre-register a wider row_delta");
  const written = short(dir);
  band(dir, 6);
  await tcr(dir, "narrow row_delta");
  const narrowed = short(dir);
  edit(dir, "diff/fct_orders.json", (text) => text.replace('"row_delta": 2', '"row_delta": 3'));
  await tcr(dir, "the measured diff");
  const measured = short(dir);
  band(dir, 3);
  await tcr(dir, "narrow row_delta to the number");
  const narrowedAfterDiff = short(dir);
  // A strike, then the green step after it.
  breakSpec(dir);
  await tcr(dir, "drop the spec", 1);
  edit(dir, "data/README.md", (text) => `${text}\nfirst note\n`);
  await tcr(dir, "a note");
  const afterStrike = short(dir);
  // A strike cleared by a reset, recorded by the next green step.
  breakSpec(dir);
  await tcr(dir, "drop the spec again", 1);
  expect((await runMain(["tcr", "--reset", "a human read the spec"], dir)).exitCode).toBe(0);
  edit(dir, "data/README.md", (text) => `${text}\nsecond note\n`);
  await tcr(dir, "another note");
  const afterReset = short(dir);
  // Plain git, outside tcr.
  writeFileSync(join(dir, "NOTES.md"), "written by hand\n");
  commitAll(dir, "a note by hand");
  const byHand = short(dir);
  // The base moves; merging it in is fine, editing the merge by hand is G12's.
  git(dir, ["checkout", "-q", "main"]);
  writeFileSync(join(dir, "CHANGELOG.md"), "a human's change on main\n");
  commitAll(dir, "main moves on");
  git(dir, ["checkout", "-q", "agent/work"]);
  git(dir, ["merge", "-q", "--no-ff", "--no-commit", "main"]);
  writeFileSync(join(dir, "CHANGELOG.md"), "a human's change on main, edited in the merge\n");
  commitAll(dir, "merge main");
  const merge = short(dir);
  // A red attempt the ledger counts and git does not have.
  breakSpec(dir);
  await tcr(dir, "drop the spec once more", 1);
  return { repo, commits: { written, narrowed, measured, narrowedAfterDiff, afterStrike, afterReset, byHand, merge } };
}
