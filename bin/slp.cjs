#!/usr/bin/env node
/*
 * slp's launcher, plain Node.js: finds the compiled slp for this machine and
 * runs it with the same arguments, standard streams and exit code. No Bun is
 * needed. The binary is, in order: SLP_BINARY_PATH; the platform package npm
 * installed from optionalDependencies (@spec-lock-diff/cli-<os>-<arch>); in a
 * clone of slp's own repository, the source run by the Bun its
 * devDependencies install. Nothing fits: a message that says why, exit 2.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const SCOPE = "@spec-lock-diff/cli-";

function fail(message) {
  process.stderr.write(`ERROR ${message}\n`);
  process.exit(2);
}

/** glibc reports its version in Node's diagnostic report; musl does not. */
function isMusl() {
  if (process.platform !== "linux") return false;
  const header = process.report && process.report.getReport().header;
  return !(header && header.glibcVersionRuntime);
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

function command() {
  const override = process.env.SLP_BINARY_PATH;
  if (override) {
    if (!existsSync(override)) fail(`SLP_BINARY_PATH is ${override}, and there is no file there; point it at an slp binary, or unset it`);
    return [override];
  }
  const platform = `${process.platform}-${process.arch}`;
  try {
    // npm installs only the package whose os, cpu and libc fit this machine.
    return [require.resolve(`${SCOPE}${platform}/${process.platform === "win32" ? "slp.exe" : "slp"}`)];
  } catch {
    // Not installed: the source checkout, or the message below.
  }
  const source = sourceCommand();
  if (source) return source;
  return fail(noBinary(platform));
}

const [program, ...prefix] = command();
const result = spawnSync(program, [...prefix, ...process.argv.slice(2)], { stdio: "inherit", windowsHide: true });
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
