/**
 * slp as users install it from npm: `slp run build --packages` writes this
 * machine's platform package and the launcher package; both tarballs are
 * installed into an empty folder with only Node and npm on PATH (no Bun), and
 * `npx slp` runs check and unit on a copy of the quickstart there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { sha256 } from "../src/build/native-cache.ts";
import { hostPlatform, PLATFORMS, platformPackage, releaseAsset, type Platform } from "../src/build/platforms.ts";
import { VERSION } from "../src/version.ts";
import { runMain } from "./support/cli.ts";
import { git } from "./support/git-repo.ts";
import { tempDir, type TempDir } from "./support/temp.ts";

const ROOT = join(import.meta.dir, "..");
let work: TempDir;
let packages = "";
let tools = "";
let repo = "";
const host = hostPlatform() as Platform;

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** A command with nothing inherited: PATH holds node, npm, npx and the sh npm runs scripts with. */
function bare(argv: string[], cwd: string, env: Record<string, string> = {}): Run {
  const result = Bun.spawnSync(argv, { cwd, env: { PATH: tools, HOME: join(work.path, "home"), ...env }, stdout: "pipe", stderr: "pipe" });
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), exitCode: result.exitCode ?? -1 };
}

function manifest(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
}

beforeAll(async () => {
  work = tempDir("slp-npm-");
  packages = join(work.path, "packages");
  const built = await runMain(["run", "build", "--packages", packages], ROOT);
  expect(built.stderr).toBe("");
  expect(built.exitCode).toBe(0);
  tools = join(work.path, "tools");
  mkdirSync(tools);
  for (const program of ["node", "npm", "npx", "sh"]) symlinkSync(Bun.which(program) as string, join(tools, program));
  repo = join(work.path, "my-dbt-repo");
  mkdirSync(repo);
  writeFileSync(join(repo, "package.json"), `${JSON.stringify({ name: "my-dbt-repo", private: true })}\n`);
  cpSync(join(ROOT, "examples", "quickstart"), repo, { recursive: true });
  const tarballs = [`spec-lock-diff-${VERSION}.tgz`, `spec-lock-diff-cli-${host.name}-${VERSION}.tgz`].map((name) => join(packages, name));
  const installed = bare(["npm", "install", "--offline", "--no-audit", "--no-fund", "--save-dev", ...tarballs], repo);
  expect(installed.exitCode).toBe(0);
}, 300_000);

afterAll(() => work[Symbol.dispose]());

describe("the npm packages", () => {
  test("one per platform, installed only where os, cpu and libc fit, holding the binary alone", () => {
    const platform = manifest(join(packages, `cli-${host.name}`));
    expect(platform.name).toBe(platformPackage(host));
    expect(platform.version).toBe(VERSION);
    expect(platform.os).toEqual([host.os]);
    expect(platform.cpu).toEqual([host.cpu]);
    expect(platform.libc).toEqual(host.libc ? [host.libc] : undefined);
    expect(platform.files).toEqual([host.binary]);
    expect(platform.bin).toBeUndefined();
  });

  test("the launcher package lists every platform as an optional dependency at its own version, and needs no Bun", () => {
    const launcher = manifest(join(packages, "spec-lock-diff"));
    expect(launcher.bin).toEqual({ slp: "bin/slp.cjs", "spec-lock-diff": "bin/slp.cjs" });
    expect(launcher.dependencies).toBeUndefined();
    expect(launcher.optionalDependencies).toEqual(Object.fromEntries(PLATFORMS.map((p) => [platformPackage(p), VERSION])));
    expect(Object.keys(launcher.optionalDependencies)).toEqual(
      ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"].map((name) => `@spec-lock-diff/cli-${name}`),
    );
  });

  test("the release assets carry their SHA-256 sums", () => {
    const asset = releaseAsset(host);
    const sums = readFileSync(join(packages, "release", "SHA256SUMS"), "utf8");
    expect(sums).toBe(`${sha256(readFileSync(join(packages, "release", asset)))}  ${asset}\n`);
  });
});

describe("installed into a dbt repository that has no Bun", () => {
  test("PATH holds Node and npm, and no Bun", () => {
    expect(Bun.which("bun", { PATH: tools })).toBeNull();
    expect(Bun.which("npx", { PATH: tools })).not.toBeNull();
  });

  test("npx slp check and npx slp unit run on the quickstart", () => {
    const check = bare(["npx", "slp", "check"], repo);
    expect(check.stdout).toEndWith("slp check: 5 infos - OK (2 models in models/marts/, of 4 models read)\n");
    expect(check.exitCode).toBe(0);
    const unit = bare(["npx", "slp", "unit"], repo);
    expect(unit.stdout).toContain("slp unit: 5 passed - OK");
    expect(unit.exitCode).toBe(0);
  });

  test("npx spec-lock-diff check is the same command, exit codes pass through", () => {
    const check = bare(["npx", "spec-lock-diff", "check"], repo);
    expect(check.stdout).toContain("slp check: 5 infos - OK");
    expect(check.exitCode).toBe(0);
    const blocked = bare(["npx", "slp", "check", "--marts-path", "models/nowhere"], repo);
    expect(blocked.stderr).toContain("models/nowhere/ not found under .");
    expect(blocked.exitCode).toBe(2);
  });
});

describe("tcr.sh in the dbt repository", () => {
  test("runs the binary npm installed for this machine directly: no Node on PATH", () => {
    const loop = join(work.path, "loop-tools");
    mkdirSync(loop);
    // tcr stages and commits through git (as git commit would, hooks included); Node is what must be absent.
    for (const program of ["bash", "dirname", "git"]) symlinkSync(Bun.which(program) as string, join(loop, program));
    cpSync(join(ROOT, "tcr.sh"), join(repo, "tcr.sh"));
    git(repo, ["init", "-q", "-b", "main"]);
    git(repo, ["add", "-A"]);
    git(repo, ["commit", "-q", "-m", "quickstart"]);
    git(repo, ["checkout", "-q", "-b", "agent/notes"]);
    writeFileSync(join(repo, "NOTES.md"), "a note\n");
    const result = Bun.spawnSync(["./tcr.sh", "add a note"], {
      cwd: repo,
      env: {
        PATH: loop,
        HOME: join(work.path, "home"),
        GIT_AUTHOR_NAME: "Agent",
        GIT_AUTHOR_EMAIL: "agent@example.com",
        GIT_COMMITTER_NAME: "Agent",
        GIT_COMMITTER_EMAIL: "agent@example.com",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(Bun.which("node", { PATH: loop })).toBeNull();
    expect(result.stdout.toString()).toContain("slp tcr: green, committed");
    expect(result.exitCode).toBe(0);
  }, 60_000);
});

describe("the launcher", () => {
  const launcher = () => join(repo, "node_modules", "spec-lock-diff", "bin", "slp.cjs");

  test("SLP_BINARY_PATH runs the binary it names; one that is not there is exit 2 saying so", () => {
    const binary = join(packages, "release", releaseAsset(host));
    const version = bare(["node", launcher(), "--version"], repo, { SLP_BINARY_PATH: binary });
    expect(version.stdout).toBe(`${VERSION}\n`);
    const missing = bare(["node", launcher(), "--version"], repo, { SLP_BINARY_PATH: join(work.path, "nowhere") });
    expect(missing.stderr).toStartWith(`ERROR SLP_BINARY_PATH is ${join(work.path, "nowhere")}, and there is no file there`);
    expect(missing.exitCode).toBe(2);
  });

  test("after the binary's first run, npm's link starts the binary itself: no Node, the same output", () => {
    const link = join(repo, "node_modules", ".bin", "slp");
    // As npm links it: a relative symbolic link to the launcher.
    rmSync(link, { force: true });
    symlinkSync(join("..", "spec-lock-diff", "bin", "slp.cjs"), link);
    const first = bare([link, "check"], repo);
    expect(first.stdout).toEndWith("slp check: 5 infos - OK (2 models in models/marts/, of 4 models read)\n");
    const binary = join(repo, "node_modules", "@spec-lock-diff", `cli-${host.name}`, "slp");
    expect(readlinkSync(link)).toBe(join("..", "@spec-lock-diff", `cli-${host.name}`, "slp"));
    expect(realpathSync(link)).toBe(realpathSync(binary));
    const noNode = join(work.path, "no-node");
    mkdirSync(noNode, { recursive: true });
    const again = Bun.spawnSync([link, "check", "--marts-path", "models/nowhere"], {
      cwd: repo,
      env: { PATH: noNode },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(again.stderr.toString()).toContain("models/nowhere/ not found under .");
    expect(again.exitCode).toBe(2);
  });

  test("a link that is not npm's link to the launcher is left as it is", () => {
    const other = join(repo, "node_modules", ".bin", "slp-copy");
    rmSync(other, { force: true });
    cpSync(launcher(), other);
    expect(bare(["node", other, "--version"], repo).stdout).toBe(`${VERSION}\n`);
    expect(lstatSync(other).isSymbolicLink()).toBe(false);
    expect(readFileSync(other, "utf8")).toStartWith("#!/usr/bin/env node\n");
  });

  test("the binary behind the re-pointed link reads SLP_BINARY_PATH as the launcher does, and does not pass it on", () => {
    const link = join(repo, "node_modules", ".bin", "slp");
    const wrapper = join(work.path, "other-slp.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "other slp: $* (SLP_BINARY_PATH=\${SLP_BINARY_PATH:-unset})"\nexit 3\n`, { mode: 0o755 });
    const delegated = bare([link, "check", "--quiet"], repo, { SLP_BINARY_PATH: wrapper });
    expect(delegated.stdout).toBe("other slp: check --quiet (SLP_BINARY_PATH=unset)\n");
    expect(delegated.exitCode).toBe(3);
    const itself = bare([link, "--version"], repo, { SLP_BINARY_PATH: realpathSync(link) });
    expect(itself.stdout).toBe(`${VERSION}\n`);
    const missing = bare([link, "--version"], repo, { SLP_BINARY_PATH: join(work.path, "nowhere") });
    expect(missing.stderr).toStartWith(`ERROR SLP_BINARY_PATH is ${join(work.path, "nowhere")}, and there is no file there`);
    expect(missing.exitCode).toBe(2);
  });

  test("has no install script: it works where npm runs none, and SLP_BINARY_PATH is read on every run", () => {
    expect(manifest(join(packages, "spec-lock-diff")).scripts).toBeUndefined();
    expect(readFileSync(launcher(), "utf8")).toStartWith("#!/usr/bin/env node\n");
  });

  test("without its platform package, it says which package is missing and how to install it", () => {
    const alone = join(packages, "spec-lock-diff", "bin", "slp.cjs");
    const result = bare(["node", alone, "check"], repo);
    expect(result.stderr).toStartWith(
      `ERROR the package @spec-lock-diff/cli-${host.name}, which holds slp's binary for this machine, is not installed`,
    );
    expect(result.stderr).toContain("without --omit=optional");
    expect(result.exitCode).toBe(2);
  });

  test("on a platform slp ships no binary for, and on musl Linux, it says so", () => {
    const alone = join(packages, "spec-lock-diff", "bin", "slp.cjs");
    const preload = join(work.path, "pretend.cjs");
    writeFileSync(
      preload,
      `if (process.env.PRETEND === "musl") process.report.getReport = () => ({ header: {} });
if (process.env.PRETEND === "ia32") Object.defineProperty(process, "arch", { value: "ia32" });\n`,
    );
    const ia32 = bare(["node", "--require", preload, alone, "check"], repo, { PRETEND: "ia32" });
    expect(ia32.stderr).toStartWith(
      `ERROR slp has no binary for ${process.platform}-ia32; it ships linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64; `,
    );
    expect(ia32.stderr).toContain("set SLP_BINARY_PATH");
    expect(ia32.exitCode).toBe(2);
    if (process.platform === "linux") {
      const musl = bare(["node", "--require", preload, alone, "check"], repo, { PRETEND: "musl" });
      expect(musl.stderr).toStartWith("ERROR slp has no binary for musl Linux");
      expect(musl.exitCode).toBe(2);
    }
  });

  test("in this repository it runs the source with the Bun npm ci installed, and npm's chmod leaves the tree clean", () => {
    const bins = Object.values(manifest(ROOT).bin as Record<string, string>);
    for (const bin of bins) expect(git(ROOT, ["ls-files", "--stage", bin])).toStartWith("100755 ");
    const modes = () => ["bin/slp.cjs", "src/cli.ts"].map((path) => statSync(join(ROOT, path)).mode);
    const before = modes();
    const result = Bun.spawnSync(["npx", "--no-install", "slp", "--version"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(result.stdout.toString()).toBe(`${VERSION}\n`);
    expect(modes()).toEqual(before);
  });
});
