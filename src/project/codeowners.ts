/**
 * CODEOWNERS as GitHub reads it, to the extent S5 needs (spec/rules.md §6.2):
 * the last matching line wins, a line without owners un-owns, patterns are
 * anchored when they hold a slash other than a trailing one.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readProjectText } from "./files.ts";

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
    if (existsSync(join(projectDir, location))) return parseCodeowners(readProjectText(projectDir, location), location);
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

function patternMatcher(pattern: string): (path: string) => boolean {
  const directoryOnly = pattern.endsWith("/");
  const anchored = pattern.startsWith("/") || pattern.replace(/\/+$/, "").includes("/");
  const body = pattern.replace(/^\/+|\/+$/g, "");
  let source = "";
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (char === "*" && body[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  const start = anchored ? "^" : "^(?:.*/)?";
  const end = directoryOnly ? "/.+$" : "(?:/.*)?$";
  const regex = new RegExp(`${start}${source}${end}`, "su");
  return (path) => regex.test(path);
}
