/**
 * The tasks for slp's own developers (build, gen): they need Bun's bundler
 * and this source tree, so the compiled binary ships without them (its build
 * plugin empties this list; see src/build/duckdb-plugin.ts).
 */
import type { Task } from "../src/runner/define-task.ts";
import build from "./build.ts";
import gen from "./gen.ts";

export const developerTasks: readonly Task<any, any>[] = [build, gen];
