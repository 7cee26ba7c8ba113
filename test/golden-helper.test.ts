/**
 * The one golden-file helper (test/support/fixtures.ts): a missing expected
 * file fails the test and writes nothing, so a new case cannot pass by
 * writing its own answer; only SLP_UPDATE_FIXTURES=1 writes one.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expectFixtureOutput, expectGolden, UPDATE } from "./support/fixtures.ts";
import { tempDir } from "./support/temp.ts";

describe("a golden file", () => {
  test("that is missing fails the test and is not written", () => {
    // Under the update mode a missing file is what gets written: this test is about every other run.
    if (UPDATE) return;
    using dir = tempDir();
    const file = join(dir.path, "golden", "out.txt");
    expect(() => expectGolden(file, "some output\n")).toThrow("is missing: run the test with SLP_UPDATE_FIXTURES=1");
    expect(existsSync(file)).toBe(false);
    expect(() => expectFixtureOutput(dir.path, { stdout: "x\n", stderr: "", exitCode: 0 })).toThrow("is missing");
    expect(existsSync(join(dir.path, "expected"))).toBe(false);
  });

  test("that is there is compared byte for byte", () => {
    using dir = tempDir();
    const file = join(dir.path, "out.txt");
    writeFileSync(file, "some output\n");
    expectGolden(file, "some output\n");
    expect(() => expectGolden(file, "some output")).toThrow();
  });
});
