/**
 * The folders slp writes its own outputs into (`mutation/`, and the diff and
 * review outputs that follow): one slp makes itself holds a `.gitignore`
 * of `*`, so git, `git add -A`, `git status`, and slp tcr's commits and
 * reverts leave what slp wrote there alone, as pytest does with its cache.
 * A folder that is there already is the user's (it may be committed on
 * purpose): slp writes into it and adds nothing.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const OUTPUT_GITIGNORE =
  "# Written by slp with this folder: git ignores what slp writes here. Delete this file to commit them.\n*\n";

/** Makes `dir` (and its parents) for slp's outputs; a folder slp makes ignores itself. */
export function makeOutputDir(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ".gitignore"), OUTPUT_GITIGNORE);
}
