/**
 * The single executable: built with `slp run build`, then run from a
 * temporary copy of the quickstart with a clean environment (no Bun, no
 * node_modules, an empty HOME): check, unit, and the repository's own tasks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./support/cli.ts";
import { initRepo } from "./support/git-repo.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
let work: TempDir;
let binary = "";
let project = "";
let home = "";

/** The binary with nothing inherited: a bare PATH (for the shell tasks' `echo`), an empty HOME. */
function slp(args: string[], env: Record<string, string> = {}) {
  const result = Bun.spawnSync([binary, ...args], {
    cwd: project,
    env: { PATH: "/usr/bin:/bin", HOME: home, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), exitCode: result.exitCode };
}

beforeAll(async () => {
  work = tempDir("slp-binary-");
  binary = join(work.path, "bin", "slp");
  const built = await runMain(["run", "build", "--outfile", binary], ROOT);
  expect(built.stderr).toBe("");
  expect(built.exitCode).toBe(0);
  project = join(work.path, "quickstart");
  cpSync(join(ROOT, "examples", "quickstart"), project, { recursive: true });
  cpSync(join(ROOT, "test", "fixtures", "user-tasks"), project, { recursive: true });
  initRepo(project);
  home = join(work.path, "home");
  mkdirSync(home);
}, 120_000);

afterAll(() => work[Symbol.dispose]());

describe("dist/slp", () => {
  test("is one file that runs without Bun or node_modules", () => {
    const version = slp(["--version"]);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(version.exitCode).toBe(0);
    expect(existsSync(join(work.path, "bin", "node_modules"))).toBe(false);
  });

  test("check runs without loading DuckDB", () => {
    const result = slp(["check"]);
    expect(result.stdout).toEndWith("slp check: 5 infos - OK (2 models in models/marts/, of 4 models read)\n");
    expect(result.exitCode).toBe(0);
    expect(existsSync(join(home, ".cache", "slp", "native"))).toBe(false);
  });

  test("unit runs the quickstart's unit tests on the embedded DuckDB", () => {
    const result = slp(["unit"]);
    expect(result.stdout).toContain("slp unit: 5 passed - OK");
    expect(result.exitCode).toBe(0);
    expect(readdirSync(join(home, ".cache", "slp", "native")).some((entry) => entry.startsWith("duckdb-"))).toBe(true);
  });

  test("a truncated cached library is written again before it is loaded (no SIGBUS)", () => {
    expect(slp(["unit"]).exitCode).toBe(0);
    const native = join(home, ".cache", "slp", "native");
    const folder = join(native, readdirSync(native)[0] as string);
    const library = readdirSync(folder).find((name) => /^(lib)?duckdb\.(so|dylib|dll)$/.test(name)) as string;
    const size = statSync(join(folder, library)).size;
    truncateSync(join(folder, library), 4096);
    const result = slp(["unit"]);
    expect(result.stdout).toContain("slp unit: 5 passed - OK");
    expect(result.exitCode).toBe(0);
    expect(statSync(join(folder, library)).size).toBe(size);
  });

  test("a cache folder it cannot write is a named error with the fix, never a bug in slp", () => {
    writeFileSync(join(work.path, "not-a-folder"), "");
    const result = slp(["unit"], { SLP_CACHE_DIR: join(work.path, "not-a-folder", "cache") });
    expect(result.stderr).toStartWith("ERROR cannot create the cache folder ");
    expect(result.stderr).toContain("set SLP_CACHE_DIR to a folder of your own");
    expect(result.stderr).not.toContain("bug in slp");
    expect(result.exitCode).toBe(2);
  });

  test("unpack prepares the cache ahead of time (as the Dockerfile does)", () => {
    const cache = join(work.path, "prepared-cache");
    const result = slp(["unpack"], { SLP_CACHE_DIR: cache });
    expect(result.stdout).toMatch(/^DuckDB v\d+\.\d+\.\d+ loads from /);
    expect(result.exitCode).toBe(0);
    expect(readdirSync(join(cache, "native"))).toHaveLength(1);
  });

  test("the Dockerfile unpacks DuckDB while the image is built, as the user that runs it, into a cache of that user's", () => {
    const docker = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    const run = docker
      .slice(docker.lastIndexOf("\nFROM "))
      .split("\n")
      .filter((line) => /^(USER|ENV|RUN slp|ENTRYPOINT)/.test(line));
    expect(run).toEqual(["USER slp", "ENV SLP_CACHE_DIR=/home/slp/.cache/slp", "RUN slp unpack", 'ENTRYPOINT ["slp"]']);
    expect(docker).not.toMatch(/^ENV .*\/tmp/m);
  });

  test("ships without the developer tasks (build, gen)", () => {
    const listed = slp(["tasks"]).stdout;
    expect(listed).toMatch(/^check\s/m);
    expect(listed).not.toMatch(/^(build|gen)\s/m);
    const build = slp(["run", "build"]);
    expect(build.stderr).toContain("invalid choice: 'build'");
    expect(build.exitCode).toBe(2);
  });

  test("unit translates the Snowflake example with the transpiler inside the binary", () => {
    const shop = join(work.path, "snowflake-shop");
    cpSync(join(ROOT, "examples", "snowflake-shop"), shop, { recursive: true });
    const result = slp(["unit", "--project-dir", shop]);
    expect(result.stdout).toContain("slp unit: 3 passed - OK (3 tests of 3 models, SQL rendered by slp, dialect snowflake: 3 translated)");
    expect(result.exitCode).toBe(0);
  });

  test("loads a TypeScript user task that imports the public API", () => {
    const result = slp(["run", "verify", "--loud"]);
    expect(result.stdout).toBe("VERIFY: 2 MARTS MODELS, CHECK EXIT 0\n");
    expect(result.exitCode).toBe(0);
  });

  test("a user task whose program is missing names slp, not Bun", () => {
    const result = slp(["run", "lint"]);
    expect(result.stderr).toStartWith("slp: the task lint runs slp-fixture-missing-linter, which is not installed");
    expect(result.stderr).not.toContain("bun");
    expect(result.exitCode).toBe(2);
  });

  test("runs a shell user task that calls slp itself", () => {
    const result = slp(["run", "check-then-say"]);
    expect(result.stdout).toContain("slp check: 5 infos - OK");
    expect(result.stdout).toContain("check passed\n");
    expect(result.exitCode).toBe(0);
  });
});
