/**
 * The task registry: every built-in task, one file each, listed explicitly
 * (a test proves this list equals the folder).
 */
import type { Task } from "../src/tasks/define-task.ts";
import check from "./check.ts";
import explain from "./explain.ts";
import gen from "./gen.ts";
import rules from "./rules.ts";
import tasks from "./tasks.ts";
import unit from "./unit.ts";

export const builtInTasks: readonly Task<any, any>[] = [check, explain, gen, rules, tasks, unit];

/** The tasks `slp tasks` shows, sorted by name. */
export function listedTasks(): Task<any, any>[] {
  return builtInTasks.filter((task) => !task.hidden);
}

export function findTask(name: string): Task<any, any> | undefined {
  return builtInTasks.find((task) => task.name === name);
}
