/**
 * CODEOWNERS as GitHub finds and reads it, to the extent S5 needs
 * (spec/rules.md §6.2): the first of `.github/CODEOWNERS`, `CODEOWNERS`,
 * `docs/CODEOWNERS` at the root of the git repository, wherever the dbt
 * project sits in it, its patterns relative to that root; the last matching
 * line wins, a line without owners un-owns, patterns are anchored when they
 * hold a slash other than a trailing one. One lookup for check, init and
 * (through the protected paths) gate and guard.
 */
import { join, relative } from "node:path";
import { InputError } from "../../core/errors.ts";
import { repositoryRoot } from "./slp-yml.ts";
import { isPresent, readProjectText } from "../files/files.ts";

/** Where GitHub looks, in its order, from the repository root. */
export const CODEOWNERS_LOCATIONS = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"] as const;

/** The first of GitHub's locations present under `root`, or null. Whatever is there counts: a FIFO or a dangling link is refused when read. */
export function codeownersLocationAt(root: string): string | null {
  return CODEOWNERS_LOCATIONS.find((location) => isPresent(root, location)) ?? null;
}

/** Where a project's CODEOWNERS was found. */
export interface CodeownersPlace {
  /** The folder its location is relative to: the repository root, or the project folder (see findCodeowners). */
  dir: string;
  /** `.github/CODEOWNERS`, `CODEOWNERS` or `docs/CODEOWNERS`. */
  location: string;
  /** The project folder relative to `dir` ("" when they are one): what the file's patterns see before a project path. */
  prefix: string;
}

/**
 * The CODEOWNERS that owns a project's files: the repository root's (the
 * nearest folder holding `.git`; the project folder outside a repository),
 * as GitHub finds it. Only when the root has none is one in a project folder
 * below it read, its patterns relative to that folder: the way a project
 * that travels as its own repository (slp's examples) carries it.
 */
export function findCodeowners(projectDir: string): CodeownersPlace | null {
  const root = repositoryRoot(projectDir);
  const prefix = relative(root, projectDir).split("\\").join("/");
  const atRoot = codeownersLocationAt(root);
  if (atRoot !== null) return { dir: root, location: atRoot, prefix };
  const inProject = prefix === "" ? null : codeownersLocationAt(projectDir);
  return inProject === null ? null : { dir: projectDir, location: inProject, prefix: "" };
}

interface OwnerLine {
  matches: (path: string) => boolean;
  owned: boolean;
}

export interface Codeowners {
  /** The file that was read, relative to the project folder (`../.github/CODEOWNERS` for a project in a subfolder). */
  file: string;
  /** True when the last line matching `path` (project-relative) names at least one owner. */
  owns(path: string): boolean;
  /** A project-relative path as the file's patterns see it (relative to the folder it was found in). */
  pathOf(path: string): string;
}

/** Finds (findCodeowners) and reads a project's CODEOWNERS, or null when there is none. */
export function readCodeowners(projectDir: string): Codeowners | null {
  const place = findCodeowners(projectDir);
  if (place === null) return null;
  const shown = relative(projectDir, join(place.dir, place.location)).split("\\").join("/");
  return parseCodeowners(readProjectText(place.dir, place.location), shown, place.prefix);
}

/**
 * Refuses a CODEOWNERS holding a NUL byte, naming its line: such a file is
 * not text to GitHub, so which lines own what (and whether the platform asks
 * anyone at all) cannot be told.
 */
export function refuseUnreadableCodeowners(text: string, file: string, at?: string): void {
  const nul = text.indexOf("\0");
  if (nul === -1) return;
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < nul; i = text.indexOf("\n", i + 1)) line++;
  throw new InputError(
    `${at ? `at ${at}, ` : ""}a NUL byte: GitHub does not read such a file as CODEOWNERS, so no line of it can be trusted to own anything`,
    {
      file,
      line,
      fix: "remove the NUL byte (an editor may show it as ^@ or \\0), in a pull request of a human's own",
    },
  );
}

/** A CODEOWNERS text; `prefix` is the project folder relative to the folder it sits in. */
export function parseCodeowners(text: string, file: string, prefix = ""): Codeowners {
  refuseUnreadableCodeowners(text, file);
  const lines: OwnerLine[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const words = raw.split("#")[0]?.trim().split(/\s+/).filter(Boolean) ?? [];
    const [pattern, ...owners] = words;
    if (!pattern) continue;
    lines.push({ matches: patternMatcher(pattern), owned: owners.length > 0 });
  }
  const pathOf = (path: string) => (prefix === "" ? path : `${prefix}/${path}`);
  return {
    file,
    pathOf,
    owns(path: string): boolean {
      const seen = pathOf(path);
      let owned = false;
      for (const line of lines) if (line.matches(seen)) owned = line.owned;
      return owned;
    },
  };
}

type Token = { kind: "char"; char: string } | { kind: "one" } | { kind: "segment" } | { kind: "any" };

/**
 * A pattern as a matcher: `*` is any run inside one folder, `**` any run,
 * `?` one character but `/`, everything else literal. Matched by stepping
 * through the path once per token (no regular expression: a pattern of a
 * megabyte, or of many stars, can neither overflow a regex engine nor make
 * it backtrack for ever). A pattern needing more characters than the path
 * has is rejected before any step.
 */
function patternMatcher(pattern: string): (path: string) => boolean {
  const directoryOnly = pattern.endsWith("/");
  const anchored = pattern.startsWith("/") || pattern.replace(/\/+$/, "").includes("/");
  const body = pattern.replace(/^\/+|\/+$/g, "");
  const tokens: Token[] = [];
  let needed = 0;
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (char === "*") {
      const double = body[i + 1] === "*";
      if (double) i++;
      // A run of stars is one star: ** if any of them is.
      const last = tokens[tokens.length - 1];
      if (last?.kind === "segment" || last?.kind === "any") {
        if (double) tokens[tokens.length - 1] = { kind: "any" };
      } else tokens.push({ kind: double ? "any" : "segment" });
    } else {
      tokens.push(char === "?" ? { kind: "one" } : { kind: "char", char });
      needed++;
    }
  }
  return (path) => {
    if (needed > path.length) return false;
    const n = path.length;
    let reach = new Uint8Array(n + 1);
    reach[0] = 1;
    if (!anchored) for (let p = 0; p < n; p++) if (path[p] === "/") reach[p + 1] = 1;
    for (const token of tokens) {
      const next = new Uint8Array(n + 1);
      let any = false;
      for (let p = 0; p <= n; p++) {
        if (token.kind === "char" || token.kind === "one") {
          if (reach[p] && p < n && (token.kind === "char" ? path[p] === token.char : path[p] !== "/")) {
            next[p + 1] = 1;
            any = true;
          }
        } else {
          const carried = p > 0 && next[p - 1] === 1 && (token.kind === "any" || path[p - 1] !== "/");
          if (reach[p] || carried) {
            next[p] = 1;
            any = true;
          }
        }
      }
      if (!any) return false;
      reach = next;
    }
    for (let p = 0; p <= n; p++) {
      if (!reach[p]) continue;
      if (directoryOnly ? path[p] === "/" && p + 1 < n : p === n || path[p] === "/") return true;
    }
    return false;
  };
}
