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

/** Turns anything thrown into an SlpError; an unexpected one keeps its type name. */
export function asSlpError(error: unknown): SlpError {
  if (error instanceof SlpError) return error;
  const type = error instanceof Error ? error.constructor.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  return new SlpError("E_INTERNAL", `unexpected ${type}: ${message}`, {
    fix: "this is a bug in slp; please report it with the command that caused it",
  });
}
