/**
 * What a diff was measured on, so that a diff cannot look current after its
 * model changed: `slp diff` records the commit (HEAD), whether the measured
 * files differed from it, and the content id (git blob id) of the model's
 * SQL and of every file upstream of it that decides its rows (models, seeds,
 * snapshots of the project); `compare` and `review` hash those files again
 * and refuse a diff any of them has moved since. The record lives in
 * `extra.slp`, the one place the reference's diff.json contract leaves open
 * (spec/rules.md §4.8), so a diff slp writes stays a valid reference diff.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.ts";
import { compareCodePoints } from "../core/text.ts";
import { isMapping } from "../core/values.ts";
import { readProjectBytes } from "../project/files/files.ts";
import { blobId } from "../project/files/source.ts";
import type { Project } from "../project/model.ts";
import { DiffProvenance, SLP_EXTRA_KEY } from "../schemas/diff.ts";
import { schemaProblems } from "../schemas/validate.ts";

export type { DiffProvenance };

/** The project files a model's rows depend on that slp can name: its own code and every project node upstream of it, sorted. */
export async function measuredFiles(project: Project, model: string): Promise<string[]> {
  const nodes = await project.nodes();
  const node = nodes.models.find((candidate) => candidate.name === model && candidate.latest) ?? nodes.models.find((c) => c.name === model);
  if (!node) return [];
  const graph = await project.graph();
  const files = new Set<string>();
  for (const id of [node.uniqueId, ...graph.upstream([node.uniqueId])]) {
    const found = nodes.byId.get(id);
    // A package's node is read from its own folder; a yml-only node has no code of its own.
    if (!found || found.package !== node.package || found.kind === "source" || found.file === null || found.file === found.ymlFile)
      continue;
    files.add(found.file);
  }
  return [...files].sort(compareCodePoints);
}

/** The work tree's content id of each file; null for one that is gone. */
export function contentIds(dir: string, files: readonly string[]): Record<string, string | null> {
  const ids: Record<string, string | null> = {};
  for (const file of files) ids[file] = existsSync(join(dir, file)) ? blobId(readProjectBytes(dir, file)) : null;
  return ids;
}

/** HEAD's commit id and the content id HEAD holds for each file (null outside a repository or before its first commit). */
async function headOf(dir: string, files: readonly string[]): Promise<{ commit: string; ids: Map<string, string> } | null> {
  const { Repository } = await import("../git/repository.ts");
  let repo: import("../git/repository.ts").Repository;
  let commit: string;
  try {
    repo = Repository.open(dir);
    commit = await repo.resolveCommit("HEAD");
  } catch {
    // No repository, or one with no commit yet: the content ids alone say what was measured.
    return null;
  }
  const prefix = repo.relativePath(dir);
  const inRepo = (file: string) => (prefix === "" ? file : `${prefix}/${file}`);
  const ids = new Map<string, string>();
  for (const at of await repo.filesIn(commit, files.map(inRepo))) ids.set(at.path, at.oid);
  return { commit, ids: new Map(files.flatMap((file) => (ids.has(inRepo(file)) ? [[file, ids.get(inRepo(file)) as string]] : []))) };
}

/** What each model is measured on, for its diff's extra.slp. */
export async function provenanceOf(dir: string, project: Project, models: readonly string[]): Promise<Map<string, DiffProvenance>> {
  const filesOf = new Map<string, string[]>();
  for (const model of models) filesOf.set(model, await measuredFiles(project, model));
  const head = await headOf(dir, [...new Set([...filesOf.values()].flat())].sort(compareCodePoints));
  const out = new Map<string, DiffProvenance>();
  for (const [model, files] of filesOf) {
    const ids = contentIds(dir, files);
    const content: Record<string, string> = {};
    for (const [file, id] of Object.entries(ids)) if (id !== null) content[file] = id;
    // Keys in code-point order, as every other object of a diff is written.
    out.set(model, {
      commit: head?.commit ?? null,
      content,
      dirty: head === null ? null : Object.entries(content).some(([file, id]) => head.ids.get(file) !== id),
    });
  }
  return out;
}

/** A diff's extra.slp: the record, null when the diff has none (the reference writes none), exit 2 when it is not one slp wrote. */
export function readProvenance(diffPath: string, value: unknown): DiffProvenance | null {
  const extra = isMapping(value) && isMapping(value.extra) ? value.extra : null;
  if (!extra || !Object.hasOwn(extra, SLP_EXTRA_KEY)) return null;
  const record = extra[SLP_EXTRA_KEY];
  const problems = schemaProblems(DiffProvenance, record, `extra.${SLP_EXTRA_KEY}`);
  const unsafe =
    isMapping(record) && isMapping(record.content) ? Object.keys(record.content).find((path) => !isProjectPath(path)) : undefined;
  if (problems.length > 0 || unsafe !== undefined) {
    throw new InputError(
      `extra.${SLP_EXTRA_KEY} is not the record slp diff writes of what the diff was measured on: ${unsafe !== undefined ? `${JSON.stringify(unsafe)} is not a path inside the project` : (problems[0] as { sentence: string }).sentence}`,
      {
        file: diffPath,
        fix: "re-run slp diff to rewrite the diff (or remove extra.slp, and the review will say it cannot tell whether the diff is current)",
      },
    );
  }
  return record as DiffProvenance;
}

/** A commit id as messages show it. */
function short(commit: string): string {
  return commit.slice(0, 12);
}

/** A project-relative path that stays inside the project: no absolute path, no `..`, no backslash. */
function isProjectPath(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || /^[A-Za-z]:/.test(path)) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

export interface StaleDiff {
  diff: string;
  model: string;
  measured: DiffProvenance;
  /** The files whose content is not what was measured (gone files included), sorted. */
  changed: string[];
}

/** The files of the record whose content in the work tree is not the measured one. */
export function changedSince(dir: string, measured: DiffProvenance): string[] {
  const now = contentIds(dir, Object.keys(measured.content));
  return Object.keys(measured.content)
    .filter((file) => now[file] !== measured.content[file])
    .sort(compareCodePoints);
}

/** Exit 2 for every diff whose model changed since it was measured, naming the model, both commits and the fix. */
export async function refuseStaleDiffs(dir: string, stale: readonly StaleDiff[]): Promise<void> {
  if (stale.length === 0) return;
  const changed = [...new Set(stale.flatMap((entry) => entry.changed))].sort(compareCodePoints);
  const head = await headOf(dir, changed);
  const now = contentIds(dir, changed);
  const uncommitted = head !== null && changed.some((file) => head.ids.get(file) !== (now[file] ?? undefined));
  const current = head
    ? `commit ${short(head.commit)}${uncommitted ? " with uncommitted changes" : ""}`
    : "no commit (not a git repository)";
  const parts = stale.map(({ diff, model, measured, changed }, i) => {
    const at = measured.commit ? `commit ${short(measured.commit)}${measured.dirty ? " with uncommitted changes" : ""}` : "no commit";
    const which = `${changed.join(", ")} ${changed.length === 1 ? "has" : "have"} changed since`;
    return `${i === 0 ? "" : `${diff}: `}${model} was measured at ${at}, and ${which} (the work tree is at ${current})`;
  });
  throw new InputError(`${parts.join("; ")}: the diff does not measure this code`, {
    file: (stale[0] as StaleDiff).diff,
    fix: `re-run slp diff ${stale.map((entry) => entry.model).join(" ")} (and slp reconcile for a critical model) on a build of this code, then compare`,
  });
}
