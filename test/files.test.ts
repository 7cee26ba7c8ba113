/**
 * A tree that cannot be read is never "nothing to check", and no read leaves
 * the repository or waits forever: symbolic links (loops, links out, links to
 * nothing), unreadable folders, FIFOs and devices, and the file size limit,
 * through the real commands on a copy of the quickstart.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runMain } from "./support/cli.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { copyToTemp, type TempDir, tempDir } from "./support/temp.ts";

const QUICKSTART = join(import.meta.dir, "..", "examples", "quickstart");

/** The quickstart, copied, with `change` applied. */
function quickstart(change: (dir: string) => void = () => {}) {
  const copy = copyToTemp(QUICKSTART, "slp-files-");
  change(copy.path);
  return copy;
}

function mkfifo(path: string): void {
  const made = Bun.spawnSync(["mkfifo", path]);
  if (made.exitCode !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
}

describe("symbolic links in the folders slp walks", () => {
  test("a link back to its own folder (models/self -> .) is exit 2 naming it, in check, unit and ci", async () => {
    using project = quickstart((dir) => symlinkSync(".", join(dir, "models", "self")));
    for (const task of ["check", "unit"]) {
      const result = await runMain([task], project.path);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("ERROR models/self: is a symbolic link to a folder that holds it");
      expect(result.stdout).toBe("");
    }
    initRepo(project.path);
    commitAll(project.path, "base");
    git(project.path, ["checkout", "-q", "-b", "feature"]);
    const ci = await runMain(["ci", "--base", "main"], project.path);
    expect(ci.exitCode).toBe(2);
  });

  test("a link to / under models/ is exit 2: slp reads nothing outside the repository", async () => {
    using project = quickstart((dir) => symlinkSync("/", join(dir, "models", "marts", "root")));
    const result = await runMain(["check"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("ERROR models/marts/root: is a symbolic link to a folder outside the repository");
  });

  test("a link to nothing, and two links pointing at each other, are exit 2 naming them", async () => {
    using dangling = quickstart((dir) => symlinkSync("gone.yml", join(dir, "models", "marts", "gone_link.yml")));
    const first = await runMain(["check"], dangling.path);
    expect(first.exitCode).toBe(2);
    expect(first.stderr).toContain("ERROR models/marts/gone_link.yml: cannot read the file: it is a symbolic link that points at nothing");

    using looped = quickstart((dir) => {
      symlinkSync("b.yml", join(dir, "models", "a.yml"));
      symlinkSync("a.yml", join(dir, "models", "b.yml"));
    });
    const second = await runMain(["check"], looped.path);
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain("ERROR models/a.yml: cannot read the file: it is a symbolic link that loops");
  });

  test("a link no reader needs (not a yml, not a model) is ignored, as dbt ignores it, wherever it points", async () => {
    using plain = quickstart();
    const expected = await runMain(["check"], plain.path);
    using linked = quickstart((dir) => {
      symlinkSync("nowhere", join(dir, "models", "README-link"));
      symlinkSync("/etc/passwd", join(dir, "models", "passwd-link"));
    });
    expect(await runMain(["check"], linked.path)).toEqual(expected);
  });

  test("a link inside the repository is followed, as dbt follows it: same verdict as the file itself", async () => {
    using plain = quickstart();
    const expected = await runMain(["check"], plain.path);
    using linked = quickstart((dir) => {
      mkdirSync(join(dir, "shared"));
      renameSync(join(dir, "models", "marts", "finance"), join(dir, "shared", "finance"));
      symlinkSync(join("..", "..", "shared", "finance"), join(dir, "models", "marts", "finance"));
      renameSync(join(dir, "models", "marts", "fct_orders.yml"), join(dir, "shared", "fct_orders.yml"));
      symlinkSync(join("..", "..", "shared", "fct_orders.yml"), join(dir, "models", "marts", "fct_orders.yml"));
    });
    const result = await runMain(["check"], linked.path);
    expect(result).toEqual(expected);
    expect(result.exitCode).toBe(0);
  });

  test("a file linked out of the repository is refused wherever slp reads it (CODEOWNERS, a fixture, slp.yml)", async () => {
    using outside = copyToTemp(join(QUICKSTART, "models"), "slp-outside-");
    writeFileSync(join(outside.path, "secret.csv"), "id\nTOP-SECRET\n");
    using project = quickstart((dir) => {
      rmSync(join(dir, "CODEOWNERS"));
      symlinkSync(join(outside.path, "secret.csv"), join(dir, "CODEOWNERS"));
    });
    const result = await runMain(["check"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("ERROR CODEOWNERS: cannot read the file: it leads outside the repository through a symbolic link");
    expect(result.stdout + result.stderr).not.toContain("TOP-SECRET");
  });
});

describe("entries that cannot be read", () => {
  test("an unreadable folder under models/ is exit 2 naming it, never OK with nothing read", () => {
    using project = quickstart((dir) => mkdirSync(join(dir, "models", "marts", "locked")));
    const locked = join(project.path, "models", "marts", "locked");
    chmodSync(locked, 0o000);
    try {
      // root reads every folder whatever its mode: run slp as nobody then.
      const asRoot = process.getuid?.() === 0;
      if (asRoot) chmodSync(project.path, 0o755);
      const argv = ["check", "--project-dir", project.path];
      const result = asRoot ? runAsNobody(argv) : runCli(argv, project.path);
      expect(result.stderr).toContain("ERROR models/marts/locked: cannot read the folder: permission denied");
      expect(result.exitCode).toBe(2);
    } finally {
      chmodSync(locked, 0o755);
    }
  });

  test("a CODEOWNERS that is a FIFO, and one linked to /dev/zero, are refused at once, never waited for", async () => {
    using fifo = quickstart((dir) => {
      rmSync(join(dir, "CODEOWNERS"));
      mkfifo(join(dir, "CODEOWNERS"));
    });
    const first = await runMain(["check"], fifo.path);
    expect(first.exitCode).toBe(2);
    expect(first.stderr).toContain("ERROR CODEOWNERS: cannot read the file: it is a named pipe (FIFO), not a regular file");

    using zero = quickstart((dir) => {
      rmSync(join(dir, "CODEOWNERS"));
      symlinkSync("/dev/zero", join(dir, "CODEOWNERS"));
    });
    const second = await runMain(["check"], zero.path);
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain("ERROR CODEOWNERS: cannot read the file: it leads outside the repository");
  });

  test("a diff.json given as /dev/zero or as a FIFO is refused at once (compare, diff-from-row)", async () => {
    using project = quickstart((dir) => mkfifo(join(dir, "diff", "fifo.json")));
    const zero = await runMain(["compare", "/dev/zero"], project.path);
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr).toContain("ERROR /dev/zero: cannot be read: it is a character device, not a regular file");
    const fifo = await runMain(["compare", "diff/fifo.json"], project.path);
    expect(fifo.stderr).toContain("ERROR diff/fifo.json: cannot be read: it is a named pipe (FIFO), not a regular file");
    const row = await runMain(["diff-from-row", "--model", "fct_orders", "/dev/zero"], project.path);
    expect(row.exitCode).toBe(2);
    expect(row.stderr).toContain("ERROR /dev/zero: cannot be read: it is a character device");
  });

  test("a file above the size limit is exit 2 naming the limit and how to raise it", async () => {
    using project = quickstart((dir) => writeFileSync(join(dir, "models", "marts", "big.yml"), `# ${"x".repeat(4096)}\n`));
    const result = await runMain(["check"], project.path, { SLP_LIMIT_FILE_MB: "0.002" });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("ERROR models/marts/big.yml: the file is larger than 0.002 MiB");
    expect(result.stderr).toContain("(limit file_mb = 0.002 MiB)");
    expect(result.stderr).toContain("SLP_LIMIT_FILE_MB=<MiB> in the environment, or limits: {file_mb: ...} in slp.yml");
    // The same project reads once the limit is raised, in slp.yml or the environment.
    writeFileSync(join(project.path, "slp.yml"), "limits:\n  file_mb: 1\n");
    expect((await runMain(["check"], project.path, { SLP_LIMIT_FILE_MB: "0.002" })).exitCode).toBe(2);
    expect((await runMain(["check"], project.path)).exitCode).toBe(0);
  });

  test("a limit setting that is not a positive number is exit 2, never ignored", async () => {
    using project = quickstart();
    const result = await runMain(["check"], project.path, { SLP_LIMIT_FILE_MB: "lots" });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("ERROR SLP_LIMIT_FILE_MB=lots is not a number");
    writeFileSync(join(project.path, "slp.yml"), "limits:\n  nesting_depth: 0\n");
    const configured = await runMain(["check"], project.path);
    expect(configured.exitCode).toBe(2);
    expect(configured.stderr).toContain("ERROR slp.yml:2: limits.nesting_depth: 0 is below 1 levels");
  });
});

/**
 * The real CLI as the unprivileged user `nobody` (what a folder's mode means to
 * everyone but root). nobody may not be able to read this checkout (a clone
 * under a private folder), so the CLI runs from a bundle of it and a copy of
 * Bun in a folder everyone can read.
 */
function runAsNobody(argv: string[]) {
  const { bun, cli } = nobodysCli();
  const result = Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bun, cli, ...argv], {
    cwd: "/",
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", SLP_NO_CACHE: "1", HOME: "/tmp" },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), exitCode: result.exitCode ?? -1 };
}

let nobodysFolder: TempDir | undefined;
let nobodys: { bun: string; cli: string } | undefined;
afterAll(() => nobodysFolder?.[Symbol.dispose]());

function nobodysCli(): { bun: string; cli: string } {
  if (nobodys) return nobodys;
  nobodysFolder = tempDir("slp-nobody-");
  const folder = nobodysFolder.path;
  chmodSync(folder, 0o755);
  // DuckDB's native bindings stay out of the bundle: check never loads them.
  const built = Bun.spawnSync(
    [
      process.execPath,
      "build",
      join(import.meta.dir, "..", "src", "cli.ts"),
      "--target=bun",
      "--external",
      "@duckdb/*",
      "--outdir",
      join(folder, "cli"),
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (built.exitCode !== 0) throw new Error(`bundling the CLI failed: ${built.stderr.toString()}`);
  copyFileSync(process.execPath, join(folder, "bun"));
  chmodSync(join(folder, "bun"), 0o755);
  for (const entry of readdirSync(join(folder, "cli"))) chmodSync(join(folder, "cli", entry), 0o644);
  chmodSync(join(folder, "cli"), 0o755);
  nobodys = { bun: join(folder, "bun"), cli: join(folder, "cli", "cli.js") };
  return nobodys;
}

describe("gate reads links and submodules in git as check reads the work tree", () => {
  /** The quickstart as a repository whose marts SQL is a link to a file elsewhere in it, on a feature branch. */
  function linkedRepo() {
    const project = quickstart((dir) => {
      mkdirSync(join(dir, "sql"));
      renameSync(join(dir, "models", "marts", "fct_orders.sql"), join(dir, "sql", "fct_orders.sql"));
      symlinkSync(join("..", "..", "sql", "fct_orders.sql"), join(dir, "models", "marts", "fct_orders.sql"));
    });
    initRepo(project.path);
    commitAll(project.path, "base: the model's SQL behind a link");
    git(project.path, ["checkout", "-q", "-b", "feature"]);
    return project;
  }

  test("SQL changed behind a link is a change of the model (G8), not an unchanged link", async () => {
    using project = linkedRepo();
    writeFileSync(join(project.path, "sql", "fct_orders.sql"), "select 1 as order_id\n");
    commitAll(project.path, "change the model through its link");
    const result = await runMain(["gate", "--base", "main", "--format", "json"], project.path);
    const rules = (JSON.parse(result.stdout).findings as { rule: string; model: string }[]).map((f) => `${f.rule} ${f.model}`);
    expect(rules).toContain("G8 fct_orders");
    expect(result.exitCode).toBe(1);
  });

  test("a committed link to a folder that holds it is exit 2 naming it", async () => {
    using project = linkedRepo();
    symlinkSync(".", join(project.path, "models", "self"));
    commitAll(project.path, "a loop");
    const result = await runMain(["gate", "--base", "main"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("models/self at ");
    expect(result.stderr).toContain("is a symbolic link to a folder that holds it");
  });

  test("a committed yml linked out of the repository is exit 2 when gate reads it", async () => {
    using project = linkedRepo();
    symlinkSync("/etc/passwd", join(project.path, "models", "marts", "passwd.yml"));
    commitAll(project.path, "a link out");
    const result = await runMain(["gate", "--base", "main"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("cannot read models/marts/passwd.yml at");
    expect(result.stderr).toContain("it is a symbolic link, and it leads outside the repository");
    expect(result.stdout + result.stderr).not.toContain("root:");
  });

  test("a submodule under models/ is exit 2: gate cannot see the models it holds", async () => {
    using project = linkedRepo();
    const head = git(project.path, ["rev-parse", "HEAD"]);
    git(project.path, ["update-index", "--add", "--cacheinfo", `160000,${head},models/vendor`]);
    git(project.path, ["commit", "-q", "-m", "a submodule of models"]);
    const result = await runMain(["gate", "--base", "main"], project.path);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("models/vendor is a git submodule at");
  });
});

test("a git blob above file_mb is refused by gate, naming the file and the limit", async () => {
  using project = quickstart();
  initRepo(project.path);
  commitAll(project.path, "base");
  git(project.path, ["checkout", "-q", "-b", "feature"]);
  writeFileSync(join(project.path, "models", "marts", "big.yml"), `# ${"x".repeat(200_000)}\n`);
  commitAll(project.path, "a big yml");
  const result = await runMain(["gate", "--base", "main"], project.path, { SLP_LIMIT_FILE_MB: "0.1" });
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toContain("ERROR models/marts/big.yml: at ");
  expect(result.stderr).toContain("the file is larger than 0.1 MiB (limit file_mb = 0.1 MiB)");
});
