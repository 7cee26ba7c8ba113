/**
 * A task is one file exporting one definition: its name, what it does, the
 * tasks it needs, the shape of its input, and `run`. The CLI derives flags
 * from the input schema; the runner runs needs first, each once.
 */
import type { Static, TObject } from "@sinclair/typebox";

/** What a task can touch of the outside world; the CLI passes the real one, tests a fake. */
export interface TaskEnvironment {
  /** The directory relative paths are resolved against. */
  cwd: string;
  env: Record<string, string | undefined>;
  /** Diagnostics while a task runs (progress, warnings); never the result. */
  log(line: string): void;
  /** Standard input as text, when something is piped in; absent on a terminal. */
  readStdin?: () => Promise<string>;
  /** Every task this invocation can run (built-ins and the repository's own); the CLI supplies it. */
  registry?: TaskRegistry;
  /**
   * Resources a caller that runs many tasks lends them (one embedded database
   * per settings, say), so each run does not pay to open its own; absent, a
   * task opens its own.
   */
  shared?: SharedResources;
}

export interface SharedResources {
  /** The resource under `key`, made by `make` on first use; the pool's owner disposes of it with `dispose`. */
  get<T>(key: string, make: () => T, dispose: (resource: T) => void): T;
}

/** How a task reaches other tasks by name (ci's stages, tcr's steps, `slp tasks`) without importing the registry back. */
export interface TaskRegistry {
  /** slp's own tasks, in registry order. */
  builtIns: readonly Task<any, any>[];
  /** A task by name: a built-in first, then the repository's own. */
  find(name: string): Promise<Task<any, any> | undefined>;
  /** What `slp tasks` lists: built-in tasks that are not hidden, then the repository's own (read, never run). */
  listed(): Promise<TaskListing[]>;
  /** The tasks `slp ci` runs, in their ci order. */
  ciStages(): Task<any, any>[];
}

/** A task as a listing shows it; a repository's task file is read for it, not run. */
export interface TaskListing {
  name: string;
  /** Null for a task file whose description is not a string literal. */
  description: string | null;
  origin: "built-in" | "user";
  /** The names of the tasks it needs; null for a task file (known only by running it). */
  needs: string[] | null;
}

export interface TaskContext<I> {
  input: I;
  /** The result of another task, run at most once per invocation with its default input. */
  need<R>(task: Task<any, R>): Promise<R>;
  /** Runs another task with this input (defaults filled), in the same environment. */
  run<R>(task: Task<any, R>, input?: Record<string, unknown>): Promise<R>;
  environment: TaskEnvironment;
}

export interface Task<S extends TObject = TObject, R = unknown> {
  name: string;
  description: string;
  /** Tasks that run (in parallel) before this one. */
  needs: readonly Task<any, any>[];
  /** The input's shape; each property is a CLI flag (`projectDir` -> `--project-dir`). */
  input: S;
  /** Output formats this task renders beyond the ones it gets for free (every format, or text and json when informational). */
  formats?: readonly string[];
  /** Prints information (a list, a rule, a file it wrote), not findings: text and json only, plus its own formats. */
  informational?: boolean;
  /** Built-in tasks are slp's; user tasks come from slp.yml or .slp/tasks/. */
  origin?: "built-in" | "user";
  /** Left out of `slp tasks` and help: slp's own maintenance tasks. */
  hidden?: boolean;
  /** Where the task runs in `slp ci` (ascending); absent: not a ci stage. */
  ciOrder?: number;
  run(context: TaskContext<Static<S>>): Promise<R> | R;
}

export function defineTask<S extends TObject, R>(task: Omit<Task<S, R>, "needs"> & { needs?: readonly Task<any, any>[] }): Task<S, R> {
  return { needs: [], origin: "built-in", ...task };
}
