/**
 * The work tree's index of content ids (src/project/files/file-ids.ts): a file's
 * stat vouches for its content only while nothing about it moved, never for a
 * file still changing when it was hashed, and a stamp the cache file holds in
 * any other shape is ignored. A rewritten file is read again, so a warm run
 * never judges an old parse of a changed yml.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, renameSync, statSync, type Stats, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configureLimits, LimitError } from "../src/core/limits.ts";
import { FileIds } from "../src/project/files/file-ids.ts";
import { KEEP_IDLE_SAVES, ParseCache } from "../src/project/files/cache.ts";
import { ParseStore } from "../src/project/model.ts";
import { WorkTree } from "../src/project/files/source.ts";
import type { ParsedYaml } from "../src/project/files/yaml.ts";
import { tempDir } from "./support/temp.ts";

const HASHED_LATER = () => Date.now() + 60_000;

function stats(fields: Partial<Record<"dev" | "ino" | "size" | "mtimeMs" | "ctimeMs", number>> = {}): Stats {
  return { dev: 1, ino: 2, size: 3, mtimeMs: 1000.5, ctimeMs: 1000.5, ...fields } as Stats;
}

describe("a stamp", () => {
  test("vouches for the content while device, inode, size, mtime and ctime are all the same", () => {
    const ids = new FileIds({}, () => 10_000);
    ids.record("a.yml", stats(), "id-a");
    const again = new FileIds(ids.stamps());
    expect(again.lookup("a.yml", stats())).toBe("id-a");
    for (const moved of [{ dev: 9 }, { ino: 9 }, { size: 9 }, { mtimeMs: 1000.6 }, { ctimeMs: 1000.6 }]) {
      expect(new FileIds(ids.stamps()).lookup("a.yml", stats(moved))).toBeUndefined();
    }
    expect(again.lookup("b.yml", stats())).toBeUndefined();
  });

  test("is never taken for a file that changed within two seconds of its hashing", () => {
    const racy = new FileIds({}, () => 2500);
    racy.record("a.yml", stats({ mtimeMs: 1000, ctimeMs: 600 }), "id-a");
    expect(new FileIds(racy.stamps()).lookup("a.yml", stats({ mtimeMs: 1000, ctimeMs: 600 }))).toBeUndefined();
    const still = new FileIds({}, () => 3500);
    still.record("a.yml", stats({ mtimeMs: 1000, ctimeMs: 600 }), "id-a");
    expect(new FileIds(still.stamps()).lookup("a.yml", stats({ mtimeMs: 1000, ctimeMs: 600 }))).toBe("id-a");
  });

  test("of any other shape in the cache file is ignored, not trusted", () => {
    const stat = stats();
    const good = [1, 2, 3, 1000.5, 1000.5, "id-a"];
    for (const stored of [null, [], "x", { "a.yml": "id-a" }, { "a.yml": good.slice(0, 5) }, { "a.yml": [...good.slice(0, 5), 7] }]) {
      expect(new FileIds(stored).lookup("a.yml", stat)).toBeUndefined();
    }
    expect(new FileIds({ "a.yml": good }).lookup("a.yml", stat)).toBe("id-a");
  });

  test("unchanged is not written again: a warm run with nothing new saves nothing", () => {
    const first = new FileIds({}, () => 10_000);
    first.record("a.yml", stats(), "id-a");
    const warm = new FileIds(first.stamps(), () => 20_000);
    expect(warm.lookup("a.yml", stats())).toBe("id-a");
    warm.record("a.yml", stats(), "id-a");
    expect(warm.changed).toBe(false);
    warm.record("a.yml", stats({ size: 4 }), "id-b");
    expect(warm.changed).toBe(true);
  });
});

describe("a stamp a run does not look up", () => {
  /** One run: looks up `paths` (each still as first stamped), saves, and hands what it would write to the next run. */
  function runOver(stored: { stamps: unknown; idle: unknown }, paths: string[]) {
    const ids = new FileIds(stored.stamps, () => 20_000, stored.idle);
    for (const path of paths) ids.lookup(path, stats());
    return { changed: ids.changed, next: { stamps: ids.stamps(), idle: ids.idle() } };
  }

  test("is kept, so a command that reads fewer files (check after unit) writes nothing, then dropped after KEEP_IDLE_SAVES writes", () => {
    const first = new FileIds({}, () => 10_000);
    first.record("a.yml", stats(), "id-a");
    first.record("m.sql", stats(), "id-m");
    let stored = { stamps: first.stamps(), idle: first.idle() };
    const checkOnly = runOver(stored, ["a.yml"]);
    expect(checkOnly.changed).toBe(false);
    expect(Object.keys(checkOnly.next.stamps).sort()).toEqual(["a.yml", "m.sql"]);
    expect(runOver(checkOnly.next, ["a.yml", "m.sql"]).next.idle).toEqual({});
    for (let i = 1; i < KEEP_IDLE_SAVES; i++) stored = runOver(stored, ["a.yml"]).next;
    expect(stored.idle).toEqual({ "m.sql": KEEP_IDLE_SAVES - 1 });
    expect(new FileIds(stored.stamps, () => 20_000, stored.idle).lookup("m.sql", stats())).toBe("id-m");
    stored = runOver(stored, ["a.yml"]).next;
    expect(Object.keys(stored.stamps)).toEqual(["a.yml"]);
  });

  test("that no longer matches its file is dropped at once, and that is something to write", () => {
    const first = new FileIds({}, () => 10_000);
    first.record("a.yml", stats(), "id-a");
    const moved = new FileIds(first.stamps(), () => 20_000);
    expect(moved.lookup("a.yml", stats({ size: 9 }))).toBeUndefined();
    expect(moved.changed).toBe(true);
    expect(moved.stamps()).toEqual({});
  });
});

describe("the cache's entries", () => {
  test("one a run does not use is kept (one test alone, then the suite), and dropped after KEEP_IDLE_SAVES writes without it", () => {
    using dir = tempDir("slp-cache-");
    const env = { SLP_CACHE_DIR: dir.path };
    const file = () => join(dir.path, readdirSync(dir.path)[0] as string);
    let edits = 0;
    const run = (use: string[], edit = false) => {
      const cache = ParseCache.open<string>(dir.path, env, "test");
      const seen = use.map((key) => cache.get(key) ?? null);
      // An edit: a file whose new content is parsed and cached.
      if (edit) cache.set(`edit ${++edits}`, "a new parse");
      cache.save();
      return seen;
    };
    const first = ParseCache.open<string>(dir.path, env, "test");
    first.set("whole", "the suite's");
    first.set("one", "one test's");
    first.save();
    const written = readFileSync(file(), "utf8");
    expect(run(["one"])).toEqual(["one test's"]);
    // A run that adds nothing writes nothing.
    expect(readFileSync(file(), "utf8")).toBe(written);
    for (let i = 1; i < KEEP_IDLE_SAVES; i++) run(["one"], true);
    expect(run(["whole", "one"], true)).toEqual(["the suite's", "one test's"]);
    for (let i = 1; i <= KEEP_IDLE_SAVES; i++) run(["one"], true);
    expect(run(["whole", "one"])).toEqual([null, "one test's"]);
    // What the edits left behind ages the same way: the oldest are gone, the newest kept.
    expect(run(["edit 1", `edit ${edits}`])).toEqual([null, "a new parse"]);
  });
});

describe("in the work tree", () => {
  /** One run reading a.yml the way commands do (open.ts), its stamps dated a minute after the files were written. */
  async function run(dir: string) {
    const cache = ParseCache.open<ParsedYaml>(dir, { SLP_CACHE_DIR: join(dir, "cache") }, "yaml", HASHED_LATER);
    const tree = new WorkTree(dir, cache.files);
    const store = new ParseStore(cache);
    const known = tree.knownId({ path: "a.yml" });
    const { parsed } = await store.yaml(tree, { path: "a.yml" });
    store.save();
    return { known, value: parsed.value };
  }

  test("an unchanged yml is known without reading; one rewritten (new inode, same size, old mtime) is read again", async () => {
    using dir = tempDir();
    const path = join(dir.path, "a.yml");
    writeFileSync(path, "a: 1\n");
    expect(await run(dir.path)).toEqual({ known: undefined, value: { a: 1 } });
    const warm = await run(dir.path);
    expect(warm.known).toMatch(/^[0-9a-f]{40}$/);
    expect(warm.value).toEqual({ a: 1 });

    // The same number of bytes, through a new file given the old mtime: another inode (and ctime), so it is read again.
    const before = statSync(path);
    writeFileSync(join(dir.path, "b.tmp"), "a: 2\n");
    renameSync(join(dir.path, "b.tmp"), path);
    utimesSync(path, before.atime, before.mtime);
    expect(await run(dir.path)).toEqual({ known: undefined, value: { a: 2 } });
  });

  test("a known yml past a file_mb lowered since is read, and refused as a read is", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "a.yml"), `a: "${"x".repeat(2000)}"\n`);
    await run(dir.path);
    expect((await run(dir.path)).known).toMatch(/^[0-9a-f]{40}$/);
    configureLimits({ SLP_LIMIT_FILE_MB: "0.001" });
    try {
      await expect(run(dir.path)).rejects.toBeInstanceOf(LimitError);
    } finally {
      configureLimits({});
    }
  });

  test("a link is never vouched for by a stamp: it is read, and judged, every time", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "target.yml"), "a: 1\n");
    symlinkSync(join(dir.path, "target.yml"), join(dir.path, "a.yml"));
    await run(dir.path);
    expect((await run(dir.path)).known).toBeUndefined();
  });
});
