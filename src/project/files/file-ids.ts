/**
 * Which content a work-tree file holds, known without reading it: git's
 * index, for the parse cache. A file read and hashed once is remembered with
 * the stat it was read under (device, inode, size, modification and change
 * times); a later run whose stat of the file is the same takes its content id
 * from here and reads nothing, so a warm `slp check` opens no yml whose parse
 * the cache holds. Nothing a repository holds can forge the match: a write
 * moves the change time (ctime), which only the system clock sets. A file
 * whose times were still within RACY_MS of its hashing could be written again
 * within the same tick of the file system's clock, so it is hashed again
 * until it has been still for longer (git's "racily clean" entries).
 * Commands look up different files (check the yml, S6 and unit the SQL too),
 * and one run may save before its last lookup: a stamp a run does not look up
 * is kept, like an unused parse, for KEEP_IDLE_SAVES writes, so alternating
 * commands neither drop each other's stamps nor rewrite the file every run.
 */
import type { Stats } from "node:fs";
import { KEEP_IDLE_SAVES } from "./idle.ts";

/** How long a file must have been still, when hashed, for its stat to vouch for its content later. */
const RACY_MS = 2000;

/** dev, inode, size, mtime, ctime (ms, with their fractions), and the content id; only ever kept for a file still when hashed. */
type Stamp = [number, number, number, number, number, string];

export class FileIds {
  readonly #previous: Map<string, unknown>;
  /** How many writes in a row each previous stamp has gone unused. */
  readonly #idle: Map<string, number>;
  readonly #kept = new Map<string, Stamp>();
  /** Previous stamps this run found no longer vouching for their file: dropped, not kept idle. */
  readonly #dropped = new Set<string>();
  readonly #now: () => number;

  /** `stored`: what an earlier run saved (stamps()), `idle` its idle(); anything else in them is ignored, stamp by stamp when looked up. */
  constructor(stored: unknown = {}, now: () => number = Date.now, idle: unknown = {}) {
    this.#now = now;
    this.#previous = new Map(isRecord(stored) ? Object.entries(stored) : []);
    this.#idle = new Map(
      isRecord(idle) ? Object.entries(idle).filter((entry): entry is [string, number] => typeof entry[1] === "number") : [],
    );
  }

  /** True when no earlier run left a stamp (a first run, or no cache): nothing is worth a stat. */
  get empty(): boolean {
    return this.#previous.size === 0;
  }

  /** The content id of a path whose stat is the one its content was hashed under; undefined when unknown. */
  lookup(path: string, stats: Stats): string | undefined {
    const stamp = this.#previous.get(path);
    if (!isStamp(stamp) || !sameFile(stamp, stats)) {
      if (stamp !== undefined) this.#dropped.add(path);
      return undefined;
    }
    this.#kept.set(path, stamp);
    return stamp[5];
  }

  /** Remembers what a path held when read; only a file that had been still for RACY_MS can vouch for itself later. */
  record(path: string, stats: Stats, id: string): void {
    // The stamp it had, when that still vouches for the file: nothing for the cache to write.
    const previous = this.#previous.get(path);
    if (isStamp(previous) && previous[5] === id && sameFile(previous, stats)) {
      this.#kept.set(path, previous);
      return;
    }
    // Changed within RACY_MS of now: a write later in the same tick of the file system's clock would keep these times.
    if (Math.max(stats.mtimeMs, stats.ctimeMs) >= this.#now() - RACY_MS) {
      this.#kept.delete(path);
      if (previous !== undefined) this.#dropped.add(path);
      return;
    }
    this.#kept.set(path, [stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs, id]);
  }

  /** True when this run has a stamp to add, change or drop (a save has something to write); unused stamps age only when something else is written. */
  get changed(): boolean {
    if (this.#dropped.size > 0) return true;
    for (const [path, stamp] of this.#kept) if (this.#previous.get(path) !== stamp) return true;
    return false;
  }

  /** The stamps of the paths looked up or read this run, and those left unused for fewer than KEEP_IDLE_SAVES writes, for the cache file. */
  stamps(): Record<string, Stamp> {
    const stamps = Object.fromEntries(this.#kept);
    for (const [path, saves] of this.#unused()) if (saves < KEEP_IDLE_SAVES) stamps[path] = this.#previous.get(path) as Stamp;
    return stamps;
  }

  /** How many writes in a row each stamp in stamps() has gone unused (absent: used by this run). */
  idle(): Record<string, number> {
    const idle: Record<string, number> = {};
    for (const [path, saves] of this.#unused()) if (saves < KEEP_IDLE_SAVES) idle[path] = saves;
    return idle;
  }

  /** The previous stamps this run neither used nor dropped, with the writes they will have gone unused after this one. */
  *#unused(): Generator<[string, number]> {
    for (const [path, stamp] of this.#previous) {
      if (this.#kept.has(path) || this.#dropped.has(path) || !isStamp(stamp)) continue;
      yield [path, (this.#idle.get(path) ?? 0) + 1];
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sameFile(stamp: Stamp, stats: Stats): boolean {
  return (
    stamp[0] === stats.dev && stamp[1] === stats.ino && stamp[2] === stats.size && stamp[3] === stats.mtimeMs && stamp[4] === stats.ctimeMs
  );
}

/** A stamp as stamps() wrote it; a cache file edited by hand or by another version may hold anything. */
function isStamp(value: unknown): value is Stamp {
  if (!Array.isArray(value) || value.length !== 6 || typeof value[5] !== "string") return false;
  for (let i = 0; i < 5; i++) if (typeof value[i] !== "number") return false;
  return true;
}
