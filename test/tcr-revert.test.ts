/**
 * A red step puts back every kind of change exactly, checked from outside
 * with git: a file replaced by a folder and back, symlinks, the executable
 * bit, case-only renames (this filesystem is case-sensitive); submodule
 * changes are refused; a revert that fails part-way says what is left.
 */
import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { CLI_ENTRY, runCli, testEnv } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir } from "./support/temp.ts";
import { breakSpec, quickstartRepo, status, strikes, tcrEnvelope, workTreeAsStaged } from "./support/tcr.ts";

const STEPS = ["check"];

describe("slp tcr: files and folders", () => {
  test("a file replaced by a folder is restored; an ignored file in that folder is moved aside, not deleted", () => {
    using repo = quickstartRepo(STEPS);
    const before = workTreeAsStaged(repo.path);
    const readme = join(repo.path, "data", "README.md");
    rmSync(readme);
    mkdirSync(join(readme, "deeper"), { recursive: true });
    writeFileSync(join(readme, "notes.txt"), "a new file where the file was\n");
    writeFileSync(join(readme, "deeper", "debug.log"), "ignored output\n");
    breakSpec(repo.path);

    const result = runCli(["tcr", "file to folder", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(envelope.data.outcome).toBe("reverted");
    expect(envelope.data.files.map((file: { path: string; kind: string }) => `${file.kind} ${file.path}`)).toEqual([
      "deleted data/README.md",
      "added data/README.md/notes.txt",
      "modified models/marts/fct_orders.yml",
    ]);
    expect(statSync(readme).isFile()).toBe(true);
    expect(workTreeAsStaged(repo.path)).toBe(before);
    expect(status(repo.path)).toBe("");
    expect(envelope.data.saved.moved_aside).toEqual(["data/README.md/deeper/debug.log"]);
    expect(readFileSync(join(repo.path, envelope.data.saved.dir, "aside", "data", "README.md", "deeper", "debug.log"), "utf8")).toBe(
      "ignored output\n",
    );
    expect(strikes(repo.path)).toBe("1");
  });

  test("a folder replaced by a file is restored with every file in it", () => {
    using repo = quickstartRepo(STEPS);
    const before = workTreeAsStaged(repo.path);
    const sources = join(repo.path, "data", "sources");
    rmSync(sources, { recursive: true });
    writeFileSync(sources, "a file where the folder was\n");
    breakSpec(repo.path);

    const result = runCli(["tcr", "folder to file"], repo.path);
    expect(result.stdout).toContain("  added    data/sources\n");
    expect(result.stdout).toContain("  deleted  data/sources/raw_orders.csv\n");
    expect(result.exitCode).toBe(1);
    expect(statSync(sources).isDirectory()).toBe(true);
    expect(readdirSync(sources).sort()).toEqual(["monthly_close.csv", "raw_customers.csv", "raw_orders.csv"]);
    expect(workTreeAsStaged(repo.path)).toBe(before);
    expect(status(repo.path)).toBe("");
  });

  test("a green step commits a file replaced by a folder", () => {
    using repo = quickstartRepo(STEPS);
    const readme = join(repo.path, "data", "README.md");
    rmSync(readme);
    mkdirSync(readme);
    writeFileSync(join(readme, "index.md"), "moved in\n");
    expect(runCli(["tcr", "file to folder"], repo.path).exitCode).toBe(0);
    expect(git(repo.path, ["show", "--name-status", "--format=", "HEAD"]).split("\n")).toEqual([
      "D\tdata/README.md",
      "A\tdata/README.md/index.md",
    ]);
    expect(status(repo.path)).toBe("");
  });
});

describe("slp tcr: symlinks", () => {
  /** The quickstart with a tracked symlink, committed on the branch. */
  function repoWithLink() {
    const repo = quickstartRepo(STEPS);
    symlinkSync("data/README.md", join(repo.path, "README-data"));
    commitAll(repo.path, "a link to the data notes");
    return repo;
  }

  test("a new symlink is removed, a retargeted one and a file turned into one are put back", () => {
    using repo = repoWithLink();
    const before = workTreeAsStaged(repo.path);
    symlinkSync("../../data/sources/raw_orders.csv", join(repo.path, "models", "orders-link"));
    rmSync(join(repo.path, "README-data"));
    symlinkSync("data/sources", join(repo.path, "README-data"));
    // A file the step does not read turns into a link (a dbt_project.yml linked to profiles.yml is no dbt
    // project: check cannot judge it, and a step that cannot judge reverts nothing).
    rmSync(join(repo.path, "profiles.yml"));
    symlinkSync("dbt_project.yml", join(repo.path, "profiles.yml"));
    breakSpec(repo.path);

    const result = runCli(["tcr", "links", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(envelope.data.outcome).toBe("reverted");
    expect(envelope.data.files.map((file: { path: string; kind: string }) => `${file.kind} ${file.path}`)).toEqual([
      "modified README-data",
      "modified models/marts/fct_orders.yml",
      "added models/orders-link",
      "typechange profiles.yml",
    ]);
    expect(existsSync(join(repo.path, "models", "orders-link"))).toBe(false);
    expect(readlinkSync(join(repo.path, "README-data"))).toBe("data/README.md");
    expect(lstatSync(join(repo.path, "profiles.yml")).isSymbolicLink()).toBe(false);
    expect(workTreeAsStaged(repo.path)).toBe(before);
    expect(status(repo.path)).toBe("");
  });

  test("a green step commits a symlink as a symlink", () => {
    using repo = repoWithLink();
    symlinkSync("data/sources", join(repo.path, "sources-link"));
    expect(runCli(["tcr", "a link"], repo.path).exitCode).toBe(0);
    expect(git(repo.path, ["ls-tree", "HEAD", "sources-link"])).toMatch(/^120000 blob [0-9a-f]{40}\tsources-link$/);
  });
});

describe("slp tcr: the executable bit", () => {
  test("chmod +x is committed by a green step and reverted by a red one", () => {
    using repo = quickstartRepo(STEPS);
    const script = join(repo.path, "data", "README.md");
    chmodSync(script, 0o755);
    const green = runCli(["tcr", "make it executable"], repo.path);
    expect(green.stdout).toContain("slp tcr: green, committed");
    expect(git(repo.path, ["ls-tree", "HEAD", "data/README.md"])).toMatch(/^100755 /);
    expect(status(repo.path)).toBe("");

    chmodSync(script, 0o644);
    breakSpec(repo.path);
    const red = runCli(["tcr", "drop the bit and the spec"], repo.path);
    expect(red.stdout).toContain("  mode     data/README.md (100755 -> 100644)\n");
    expect(red.exitCode).toBe(1);
    expect(statSync(script).mode & 0o111).not.toBe(0);
    expect(status(repo.path)).toBe("");
  });
});

describe("slp tcr: case-only renames", () => {
  test("a red step puts the old name back; a green one commits the new name", () => {
    using repo = quickstartRepo(STEPS);
    const before = workTreeAsStaged(repo.path);
    renameSync(join(repo.path, "data", "README.md"), join(repo.path, "data", "readme.md"));
    breakSpec(repo.path);
    const red = runCli(["tcr", "rename"], repo.path);
    expect(red.stdout).toContain("  deleted  data/README.md\n");
    expect(red.stdout).toContain("  added    data/readme.md\n");
    expect(readdirSync(join(repo.path, "data")).sort()).toEqual(["README.md", "pr", "production", "sources"]);
    expect(workTreeAsStaged(repo.path)).toBe(before);

    renameSync(join(repo.path, "data", "README.md"), join(repo.path, "data", "readme.md"));
    expect(runCli(["tcr", "rename"], repo.path).exitCode).toBe(0);
    expect(git(repo.path, ["ls-tree", "--name-only", "HEAD", "data/"]).split("\n")).toContain("data/readme.md");
    expect(status(repo.path)).toBe("");
  });
});

describe("slp tcr: submodules are refused, changing nothing", () => {
  test("a git repository created inside the work tree", () => {
    using repo = quickstartRepo(STEPS);
    const nested = join(repo.path, "vendor", "lib");
    mkdirSync(nested, { recursive: true });
    initRepo(nested);
    writeFileSync(join(nested, "lib.sql"), "select 1\n");
    commitAll(nested, "lib");
    breakSpec(repo.path);
    const before = status(repo.path);

    const result = runCli(["tcr", "vendor a lib", "--format", "json"], repo.path);
    const envelope = tcrEnvelope(result.stdout);
    expect(result.exitCode).toBe(2);
    expect(envelope.data.outcome).toBe("cannot-judge");
    expect(envelope.errors[0]?.message).toBe(
      "vendor/lib is a submodule (a git repository inside this one) and it changed; tcr neither commits nor reverts another repository's state",
    );
    expect(status(repo.path)).toBe(before);
    expect(readFileSync(join(nested, "lib.sql"), "utf8")).toBe("select 1\n");
    expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);
  });

  test("a tracked submodule moved to another commit", () => {
    using lib = tempDir("slp-tcr-lib-");
    initRepo(lib.path);
    writeFileSync(join(lib.path, "lib.sql"), "select 1\n");
    commitAll(lib.path, "one");
    using repo = quickstartRepo(STEPS);
    git(repo.path, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.path, "vendor/lib"]);
    commitAll(repo.path, "vendor the lib");
    const sub = join(repo.path, "vendor", "lib");
    writeFileSync(join(sub, "lib.sql"), "select 2\n");
    commitAll(sub, "two");
    const result = runCli(["tcr", "move the lib"], repo.path);
    expect(result.stdout).toContain("vendor/lib is a submodule");
    expect(result.exitCode).toBe(2);
    expect(status(repo.path)).toBe(" M vendor/lib");
  });
});

describe("slp tcr: a revert that fails part-way", () => {
  test("exit 2, no strike, the steps left listed, the change saved", () => {
    using repo = quickstartRepo(STEPS);
    const marts = join(repo.path, "models", "marts");
    writeFileSync(join(marts, "scratch.sql"), "select 1\n");
    breakSpec(repo.path);
    chmodSync(marts, 0o555);
    try {
      // Root ignores permissions; without the capabilities to override them, it cannot unlink in a read-only folder either.
      const argv = [process.execPath, CLI_ENTRY, "tcr", "stuck", "--format", "json"];
      const asRoot = process.getuid?.() === 0;
      const command = asRoot ? ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", ...argv] : argv;
      const run = Bun.spawnSync(command, { cwd: repo.path, env: testEnv(), stdout: "pipe", stderr: "pipe" });
      const envelope = tcrEnvelope(run.stdout.toString());
      expect(run.exitCode).toBe(2);
      expect(envelope.data.outcome).toBe("revert-incomplete");
      expect(envelope.data.restore.failed).toEqual({ action: "remove", path: "models/marts/scratch.sql", error: "EACCES" });
      expect(envelope.data.restore.left.map((step: { action: string; path: string }) => `${step.action} ${step.path}`)).toContain(
        "write models/marts/fct_orders.yml",
      );
      expect(envelope.errors[0]?.message).toBe("cannot remove models/marts/scratch.sql: EACCES");
      expect(existsSync(join(repo.path, envelope.data.saved.patch))).toBe(true);
      expect(existsSync(join(repo.path, ".git", "slp", "tcr-strikes"))).toBe(false);
      // Nothing was undone, and the index is as it was.
      expect(status(repo.path)).toBe(" M models/marts/fct_orders.yml\n?? models/marts/scratch.sql");
    } finally {
      chmodSync(marts, 0o755);
    }
  });
});
