/** `slp gen`: rewrites slp's own generated files (JSON Schemas, README rule table). For slp's developers. */
import { Type } from "@sinclair/typebox";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Report } from "../src/core/report.ts";
import { defineTask } from "../src/runner/define-task.ts";

const ROOT = join(import.meta.dir, "..");

export default defineTask({
  name: "gen",
  description: "Regenerate slp's JSON Schemas and README rule table from the code",
  informational: true,
  hidden: true,
  input: Type.Object({}),
  async run(): Promise<Report> {
    // Loaded when run: the generator reads every schema and the dialect tables, which no other task needs.
    const { generatedFiles } = await import("../src/docs/generate.ts");
    const written: string[] = [];
    for (const [path, content] of generatedFiles(ROOT)) {
      writeFileSync(join(ROOT, path), content);
      written.push(path);
    }
    return { command: "gen", findings: [], text: written.map((path) => `wrote ${path}\n`).join(""), data: { written } };
  },
});
