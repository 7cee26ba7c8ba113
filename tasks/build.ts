/**
 * `slp run build` (`npm run build`): slp as one executable with DuckDB inside,
 * for this machine (dist/slp) or cross-compiled for every platform slp ships;
 * with `--packages DIR`, also the npm packages (one per platform, and the
 * launcher package that lists them as optionalDependencies) and their
 * tarballs (`npm pack`), and the release assets with their SHA-256 sums.
 * For slp's developers and the release workflow.
 */
import { Type } from "@sinclair/typebox";
import { chmodSync, copyFileSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { EngineError, UsageError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { duckdbPlugin } from "../src/build/duckdb-plugin.ts";
import { sha256 } from "../src/build/native-cache.ts";
import { findPlatform, hostPlatform, PLATFORMS, platformPackage, releaseAsset, type Platform } from "../src/build/platforms.ts";
import { defineTask } from "../src/runner/define-task.ts";

const ROOT = join(import.meta.dir, "..");
export const LAUNCHER_PACKAGE = "spec-lock-diff";

interface RootManifest {
  name: string;
  version: string;
  description: string;
  license: string;
  repository?: unknown;
  homepage?: string;
}

export default defineTask({
  name: "build",
  description: "Compile slp into one executable with DuckDB embedded (dist/slp); --packages writes the npm packages and release assets",
  informational: true,
  hidden: true,
  input: Type.Object({
    outfile: Type.String({
      default: "dist/slp",
      metavar: "PATH",
      description: "where to write this machine's executable (without --packages)",
    }),
    target: Type.Optional(
      Type.Array(Type.String(), {
        metavar: "PLATFORM",
        description: `a platform to compile for: ${PLATFORMS.map((p) => p.name).join(", ")}, or all (default: this machine)`,
      }),
    ),
    packages: Type.Optional(
      Type.String({ metavar: "DIR", description: "write the npm packages, their tarballs and the release assets into DIR" }),
    ),
  }),
  async run({ input, environment }): Promise<Report> {
    const targets = resolveTargets(input.target);
    if (!input.packages) {
      if (targets.length !== 1)
        throw new UsageError(
          "several --target need --packages DIR (one binary per package)",
          "usage: slp run build --target PLATFORM ... --packages DIR",
        );
      const outfile = resolve(environment.cwd, input.outfile);
      const bytes = await compile(targets[0] as Platform, outfile);
      return { command: "build", findings: [], text: `wrote ${input.outfile} (${mib(bytes)})\n`, data: { outfile: input.outfile, bytes } };
    }
    const given = input.packages;
    const out = resolve(environment.cwd, given);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(join(out, "release"), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as RootManifest;
    const written: { package: string; tarball: string; sha256: string }[] = [];
    const sums: string[] = [];
    for (const platform of targets) {
      const dir = join(out, `cli-${platform.name}`);
      const binary = join(dir, platform.binary);
      await compile(platform, binary);
      writeJson(join(dir, "package.json"), platformManifest(manifest, platform));
      writeFileSync(
        join(dir, "README.md"),
        `# ${platformPackage(platform)}\n\nThe \`slp\` binary for ${platform.label}. Install \`${LAUNCHER_PACKAGE}\`, which picks this package for you.\n`,
      );
      const asset = join(out, "release", releaseAsset(platform));
      linkSync(binary, asset);
      sums.push(`${sha256(readFileSync(asset))}  ${releaseAsset(platform)}`);
      written.push(pack(dir, out, platformPackage(platform)));
    }
    const launcher = join(out, LAUNCHER_PACKAGE);
    mkdirSync(join(launcher, "bin"), { recursive: true });
    copyFileSync(join(ROOT, "bin", "slp.cjs"), join(launcher, "bin", "slp.cjs"));
    chmodSync(join(launcher, "bin", "slp.cjs"), 0o755);
    copyFileSync(join(ROOT, "README.md"), join(launcher, "README.md"));
    writeJson(join(launcher, "package.json"), launcherManifest(manifest));
    written.push(pack(launcher, out, LAUNCHER_PACKAGE));
    writeFileSync(join(out, "release", "SHA256SUMS"), `${sums.sort().join("\n")}\n`);
    const text = [
      ...written.map((entry) => `wrote ${join(given, entry.tarball)} (${entry.package})`),
      `wrote ${join(given, "release")}/ (${targets.length} ${targets.length === 1 ? "binary" : "binaries"} and SHA256SUMS)`,
    ].join("\n");
    return { command: "build", findings: [], text: `${text}\n`, data: { packages: written, targets: targets.map((t) => t.name) } };
  },
});

function resolveTargets(names: readonly string[] | undefined): Platform[] {
  if (!names || names.length === 0) {
    const host = hostPlatform();
    if (!host)
      throw new EngineError(`slp ships no binary for ${process.platform}-${process.arch} (this machine)`, {
        fix: `pass --target with one of ${PLATFORMS.map((p) => p.name).join(", ")}`,
      });
    return [host];
  }
  if (names.includes("all")) return [...PLATFORMS];
  return names.map((name) => {
    const platform = findPlatform(name);
    if (!platform)
      throw new UsageError(
        `unknown --target ${name} (choose from ${PLATFORMS.map((p) => p.name).join(", ")}, all)`,
        "usage: slp run build [--target PLATFORM]...",
      );
    return platform;
  });
}

/** Bun cross-compiles: the target's runtime comes from the npm registry at build time, never at run time. */
async function compile(platform: Platform, outfile: string): Promise<number> {
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src", "cli.ts")],
    compile: { outfile, target: platform.bunTarget },
    target: "bun",
    // Bytecode needs no top-level await; ESM keeps import.meta for the modules that use it.
    format: "esm",
    minify: true,
    bytecode: true,
    sourcemap: "none",
    plugins: [duckdbPlugin(ROOT, platform)],
  });
  if (!result.success) {
    throw new EngineError(`the build for ${platform.name} failed: ${result.logs.map((log) => String(log)).join("; ")}`, {
      fix: "run npm ci, then npm run build again",
    });
  }
  chmodSync(outfile, 0o755);
  return statSync(outfile).size;
}

/** A platform package: the binary alone, installed by npm only where os, cpu and libc fit. */
function platformManifest(root: RootManifest, platform: Platform): Record<string, unknown> {
  return {
    name: platformPackage(platform),
    version: root.version,
    description: `The slp binary for ${platform.label} (installed by ${LAUNCHER_PACKAGE})`,
    license: root.license,
    ...(root.repository ? { repository: root.repository } : {}),
    os: [platform.os],
    cpu: [platform.cpu],
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    files: [platform.binary],
    preferUnplugged: true,
    publishConfig: { access: "public", provenance: true },
  };
}

/** The package users install: the launcher, and every platform package as an optional dependency at this exact version. */
function launcherManifest(root: RootManifest): Record<string, unknown> {
  return {
    name: LAUNCHER_PACKAGE,
    version: root.version,
    description: root.description,
    license: root.license,
    ...(root.repository ? { repository: root.repository } : {}),
    bin: { slp: "bin/slp.cjs", [LAUNCHER_PACKAGE]: "bin/slp.cjs" },
    files: ["bin/slp.cjs", "README.md"],
    engines: { node: ">=18" },
    optionalDependencies: Object.fromEntries(PLATFORMS.map((platform) => [platformPackage(platform), root.version])),
    publishConfig: { provenance: true },
  };
}

function pack(dir: string, out: string, name: string): { package: string; tarball: string; sha256: string } {
  const result = Bun.spawnSync(["npm", "pack", "--silent", "--pack-destination", out], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const tarball = result.stdout.toString().trim().split("\n").pop() ?? "";
  if (result.exitCode !== 0 || !tarball)
    throw new EngineError(`npm pack failed for ${name}: ${result.stderr.toString().trim()}`, { fix: "check that npm is on PATH" });
  return { package: name, tarball, sha256: sha256(readFileSync(join(out, tarball))) };
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
