/**
 * The `diff.json` files compare is handed: arguments expanded (a quoted glob
 * such as `diff/*.json` works as one argument), each file read and parsed,
 * and one diff per model enforced. Anything unreadable is exit 2 naming the
 * path exactly as given, before a single rule runs.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { InputError } from "../../core/errors.ts";
import { compareCodePoints } from "../../core/text.ts";
import { isMapping, type Mapping } from "../../core/values.ts";
import { readBoundedText } from "../files/files.ts";
import { parseJsonWithLines } from "../files/json.ts";
import type { WithLines } from "../files/lines.ts";

export interface DiffFile {
  /** The path as the user gave it (or as their glob produced it): the file column of its findings. */
  path: string;
  /** The parsed document; a top level that is not an object is read as `{}`, so it reports the missing fields. */
  value: Mapping;
  /** The `model` value when it is a string, else "". */
  model: string;
  /** The document as parsed, with the line of each top-level key. */
  parsed: WithLines;
}

const GLOB_MAGIC = /[*?[{]/;

/**
 * Each argument as given, or, when it holds glob characters and names no
 * file itself, the files it matches, sorted. A pattern that matches nothing
 * is an error: a diff nobody passed is a diff nobody compared.
 */
export function expandDiffArguments(cwd: string, args: readonly string[]): string[] {
  const paths: string[] = [];
  for (const arg of args) {
    if (!GLOB_MAGIC.test(arg) || isFile(resolve(cwd, arg))) {
      paths.push(arg);
      continue;
    }
    const matches = globFiles(cwd, arg);
    if (matches.length === 0) {
      throw new InputError(`the pattern ${arg} matches no file; nothing compared is not a pass`, {
        fix: "check the pattern and the folder the diffs were written to",
      });
    }
    paths.push(...matches);
  }
  return paths;
}

/** Reads and parses every diff, in the order given; the first one that cannot be read stops the run. */
export function readDiffFiles(cwd: string, paths: readonly string[]): DiffFile[] {
  return paths.map((path) => {
    const parsed = parseJsonWithLines(readInputText(cwd, path, "pass the path of a diff.json the diff step wrote"), {
      file: path,
      fix: "write the diff as JSON (slp diff-from-row turns your diff query's result row into a valid diff.json)",
    });
    const document = isMapping(parsed.value) ? parsed.value : {};
    return { path, value: document, model: typeof document.model === "string" ? document.model : "", parsed };
  });
}

/**
 * Two diffs for one model would let the second overrule the first unseen:
 * refuse them (files with no readable model name are the contract rule's).
 */
export function assertOneDiffPerModel(files: readonly DiffFile[]): void {
  const first = new Map<string, string>();
  for (const file of files) {
    if (file.model === "") continue;
    const earlier = first.get(file.model);
    if (earlier === undefined) {
      first.set(file.model, file.path);
      continue;
    }
    const which = earlier === file.path ? `${file.path}, given twice` : `${earlier} and ${file.path}`;
    throw new InputError(`model ${file.model} is measured by two diffs (${which}); compare reads one diff per model`, {
      fix: "pass each model's diff once",
    });
  }
}

/** A file the user named on the command line, as UTF-8 text (regular, at most file_mb); InputError naming it as given. */
export function readInputText(cwd: string, path: string, fix: string): string {
  return readBoundedText({ path: resolve(cwd, path), shown: path, argument: true }, fix);
}

// --- internal ---

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The files a pattern matches, each written with the pattern's own literal prefix (`./d/*.json` -> `./d/a.json`). */
function globFiles(cwd: string, pattern: string): string[] {
  const segments = pattern.split("/");
  const literal = segments.findIndex((segment) => GLOB_MAGIC.test(segment));
  const prefix = segments
    .slice(0, literal)
    .map((segment) => `${segment}/`)
    .join("");
  const rest = segments.slice(literal).join("/");
  let found: string[];
  try {
    found = [...new Bun.Glob(rest).scanSync({ cwd: resolve(cwd, prefix || "."), onlyFiles: true })];
  } catch {
    found = [];
  }
  return found.map((path) => `${prefix}${path.split("\\").join("/")}`).sort(compareCodePoints);
}
