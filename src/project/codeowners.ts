/**
 * CODEOWNERS as GitHub reads it, to the extent S5 needs (spec/rules.md §6.2):
 * the last matching line wins, a line without owners un-owns, patterns are
 * anchored when they hold a slash other than a trailing one.
 */
import { isPresent, readProjectText } from "./files.ts";

export const CODEOWNERS_LOCATIONS = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"] as const;

interface OwnerLine {
  matches: (path: string) => boolean;
  owned: boolean;
}

export interface Codeowners {
  /** Project-relative path of the file that was read. */
  file: string;
  /** True when the last line matching `path` names at least one owner. */
  owns(path: string): boolean;
}

/** Finds and reads the first CODEOWNERS of the three locations, or null when there is none. */
export function readCodeowners(projectDir: string): Codeowners | null {
  for (const location of CODEOWNERS_LOCATIONS) {
    if (isPresent(projectDir, location)) return parseCodeowners(readProjectText(projectDir, location), location);
  }
  return null;
}

export function parseCodeowners(text: string, file: string): Codeowners {
  const lines: OwnerLine[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const words = raw.split("#")[0]?.trim().split(/\s+/).filter(Boolean) ?? [];
    const [pattern, ...owners] = words;
    if (!pattern) continue;
    lines.push({ matches: patternMatcher(pattern), owned: owners.length > 0 });
  }
  return {
    file,
    owns(path: string): boolean {
      let owned = false;
      for (const line of lines) if (line.matches(path)) owned = line.owned;
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
