/**
 * Runs a task and what it needs: needs first, independent ones in parallel,
 * each task at most once per invocation; a cycle is an error naming its path.
 * Only the root task receives the caller's input.
 */
import { SlpError } from "../core/errors.ts";
import type { Task, TaskEnvironment } from "./define-task.ts";

export class TaskCycleError extends SlpError {
  constructor(path: string[]) {
    super("E_TASK_CYCLE", `task cycle: ${path.join(" -> ")}`, { fix: "remove one of the needs on that path" });
  }
}

/** Fills a task's input defaults (one level: task inputs are flat); what the caller gave wins. */
export function withDefaults<T extends Task<any, any>>(task: T, given: Record<string, unknown> = {}): Record<string, unknown> {
  const input: Record<string, unknown> = { ...given };
  for (const [key, property] of Object.entries(task.input.properties as Record<string, { default?: unknown }>)) {
    if (input[key] === undefined && property.default !== undefined) input[key] = structuredClone(property.default);
  }
  return input;
}

export async function runTask<R>(root: Task<any, R>, input: Record<string, unknown>, environment: TaskEnvironment): Promise<R> {
  assertNoCycle(root, []);
  const started = new Map<Task<any, any>, Promise<unknown>>();

  const start = (task: Task<any, any>, taskInput: Record<string, unknown>): Promise<unknown> => {
    let promise = started.get(task);
    if (!promise) {
      promise = (async () => {
        await Promise.all(task.needs.map((need) => start(need, withDefaults(need))));
        return task.run({
          input: taskInput,
          need: (other) => start(other, withDefaults(other)) as Promise<never>,
          run: (other, otherInput = {}) => runTask(other, otherInput, environment) as Promise<never>,
          environment,
        });
      })();
      started.set(task, promise);
    }
    return promise;
  };
  return (await start(root, withDefaults(root, input))) as R;
}

function assertNoCycle(task: Task<any, any>, path: Task<any, any>[]): void {
  const index = path.indexOf(task);
  if (index >= 0) throw new TaskCycleError([...path.slice(index), task].map((t) => t.name));
  for (const need of task.needs) assertNoCycle(need, [...path, task]);
}
