/**
 * The task registry: every built-in task, one file each, listed explicitly
 * (a test proves this list equals the folder).
 */
import type { Task } from "../src/tasks/define-task.ts";
import { loadUserTasks } from "../src/tasks/user-tasks.ts";
import build from "./build.ts";
import check from "./check.ts";
import ci from "./ci.ts";
import compare from "./compare.ts";
import diffFromRow from "./diff-from-row.ts";
import explain from "./explain.ts";
import gate from "./gate.ts";
import gen from "./gen.ts";
import rules from "./rules.ts";
import tasks from "./tasks.ts";
import tcr from "./tcr.ts";
import unit from "./unit.ts";

export const builtInTasks: readonly Task<any, any>[] = [build, check, ci, compare, diffFromRow, explain, gate, gen, rules, tasks, tcr, unit];

/** The tasks `slp tasks` shows: built-in ones, then the repository's own (slp.yml, .slp/tasks/). */
export async function listedTasks(cwd: string): Promise<Task<any, any>[]> {
  return [...builtInTasks.filter((task) => !task.hidden), ...(await loadUserTasks(cwd, builtInTasks))];
}

export function findTask(name: string): Task<any, any> | undefined {
  return builtInTasks.find((task) => task.name === name);
}

/** The tasks `slp ci` runs, in their ci order. */
export function ciStages(): Task<any, any>[] {
  return builtInTasks.filter((task) => task.ciOrder !== undefined).sort((a, b) => (a.ciOrder as number) - (b.ciOrder as number));
}
