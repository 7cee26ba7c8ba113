/** `slp tasks`: every task slp can run, with what it does (a repository's task files read, never run). */
import { Type } from "@sinclair/typebox";
import type { Report } from "../src/core/report.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { describe, registryOf } from "../src/runner/registry.ts";

export default defineTask({
  name: "tasks",
  description: "List the tasks slp can run (slp <task> and slp run <task> are the same)",
  informational: true,
  input: Type.Object({}),
  async run({ environment }): Promise<Report> {
    const tasks = await registryOf(environment.registry).listed();
    const width = Math.max(...tasks.map((task) => task.name.length));
    const text = tasks.map((task) => `${task.name.padEnd(width)}  ${task.origin === "user" ? "(yours) " : ""}${describe(task)}`).join("\n");
    return {
      command: "tasks",
      findings: [],
      text: `${text}\n`,
      data: tasks.map((task) => ({
        name: task.name,
        description: task.description,
        needs: task.needs,
        origin: task.origin,
      })),
    };
  },
});
