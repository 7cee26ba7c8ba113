/**
 * Builds real git repositories for tests with the git CLI: fixed author and
 * dates so every sha is the same on every machine. slp itself never needs
 * the git binary; the tests use it to make histories the way users do.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

export const FIXED_AUTHOR = { name: "Agent Smith", email: "agent@example.com" };

export function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  const result = Bun.spawnSync(["git", ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: FIXED_AUTHOR.name,
      GIT_AUTHOR_EMAIL: FIXED_AUTHOR.email,
      GIT_COMMITTER_NAME: FIXED_AUTHOR.name,
      GIT_COMMITTER_EMAIL: FIXED_AUTHOR.email,
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  return result.stdout.toString().trimEnd();
}

/** `git init` on branch main, with a fixed identity. */
export function initRepo(dir: string): void {
  git(dir, ["init", "-q", "-b", "main"]);
  git(dir, ["config", "user.name", FIXED_AUTHOR.name]);
  git(dir, ["config", "user.email", FIXED_AUTHOR.email]);
  git(dir, ["config", "commit.gpgsign", "false"]);
}

/** Seconds since the first commit, per repository: a fixture's shas never depend on which tests ran before it. */
const clocks = new Map<string, number>();
/** Commits everything in the work tree with a fixed date that grows by a minute per commit in this repository. */
export function commitAll(dir: string, message: string, author = FIXED_AUTHOR): string {
  git(dir, ["add", "-A"]);
  const clock = (clocks.get(dir) ?? 0) + 60;
  clocks.set(dir, clock);
  const date = `${1_767_225_600 + clock} +0000`;
  git(dir, ["commit", "-q", "--allow-empty", "-m", message], {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  });
  return git(dir, ["rev-parse", "HEAD"]);
}

/** Replaces the work tree (everything but .git) with a copy of `source`. */
export function replaceTree(dir: string, source: string): void {
  for (const entry of readdirSync(dir)) if (entry !== ".git") rmSync(join(dir, entry), { recursive: true, force: true });
  if (existsSync(source)) cpSync(source, dir, { recursive: true });
}

/**
 * A pull request history from fixture trees: `before/` committed on main,
 * then a branch `pr` with one commit per `mid*` folder (sorted) and `after/`.
 * A `<tree>.message` file beside a tree is that commit's message (trailers and all).
 */
export function buildHistory(repo: string, caseDir: string): void {
  initRepo(repo);
  const message = (tree: string, fallback: string) => {
    const file = join(caseDir, `${tree}.message`);
    return existsSync(file) ? readFileSync(file, "utf8") : fallback;
  };
  replaceTree(repo, join(caseDir, "before"));
  commitAll(repo, message("before", "main: before"));
  git(repo, ["checkout", "-q", "-b", "pr"]);
  const mids = readdirSync(caseDir)
    .filter((entry) => /^mid\d*$/.test(entry))
    .sort();
  for (const mid of mids) {
    replaceTree(repo, join(caseDir, mid));
    commitAll(repo, message(mid, `pr: ${mid}`));
  }
  replaceTree(repo, join(caseDir, "after"));
  commitAll(repo, message("after", "pr: after"));
}
