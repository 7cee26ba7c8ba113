/**
 * The registry a run reaches tasks through: slp's built-in tasks plus the
 * repository's own (slp.yml `tasks:`, `.slp/tasks/*.ts`), read only when a
 * task asks for one by name. The CLI builds it and hands it to every task in
 * its environment, so no task imports the registry that lists it.
 */
import type { Task, TaskRegistry } from "./define-task.ts";
import { loadUserTasks, type PublicApi } from "./user-tasks.ts";

export function createRegistry(builtIns: readonly Task<any, any>[], cwd: string, api: PublicApi): TaskRegistry {
  let user: Promise<Task<any, any>[]> | undefined;
  const userTasks = () => (user ??= loadUserTasks(cwd, builtIns, api));
  return {
    builtIns,
    async find(name) {
      return builtIns.find((task) => task.name === name) ?? (await userTasks()).find((task) => task.name === name);
    },
    async listed() {
      return [...builtIns.filter((task) => !task.hidden), ...(await userTasks())];
    },
    ciStages() {
      return builtIns.filter((task) => task.ciOrder !== undefined).sort((a, b) => (a.ciOrder as number) - (b.ciOrder as number));
    },
  };
}

/** The registry a task runs with; the CLI and the public API's run() always supply one. */
export function registryOf(registry: TaskRegistry | undefined): TaskRegistry {
  if (!registry) throw new Error("this task needs the task registry: run it through slp, or pass environment.registry");
  return registry;
}
