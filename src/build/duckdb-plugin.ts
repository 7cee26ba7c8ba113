/**
 * A Bun build plugin that puts DuckDB inside the single executable of one
 * target platform, and leaves slp's developer tasks out of it. Bun's bundler
 * cannot follow `@duckdb/node-bindings`' per-platform `require`, and
 * `duckdb.node` needs its shared library beside it (linked with `$ORIGIN` /
 * `@loader_path`), so both files are embedded, with their size and SHA-256,
 * and native-cache.ts unpacks and verifies them on first use.
 */
import type { BunPlugin } from "bun";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { EngineError } from "../core/errors.ts";
import type { Platform } from "./platforms.ts";
import { sha256 } from "./native-cache.ts";

const LIBRARIES = ["libduckdb.so", "libduckdb.dylib", "duckdb.dll"];

/** The DuckDB version slp is built against: the bindings package @duckdb/node-api installed. */
export function duckdbBindingsVersion(root: string): string {
  const require = createRequire(join(root, "package.json"));
  const api = dirname(require.resolve("@duckdb/node-api/package.json"));
  const bindings = createRequire(join(api, "package.json")).resolve("@duckdb/node-bindings/package.json");
  return (JSON.parse(readFileSync(bindings, "utf8")) as { version: string }).version;
}

/**
 * The folder holding `duckdb.node` and its library for a platform: the one npm
 * installed for this machine, or, for another platform, the package fetched
 * once from the npm registry (`npm pack`) into node_modules/.cache at build time.
 */
export function bindingsFolder(root: string, platform: Platform): string {
  const name = `@duckdb/node-bindings-${platform.name}`;
  const version = duckdbBindingsVersion(root);
  try {
    const installed = dirname(createRequire(join(root, "package.json")).resolve(`${name}/package.json`));
    const found = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string };
    if (found.version === version) return installed;
  } catch {
    // Not installed here (another platform): fetch it below.
  }
  const cache = join(root, "node_modules", ".cache", "slp-build", `${platform.name}-${version}`);
  const folder = join(cache, "package");
  if (existsSync(join(folder, "duckdb.node"))) return folder;
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  const packed = Bun.spawnSync(["npm", "pack", `${name}@${version}`, "--silent", "--pack-destination", cache], {
    cwd: cache,
    stdout: "pipe",
    stderr: "pipe",
  });
  const tarball = packed.stdout.toString().trim().split("\n").pop() ?? "";
  if (packed.exitCode !== 0 || !tarball) {
    throw new EngineError(`cannot fetch ${name}@${version} from the npm registry: ${packed.stderr.toString().trim()}`, {
      fix: "cross-compiling needs the npm registry at build time; check the network, or build only for this machine",
    });
  }
  const unpacked = Bun.spawnSync(["tar", "-xzf", join(cache, tarball), "-C", cache], { stdout: "pipe", stderr: "pipe" });
  if (unpacked.exitCode !== 0)
    throw new EngineError(`cannot unpack ${tarball}: ${unpacked.stderr.toString().trim()}`, { fix: "check that tar is installed" });
  if (!existsSync(join(folder, "duckdb.node"))) renameSync(join(cache, name.split("/")[1] as string), folder);
  return folder;
}

function embedded(folder: string, name: string): { path: string; size: number; sha256: string } {
  const path = join(folder, name);
  const bytes = readFileSync(path);
  return { path, size: bytes.length, sha256: sha256(bytes) };
}

export function duckdbPlugin(root: string, platform: Platform): BunPlugin {
  const folder = bindingsFolder(root, platform);
  const library = LIBRARIES.find((name) => existsSync(join(folder, name)));
  if (!library) throw new EngineError(`no DuckDB library beside ${join(folder, "duckdb.node")}`, { fix: "run npm ci, then build again" });
  const files = [
    { name: library, ...embedded(folder, library) },
    { name: "duckdb.node", ...embedded(folder, "duckdb.node") },
  ];
  const label = `duckdb-${duckdbBindingsVersion(root)}-${platform.name}`;
  return {
    name: "embed-duckdb",
    setup(build) {
      build.onLoad({ filter: /@duckdb[\\/]node-bindings[\\/]duckdb\.js$/ }, () => ({
        loader: "js",
        contents: `
${files.map((file, i) => `import file${i} from ${JSON.stringify(file.path)} with { type: "file" };`).join("\n")}
import { loadBundledAddon } from ${JSON.stringify(join(root, "src", "build", "native-cache.ts"))};

const bundle = {
  label: ${JSON.stringify(label)},
  files: [${files.map((file, i) => `{ name: ${JSON.stringify(file.name)}, source: file${i}, size: ${file.size}, sha256: ${JSON.stringify(file.sha256)} }`).join(", ")}],
};
export default loadBundledAddon(bundle, "duckdb.node", process.env);
`,
      }));
      // build and gen need Bun's bundler and this source tree: the binary ships without them.
      build.onLoad({ filter: /[\\/]tasks[\\/]developer\.ts$/ }, () => ({
        loader: "ts",
        contents: "export const developerTasks = [];\n",
      }));
    },
  };
}
