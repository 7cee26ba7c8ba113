/**
 * Loads a CommonJS package as one bytecode-compiled file, for runs from
 * source: Bun resolves and evaluates a package of many small modules
 * (DuckDB's node-api: 181) a module at a time, and the same code bundled and
 * compiled to bytecode loads in a third of that. It is what `bun build
 * --compile` does for the binary, done once per installed version.
 *
 * The bundle is built by Bun's bundler from the installed files, never
 * edited, and kept beside them (node_modules/.cache, where build tools keep
 * what they derive from the installed packages, so `npm ci` starts it anew
 * and a fresh slp cache does not): its folder is named by a hash of
 * everything it was built from (the Bun build, every file of the package
 * with its size and mtime, what was left external), so reinstalling or
 * editing the package builds a new one. Each file is checked against the
 * size and SHA-256 recorded when it was written (native-cache.ts's stamps:
 * later runs compare a stat), in a private folder. Whatever goes wrong (a
 * folder slp cannot write, a damaged file, a failed build) loads the package
 * as installed instead: the bundle is only ever a faster way to the same code.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { sha256, unpackBundle, type NativeBundle } from "../build/native-cache.ts";

export interface PackageBundle {
  /** The package's entry file (what `require` of the package resolves to). */
  entry: string;
  /** The package's folder: every .js and .json file under it is part of the key. */
  packageDir: string;
  /** A name for people (the cache folder starts with it). */
  label: string;
  /** Bare specifiers left out of the bundle, each required by this absolute path instead. */
  externals: Record<string, string>;
  /** The folder the bundle is kept in. */
  cacheDir: string;
}

/** Bumped when how a bundle is built changes. */
const FORMAT = 1;
const SCRIPT = "bundle.cjs";

/** The package's exports from its bundle (built on first use), or null when that cannot be had. */
export async function loadPackageBundle(spec: PackageBundle): Promise<unknown | null> {
  try {
    // Where native-cache.ts unpacks into (the verified copies' private parent, checked on every load), beside them.
    const root = join(spec.cacheDir, "native");
    const key = bundleKey(spec);
    const label = `${spec.label}-${key.slice(0, 16)}`;
    const unpacked = (bundle: NativeBundle) => join(unpackBundle(bundle, {}, spec.cacheDir), SCRIPT);
    const recorded = readManifest(join(root, `${label}.json`), key);
    if (recorded) {
      try {
        return require(unpacked(recorded));
      } catch {
        // A damaged or vanished copy: built again below.
      }
    }
    const built = await build(spec, key, root, label);
    return built ? require(unpacked(built)) : null;
  } catch {
    return null;
  }
}

/** What the bundle is built from: Bun's build, the package's files (size and mtime), the externals and their targets. */
export function bundleKey(spec: PackageBundle): string {
  const parts = [`format ${FORMAT}`, `bun ${Bun.version} ${Bun.revision}`, spec.entry, JSON.stringify(spec.externals)];
  const entries = readdirSync(spec.packageDir, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.isFile() && /\.(c?js|json)$/.test(entry.name)) files.push(join(entry.parentPath, entry.name));
  }
  for (const file of [...files.sort(), ...Object.values(spec.externals)]) {
    const stats = statSync(file);
    parts.push(`${file} ${stats.size} ${stats.mtimeMs}`);
  }
  return sha256(new TextEncoder().encode(parts.join("\n")));
}

/** The files a built bundle holds, as recorded when it was built under this key. */
function readManifest(file: string, key: string): NativeBundle | null {
  try {
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { key?: unknown; bundle?: NativeBundle };
    return manifest.key === key && manifest.bundle ? manifest.bundle : null;
  } catch {
    return null;
  }
}

/** Bundles the package with Bun's bundler (CommonJS, bytecode) and records the files; null when the build fails. */
async function build(spec: PackageBundle, key: string, root: string, label: string): Promise<NativeBundle | null> {
  // The built files are kept in a private staging folder, where unpackBundle copies them from (again, if a copy is damaged);
  // made first, so a cache slp cannot write costs no build.
  const staging = join(root, `${label}.build`);
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  const externals = spec.externals;
  const result = await Bun.build({
    entrypoints: [spec.entry],
    target: "bun",
    format: "cjs",
    bytecode: true,
    throw: false,
    plugins: [
      {
        name: "absolute-externals",
        setup(builder) {
          builder.onResolve({ filter: /^[^./]/ }, (args) =>
            Object.hasOwn(externals, args.path) ? { path: externals[args.path] as string, external: true } : undefined,
          );
        },
      },
    ],
  });
  if (!result.success) return null;
  const script = result.outputs.find((output) => output.kind === "entry-point");
  const bytecode = result.outputs.find((output) => output.kind === "bytecode");
  if (!script || !bytecode) return null;
  const files = [];
  for (const [name, output] of [
    [SCRIPT, script],
    [`${SCRIPT}.jsc`, bytecode],
  ] as const) {
    const bytes = new Uint8Array(await output.arrayBuffer());
    const source = join(staging, name);
    writeFileSync(source, bytes, { mode: 0o600 });
    files.push({ name, source, size: bytes.length, sha256: sha256(bytes) });
  }
  const bundle: NativeBundle = { label, files };
  // Written last, by rename: a manifest names only files that are all there.
  const manifest = join(root, `${label}.json`);
  writeFileSync(`${manifest}.${process.pid}.partial`, `${JSON.stringify({ key, bundle })}\n`, { mode: 0o600 });
  renameSync(`${manifest}.${process.pid}.partial`, manifest);
  return bundle;
}

/** The node_modules folder a package is installed in, or null. */
export function nodeModulesOf(packageDir: string): string | null {
  for (let dir = packageDir; dirname(dir) !== dir; dir = dirname(dir)) if (basename(dir) === "node_modules") return dir;
  return null;
}

/** The folder of a package's package.json, from any file inside it. */
export function packageFolder(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
