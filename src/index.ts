/**
 * slp's public API, for TypeScript task files under `.slp/tasks/`: define a
 * task, run built-in tasks and compose their reports. Kept small on purpose;
 * a test pins what it exports.
 */
import { Type } from "@sinclair/typebox";
import { builtInTasks } from "../tasks/index.ts";
import { EXIT } from "./core/exit-codes.ts";
import type { Report } from "./core/report.ts";
import { combineReports, runStage, type StageResult } from "./runner/compose.ts";
import { defineTask, type Task, type TaskContext, type TaskEnvironment } from "./runner/define-task.ts";
import { createRegistry } from "./runner/registry.ts";
import { runTask } from "./runner/runner.ts";
import { VERSION } from "./version.ts";

export type { Finding, Severity } from "./schemas/finding.ts";
export type { RuleDocs } from "./rules/define-rule.ts";
export type { Report, StageResult, Task, TaskContext, TaskEnvironment };
export { combineReports, defineTask, EXIT, runStage, Type, VERSION };

/** A built-in task by name (check, gate, unit, ...); throws on an unknown name. */
export function task(name: string): Task<any, Report> {
  const found = builtInTasks.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`slp has no built-in task named ${name}; known: ${builtInTasks.map((t) => t.name).join(", ")}`);
  return found as Task<any, Report>;
}

/** Runs a task (or a built-in by name) with this input, outside any other task: for scripts. */
export function run<R = Report>(
  which: Task<any, R> | string,
  input: Record<string, unknown> = {},
  environment: TaskEnvironment = { cwd: process.cwd(), env: process.env, log: (line) => process.stderr.write(`${line}\n`) },
): Promise<R> {
  const target = typeof which === "string" ? (task(which) as unknown as Task<any, R>) : which;
  // A script's run reaches other tasks (ci's stages, tcr's steps) through the same registry the CLI builds.
  const registry = environment.registry ?? createRegistry(builtInTasks, environment.cwd, () => import("./index.ts"));
  return runTask(target, input, { ...environment, registry });
}
