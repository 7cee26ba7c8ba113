/**
 * A Bun build plugin that puts DuckDB inside the single executable. Bun's
 * bundler cannot follow `@duckdb/node-bindings`' per-platform `require`, and
 * `duckdb.node` needs `libduckdb.so` beside it (it is linked with
 * `$ORIGIN`), so both files are embedded, and on first use they are written
 * once to a per-version cache folder and loaded from there.
 */
import type { BunPlugin } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The folder holding `duckdb.node` and its shared library for this machine. */
function nativeFolder(root: string): { folder: string; version: string; library: string } {
  const require = createRequire(join(root, "package.json"));
  const platform = `${process.platform}-${process.arch}`;
  const bindings = dirname(require.resolve(`@duckdb/node-bindings-${platform}/package.json`));
  const version = (JSON.parse(readFileSync(join(bindings, "package.json"), "utf8")) as { version: string }).version;
  const library = ["libduckdb.so", "libduckdb.dylib", "duckdb.dll"].find((name) => existsSync(join(bindings, name)));
  if (!library) throw new Error(`no DuckDB library beside ${join(bindings, "duckdb.node")}`);
  return { folder: bindings, version, library };
}

export function duckdbPlugin(root: string): BunPlugin {
  const { folder, version, library } = nativeFolder(root);
  return {
    name: "embed-duckdb",
    setup(build) {
      build.onLoad({ filter: /@duckdb[\\/]node-bindings[\\/]duckdb\.js$/ }, () => ({
        loader: "js",
        contents: `
import addonFile from ${JSON.stringify(join(folder, "duckdb.node"))} with { type: "file" };
import libraryFile from ${JSON.stringify(join(folder, library))} with { type: "file" };
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

// Written once per DuckDB version, then loaded from disk like any addon.
const root = process.env.SLP_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir() || tmpdir(), ".cache"), "slp");
const folder = join(root, ${JSON.stringify(`duckdb-${version}-${process.platform}-${process.arch}`)});
for (const [embedded, name] of [[libraryFile, ${JSON.stringify(library)}], [addonFile, "duckdb.node"]]) {
  const target = join(folder, name);
  if (existsSync(target)) continue;
  mkdirSync(folder, { recursive: true });
  const partial = target + "." + process.pid + ".partial";
  writeFileSync(partial, readFileSync(embedded));
  renameSync(partial, target);
}
const addon = { exports: {} };
process.dlopen(addon, join(folder, "duckdb.node"));
export default addon.exports;
`,
      }));
    },
  };
}
