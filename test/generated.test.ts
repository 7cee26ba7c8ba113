/** Generated files are committed; this fails when one is stale (run `bun run gen`). */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles } from "../src/docs/generate.ts";

const ROOT = join(import.meta.dir, "..");

for (const [path, content] of generatedFiles(ROOT)) {
  test(`${path} is up to date (bun run gen)`, () => {
    expect(readFileSync(join(ROOT, path), "utf8")).toBe(content);
  });
}
