/** The git adapter's own object reading against the git CLI: packed objects, both kinds of delta, loose objects. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ObjectReader, Repository } from "../src/git/repository.ts";
import { commitAll, git, initRepo } from "./support/git-repo.ts";
import { tempDir, writeTree } from "./support/temp.ts";

/** A file rewritten a little in each of 12 commits, so packing stores most versions as deltas. */
function history(dir: string): string[] {
  initRepo(dir);
  const commits: string[] = [];
  let text = Array.from({ length: 200 }, (_, i) => `line ${i}: ${"x".repeat(i % 17)}`).join("\n");
  for (let k = 0; k < 12; k++) {
    text = text.replace(`line ${k * 7}:`, `line ${k * 7} (edited ${k}):`);
    writeTree(dir, { "models/marts/big.yml": `${text}\n`, [`models/marts/f${k}.sql`]: `select ${k}\n` });
    commits.push(commitAll(dir, `step ${k}`));
  }
  return commits;
}

/** Every object of the repository, read natively (never through the fallback), equals git's bytes. */
function nativeReadsEveryObject(dir: string): void {
  const reader = new ObjectReader(join(dir, ".git", "objects"));
  const oids = git(dir, ["rev-list", "--objects", "--all"])
    .split("\n")
    .map((line) => line.slice(0, 40));
  for (const oid of oids) {
    const object = reader.read(oid);
    expect(object?.type).toBe(git(dir, ["cat-file", "-t", oid]));
    if (object?.type === "blob") expect(Buffer.from(object.data).toString()).toBe(`${git(dir, ["cat-file", "-p", oid])}\n`);
    else expect(object?.data.length).toBe(Number(git(dir, ["cat-file", "-s", oid])));
  }
}

async function readsLikeGit(dir: string, commits: string[]): Promise<void> {
  nativeReadsEveryObject(dir);
  const repo = Repository.open(dir);
  for (const commit of commits) {
    const files = await repo.filesIn(commit, ["models/"]);
    expect(files.map((file) => file.path)).toEqual(git(dir, ["ls-tree", "-r", "--name-only", commit, "--", "models/"]).split("\n"));
    for (const file of files) expect(`${await repo.readText(file, commit)}`.trimEnd()).toBe(git(dir, ["show", `${commit}:${file.path}`]));
  }
}

function packs(dir: string): string[] {
  return [...new Bun.Glob(".git/objects/pack/*.idx").scanSync(dir)].map((path) => join(dir, path));
}

describe("Repository reads objects as git does", () => {
  test("loose objects", async () => {
    using dir = tempDir();
    await readsLikeGit(dir.path, history(dir.path));
  });

  test("a pack with offset deltas (git gc --aggressive)", async () => {
    using dir = tempDir();
    const commits = history(dir.path);
    git(dir.path, ["gc", "-q", "--aggressive", "--prune=now"]);
    expect(git(dir.path, ["count-objects", "-v"])).toContain("count: 0");
    expect(git(dir.path, ["verify-pack", "-v", ...packs(dir.path)])).toContain("chain length = ");
    await readsLikeGit(dir.path, commits);
  });

  test("a pack with ref deltas (repack.useDeltaBaseOffset=false)", async () => {
    using dir = tempDir();
    const commits = history(dir.path);
    git(dir.path, ["-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=50", "--window=50"]);
    git(dir.path, ["prune-packed"]);
    expect(git(dir.path, ["verify-pack", "-v", ...packs(dir.path)])).toContain("chain length = ");
    await readsLikeGit(dir.path, commits);
  });
});
