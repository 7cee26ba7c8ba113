/**
 * Bounded resources: what a small hostile input used to cost (a YAML alias
 * bomb, nesting past any stack, a quadratic check) now stops at a named
 * limit, through the real commands; and what the machine refuses (an
 * unwritable folder, a stack that runs out) is never "a bug in slp".
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asSlpError } from "../src/core/errors.ts";
import { runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

const QUICKSTART = join(import.meta.dir, "..", "examples", "quickstart");

/** 480 bytes that stand for 9^9 strings once aliases are expanded (the "billion laughs"). */
function aliasBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  let previous = "a";
  for (const name of "bcdefghi") {
    lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(",")}]`);
    previous = name;
  }
  lines.push("models: *i");
  return `${lines.join("\n")}\n`;
}

describe("YAML", () => {
  test("an alias bomb is refused at once, naming yaml_values, instead of gigabytes and exit 0", async () => {
    using project = copyToTemp(QUICKSTART, "slp-limits-");
    writeFileSync(join(project.path, "models", "marts", "bomb.yml"), aliasBomb());
    const result = await runMain(["check"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      "ERROR models/marts/bomb.yml: the YAML expands through its aliases to more than 1,000,000 values (limit yaml_values = 1,000,000 values)",
    );
    expect(result.stderr).toContain("SLP_LIMIT_YAML_VALUES=<values>");
  });

  test("aliases used the ordinary way (shared defaults) are fine", async () => {
    using project = copyToTemp(QUICKSTART, "slp-limits-");
    writeFileSync(
      join(project.path, "models", "staging", "_anchors.yml"),
      "x-defaults: &defaults {data_tests: [not_null]}\nmodels:\n  - name: stg_anchor\n    columns:\n      - {name: a, <<: *defaults}\n      - {name: b, <<: *defaults}\n",
    );
    const result = await runMain(["check"], project.path);
    expect(result.exitCode).toBe(0);
  });

  test("nesting past nesting_depth is refused with the limit named (not a stack overflow)", async () => {
    using project = copyToTemp(QUICKSTART, "slp-limits-");
    writeFileSync(join(project.path, "models", "marts", "deep.yml"), `x: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`);
    const result = await runMain(["check"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      "ERROR models/marts/deep.yml:1: the YAML nests more than 256 levels deep (limit nesting_depth = 256 levels)",
    );
  });
});

describe("JSON and diff-from-row", () => {
  test("a diff nested past nesting_depth is exit 2 naming the limit", async () => {
    using project = copyToTemp(QUICKSTART, "slp-limits-");
    writeFileSync(join(project.path, "diff", "deep.json"), `{"extra": {"x": ${"[".repeat(100_000)}${"]".repeat(100_000)}}}`);
    const result = await runMain(["compare", "diff/deep.json"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      "ERROR diff/deep.json:1: the JSON nests values more than 256 levels deep (limit nesting_depth = 256 levels)",
    );
  });

  test("a row of 100,000 columns is read in linear time (the duplicate-column check was quadratic)", async () => {
    using dir = tempDir();
    const names = Array.from({ length: 100_000 }, (_, i) => `m${i}_value`);
    writeFileSync(join(dir.path, "row.csv"), `row_delta,removed_pks,${names.join(",")}\n1,0,${names.map(() => "1").join(",")}\n`);
    const result = await runMain(["diff-from-row", "--model", "m", "row.csv"], dir.path);
    expect(result.exitCode).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout).metrics)).toHaveLength(100_000);
  });
});

describe("what the machine refuses is said as such", () => {
  test("a folder that cannot be made (ENOTDIR) is an error with a fix, not 'a bug in slp'", () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "file"), "");
    let thrown: unknown;
    try {
      mkdirSync(join(dir.path, "file", "cache"), { recursive: true });
    } catch (error) {
      thrown = error;
    }
    const error = asSlpError(thrown);
    expect(error.code).toBe("E_SYSTEM");
    expect(error.message).toContain("cannot mkdir");
    expect(error.message).toContain("a part of its path is not a folder");
    expect(error.fix).toContain("SLP_CACHE_DIR");
    expect(error.describe()).not.toContain("bug in slp");
  });

  test("through the real commands: an output folder that is a file, and .git/slp that is a file, are exit 2 naming the path", async () => {
    using project = copyToTemp(QUICKSTART, "slp-limits-");
    initRepo(project.path);
    commitAll(project.path, "base");
    git(project.path, ["checkout", "-q", "-b", "feature"]);
    const sql = join(project.path, "models", "marts", "fct_orders.sql");
    writeFileSync(sql, `${await Bun.file(sql).text()}-- changed\n`);
    commitAll(project.path, "a change for mutate to judge");
    writeFileSync(join(project.path, "mutation"), "");
    const mutate = await runMain(["mutate"], project.path);
    expect(mutate.exitCode).toBe(2);
    expect(mutate.stderr).toContain("mutation/fct_orders.json: a part of its path is not a folder");
    expect(mutate.stderr).not.toContain("bug in slp");

    rmSync(join(project.path, "mutation"));
    writeFileSync(join(project.path, ".git", "slp"), "");
    writeFileSync(sql, `${await Bun.file(sql).text()}-- changed again\n`);
    const tcr = await runMain(["tcr", "a change"], project.path);
    expect(tcr.exitCode).toBe(2);
    expect(tcr.stderr).toContain(".git/slp/");
    expect(tcr.stderr).not.toContain("bug in slp");
  });

  test("a stack that runs out is named as input nested too deeply, not an internal error", () => {
    const recurse = (n: number): number => recurse(n + 1) + 1;
    let thrown: unknown;
    try {
      recurse(0);
    } catch (error) {
      thrown = error;
    }
    const error = asSlpError(thrown);
    expect(error.code).toBe("E_LIMIT");
    expect(error.describe()).not.toContain("bug in slp");
  });
});

describe("every limit is documented where users look", () => {
  const ROOT = join(import.meta.dir, "..");
  test("the README's table and slp init's slp.yml list each limit with its default and its variable", async () => {
    const { LIMITS, LIMIT_NAMES, limitEnvVar } = await import("../src/core/limits.ts");
    const readme = await Bun.file(join(ROOT, "README.md")).text();
    const template = await Bun.file(join(ROOT, "src", "init", "templates", "slp.yml.txt")).text();
    for (const name of LIMIT_NAMES) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${name}\` |`));
      expect({
        name,
        row: row?.includes(`\`${limitEnvVar(name)}\``) && row.includes(`| ${LIMITS[name].default.toLocaleString("en-US")} |`),
      }).toEqual({ name, row: true });
      expect({ name, template: template.includes(`#   ${name}: ${LIMITS[name].default}\n`) }).toEqual({ name, template: true });
    }
  });
});
