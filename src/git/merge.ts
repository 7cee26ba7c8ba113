/**
 * What a merge commit wrote by hand: the paths where its tree differs from
 * git's own merge of its parents over their merge-base, computed in-process
 * (no git binary, nothing written to the repository). A path git could not
 * merge cleanly (both sides changed it differently, a file deleted on one
 * side and edited on the other, a binary or a link changed on both) has no
 * clean merge, so whatever the merge holds there was written by hand.
 *
 * The three-way merge follows git's rules: a path only one side changed
 * takes that side's version; one both changed alike takes it; a text both
 * changed is merged line by line over the base (changes that overlap or
 * touch conflict unless they are the same lines, as git's zealous merge
 * has it); an executable bit is merged like content; a file one side moved
 * unchanged takes the other side's edit to its new path. What it does not
 * reproduce (a file moved and edited on one side and edited on the other,
 * which git pairs by similarity; two or more merge-bases; three or more
 * parents) comes out as hand edits or is refused by name, never passed: a
 * merge gate cannot redo is named, not trusted.
 */
import { diffSequencesWithin } from "../core/sequence-diff.ts";
import type { Repository, TreeEntry } from "./repository.ts";

/** A merge's hand edits: the paths that differ from the clean merge; `unreproducible` says why gate could not redo it at all. */
export interface MergeEdits {
  paths: string[];
  unreproducible: string | null;
}

const TREE_MODE = "040000";
/**
 * Lines one side may insert and remove in a file both sides changed, and in
 * a whole merge, before gate stops aligning and names what is left: the
 * alignment costs about the square of the edits, and a merge is the
 * branch's own input. Counted in lines, so the verdict never depends on the
 * machine's speed.
 */
export const MAX_FILE_EDITS = 1_000;
const MAX_MERGE_EDITS = 5_000;
/** git reads a file as binary when a NUL byte appears in its first 8,000 bytes (buffer_is_binary). */
const BINARY_PROBE = 8000;

/** The hand edits of a commit with two or more parents; a commit that is no merge has none. */
export async function mergeEdits(repo: Repository, oid: string): Promise<MergeEdits> {
  const commit = await repo.readCommit(oid);
  if (commit.parents.length < 2) return { paths: [], unreproducible: null };
  if (commit.parents.length > 2) {
    return { paths: [], unreproducible: `it merges ${commit.parents.length} parents at once, which gate does not redo` };
  }
  const [ours, theirs] = commit.parents as [string, string];
  const bases = await repo.mergeBases(ours, theirs);
  if (bases.length > 1) {
    return { paths: [], unreproducible: "its parents have more than one merge-base (a criss-cross merge), which gate does not redo" };
  }
  const tree = async (at: string) => treeEntry((await repo.readCommit(at)).tree);
  // Parents with no common history merge over an empty base, as git merge --allow-unrelated-histories does.
  const base = bases[0] === undefined ? undefined : await tree(bases[0]);
  const merge = new TreeMerge(repo);
  const paths = await merge.directory(base, await tree(ours), await tree(theirs), treeEntry(commit.tree), "");
  if (paths.length === 0) return { paths, unreproducible: null };
  // git follows a file one side moved into the other side's edit of it: redo the merge file by file with those moves.
  const moved = await merge.withMoves(bases[0], ours, theirs, oid);
  return { paths: (moved ?? paths).sort(), unreproducible: null };
}

function treeEntry(oid: string): TreeEntry {
  return { mode: TREE_MODE, path: "", oid, type: "tree" };
}

function same(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.oid === b.oid && a.mode === b.mode);
}

function isTree(entry: TreeEntry | undefined): entry is TreeEntry {
  return entry?.type === "tree";
}

/** A regular file (plain or executable): the only kind git merges line by line. */
function isFile(entry: TreeEntry | undefined): entry is TreeEntry {
  return entry?.type === "blob" && (entry.mode === "100644" || entry.mode === "100755");
}

class TreeMerge {
  readonly #repo: Repository;
  /** One allowance of line edits for the whole merge. */
  readonly #budget: EditBudget = { left: MAX_MERGE_EDITS };

  constructor(repo: Repository) {
    this.#repo = repo;
  }

  /** The paths under one folder where `merged` differs from the clean merge of `ours` and `theirs` over `base`. */
  async directory(base: TreeEntry | undefined, ours: TreeEntry, theirs: TreeEntry, merged: TreeEntry, prefix: string): Promise<string[]> {
    const [b, o, t, m] = (await Promise.all([base, ours, theirs, merged].map((entry) => this.#entries(entry)))) as [
      Map<string, TreeEntry>,
      Map<string, TreeEntry>,
      Map<string, TreeEntry>,
      Map<string, TreeEntry>,
    ];
    const names = [...new Set([...b.keys(), ...o.keys(), ...t.keys(), ...m.keys()])].sort();
    const out: string[] = [];
    for (const name of names) out.push(...(await this.path(b.get(name), o.get(name), t.get(name), m.get(name), `${prefix}${name}`)));
    return out;
  }

  /** One path: which side's version the clean merge takes, or its line merge, against what the merge holds. */
  async path(
    base: TreeEntry | undefined,
    ours: TreeEntry | undefined,
    theirs: TreeEntry | undefined,
    merged: TreeEntry | undefined,
    path: string,
  ): Promise<string[]> {
    if (same(ours, theirs) || same(theirs, base)) return this.#differences(ours, merged, path);
    if (same(ours, base)) return this.#differences(theirs, merged, path);
    // Both sides changed the path, each its own way.
    if (isTree(ours) && isTree(theirs) && isTree(merged) && (base === undefined || isTree(base))) {
      return this.directory(base, ours, theirs, merged, `${path}/`);
    }
    if (isFile(ours) && isFile(theirs) && isFile(merged) && (base === undefined || isFile(base))) {
      const mode = ours.mode === base?.mode ? theirs.mode : theirs.mode === base?.mode || theirs.mode === ours.mode ? ours.mode : null;
      const text = await this.#mergeText(base, ours, theirs);
      if (mode === null || text === null) return [path];
      const actual = await this.#repo.readBlob(merged.oid);
      return merged.mode === mode && equalBytes(actual, text) ? [] : [path];
    }
    // A delete against an edit, a file against a folder, a link or a submodule changed on both sides: git stops there.
    return [path];
  }

  /**
   * The merge redone file by file, following exact renames (a file one side
   * moved, unchanged, to one new path) into the other side's edit of the old
   * path, as git's rename detection does: the edit lands at the new path.
   * Null when no such rename is in the merge (the folder-by-folder answer stands).
   */
  async withMoves(base: string | undefined, ours: string, theirs: string, merged: string): Promise<string[] | null> {
    const flat = async (commit: string | undefined) =>
      new Map(
        commit === undefined
          ? []
          : (await this.#repo.filesUnder(commit, "")).map((file): [string, TreeEntry] => [
              file.path,
              { path: file.path, oid: file.oid, mode: file.mode, type: file.mode === "160000" ? "commit" : "blob" },
            ]),
      );
    const [b, o, t, m] = await Promise.all([flat(base), flat(ours), flat(theirs), flat(merged)]);
    // Only a rename whose old path the other side edited changes what git merges.
    const moves = [
      ...exactRenames(b, o).map((move) => ({ ...move, mover: o, other: t })),
      ...exactRenames(b, t).map((move) => ({ ...move, mover: t, other: o })),
    ].filter((move) => move.other.has(move.from) && !same(move.other.get(move.from), b.get(move.from)));
    if (moves.length === 0) return null;
    const sources = new Set(moves.map((move) => move.from));
    const targets = new Map(moves.map((move) => [move.to, move]));
    const out: string[] = [];
    for (const path of [...new Set([...b.keys(), ...o.keys(), ...t.keys(), ...m.keys()])].sort()) {
      const move = targets.get(path);
      if (sources.has(path)) {
        // git moves the other side's edit away from the old path: anything left there was put back by hand.
        if (m.has(path)) out.push(path);
      } else if (move) {
        // Something the other side put at the new path meets the moved file: git stops there.
        if (move.other.has(path)) out.push(path);
        else out.push(...(await this.path(b.get(move.from), move.other.get(move.from), move.mover.get(path), m.get(path), path)));
      } else out.push(...(await this.path(b.get(path), o.get(path), t.get(path), m.get(path), path)));
    }
    return out;
  }

  /** The paths where the merge holds something other than `expected` (a folder's files one by one). */
  async #differences(expected: TreeEntry | undefined, merged: TreeEntry | undefined, path: string): Promise<string[]> {
    if (same(expected, merged)) return [];
    if (!isTree(expected) && !isTree(merged)) return [path];
    // A folder on either side is compared file by file (a file standing where the other has a folder is named too).
    const out = [expected, merged].some((entry) => entry !== undefined && !isTree(entry)) ? [path] : [];
    const [e, m] = await Promise.all([this.#entries(expected), this.#entries(merged)]);
    for (const name of [...new Set([...e.keys(), ...m.keys()])].sort())
      out.push(...(await this.#differences(e.get(name), m.get(name), `${path}/${name}`)));
    return out;
  }

  async #entries(entry: TreeEntry | undefined): Promise<Map<string, TreeEntry>> {
    if (!isTree(entry)) return new Map();
    return new Map((await this.#repo.readTree(entry.oid)).map((child) => [child.path, child]));
  }

  /** git's line merge of two versions of a file over the base's (none for a file both added); null when it conflicts. */
  async #mergeText(base: TreeEntry | undefined, ours: TreeEntry, theirs: TreeEntry): Promise<Uint8Array | null> {
    const [b, o, t] = await Promise.all([
      base ? this.#repo.readBlob(base.oid) : new Uint8Array(),
      this.#repo.readBlob(ours.oid),
      this.#repo.readBlob(theirs.oid),
    ]);
    if (equalBytes(o, t)) return o;
    if ([b, o, t].some(isBinary)) return null;
    const merged = mergeLines(lines(b), lines(o), lines(t), this.#budget);
    return merged === null ? null : Buffer.from(merged.join(""), "latin1");
  }
}

/** Files one side moved unchanged: a path the base had and the side lost, whose blob the side has at exactly one new path. */
function exactRenames(base: Map<string, TreeEntry>, side: Map<string, TreeEntry>): { from: string; to: string }[] {
  const lost = new Map<string, string[]>();
  const gained = new Map<string, string[]>();
  for (const [path, entry] of base)
    if (!side.has(path) && entry.type === "blob") lost.set(entry.oid, [...(lost.get(entry.oid) ?? []), path]);
  for (const [path, entry] of side)
    if (!base.has(path) && entry.type === "blob") gained.set(entry.oid, [...(gained.get(entry.oid) ?? []), path]);
  const moves: { from: string; to: string }[] = [];
  for (const [oid, from] of lost) {
    const to = gained.get(oid);
    // Two files of one content moved at once pair up by names git weighs; left unpaired here, so a doubt is a hand edit.
    if (from.length === 1 && to?.length === 1) moves.push({ from: from[0] as string, to: to[0] as string });
  }
  return moves;
}

function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE).includes(0);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

/** A file's lines, each with its line feed (the last may have none); bytes kept one for one (latin1). */
function lines(bytes: Uint8Array): string[] {
  return (
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
      .toString("latin1")
      .match(/[^\n]*\n|[^\n]+$/g) ?? []
  );
}

/** Base lines [start, end) replaced by `lines` on one side. */
interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

/** What is left of the whole merge's edit allowance. */
export interface EditBudget {
  left: number;
}

/**
 * One side's changes as hunks over the base; null past the file's or the
 * merge's allowance. The lines both ends share are set aside first, as git
 * does, and a count of the lines either side lacks (a floor on the edits)
 * refuses a rewrite before any alignment.
 */
function hunks(base: string[], side: string[], budget: EditBudget): Hunk[] | null {
  let head = 0;
  while (head < base.length && head < side.length && base[head] === side[head]) head++;
  let tail = 0;
  while (tail < base.length - head && tail < side.length - head && base[base.length - 1 - tail] === side[side.length - 1 - tail]) tail++;
  const b = base.slice(head, base.length - tail);
  const s = side.slice(head, side.length - tail);
  const allowance = Math.min(MAX_FILE_EDITS, budget.left);
  const counts = new Map<string, number>();
  for (const line of b) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const line of s) counts.set(line, (counts.get(line) ?? 0) - 1);
  let floor = 0;
  for (const count of counts.values()) floor += Math.abs(count);
  if (floor > allowance) return null;
  const changes = diffSequencesWithin(b, s, allowance);
  if (changes === null) {
    // The search ran to the allowance before giving up: that is spent too.
    budget.left -= allowance;
    return null;
  }
  for (const change of changes) if (change.added || change.removed) budget.left -= change.value.length;
  const out: Hunk[] = [];
  let at = head;
  let open: Hunk | null = null;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      if (open) out.push(open);
      open = null;
      at += change.value.length;
      continue;
    }
    open ??= { start: at, end: at, lines: [] };
    if (change.removed) {
      at += change.value.length;
      open.end = at;
    } else open.lines.push(...change.value);
  }
  if (open) out.push(open);
  return out;
}

/**
 * The three-way line merge: each side's changes against the base, applied
 * together; changes of the two sides that overlap or touch (git's rule) are
 * one region, clean only when both sides make it the same text.
 */
export function mergeLines(
  base: string[],
  ours: string[],
  theirs: string[],
  budget: EditBudget = { left: MAX_MERGE_EDITS },
): string[] | null {
  const mine = hunks(base, ours, budget);
  const yours = mine === null ? null : hunks(base, theirs, budget);
  if (mine === null || yours === null) return null;
  const all = [...mine.map((hunk) => ({ ...hunk, side: 0 })), ...yours.map((hunk) => ({ ...hunk, side: 1 }))].sort(
    (a, b) => a.start - b.start || a.side - b.side,
  );
  const out: string[] = [];
  let copied = 0;
  for (let i = 0; i < all.length; ) {
    const region = [all[i] as (typeof all)[number]];
    let end = region[0]?.end ?? 0;
    i++;
    // A hunk starting at or before the region's end joins it (touching counts, as in git).
    while (i < all.length && (all[i] as (typeof all)[number]).start <= end) {
      const next = all[i] as (typeof all)[number];
      region.push(next);
      end = Math.max(end, next.end);
      i++;
    }
    const start = region[0]?.start ?? 0;
    out.push(...base.slice(copied, start));
    copied = end;
    const sides = new Set(region.map((hunk) => hunk.side));
    if (sides.size === 1) {
      out.push(...applied(base, region, start, end));
      continue;
    }
    const ourText = applied(
      base,
      region.filter((hunk) => hunk.side === 0),
      start,
      end,
    );
    const theirText = applied(
      base,
      region.filter((hunk) => hunk.side === 1),
      start,
      end,
    );
    if (ourText.length !== theirText.length || ourText.some((line, k) => line !== theirText[k])) return null;
    out.push(...ourText);
  }
  out.push(...base.slice(copied));
  return out;
}

/** Base lines [start, end) with one side's hunks in it applied. */
function applied(base: string[], sideHunks: Hunk[], start: number, end: number): string[] {
  const out: string[] = [];
  let at = start;
  for (const hunk of sideHunks) {
    out.push(...base.slice(at, hunk.start), ...hunk.lines);
    at = hunk.end;
  }
  out.push(...base.slice(at, end));
  return out;
}
