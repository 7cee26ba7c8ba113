/** `slp tasks`: every task slp can run, with what it does. */
import { Type } from "@sinclair/typebox";
import type { Report } from "../src/core/report.ts";
import { defineTask } from "../src/tasks/define-task.ts";

export default defineTask({
  name: "tasks",
  description: "List the tasks slp can run (slp <task> and slp run <task> are the same)",
  input: Type.Object({}),
  async run({ environment }): Promise<Report> {
    // The registry lists this task, so it is read when the task runs, not when this file loads.
    const { listedTasks } = await import("./index.ts");
    const tasks = await listedTasks(environment.cwd);
    const width = Math.max(...tasks.map((task) => task.name.length));
    const text = tasks
      .map((task) => `${task.name.padEnd(width)}  ${task.origin === "user" ? "(yours) " : ""}${task.description}`)
      .join("\n");
    return {
      command: "tasks",
      findings: [],
      text: `${text}\n`,
      data: tasks.map((task) => ({ name: task.name, description: task.description, needs: task.needs.map((need) => need.name), origin: task.origin })),
    };
  },
});
