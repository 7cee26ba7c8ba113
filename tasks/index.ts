/**
 * The task registry: every built-in task, one file each, listed explicitly
 * (a test proves this list equals the folder).
 */
import type { Task } from "../src/runner/define-task.ts";
import build from "./build.ts";
import check from "./check.ts";
import ci from "./ci.ts";
import compare from "./compare.ts";
import diffFromRow from "./diff-from-row.ts";
import explain from "./explain.ts";
import gate from "./gate.ts";
import gen from "./gen.ts";
import mutate from "./mutate.ts";
import review from "./review.ts";
import rules from "./rules.ts";
import tasks from "./tasks.ts";
import tcr from "./tcr.ts";
import unit from "./unit.ts";

export const builtInTasks: readonly Task<any, any>[] = [build, check, ci, compare, diffFromRow, explain, gate, gen, mutate, review, rules, tasks, tcr, unit];
