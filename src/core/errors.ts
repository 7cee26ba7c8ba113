/**
 * The few error classes slp raises, each with a stable code. Every one of
 * them means "could not judge": exit 2, never a pass.
 */

export interface ErrorPlace {
  /** Project-relative path of the file the problem is in. */
  file?: string;
  /** 1-based line in that file, when the parser knows it. */
  line?: number;
  /** What the user does about it, in one clause. */
  fix?: string;
}

export class SlpError extends Error {
  readonly code: string;
  readonly file?: string;
  readonly line?: number;
  readonly fix?: string;

  constructor(code: string, message: string, place: ErrorPlace = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.file = place.file;
    this.line = place.line;
    this.fix = place.fix;
  }

  /** One line: `file:line: message; fix`. */
  describe(): string {
    const where = this.file ? `${this.file}${this.line ? `:${this.line}` : ""}: ` : "";
    return `${where}${this.message}${this.fix ? `; ${this.fix}` : ""}`;
  }
}

/** A command line slp cannot act on. */
export class UsageError extends SlpError {
  readonly usage: string;
  constructor(message: string, usage: string) {
    super("E_USAGE", message);
    this.usage = usage;
  }
}

/** A project file slp cannot read or judge (yml, sql, CODEOWNERS, a diff). */
export class InputError extends SlpError {
  constructor(message: string, place: ErrorPlace = {}, options?: { cause?: unknown }) {
    super("E_INPUT", message, place, options);
  }
}

/** `slp.yml` is unreadable or has a value of the wrong type. */
export class ConfigError extends SlpError {
  constructor(message: string, place: ErrorPlace = {}) {
    super("E_CONFIG", message, place);
  }
}

/** Git history slp cannot read: bad ref, shallow clone, missing object. */
export class GitError extends SlpError {
  constructor(message: string, place: ErrorPlace = {}, options?: { cause?: unknown }) {
    super("E_GIT", message, place, options);
  }
}

/** The embedded engine refused: a model it cannot render or run. */
export class EngineError extends SlpError {
  constructor(message: string, place: ErrorPlace = {}, options?: { cause?: unknown }) {
    super("E_ENGINE", message, place, options);
  }
}

/** What the system's error codes mean, in words (the paths they carry are printed beside them). */
export const SYSTEM_REASONS: Record<string, string> = {
  ENOTDIR: "a part of its path is not a folder",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exceeded",
  EEXIST: "something else already exists there",
  EISDIR: "it is a folder, not a file",
  ENOENT: "no such file or folder",
  EMFILE: "too many open files",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "too many symbolic links",
};

/**
 * Turns anything thrown into an SlpError; an unexpected one keeps its type
 * name. Two kinds are not slp's bugs and say so: what the machine refused
 * (a folder that cannot be made or written, a full disk), and a JavaScript
 * stack that ran out on input nested deeper than any limit caught.
 */
export function asSlpError(error: unknown): SlpError {
  if (error instanceof SlpError) return error;
  const system = error as NodeJS.ErrnoException;
  // Any error a system call returned is the machine's refusal, named as such, whatever its code.
  if (error instanceof Error && typeof system.code === "string" && typeof system.syscall === "string") {
    const path = typeof system.path === "string" ? ` ${system.path}` : "";
    const reason = SYSTEM_REASONS[system.code] ?? `the system refused it (${system.code})`;
    return new SlpError("E_SYSTEM", `cannot ${system.syscall}${path}: ${reason}`, {
      fix: "make that path's folder exist and be writable (move aside a file in its way); slp writes only its outputs in the project (diff/, mutation/, .git/slp) and its cache ($SLP_CACHE_DIR, else $XDG_CACHE_HOME/slp or ~/.cache/slp: point SLP_CACHE_DIR at a writable folder, or set SLP_NO_CACHE=1)",
    });
  }
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new SlpError("E_LIMIT", "the input nests deeper than slp can follow (its stack ran out)", {
      fix: "flatten the deepest nesting in the file being read (limit nesting_depth bounds YAML, JSON and templates)",
    });
  }
  const type = error instanceof Error ? error.constructor.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  return new SlpError("E_INTERNAL", `unexpected ${type}: ${message}`, {
    fix: "this is a bug in slp; please report it with the command that caused it",
  });
}
