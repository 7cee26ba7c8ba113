/** The errors of the Jinja engine: a syntax error, a runtime error, and the failure a render ends in (file and line). */

/** Template text Jinja2 would not parse either. */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = "TemplateSyntaxError";
  }
}

/** A template did something Jinja2 (or Python) refuses at run time: an undefined call, a wrong type. */
export class TemplateRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateRuntimeError";
  }
}
/** A render, compile or runtime failure inside a template, with the place it happened. */
export class TemplateFailure extends Error {
  readonly file: string;
  /** 1-based. */
  readonly line?: number;
  /** The error thrown by a context function (ref, var, ...) when that is what failed. */
  readonly origin?: unknown;
  constructor(message: string, file: string, line: number | undefined, origin?: unknown) {
    super(message);
    this.file = file;
    this.line = line;
    this.origin = origin;
  }
}
