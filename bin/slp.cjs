#!/usr/bin/env node
/*
 * slp's launcher, plain Node.js: finds the compiled slp for this machine and
 * runs it with the same arguments, standard streams and exit code. No Bun is
 * needed. The binary is, in order: SLP_BINARY_PATH; the platform package npm
 * installed from optionalDependencies (@spec-lock-diff/cli-<os>-<arch>); in a
 * clone of slp's own repository, the source run by the Bun its
 * devDependencies install. Nothing fits: a message that says why, exit 2.
 * Once the platform package's binary has run, npm's link to this file is
 * pointed at the binary, so later runs do not start Node at all.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const { existsSync, lstatSync, readFileSync, realpathSync, renameSync, symlinkSync, unlinkSync } = require("node:fs");
const { basename, dirname, join, relative } = require("node:path");

const SCOPE = "@spec-lock-diff/cli-";

function fail(message) {
  process.stderr.write(`ERROR ${message}\n`);
  process.exit(2);
}

/** glibc reports its version in Node's diagnostic report; musl does not. */
function isMusl() {
  if (process.platform !== "linux") return false;
  const header = process.report?.getReport().header;
  return !header?.glibcVersionRuntime;
}

/** The platforms this release ships, from its own package.json (one list: the build writes it). */
function shippedPlatforms() {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8"));
    return Object.keys(pkg.optionalDependencies || {})
      .filter((name) => name.startsWith(SCOPE))
      .map((name) => name.slice(SCOPE.length));
  } catch {
    return [];
  }
}

function noBinary(platform) {
  const shipped = shippedPlatforms();
  const where = `${platform}${isMusl() ? " (musl libc)" : ""}`;
  const own = "or set SLP_BINARY_PATH to an slp binary you built (npm run build in a clone of slp), or run slp's Docker image";
  if (isMusl()) {
    return `slp has no binary for musl Linux (${where}): DuckDB's musl build is not shipped yet; use a glibc distribution (Debian, Ubuntu), ${own}`;
  }
  if (!shipped.includes(platform)) {
    return `slp has no binary for ${where}; it ships ${shipped.join(", ") || "none in this install"}; ${own}`;
  }
  return `the package ${SCOPE}${platform}, which holds slp's binary for this machine, is not installed (optional dependencies were left out, or the lockfile was written on another platform); run npm install again without --omit=optional (or npm install --include=optional spec-lock-diff), ${own}`;
}

/** In a clone of slp itself: the TypeScript source, run by Bun. */
function sourceCommand() {
  const cli = join(__dirname, "..", "src", "cli.ts");
  if (!existsSync(cli)) return undefined;
  const localBun = join(__dirname, "..", "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");
  return [existsSync(localBun) ? localBun : "bun", cli];
}

/** The platform package's binary, or undefined when npm did not install it here. */
function installedBinary(platform) {
  try {
    // npm installs only the package whose os, cpu and libc fit this machine.
    return require.resolve(`${SCOPE}${platform}/${process.platform === "win32" ? "slp.exe" : "slp"}`);
  } catch {
    return undefined;
  }
}

function command() {
  const override = process.env.SLP_BINARY_PATH;
  if (override) {
    if (!existsSync(override)) fail(`SLP_BINARY_PATH is ${override}, and there is no file there; point it at an slp binary, or unset it`);
    return [override];
  }
  const platform = `${process.platform}-${process.arch}`;
  const binary = installedBinary(platform);
  if (binary) return [binary];
  const source = sourceCommand();
  if (source) return source;
  return fail(noBinary(platform));
}

/**
 * Node's start (~50 ms) is most of what `npx slp check` would cost, so npm's
 * link to this launcher (node_modules/.bin/slp) is re-pointed at the binary
 * that just ran: from the next run on, the link starts slp itself, which reads
 * SLP_BINARY_PATH as this launcher does. Only a symbolic link to this very
 * file is replaced, atomically (a new link renamed over it); npm writes it
 * afresh on the next install. Windows' .cmd shims name node themselves, and a
 * link that cannot be replaced (read-only, another layout) keeps the launcher:
 * slower, never broken.
 */
function linkStraightToBinary(binary) {
  const link = process.argv[1];
  if (process.platform === "win32" || !link || basename(dirname(link)) !== ".bin") return;
  const temporary = `${link}.${process.pid}.tmp`;
  try {
    if (!lstatSync(link).isSymbolicLink() || realpathSync(link) !== realpathSync(__filename)) return;
    symlinkSync(relative(realpathSync(dirname(link)), realpathSync(binary)), temporary);
    renameSync(temporary, link);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // Nothing was made.
    }
  }
}

const [program, ...prefix] = command();
const result = spawnSync(program, [...prefix, ...process.argv.slice(2)], { stdio: "inherit", windowsHide: true });
if (!result.error && prefix.length === 0 && !process.env.SLP_BINARY_PATH) linkStraightToBinary(program);
if (result.error) {
  if (result.error.code === "ENOENT" && prefix.length > 0) {
    fail("this is a clone of slp's source and Bun is not installed; run npm ci (Bun comes from npm) or install slp's binary");
  }
  // A glibc binary on musl (an npm that ignores the libc field) fails to start as "not found".
  if (isMusl()) fail(noBinary(`${process.platform}-${process.arch}`));
  fail(`cannot run ${program}: ${result.error.message}; check that the file is an executable for this machine, or set SLP_BINARY_PATH`);
}
if (result.signal) process.kill(process.pid, result.signal);
process.exitCode = result.status === null ? 2 : result.status;
