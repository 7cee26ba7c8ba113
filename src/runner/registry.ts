/**
 * The registry a run reaches tasks through: slp's built-in tasks plus the
 * repository's own (slp.yml `tasks:`, `.slp/tasks/*.ts`), read only when a
 * task asks for one by name. Listing reads the repository's tasks without
 * running them; a task file is imported only when its own task is asked
 * for. The CLI builds it and hands it to every task in its environment, so
 * no task imports the registry that lists it.
 */
import type { Task, TaskListing, TaskRegistry } from "./define-task.ts";
import { listUserTasks, loadUserTask, type PublicApi, type UserTaskEntry } from "./user-tasks.ts";

export function createRegistry(builtIns: readonly Task<any, any>[], cwd: string, api: PublicApi): TaskRegistry {
  let entries: UserTaskEntry[] | undefined;
  const userEntries = () =>
    (entries ??= listUserTasks(
      cwd,
      builtIns.map((task) => task.name),
    ));
  const loaded = new Map<string, Promise<Task<any, any>>>();
  return {
    builtIns,
    async find(name) {
      const builtIn = builtIns.find((task) => task.name === name);
      if (builtIn) return builtIn;
      const entry = userEntries().find((candidate) => candidate.name === name);
      if (!entry) return undefined;
      let task = loaded.get(name);
      if (!task) {
        task = loadUserTask(entry, cwd, api);
        loaded.set(name, task);
      }
      return await task;
    },
    async listed() {
      return [
        ...builtIns.filter((task) => !task.hidden).map((task) => listingOf(task)),
        ...userEntries().map(
          (entry): TaskListing => ({
            name: entry.name,
            description: entry.description,
            origin: "user",
            needs: entry.source.kind === "shell" ? [] : null,
          }),
        ),
      ];
    },
    ciStages() {
      return builtIns.filter((task) => task.ciOrder !== undefined).sort((a, b) => (a.ciOrder as number) - (b.ciOrder as number));
    },
  };
}

function listingOf(task: Task<any, any>): TaskListing {
  return { name: task.name, description: task.description, origin: task.origin ?? "built-in", needs: task.needs.map((need) => need.name) };
}

/** A listed task's description as a line shows it. */
export function describe(task: TaskListing): string {
  return task.description ?? "(description not a literal)";
}

/** The registry a task runs with; the CLI and the public API's run() always supply one. */
export function registryOf(registry: TaskRegistry | undefined): TaskRegistry {
  if (!registry) throw new Error("this task needs the task registry: run it through slp, or pass environment.registry");
  return registry;
}
