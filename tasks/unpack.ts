/**
 * `slp unpack`: unpacks the DuckDB library the binary carries into its cache
 * folder now, and checks that it loads. A container image runs it when it is
 * built, so a read-only root or a `noexec` /tmp at run time changes nothing.
 */
import { Type } from "@sinclair/typebox";
import type { Report } from "../src/core/report.ts";
import { cacheRoot } from "../src/build/native-cache.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { isCompiled } from "../src/runner/self.ts";

export default defineTask({
  name: "unpack",
  description: "Unpack the embedded DuckDB into the cache folder and check that it loads (container images do this at build time)",
  informational: true,
  hidden: true,
  input: Type.Object({}),
  async run({ environment }): Promise<Report> {
    // Loaded here: the engine is the one thing this task is for.
    const { Database } = await import("../src/engine/duckdb.ts");
    const database = await Database.open();
    const version = (await database.query("select version()")).rows[0]?.[0] ?? "?";
    const where = isCompiled() ? cacheRoot(environment.env) : "node_modules (this is slp's source; the binary unpacks into its cache)";
    return {
      command: "unpack",
      findings: [],
      text: `DuckDB ${version} loads from ${where}\n`,
      data: { duckdb: version, compiled: isCompiled() },
    };
  },
});
