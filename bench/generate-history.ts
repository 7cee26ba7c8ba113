/**
 * Writes a git repository for `slp gate` benchmarks: the synthetic project of
 * generate-project.ts committed on main, then a branch `pr` of C commits, each
 * changing a marts model's sql together with a pre-registration of its own,
 * re-tuning an earlier pre-registration now and then, and touching a staging
 * yml. Built with the git CLI (slp itself never needs it), fixed identity and
 * dates, then packed by `git gc` as a fresh CI clone would be.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateProject, type ProjectShape } from "./generate-project.ts";

export interface HistoryShape extends ProjectShape {
  commits: number;
}

function git(cwd: string, args: string[], date = "1767225600 +0000"): void {
  const result = Bun.spawnSync(["git", ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Agent Smith",
      GIT_AUTHOR_EMAIL: "agent@example.com",
      GIT_COMMITTER_NAME: "Agent Smith",
      GIT_COMMITTER_EMAIL: "agent@example.com",
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
}

/** Replaces a model's pre-registration interval (or adds one), so the sql change carries its own. */
function preRegister(root: string, i: number, max: number): void {
  const file = join(root, "models", "marts", `fct_model_${i}.yml`);
  const text = readFileSync(file, "utf8").replace(/row_delta: \{min: 0, max: \d+\}/, `row_delta: {min: 0, max: ${max}}`);
  writeFileSync(file, text);
}

export function generateHistory(root: string, shape: HistoryShape): void {
  generateProject(root, shape);
  git(root, ["init", "-q", "-b", "main"]);
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "main"]);
  git(root, ["checkout", "-q", "-b", "pr"]);
  for (let k = 0; k < shape.commits; k++) {
    const i = k % shape.marts;
    writeFileSync(join(root, "models", "marts", `fct_model_${i}.sql`), `-- change ${k}\nselect ${k} as order_id\n`);
    preRegister(root, i, 20_000 + k);
    // Every fifth commit re-tunes the previous model's interval: an I1 edit, as agents do.
    if (k % 5 === 4) preRegister(root, (k - 1) % shape.marts, 30_000 + k);
    if (shape.staging > 0) {
      const staging = join(root, "models", "staging", `stg_model_${k % shape.staging}.yml`);
      writeFileSync(staging, readFileSync(staging, "utf8").replace(/description: "(.*?)"/, `description: "$1, revision ${k}"`));
    }
    git(root, ["add", "-A"]);
    git(root, ["commit", "-q", "-m", `step ${k}`], `${1_767_225_600 + 60 * (k + 1)} +0000`);
  }
  git(root, ["gc", "-q"]);
}
