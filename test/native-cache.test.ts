/**
 * The binary's DuckDB cache (src/build/native-cache.ts), on small real files:
 * private, content-addressed folders; a damaged file rewritten before it is
 * loaded; every failure a named error with the fix, never a crash.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SlpError } from "../src/core/errors.ts";
import { bundleFolder, cacheRoot, loadBundledAddon, sha256, unpackBundle, type NativeBundle } from "../src/build/native-cache.ts";
import { tempDir } from "./support/temp.ts";

function bundleIn(dir: string, files: Record<string, string>): NativeBundle {
  mkdirSync(join(dir, "embedded"), { recursive: true });
  return {
    label: "duckdb-test-linux-x64",
    files: Object.entries(files).map(([name, text]) => {
      const source = join(dir, "embedded", name);
      writeFileSync(source, text);
      return { name, source, size: Buffer.byteLength(text), sha256: sha256(Buffer.from(text)) };
    }),
  };
}

function thrown(run: () => unknown): SlpError {
  try {
    run();
  } catch (error) {
    if (error instanceof SlpError) return error;
    throw error;
  }
  throw new Error("expected an SlpError");
}

describe("the cache folder", () => {
  test("is SLP_CACHE_DIR, else XDG_CACHE_HOME/slp, else ~/.cache/slp, and never the shared temporary folder", () => {
    expect(cacheRoot({ SLP_CACHE_DIR: "/c" }, "/home/u")).toBe("/c");
    expect(cacheRoot({ XDG_CACHE_HOME: "/x" }, "/home/u")).toBe("/x/slp");
    expect(cacheRoot({ XDG_CACHE_HOME: "relative" }, "/home/u")).toBe("/home/u/.cache/slp");
    expect(cacheRoot({}, "/home/u")).toBe("/home/u/.cache/slp");
    const error = thrown(() => cacheRoot({}, ""));
    expect(error.describe()).toContain("HOME and XDG_CACHE_HOME are not set; set SLP_CACHE_DIR");
  });

  test("is named by the hash of what it holds, and made private (0700)", () => {
    using dir = tempDir();
    const bundle = bundleIn(dir.path, { "libduckdb.so": "library", "duckdb.node": "addon" });
    const folder = unpackBundle(bundle, { SLP_CACHE_DIR: join(dir.path, "cache") });
    expect(folder).toBe(bundleFolder(join(dir.path, "cache"), bundle));
    expect(folder).toMatch(/native\/duckdb-test-linux-x64-[0-9a-f]{16}$/);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, "..")).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(folder, "libduckdb.so"), "utf8")).toBe("library");
    const other = bundleIn(join(dir.path, "other"), { "libduckdb.so": "library, another build", "duckdb.node": "addon" });
    expect(bundleFolder(join(dir.path, "cache"), other)).not.toBe(folder);
  });
});

describe("before loading", () => {
  test("a truncated cached library is written again, not loaded", () => {
    using dir = tempDir();
    const bundle = bundleIn(dir.path, { "libduckdb.so": "the whole library" });
    const env = { SLP_CACHE_DIR: join(dir.path, "cache") };
    const folder = unpackBundle(bundle, env);
    truncateSync(join(folder, "libduckdb.so"), 3);
    unpackBundle(bundle, env);
    expect(readFileSync(join(folder, "libduckdb.so"), "utf8")).toBe("the whole library");
  });

  test("a cached file of the right size but other bytes is hashed and written again", () => {
    using dir = tempDir();
    const bundle = bundleIn(dir.path, { "libduckdb.so": "the real bytes" });
    const env = { SLP_CACHE_DIR: join(dir.path, "cache") };
    const folder = unpackBundle(bundle, env);
    writeFileSync(join(folder, "libduckdb.so"), "planted bytes!");
    unpackBundle(bundle, env);
    expect(readFileSync(join(folder, "libduckdb.so"), "utf8")).toBe("the real bytes");
  });

  test("a cache folder others may enter or write is refused, naming the fix", () => {
    using dir = tempDir();
    const bundle = bundleIn(dir.path, { "libduckdb.so": "library" });
    const root = join(dir.path, "cache");
    const folder = unpackBundle(bundle, { SLP_CACHE_DIR: root });
    chmodSync(folder, 0o755);
    const open = thrown(() => unpackBundle(bundle, { SLP_CACHE_DIR: root }));
    expect(open.describe()).toContain("is open to other users (mode 0755), who could plant a library slp would load; chmod 700");
    chmodSync(folder, 0o700);
    chmodSync(join(folder, ".."), 0o777);
    const parent = thrown(() => unpackBundle(bundle, { SLP_CACHE_DIR: root }));
    expect(parent.describe()).toContain("(mode 0777)");
    expect(parent.describe()).toContain("set SLP_CACHE_DIR");
  });

  test("a cache folder that cannot be made is a named error with the fix, not a bug in slp", () => {
    using dir = tempDir();
    const bundle = bundleIn(dir.path, { "libduckdb.so": "library" });
    writeFileSync(join(dir.path, "a-file"), "");
    const error = thrown(() => unpackBundle(bundle, { SLP_CACHE_DIR: join(dir.path, "a-file", "cache") }));
    expect(error.describe()).toMatch(/^cannot create the cache folder .* to unpack DuckDB into \(ENOTDIR.*\); set SLP_CACHE_DIR/);
  });

  test("a library that cannot be loaded is a named error (as on a noexec mount)", () => {
    using dir = tempDir();
    const bundle = bundleIn(dir.path, { "duckdb.node": "not a shared object" });
    const error = thrown(() => loadBundledAddon(bundle, "duckdb.node", { SLP_CACHE_DIR: join(dir.path, "cache") }));
    expect(error.describe()).toMatch(
      /^DuckDB could not be loaded from .*; a folder on a noexec mount .* cannot hold it; set SLP_CACHE_DIR/,
    );
  });

  test("an embedded file that does not match its own hash is never written", () => {
    using dir = tempDir();
    const bundle = bundleIn(dir.path, { "libduckdb.so": "library" });
    writeFileSync(bundle.files[0]!.source, "LIBRARY");
    const error = thrown(() => unpackBundle(bundle, { SLP_CACHE_DIR: join(dir.path, "cache") }));
    expect(error.describe()).toContain("inside this slp binary is damaged");
  });
});
