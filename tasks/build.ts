/** `slp run build` (`npm run build`): slp as one executable, dist/slp, with DuckDB inside. For slp's developers. */
import { Type } from "@sinclair/typebox";
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { EngineError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { duckdbPlugin } from "../src/build/duckdb-plugin.ts";
import { defineTask } from "../src/runner/define-task.ts";

const ROOT = join(import.meta.dir, "..");

export default defineTask({
  name: "build",
  description: "Compile slp into one executable (dist/slp) with DuckDB embedded",
  informational: true,
  hidden: true,
  input: Type.Object({
    outfile: Type.String({ default: "dist/slp", metavar: "PATH", description: "where to write the executable" }),
  }),
  async run({ input, environment }): Promise<Report> {
    const outfile = resolve(environment.cwd, input.outfile);
    const result = await Bun.build({
      entrypoints: [join(ROOT, "src", "cli.ts")],
      compile: { outfile },
      target: "bun",
      // Bytecode needs no top-level await; ESM keeps import.meta for the modules that use it.
      format: "esm",
      minify: true,
      bytecode: true,
      sourcemap: "none",
      plugins: [duckdbPlugin(ROOT)],
    });
    if (!result.success) {
      throw new EngineError(`the build failed: ${result.logs.map((log) => String(log)).join("; ")}`, {
        fix: "run npm ci, then npm run build again",
      });
    }
    const size = statSync(outfile).size;
    return {
      command: "build",
      findings: [],
      text: `wrote ${input.outfile} (${(size / 1024 / 1024).toFixed(1)} MiB)\n`,
      data: { outfile: input.outfile, bytes: size },
    };
  },
});
