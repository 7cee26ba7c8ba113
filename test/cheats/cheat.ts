/**
 * The red-team suite's shape and its player: a cheat is data (what an agent
 * does, step by step, on a real repository built from a fixture project) and
 * the catch slp owes (the command that must stop it, with its exit code and
 * rule codes). One runner (test/cheats.test.ts) plays them all.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { runMain, type CliResult } from "../support/cli.ts";
import { commitAll, git, initRepo } from "../support/git-repo.ts";
import { tempDir, type TempDir } from "../support/temp.ts";

export const ROOT = join(import.meta.dir, "..", "..");

/** The fixture projects a cheat starts from: each a folder of real files, committed on main. */
export const FIXTURES = {
  /** examples/quickstart: two marts (one critical, with its reconciliation), staging, sources. */
  quickstart: join(ROOT, "examples", "quickstart"),
  /** test/fixtures/leaks/stage-e: a mart with sensitive columns, its data files named in slp.yml, its reconciliation query. */
  stageE: join(ROOT, "test", "fixtures", "leaks", "stage-e"),
  /** test/fixtures/leaks/env-unit: a model that reads env_var('DBT_PASSWORD'), and its unit test. */
  envUnit: join(ROOT, "test", "fixtures", "leaks", "env-unit"),
} as const;

/** Who commits: the agent (the default identity), or a human on main before the branch starts. */
export const HUMAN = { name: "Ana Author", email: "ana@example.com" };

/** One thing the agent (or, in `base`, a human) does. Paths are relative to the repository root. */
export type Step =
  /** Writes a file (folders made as needed). */
  | { write: string; text: string }
  /** Replaces the first occurrence of `from` with `to` in a file; `from` must occur. */
  | { edit: string; from: string; to: string }
  | { remove: string }
  | { move: string; to: string }
  /** A symbolic link at `link` pointing at `to` (as written: relative to the link's folder). */
  | { link: string; to: string }
  /** Moves the file to a folder outside the repository and leaves a symbolic link to it in its place. */
  | { linkOut: string }
  /** `git add -A` and `git commit` with the message (plain git: no tcr, no hooks unless installed). */
  | { commit: string; author?: { name: string; email: string } }
  /** A git command as the agent would type it. */
  | { git: string[] }
  /** `slp tcr MESSAGE` in-process; `exit` is what the step must end with. */
  | { tcr: string; exit: number }
  /** Any slp command in-process (`tcr --reset WHY`), with the exit it must end with. */
  | { slp: string[]; exit: number };

/**
 * What slp must say: the command run last, its exit code, and the rules that must report (BLOCK unless `severity` says INFO).
 * A refusal is exit 2: with rules (slp guard), or with the texts it must say (`says`).
 */
export interface Catch {
  run: string[];
  exit: number;
  rules: string[];
  severity?: "BLOCK" | "INFO";
  /** The environment the command runs with; `{repo}` in a value is the repository's path. */
  env?: Record<string, string>;
  /** Texts the command's stdout or stderr must hold. */
  says?: string[];
  /** Texts that must appear nowhere: not in stdout, stderr, nor any file under `absentFrom` (files or folders of the repository). */
  absent?: string[];
  absentFrom?: string[];
  /** Paths of the repository that must not exist after the whole scenario (a marker top-level code would write). */
  unwritten?: string[];
}

/** A cheat slp stops: a BLOCK (exit 1 with its rules), a refusal (exit 2 naming rules or saying why), or a value kept out of every output (`absent`). */
export function isBlocked(cheat: Cheat): boolean {
  const { exit, rules, says = [], absent = [] } = cheat.catch;
  // A leak is stopped when the value is nowhere, whatever the command's verdict on the rest.
  if (absent.length > 0) return true;
  if (exit === 1) return rules.length > 0;
  return exit === 2 && (rules.length > 0 || says.length > 0);
}

export interface Cheat {
  /** kebab-case, unique. */
  id: string;
  /** What the agent does and why it would pass a weaker gate. */
  what: string;
  fixture?: keyof typeof FIXTURES;
  /** Written into slp.yml on main before the branch (e.g. `tcr: required`). */
  slpYml?: string;
  /** Human commits on main before the branch starts (each `commit` step closes one). */
  base?: Step[];
  steps: Step[];
  catch: Catch;
  /**
   * Set when slp alone cannot stop it and the platform must (branch protection,
   * an authenticated opener, a human's reading): the reason. `catch` is then
   * what slp does report (INFO lines, or nothing: rules []), so a change in it is seen.
   */
  needs?: { platform: string };
}

/** Applies one step in the repository. */
export async function play(dir: string, step: Step): Promise<CliResult | null> {
  if ("write" in step) {
    mkdirSync(dirname(join(dir, step.write)), { recursive: true });
    writeFileSync(join(dir, step.write), step.text);
  } else if ("edit" in step) {
    const file = join(dir, step.edit);
    const text = readFileSync(file, "utf8");
    if (!text.includes(step.from)) throw new Error(`${step.edit} does not contain ${JSON.stringify(step.from)}`);
    writeFileSync(
      file,
      text.replace(step.from, () => step.to),
    );
  } else if ("remove" in step) {
    if (!existsSync(join(dir, step.remove))) throw new Error(`${step.remove} does not exist`);
    rmSync(join(dir, step.remove), { recursive: true });
  } else if ("move" in step) {
    mkdirSync(dirname(join(dir, step.to)), { recursive: true });
    renameSync(join(dir, step.move), join(dir, step.to));
  } else if ("link" in step) {
    mkdirSync(dirname(join(dir, step.link)), { recursive: true });
    symlinkSync(step.to, join(dir, step.link));
  } else if ("linkOut" in step) {
    const outside = join(outsideOf(dir), step.linkOut);
    mkdirSync(dirname(outside), { recursive: true });
    renameSync(join(dir, step.linkOut), outside);
    symlinkSync(outside, join(dir, step.linkOut));
  } else if ("commit" in step) {
    commitAll(dir, step.commit, step.author);
  } else if ("git" in step) {
    git(dir, step.git, { GIT_AUTHOR_DATE: "1767300000 +0000", GIT_COMMITTER_DATE: "1767300000 +0000" });
  } else {
    const argv = "tcr" in step ? ["tcr", step.tcr] : step.slp;
    const result = await runMain(argv, dir);
    if (result.exitCode !== step.exit)
      throw new Error(
        `slp ${argv.join(" ")} exited ${result.exitCode}, the scenario expects ${step.exit}:\n${result.stdout}${result.stderr}`,
      );
    return result;
  }
  return null;
}

/** A folder beside the repository, outside it, removed with it. */
export function outsideOf(dir: string): string {
  return `${dir}.outside`;
}

/** Every text of the named files (folders read whole) that exist in the repository. */
export function textsUnder(dir: string, paths: string[]): string[] {
  const texts: string[] = [];
  const read = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) read(join(path, name));
    else texts.push(readFileSync(path, "utf8"));
  };
  for (const path of paths) read(join(dir, path));
  return texts;
}

/** The fixture committed on main (with the human's base steps), then the agent's branch `agent/work`. */
export async function startRepo(cheat: Cheat): Promise<TempDir> {
  const repo = tempDir("slp-cheat-");
  cpSync(FIXTURES[cheat.fixture ?? "quickstart"], repo.path, { recursive: true });
  writeFileSync(join(repo.path, ".gitignore"), "*.duckdb\ntarget/\n*.log\n");
  if (cheat.slpYml !== undefined) {
    const file = join(repo.path, "slp.yml");
    writeFileSync(file, `${existsSync(file) ? readFileSync(file, "utf8") : ""}${cheat.slpYml}`);
  }
  initRepo(repo.path);
  commitAll(repo.path, "main: the project", HUMAN);
  for (const step of cheat.base ?? []) await play(repo.path, "commit" in step ? { ...step, author: step.author ?? HUMAN } : step);
  git(repo.path, ["checkout", "-q", "-b", "agent/work"]);
  return repo;
}

/** The findings of a text report: `SEVERITY<TAB>file<TAB>model<TAB>message<TAB>[RULE]` lines, wherever they sit in the output. */
export function findingsOf(stdout: string): { severity: string; rule: string; line: string }[] {
  const found: { severity: string; rule: string; line: string }[] = [];
  for (const line of stdout.split("\n")) {
    const match = /^\s*(BLOCK|INFO)\t.*\t\[([A-Z]+\d*)\]$/.exec(line);
    if (match) found.push({ severity: match[1] as string, rule: match[2] as string, line: line.trim() });
  }
  return found;
}

/** Plays a cheat end to end and returns the final command's result. */
export async function playCheat(cheat: Cheat): Promise<{ result: CliResult; repo: string; dispose: () => void }> {
  const repo = await startRepo(cheat);
  const dispose = () => {
    rmSync(outsideOf(repo.path), { recursive: true, force: true });
    repo[Symbol.dispose]();
  };
  try {
    for (const step of cheat.steps) await play(repo.path, step);
    const env = Object.fromEntries(
      Object.entries(cheat.catch.env ?? {}).map(([key, value]) => [key, value.replaceAll("{repo}", repo.path)]),
    );
    const result = await runMain(cheat.catch.run, repo.path, env);
    return { result, repo: repo.path, dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}
