/**
 * What `slp guard` refuses before an agent writes: the paths gate would block
 * a branch for (protected.ts's entries, read for this repository), judged on
 * the file the agent is about to write (links followed, spellings folded:
 * paths.ts) before any commit exists, and the repository's own store
 * (`.git/`: tcr's record, hooks, config), which no agent edits.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { escapeRegExp } from "../core/text.ts";
import { loadConfig, repositoryRoot } from "../project/slp/slp-yml.ts";
import { readDbtPaths } from "../project/dbt/dbt-paths.ts";
import { mayAddUnderTests, protectedEntries, type ProtectedEntry } from "../project/history/protected.ts";
import type { Effect } from "./commands.ts";
import { matchKey, mayBeShortName, resolveLinks } from "./paths.ts";

/** A protected pattern and the rule that stands behind it; the guard adds `.git/`, tcr's (G12). */
export interface GuardEntry {
  pattern: string;
  rule: ProtectedEntry["rule"] | "G12" | "G13";
  blocks: string;
}

/** The repository's store: tcr's record (.git/slp), its hooks and its config are the human's. */
const GIT_STORE: GuardEntry = { pattern: ".git/", rule: "G12", blocks: "tcr's record and git's hooks and settings (a human's)" };

export interface Protection {
  /** The repository root, absolute, as found. */
  root: string;
  /** The same with its links followed. */
  realRoot: string;
  entries: GuardEntry[];
  /**
   * The files under the test and analysis folders at HEAD (in matchKey's
   * form): a test (G1) or a reconciliation query (G5) exists once it is
   * committed, as gate sees it; null outside a git repository with commits,
   * where the disk decides.
   */
  committed: Set<string> | null;
  /** The git folders outside the work tree (a linked worktree's gitdir and the common one), real paths. */
  gitDirs: string[];
}

export interface Verdict {
  /** Repository-relative, links followed. */
  path: string;
  /** The path as the agent gave it, when it differs (a link, another spelling). */
  given?: string;
  entry: GuardEntry;
  /** How a command reaches it, when it does not name it: may reach it (a glob, an archive), cannot be followed, or is the human's. */
  kind?: "reaches" | "opaque" | "human";
  /** Why, in words. */
  reason?: string;
  via?: string;
}

/** The protection of the repository holding `projectDir`: slp.yml's extra paths and dbt_project.yml's folders included. */
export async function loadProtection(projectDir: string): Promise<Protection> {
  const root = repositoryRoot(projectDir);
  const prefix = relative(root, projectDir).split("\\").join("/");
  const dbtPaths = readDbtPaths(projectDir);
  const extra = loadConfig(projectDir).config.protected_paths ?? [];
  const entries: GuardEntry[] = [...protectedEntries({ prefix, extra, dbtPaths }), GIT_STORE];
  const folders = entries.filter((entry) => entry.rule === "G1" || entry.rule === "G5").map((entry) => entry.pattern.replace(/[^/]*$/, ""));
  const realRoot = resolveLinks(resolve(root));
  return { root, realRoot, entries, committed: await committedFiles(root, folders), gitDirs: gitDirsOf(realRoot) };
}

/** A linked worktree's `.git` is a file naming its gitdir elsewhere; that folder and the common one hold tcr's record. */
function gitDirsOf(root: string): string[] {
  const dotGit = resolve(root, ".git");
  try {
    if (!statSync(dotGit).isFile()) return [];
    const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
    if (!match) return [];
    const gitdir = realpathSync(resolve(root, (match[1] as string).trim()));
    const common = resolve(gitdir, "commondir");
    const dirs = [gitdir];
    if (existsSync(common)) dirs.push(realpathSync(resolve(gitdir, readFileSync(common, "utf8").trim())));
    return dirs;
  } catch {
    return [];
  }
}

/** The files under `folders` at HEAD, or null when there is no repository or no commit to read. */
async function committedFiles(root: string, folders: readonly string[]): Promise<Set<string> | null> {
  if (!existsSync(resolve(root, ".git"))) return null;
  // Loaded here: reading git costs a guard outside a repository nothing.
  const { Repository } = await import("../git/repository.ts");
  try {
    const repo = Repository.open(root);
    const head = await repo.resolveCommit("HEAD");
    return new Set((await repo.filesIn(head, folders)).map((file) => matchKey(file.path)));
  } catch {
    return null;
  }
}

/** The repository-relative form of an absolute path, or null when it lies outside `root`. */
function inside(root: string, absolute: string): string | null {
  // A folder above the repository holds all of it.
  if (root.startsWith(`${absolute}${sep}`) || absolute === sep) return ".";
  const rel = relative(root, absolute).split(sep).join("/");
  if (rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return null;
  return rel === "" ? "." : rel;
}

/**
 * The verdict on writing `path` given from `cwd`: judged as written and with
 * its links followed (a committed link to macros/ is macros/), either way
 * protected is protected. Null when neither is.
 */
export function pathVerdict(protection: Protection, cwd: string, path: string): Verdict | null {
  const absolute = resolve(cwd, path);
  const real = resolveLinks(absolute);
  for (const gitDir of protection.gitDirs) {
    if (real === gitDir || real.startsWith(`${gitDir}${sep}`)) return { path: path, entry: GIT_STORE };
  }
  const given = inside(protection.root, absolute) ?? inside(protection.realRoot, absolute);
  const followed = inside(protection.realRoot, real) ?? inside(protection.root, real);
  for (const rel of [followed, given]) {
    if (rel === null) continue;
    const verdict = judge(protection, rel);
    if (verdict?.path === ".") return { ...verdict, given: path };
    if (verdict) return rel === given || given === null || given === rel ? verdict : { ...verdict, given };
  }
  return null;
}

/**
 * Whether writing (or deleting) `rel` touches a protected path: the path is
 * one, lies inside one, or is a folder that holds one (`rm -rf models` takes
 * models/semantic/ with it), compared in matchKey's form. Tests and
 * reconciliation queries are protected once they exist (G1, G5); a new
 * reconciliation query, singular test or unit-test fixture may be written
 * (the analysis folder holding the query is G9's otherwise), anything else
 * new under a test folder may not.
 */
export function judge(protection: Protection, rel: string): Verdict | null {
  const path = rel === "." ? "" : rel.replace(/\/+$/, "");
  const key = matchKey(path);
  // The work tree (or a folder above it) holds every protected path: name the first G9 one.
  if (key === "" || key === ".") return { path: ".", entry: anyProtected(protection) };
  // The paths other rules guard are judged before the folders G9 protects around them (analyses/ holds reconciliations).
  const guarded = protection.entries.filter((entry) => entry.rule === "G1" || entry.rule === "G5");
  for (const entry of [...guarded, ...protection.entries.filter((entry) => !guarded.includes(entry))]) {
    const pattern = matchKey(entry.pattern.replace(/\/$/, "")) + (entry.pattern.endsWith("/") ? "/" : "");
    if (!touches(pattern, key)) continue;
    if (entry.rule === "G1" || entry.rule === "G5") {
      const holdsIt = key === "" || pattern.startsWith(`${key}/`);
      const exists = protection.committed ? protection.committed.has(key) : existsSync(resolve(protection.root, path));
      if (!holdsIt && !exists && (entry.rule === "G5" || mayAddUnderTests(pattern.slice(0, -1), key))) return null;
    }
    return { path: path === "" ? "." : path, entry };
  }
  return null;
}

/** True when `path` is the pattern's file, lies under its folder, matches its `*`, or is a folder above it; component by component. */
function touches(pattern: string, path: string): boolean {
  if (path === "") return true;
  const folder = pattern.endsWith("/");
  const wanted = pattern.replace(/\/$/, "").split("/");
  const parts = path.split("/");
  for (let i = 0; i < Math.min(wanted.length, parts.length); i++) {
    if (!sameComponent(parts[i] as string, wanted[i] as string)) return false;
  }
  return parts.length <= wanted.length || folder;
}

function sameComponent(part: string, wanted: string): boolean {
  if (wanted.includes("*")) return new RegExp(`^${escapeRegExp(wanted).replace(/\\\*/g, ".*")}$`).test(part);
  return part === wanted || mayBeShortName(part, wanted);
}

/**
 * The first protected path a command's effect may reach, with why: a path it
 * names, a file a glob matches (on disk now, or by its pattern against the
 * protected list), the folder an archive or a git command rewrites. An
 * effect slp cannot follow at all, and the human's commands, are refused
 * whatever they touch.
 */
export function effectVerdict(protection: Protection, effect: Effect): Verdict | null {
  const via = effect.via;
  if (effect.kind === "human")
    return { path: ".", entry: { pattern: "", rule: effect.rule, blocks: "" }, kind: "human", reason: effect.why, via };
  if (effect.kind === "opaque") return { path: ".", entry: anyProtected(protection), kind: "opaque", reason: effect.why, via };
  if (effect.cwd === null && !(effect.kind === "path" && isAbsolute(effect.path))) {
    const reason = "it runs in a folder decided only when the command runs (cd to a variable)";
    return { path: ".", entry: anyProtected(protection), kind: "opaque", reason, via };
  }
  const cwd = effect.cwd as string;
  if (effect.kind === "path") {
    const verdict = pathVerdict(protection, cwd, effect.path);
    return verdict && { ...verdict, via };
  }
  if (effect.kind === "tree") {
    const verdict = pathVerdict(protection, cwd, effect.dir);
    const where = verdict?.path === "." ? "the work tree" : verdict?.path;
    return verdict && { ...verdict, kind: "reaches", reason: `${effect.why}, anywhere under ${where}`, via };
  }
  return globVerdict(protection, cwd, effect.pattern, effect.git, via);
}

/** The entry that stands for "any protected path" in a refusal that names none: the first G9 one. */
function anyProtected(protection: Protection): GuardEntry {
  return protection.entries.find((entry) => entry.rule === "G9") ?? (protection.entries[0] as GuardEntry);
}

/** Most files a glob is expanded to on disk before the guard stops looking and refuses. */
const MAX_GLOB_MATCHES = 2000;

function globVerdict(protection: Protection, cwd: string, pattern: string, git: boolean, via: string): Verdict | null {
  const because = (verdict: Verdict, how: string): Verdict => ({
    ...verdict,
    kind: "reaches",
    reason: `the glob ${pattern} ${how} ${verdict.path === "." ? "the work tree or a folder above it" : verdict.path}`,
    via,
  });
  // What the shell (or git) would match on disk now, links followed.
  const base = git ? resolve(cwd) : cwd;
  const absolutePattern = pattern.startsWith("/") ? pattern : `${base}/${pattern}`;
  const literal = absolutePattern.slice(0, absolutePattern.search(/(?<!\\)[*?[]/)).replace(/[^/]*$/, "");
  const scanRoot = literal === "" ? "/" : literal;
  const rest = absolutePattern.slice(literal.length);
  if (existsSync(scanRoot)) {
    let count = 0;
    try {
      // git's `*` crosses folders; the shell's does not (and its ** is * without globstar).
      const glob = new Bun.Glob(git ? rest.replace(/\*+/g, "**") : rest.replace(/\*\*+/g, "*"));
      for (const match of glob.scanSync({ cwd: scanRoot, onlyFiles: false, dot: git, followSymlinks: false })) {
        const verdict = pathVerdict(protection, scanRoot, match);
        if (verdict) return because(verdict, "matches");
        if (++count > MAX_GLOB_MATCHES) {
          const reason = `the glob ${pattern} matches more than ${MAX_GLOB_MATCHES} files`;
          return { path: ".", entry: anyProtected(protection), kind: "opaque", reason, via };
        }
      }
    } catch {
      return { path: ".", entry: anyProtected(protection), kind: "opaque", reason: `the glob ${pattern} cannot be read`, via };
    }
  }
  // What it could match once earlier commands have run: its pattern against each protected one.
  const rel = relative(protection.root, resolve(scanRoot)).split(sep).join("/");
  const globParts = [...(rel === "" ? [] : rel.split("/")), ...rest.split("/")].filter((part) => part !== "" && part !== ".");
  if (rel.startsWith("..") && !resolve(scanRoot).startsWith(protection.realRoot)) return null;
  for (const entry of protection.entries) {
    if (entry.rule === "G1" || entry.rule === "G5") {
      // A new test may be written; what exists is judged on disk above.
      continue;
    }
    if (globReaches(globParts, entry.pattern, git)) return because({ path: entry.pattern, entry }, "may match");
  }
  return null;
}

/** True when paths the glob's components match may be, lie under, or hold the pattern's path (case folded). */
function globReaches(globParts: readonly string[], pattern: string, git: boolean): boolean {
  const folder = pattern.endsWith("/");
  const wanted = matchKey(pattern.replace(/\/$/, "")).split("/");
  for (let i = 0; i < Math.min(globParts.length, wanted.length); i++) {
    const part = globParts[i] as string;
    if (!/(?<!\\)[*?[]/.test(part)) {
      if (!sameComponent(matchKey(part.replace(/\\(.)/g, "$1")), wanted[i] as string)) return false;
      continue;
    }
    // A glob that crosses folders (git's *, **), or may match `..`, may reach anything from here.
    if (git || part.includes("**")) return true;
    const matcher = globComponent(part);
    if (matcher.test("..")) return true;
    if (!(matcher.test(wanted[i] as string) || (wanted[i] as string).includes("*"))) return false;
  }
  return globParts.length <= wanted.length || folder;
}

/** One shell glob component as a case-insensitive regular expression. */
function globComponent(part: string): RegExp {
  let source = "";
  for (let i = 0; i < part.length; i++) {
    const c = part[i] as string;
    if (c === "\\") source += escapeRegExp(part[++i] ?? "");
    else if (c === "*") source += ".*";
    else if (c === "?") source += ".";
    else if (c === "[") {
      const end = part.indexOf("]", i + 2);
      if (end < 0) source += "\\[";
      else {
        source += `[${part
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`, "i");
}
