/** Generated files (JSON Schemas, the README rule table) must equal what the code generates: `slp gen` refreshes them. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles } from "../src/docs/generate.ts";

const ROOT = join(import.meta.dir, "..");

for (const [path, content] of generatedFiles(ROOT)) {
  test(`${path} is fresh (run \`bun src/cli.ts gen\` when this fails)`, () => {
    expect(readFileSync(join(ROOT, path), "utf8")).toBe(content);
  });
}
