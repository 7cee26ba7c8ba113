/** `slp gen`: rewrites slp's own generated files (JSON Schemas, README rule table, a page per warehouse dialect). For slp's developers. */
import { Type } from "@sinclair/typebox";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Report } from "../src/core/report.ts";
import { defineTask } from "../src/runner/define-task.ts";

const ROOT = join(import.meta.dir, "..");

export default defineTask({
  name: "gen",
  description: "Regenerate slp's JSON Schemas, README rule table and dialect pages from the code",
  informational: true,
  hidden: true,
  input: Type.Object({}),
  async run(): Promise<Report> {
    // Loaded when run: the generator reads every schema and the dialect tables, which no other task needs.
    const { generatedFiles } = await import("../src/docs/generate.ts");
    const written: string[] = [];
    for (const [path, content] of generatedFiles(ROOT)) {
      mkdirSync(dirname(join(ROOT, path)), { recursive: true });
      writeFileSync(join(ROOT, path), content);
      written.push(path);
    }
    return { command: "gen", findings: [], text: written.map((path) => `wrote ${path}\n`).join(""), data: { written } };
  },
});
