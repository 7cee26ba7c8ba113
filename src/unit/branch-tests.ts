/**
 * Which unit tests this branch wrote: a test absent from the merge-base of
 * HEAD and the base branch, or whose entry there differs (everything but its
 * description, as G4 compares them). A failing test the branch wrote is
 * where the advice points first: its expectation may be what is wrong.
 */
import { canonicalJson, type Mapping } from "../core/values.ts";
import { testKey } from "./types.ts";
import { Repository } from "../git/repository.ts";
import { CommitTree } from "../project/files/source.ts";
import { Project } from "../project/model.ts";

/** A unit test as the work tree declares it. */
export interface WrittenTest {
  model: string;
  name: string;
  /** Project-relative path of its yml. */
  file: string;
  entry: Mapping;
}

/**
 * The keys (testKey) of the tests the branch added or changed, work tree
 * included; null when the base cannot be read here (no repository, no such
 * branch, a shallow clone, a base yml slp cannot read): then no test is
 * known to be the branch's, and the advice says what it said before.
 */
export async function testsWrittenOnBranch(projectDir: string, base: string, tests: readonly WrittenTest[]): Promise<Set<string> | null> {
  if (tests.length === 0) return new Set();
  try {
    const repo = Repository.open(projectDir);
    if (repo.isShallow()) return null;
    const { commit: baseCommit, ref } = await repo.resolveBase(base);
    const mergeBase = await repo.mergeBase(baseCommit, await repo.resolveCommit("HEAD"));
    const project = new Project(new CommitTree(repo, mergeBase, repo.relativePath(projectDir), `the merge-base with ${ref}`));
    const written = new Set<string>();
    let everywhere: Map<string, string> | null = null;
    for (const test of tests) {
      const body = bodyOf(test.entry);
      // The same yml first: a test seldom moves, and one file is all most lookups read.
      const [file] = (await project.list([test.file])).filter((found) => found.path === test.file);
      const there = file ? (await project.properties(file)).unitTests.find((unit) => sameTest(unit, test)) : undefined;
      if (there && bodyOf(there.entry) === body) continue;
      everywhere ??= await baseBodies(project);
      if (everywhere.get(testKey(test)) !== body) written.add(testKey(test));
    }
    return written;
  } catch {
    return null;
  }
}

function sameTest(unit: { name: string; model: unknown }, test: WrittenTest): boolean {
  return unit.name === test.name && unit.model === test.model;
}

function bodyOf(entry: Mapping): string {
  const { description: _description, ...body } = entry;
  return canonicalJson(body);
}

/** Every unit test the merge-base declares, by testKey: the body of each (a moved test is the same test). */
async function baseBodies(project: Project): Promise<Map<string, string>> {
  const bodies = new Map<string, string>();
  for (const unit of (await project.nodes()).unitTests) bodies.set(testKey(unit), bodyOf(unit.entry));
  return bodies;
}
