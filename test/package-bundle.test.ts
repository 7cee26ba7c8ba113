/**
 * A package loaded from its bytecode bundle (src/engine/package-bundle.ts; DuckDB's keeps it in node_modules/.cache/slp):
 * the same exports as the files installed, built once, rebuilt when a file of the
 * package changes or a cached copy is damaged, and nothing (the caller loads the
 * package as installed) when the cache cannot be used.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundleKey, loadPackageBundle, nodeModulesOf, type PackageBundle } from "../src/engine/package-bundle.ts";
import { FIXTURES } from "./support/fixtures.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

function tinyPackage(root: string, cacheDir: string): PackageBundle {
  return {
    entry: join(root, "tiny", "lib", "index.js"),
    packageDir: join(root, "tiny"),
    label: "tiny",
    externals: { "tiny-external": join(root, "tiny-external.js") },
    cacheDir,
  };
}

/** The verified copies of a bundle (the folder unpackBundle writes), by file name. */
function bundledFiles(cache: string): Record<string, string> {
  const native = join(cache, "native");
  const folder = readdirSync(native).find((name) => name.startsWith("tiny-") && !name.endsWith(".build") && !name.endsWith(".json"));
  if (!folder) return {};
  return Object.fromEntries(readdirSync(join(native, folder)).map((name) => [name, join(native, folder, name)]));
}

describe("package bundle", () => {
  test("loads the package's exports, with its external required from where it is", async () => {
    using fixture = copyToTemp(join(FIXTURES, "package-bundle"), "slp-bundle-");
    using cache = tempDir("slp-cache-");
    const loaded = (await loadPackageBundle(tinyPackage(fixture.path, cache.path))) as Record<string, unknown>;
    expect(loaded).toEqual({ answer: 42, external: "tiny-external" });
    const files = bundledFiles(cache.path);
    expect(Object.keys(files).sort()).toEqual(["bundle.cjs", "bundle.cjs.jsc", "bundle.cjs.jsc.verified", "bundle.cjs.verified"]);
    // Bun's bundler wrote it: the external is required by its absolute path, the package's own modules are inside.
    const script = readFileSync(files["bundle.cjs"] as string, "utf8");
    expect(script).toContain(JSON.stringify(join(fixture.path, "tiny-external.js")));
    expect(script).not.toContain('require("./twice.js")');
  });

  test("the key changes with any file of the package, and with what is left external", () => {
    using fixture = copyToTemp(join(FIXTURES, "package-bundle"), "slp-bundle-");
    const spec = tinyPackage(fixture.path, fixture.path);
    const before = bundleKey(spec);
    expect(bundleKey(spec)).toBe(before);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(fixture.path, "tiny", "lib", "twice.js"), later, later);
    const touched = bundleKey(spec);
    expect(touched).not.toBe(before);
    expect(bundleKey({ ...spec, externals: {} })).not.toBe(touched);
  });

  test("an edited package is built again: the new code loads, not the cached one", async () => {
    using fixture = copyToTemp(join(FIXTURES, "package-bundle"), "slp-bundle-");
    using cache = tempDir("slp-cache-");
    const spec = tinyPackage(fixture.path, cache.path);
    expect(await loadPackageBundle(spec)).toEqual({ answer: 42, external: "tiny-external" });
    writeFileSync(join(fixture.path, "tiny", "lib", "twice.js"), "exports.twice = (n) => n * 3;\n");
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(fixture.path, "tiny", "lib", "twice.js"), later, later);
    expect(await loadPackageBundle(spec)).toEqual({ answer: 63, external: "tiny-external" });
  });

  test("a damaged cached copy is never loaded: it is written again from the build", async () => {
    using fixture = copyToTemp(join(FIXTURES, "package-bundle"), "slp-bundle-");
    using cache = tempDir("slp-cache-");
    const spec = tinyPackage(fixture.path, cache.path);
    await loadPackageBundle(spec);
    const script = bundledFiles(cache.path)["bundle.cjs"] as string;
    const original = readFileSync(script, "utf8");
    writeFileSync(script, original.replace("n * 2", "n * 5"));
    // A fresh process (the first load is in this one's require cache) loads the verified text.
    const probe = `
      const { loadPackageBundle } = await import(${JSON.stringify(join(import.meta.dir, "..", "src", "engine", "package-bundle.ts"))});
      console.log(JSON.stringify(await loadPackageBundle(${JSON.stringify(spec)})));
    `;
    const result = Bun.spawnSync([process.execPath, "-e", probe], { stdout: "pipe", stderr: "pipe" });
    expect(result.stderr.toString()).toBe("");
    expect(JSON.parse(result.stdout.toString())).toEqual({ answer: 42, external: "tiny-external" });
    expect(readFileSync(script, "utf8")).toBe(original);
  });

  test("a package the bundler cannot build, or no cache folder, gives nothing: the caller loads the package as installed", async () => {
    using fixture = copyToTemp(join(FIXTURES, "package-bundle"), "slp-bundle-");
    using cache = tempDir("slp-cache-");
    writeFileSync(join(fixture.path, "tiny", "lib", "twice.js"), "exports.twice = (n) => n *;\n");
    expect(await loadPackageBundle(tinyPackage(fixture.path, cache.path))).toBeNull();
    expect(await loadPackageBundle(tinyPackage(fixture.path, join(fixture.path, "tiny", "package.json", "x")))).toBeNull();
  });
});

test("a package's node_modules folder is where its bundle is kept; none outside one", () => {
  expect(nodeModulesOf(join("/a", "node_modules", "@duckdb", "node-api"))).toBe(join("/a", "node_modules"));
  expect(nodeModulesOf(join("/a", "node_modules", "x", "node_modules", "y"))).toBe(join("/a", "node_modules", "x", "node_modules"));
  expect(nodeModulesOf(join("/a", "vendor", "y"))).toBeNull();
});
