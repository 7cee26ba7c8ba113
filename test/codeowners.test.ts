/** CODEOWNERS as S5 finds and matches it (spec/rules.md §6.2): GitHub's locations at the repository root. */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { findCodeowners, parseCodeowners, readCodeowners } from "../src/project/slp/codeowners.ts";
import { runCli } from "./support/cli.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { initRepo } from "./support/git-repo.ts";
import { tempDir, writeTree } from "./support/temp.ts";

/** Whether `path` is owned under a CODEOWNERS holding `lines`. */
const owns = (lines: string, path: string) => parseCodeowners(lines, "CODEOWNERS").owns(path);

describe("patterns", () => {
  test("**/x is anchored (it holds a slash) and needs a folder before x", () => {
    expect(owns("**/fct.sql @a", "fct.sql")).toBe(false);
    expect(owns("**/fct.sql @a", "models/fct.sql")).toBe(true);
    expect(owns("**/fct.sql @a", "models/marts/fct.sql")).toBe(true);
  });

  test("docs/** matches everything under docs/", () => {
    expect(owns("docs/** @a", "docs/a.md")).toBe(true);
    expect(owns("docs/** @a", "docs/deep/er/a.md")).toBe(true);
    expect(owns("docs/** @a", "models/docs/a.md")).toBe(false);
  });

  test("marts/finance/ is anchored at the root: it does not own models/marts/finance/", () => {
    expect(owns("marts/finance/ @a", "models/marts/finance/fct.sql")).toBe(false);
    expect(owns("marts/finance/ @a", "marts/finance/fct.sql")).toBe(true);
  });

  test("a pattern whose only slash is trailing is unanchored, and owns only what is under that folder", () => {
    expect(owns("marts/ @a", "models/marts/fct.sql")).toBe(true);
    expect(owns("marts/ @a", "marts/x/fct.sql")).toBe(true);
    expect(owns("marts/ @a", "models/marts")).toBe(false);
  });

  test("without a trailing slash: the path itself or anything beneath it", () => {
    expect(owns("/models/marts @a", "models/marts")).toBe(true);
    expect(owns("/models/marts @a", "models/marts/fct.sql")).toBe(true);
    expect(owns("/models/marts @a", "models/marts_old/fct.sql")).toBe(false);
  });

  test("a leading slash anchors; * stays inside one folder; ? is one character", () => {
    expect(owns("/models/*.sql @a", "models/fct.sql")).toBe(true);
    expect(owns("/models/*.sql @a", "models/marts/fct.sql")).toBe(false);
    expect(owns("*.sql @a", "models/marts/fct.sql")).toBe(true);
    expect(owns("fct_?rders.sql @a", "models/fct_orders.sql")).toBe(true);
    expect(owns("fct_?rders.sql @a", "models/fct_rders.sql")).toBe(false);
  });

  test("* alone owns everything", () => {
    expect(owns("* @a", "models/marts/finance/fct.yml")).toBe(true);
    expect(owns("* @a", "CODEOWNERS")).toBe(true);
  });

  test("matching is case-sensitive and whole-path", () => {
    expect(owns("/Models/ @a", "models/fct.sql")).toBe(false);
    expect(owns("fct @a", "models/fct.sql")).toBe(false);
  });

  test("brackets, backslashes and a leading ! are literal characters", () => {
    expect(owns("fct_[ab].sql @a", "fct_a.sql")).toBe(false);
    expect(owns("fct_[ab].sql @a", "fct_[ab].sql")).toBe(true);
    expect(owns("!fct.sql @a", "fct.sql")).toBe(false);
    expect(owns("!fct.sql @a", "!fct.sql")).toBe(true);
    expect(owns("a\\b @x", "a\\b")).toBe(true);
  });

  test("regex characters in a pattern are literal", () => {
    expect(owns("fct.sql @a", "fctXsql")).toBe(false);
    expect(owns("f+(x).sql @a", "f+(x).sql")).toBe(true);
  });
});

describe("lines", () => {
  test("the last matching line wins", () => {
    const text = "* @everyone\n/models/marts/ @data\n";
    expect(owns(text, "models/marts/fct.sql")).toBe(true);
    expect(owns("/models/marts/fct.sql @data\n* \n", "models/marts/fct.sql")).toBe(false);
  });

  test("a matching line with no owner un-owns", () => {
    const text = "/models/ @data\n/models/marts/fct.sql\n";
    expect(owns(text, "models/marts/fct.sql")).toBe(false);
    expect(owns(text, "models/marts/dim.sql")).toBe(true);
  });

  test("everything from the first # is dropped, even escaped or inside a word", () => {
    expect(owns("/models/ # @data", "models/fct.sql")).toBe(false);
    expect(owns("/models/ @data#team", "models/fct.sql")).toBe(true);
    expect(owns("/a\\#b @data", "a#b")).toBe(false);
    expect(owns("# /models/ @data", "models/fct.sql")).toBe(false);
  });

  test("any word after the pattern is an owner; blank lines and CRLF are fine", () => {
    expect(owns("\r\n\r\n/models/   not-a-handle\r\n", "models/fct.sql")).toBe(true);
    expect(owns("\t/models/\t@a\t", "models/fct.sql")).toBe(true);
  });

  test("an empty file owns nothing", () => {
    expect(owns("", "models/fct.sql")).toBe(false);
    expect(owns("# owners later\n\n", "models/fct.sql")).toBe(false);
  });
});

describe("locations", () => {
  test("the first of .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS wins; none is null", () => {
    using dir = tempDir();
    expect(readCodeowners(dir.path)).toBeNull();
    writeTree(dir.path, { "docs/CODEOWNERS": "* @docs\n" });
    expect(readCodeowners(dir.path)?.file).toBe("docs/CODEOWNERS");
    writeTree(dir.path, { CODEOWNERS: "" });
    expect(readCodeowners(dir.path)?.file).toBe("CODEOWNERS");
    expect(readCodeowners(dir.path)?.owns("a")).toBe(false);
    writeTree(dir.path, { ".github/CODEOWNERS": "* @gh\n" });
    expect(readCodeowners(dir.path)?.file).toBe(".github/CODEOWNERS");
    expect(readCodeowners(dir.path)?.owns("a")).toBe(true);
  });
});

describe("hostile patterns", () => {
  test("a pattern of 1.2 MB is read, and owns what it names (it used to be 'regular expression too large')", () => {
    const long = `/${"a".repeat(1_200_000)}`;
    expect(owns(`${long} @a\n* @b`, "models/fct.sql")).toBe(true);
    expect(owns(`/${"a".repeat(3000)} @a`, `${"a".repeat(3000)}/x.sql`)).toBe(true);
    expect(owns(`${long} @a`, "models/fct.sql")).toBe(false);
  });

  test("many stars against a long path that does not match end at once (no backtracking)", () => {
    const stars = `${"*a".repeat(40)}*b @a`;
    const path = `${"a".repeat(200)}`;
    expect(owns(stars, path)).toBe(false);
    expect(owns(stars, `${path}b`)).toBe(true);
  });

  test("the same verdicts as the regex reading of §6.2 on every short pattern and path", () => {
    // The reference reading, as a regular expression: fine for short inputs, and what the matcher must agree with.
    const reference = (pattern: string, path: string) => {
      const directoryOnly = pattern.endsWith("/");
      const anchored = pattern.startsWith("/") || pattern.replace(/\/+$/, "").includes("/");
      const body = pattern.replace(/^\/+|\/+$/g, "");
      let source = "";
      for (let i = 0; i < body.length; i++) {
        const char = body[i] as string;
        if (char === "*" && body[i + 1] === "*") {
          source += ".*";
          i++;
        } else if (char === "*") source += "[^/]*";
        else if (char === "?") source += "[^/]";
        else source += char.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      }
      return new RegExp(`${anchored ? "^" : "^(?:.*/)?"}${source}${directoryOnly ? "/.+$" : "(?:/.*)?$"}`, "su").test(path);
    };
    const alphabet = ["a", "b", "/", "*", "?"];
    let seed = 7;
    const pick = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return alphabet[seed % alphabet.length] as string;
    };
    for (let i = 0; i < 3000; i++) {
      const pattern = Array.from({ length: 1 + (i % 6) }, pick).join("");
      const path = Array.from({ length: 1 + (i % 7) }, pick)
        .filter((c) => c !== "*" && c !== "?")
        .join("");
      if (pattern.trim() === "" || path === "") continue;
      expect({ pattern, path, owned: owns(`${pattern} @a`, path) }).toEqual({ pattern, path, owned: reference(pattern, path) });
    }
  });
});

describe("a project in a subfolder of its repository", () => {
  const project = (root: string, files: Record<string, string>) => {
    mkdirSync(join(root, ".git"), { recursive: true });
    writeTree(root, files);
    return join(root, "analytics");
  };

  test("the repository root's CODEOWNERS is read, its patterns relative to the root", () => {
    using dir = tempDir();
    const dbt = project(dir.path, { ".github/CODEOWNERS": "/analytics/models/marts/ @data\n", "analytics/dbt_project.yml": "name: a\n" });
    const codeowners = readCodeowners(dbt);
    expect(codeowners?.file).toBe("../.github/CODEOWNERS");
    expect(codeowners?.owns("models/marts/fct.sql")).toBe(true);
    expect(codeowners?.owns("models/staging/stg.sql")).toBe(false);
    expect(codeowners?.pathOf("models/marts/fct.sql")).toBe("analytics/models/marts/fct.sql");
  });

  test("a pattern written relative to the project folder does not own it (GitHub reads it from the root)", () => {
    using dir = tempDir();
    const dbt = project(dir.path, { CODEOWNERS: "/models/marts/ @data\n", "analytics/CODEOWNERS": "* @ignored\n" });
    expect(readCodeowners(dbt)?.file).toBe("../CODEOWNERS");
    expect(readCodeowners(dbt)?.owns("models/marts/fct.sql")).toBe(false);
  });

  test("the root first, in GitHub's order, then docs/; only when the root has none is the project folder's read", () => {
    using dir = tempDir();
    const dbt = project(dir.path, { "analytics/.github/CODEOWNERS": "/models/ @project\n" });
    expect(findCodeowners(dbt)).toEqual({ dir: dbt, location: ".github/CODEOWNERS", prefix: "" });
    expect(readCodeowners(dbt)?.owns("models/fct.sql")).toBe(true);
    writeTree(dir.path, { "docs/CODEOWNERS": "/analytics/models/ @root\n" });
    expect(findCodeowners(dbt)).toEqual({ dir: dir.path, location: "docs/CODEOWNERS", prefix: "analytics" });
    expect(readCodeowners(dbt)?.file).toBe("../docs/CODEOWNERS");
    expect(readCodeowners(dbt)?.owns("models/fct.sql")).toBe(true);
  });

  test("without a git repository the project folder is the root", () => {
    using dir = tempDir();
    writeTree(dir.path, { "analytics/CODEOWNERS": "/models/ @a\n", CODEOWNERS: "* @outside\n" });
    const codeowners = readCodeowners(join(dir.path, "analytics"));
    expect(codeowners?.file).toBe("CODEOWNERS");
    expect(codeowners?.owns("models/x.sql")).toBe(true);
  });
});

describe("S5 from the real CLI, on a project in a subfolder", () => {
  test("a root .github/CODEOWNERS owning the project's marts is silent; one naming project-relative paths fires, naming the root-relative path", () => {
    using dir = tempDir();
    const source = join(FIXTURES, "S5", "fires", "no_codeowners_file");
    cpSync(source, join(dir.path, "analytics"), { recursive: true });
    rmSync(join(dir.path, "analytics", "expected"), { force: true });
    initRepo(dir.path);
    writeTree(dir.path, { ".github/CODEOWNERS": "/analytics/models/ @data\n" });
    const owned = runCli(["check", "--project-dir", "analytics"], dir.path);
    expect(owned.stdout).not.toContain("[S5]");
    writeTree(dir.path, { ".github/CODEOWNERS": "/models/ @data\n" });
    const unowned = runCli(["check", "--project-dir", "analytics"], dir.path);
    expect(unowned.stdout).toContain("no line of ../.github/CODEOWNERS owns analytics/models/marts/");
    expect(unowned.stdout).toContain("[S5]");
    expect(unowned.exitCode).toBe(1);
  });
});
