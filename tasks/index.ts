/**
 * The task registry: every built-in task, one file each, listed explicitly
 * (a test proves this list, with developer.ts's, equals the folder).
 */
import type { Task } from "../src/runner/define-task.ts";
import check from "./check.ts";
import ci from "./ci.ts";
import compare from "./compare.ts";
import diff from "./diff.ts";
import diffFromRow from "./diff-from-row.ts";
import { developerTasks } from "./developer.ts";
import explain from "./explain.ts";
import gate from "./gate.ts";
import guard from "./guard.ts";
import init from "./init.ts";
import mutate from "./mutate.ts";
import reconcile from "./reconcile.ts";
import review from "./review.ts";
import rules from "./rules.ts";
import stageE from "./stage-e.ts";
import tasks from "./tasks.ts";
import tcr from "./tcr.ts";
import unit from "./unit.ts";
import unpack from "./unpack.ts";

/** What the binary ships, then the developer tasks (none inside the binary). */
export const builtInTasks: readonly Task<any, any>[] = [
  check,
  ci,
  compare,
  diff,
  diffFromRow,
  explain,
  gate,
  guard,
  init,
  mutate,
  reconcile,
  review,
  rules,
  stageE,
  tasks,
  tcr,
  unit,
  unpack,
  ...developerTasks,
];
