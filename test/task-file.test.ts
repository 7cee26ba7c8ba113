/** A task file's name and description read from its text, never by running it (src/runner/task-file.ts). */
import { describe, expect, test } from "bun:test";
import type { ConfigError } from "../src/core/errors.ts";
import { readTaskHeading } from "../src/runner/task-file.ts";
import { editDistance, nearestNames } from "../src/runner/nearest-names.ts";

const read = (text: string) => readTaskHeading(text, ".slp/tasks/t.ts");
const refusal = (text: string): ConfigError => {
  try {
    read(text);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error("the file was read");
};

describe("readTaskHeading", () => {
  test("export default defineTask({...}), a plain object, generics, a const exported as default or by export { as default }", () => {
    expect(read('export default defineTask({ name: "a", description: "the a" });')).toEqual({ name: "a", description: "the a", line: 1 });
    expect(read("export default {\n  'name': 'b',\n  description: `plain`,\n  run() {},\n};")).toEqual({
      name: "b",
      description: "plain",
      line: 2,
    });
    expect(read('export default api.defineTask<typeof I, Report>({ name: "c" as const, description: "c" as const, run });').name).toBe("c");
    expect(read('const t: Task<any, Report> = defineTask({ name: "d", description: "d" });\nexport default t;\n').name).toBe("d");
    expect(read('const t = defineTask({ name: "e", description: "e" });\nexport { t as default };\n').name).toBe("e");
  });

  test("reads only the object's own keys: not a nested one, a comment, a string, a regular expression or a template's substitution", () => {
    const text = [
      "#!/usr/bin/env bun",
      '// name: "comment"',
      "/* name: 'block' */",
      'const s = "export default { name: \\"string\\" }";',
      'const r = /["\'`{]name: "regex"/g;',
      'const q = `${ { name: "sub" }.name }`;',
      "export default defineTask({",
      '  input: Type.Object({ name: Type.String({ description: "nested" }) }),',
      '  async run({ input }): Promise<Report> { const x = { name: "inner" }; return x.name > "a" ? 1 / 2 : `${"}"}`; },',
      '  name: "real\\u002dname",',
      "  description: 'it\\'s \\x41 \"quoted\"',",
      "});",
    ].join("\n");
    expect(read(text)).toEqual({ name: "real-name", description: `it's A "quoted"`, line: 10 });
  });

  test("a description that is not a literal is null; the last of a key written twice counts", () => {
    expect(read('export default defineTask({ name: "a", description: `at ${when}` });').description).toBeNull();
    expect(read('export default defineTask({ name: "a", description: words.join(" ") });').description).toBeNull();
    expect(read('export default defineTask({ name: "a", description });').description).toBeNull();
    expect(read('export default defineTask({ name: "a" });').description).toBeNull();
    expect(read('export default defineTask({ name: "a", name: "b", description: "x" + "y" });')).toEqual({
      name: "b",
      description: null,
      line: 1,
    });
  });

  test("a name that is not a literal, no default export, or text that does not end is refused with the file and line", () => {
    const computed = refusal('export default defineTask({\n  name: "a" + suffix,\n});');
    expect([computed.file, computed.line, computed.message]).toEqual([
      ".slp/tasks/t.ts",
      2,
      "the task's name is not a string literal, and slp lists tasks without running their files",
    ]);
    expect(refusal("export default defineTask({\n  name,\n});").line).toBe(1);
    expect(refusal('export const task = defineTask({ name: "a" });').message).toBe(
      "no `export default defineTask({ ... })` slp can read without running the file",
    );
    expect(refusal("export default makeTask();").message).toBe(
      "no `export default defineTask({ ... })` slp can read without running the file",
    );
    const open = refusal('const a = 1;\nexport default defineTask({ name: "a });');
    expect([open.line, open.message]).toEqual([
      2,
      "a string that does not end, so slp cannot read the task's name without running the file",
    ]);
  });
});

describe("nearestNames", () => {
  test("fewest edits, a swap of neighbours being one; nothing when every name is far", () => {
    expect(editDistance("chek", "check")).toBe(1);
    expect(editDistance("chekc", "check")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(nearestNames("chek", ["check", "ci", "compare"])).toEqual(["check"]);
    expect(nearestNames("uint", ["unit", "init"])).toEqual(["unit"]);
    expect(nearestNames("gat", ["gate", "tcr", "diff"])).toEqual(["gate"]);
    expect(nearestNames("frobnicate", ["check", "gate", "unit"])).toEqual([]);
  });
});
