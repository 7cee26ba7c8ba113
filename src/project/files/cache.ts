/**
 * A cache of parsed YAML, keyed by a hash of the text, so a run only parses
 * the files that changed since the last one (YAML parsing is most of
 * `slp check`'s cost). One JSON file per project under the user's cache
 * folder; it never lives in the work tree. A value that JSON cannot carry
 * exactly (NaN, infinities, -0, binary) is not cached; an unreadable cache
 * is ignored and rewritten. `SLP_NO_CACHE=1` turns it off; `SLP_CACHE_DIR`
 * moves it. Errors are never cached: a file that fails is parsed again. The
 * file is written only when a run adds something; an entry left unused by
 * the runs that write is kept for a number of them (an agent alternates one
 * test alone with the whole suite, and edits a file back), then dropped.
 * Beside the parses it keeps the work tree's file stamps (file-ids.ts), so a
 * warm run knows an unchanged file's content id without reading it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../version.ts";
import { FileIds } from "./file-ids.ts";
import { KEEP_IDLE_SAVES } from "./idle.ts";
import { anyEnvValues, holdsEnvValue } from "../../core/env-values.ts";

/** Bumped when what is cached changes shape, so an older cache is never read. */
const FORMAT = 9;

export { KEEP_IDLE_SAVES };

export class ParseCache<T> {
  readonly #file: string | null;
  readonly #previous: Map<string, T>;
  /** How many writes in a row each previous entry has gone unused (absent: used when the file was last written). */
  readonly #idle: Map<string, number>;
  readonly #used = new Map<string, T>();
  #changed = false;
  /** The content ids of the work-tree files read for this cache, by path and stat (file-ids.ts). */
  readonly files: FileIds;

  private constructor(file: string | null, previous: Map<string, T>, files = new FileIds(), idle = new Map<string, number>()) {
    this.#file = file;
    this.#previous = previous;
    this.#idle = idle;
    this.files = files;
  }

  /**
   * The cache of one project dir (`kind` names what it holds: parsed yaml,
   * dialect translations); a disabled cache when env says so. `now` is the
   * clock the file stamps are dated by.
   */
  static open<T>(projectDir: string, env: Record<string, string | undefined>, kind = "yaml", now: () => number = Date.now): ParseCache<T> {
    if (env.SLP_NO_CACHE === "1") return new ParseCache<T>(null, new Map());
    const root = env.SLP_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir() || tmpdir(), ".cache"), "slp");
    const file = join(root, `${kind}-${hash(`${FORMAT}\0${VERSION}\0${projectDir}`)}.json`);
    let previous = new Map<string, T>();
    const idle = new Map<string, number>();
    let files: unknown;
    let filesIdle: unknown;
    try {
      const stored = JSON.parse(readFileSync(file, "utf8")) as {
        format?: number;
        version?: string;
        entries?: Record<string, T>;
        idle?: Record<string, unknown>;
        files?: unknown;
        filesIdle?: unknown;
      };
      if (stored.format === FORMAT && stored.version === VERSION && stored.entries) {
        previous = new Map(Object.entries(stored.entries));
        for (const [key, saves] of Object.entries(stored.idle ?? {})) if (typeof saves === "number") idle.set(key, saves);
        files = stored.files;
        filesIdle = stored.filesIdle;
      }
    } catch {
      // No cache yet, or one we cannot read: start empty.
    }
    return new ParseCache<T>(file, previous, new FileIds(files, now, filesIdle), idle);
  }

  /** The cache key of a text. */
  static key(text: string): string {
    return hash(text);
  }

  get(key: string): T | undefined {
    const value = this.#previous.get(key);
    if (value !== undefined) this.#used.set(key, value);
    return value;
  }

  /** Remembers a value, unless JSON would not give it back exactly (`exact`: the caller knows it does, and nothing walks it to see). */
  set(key: string, value: T, exact = false): void {
    if (!this.#file || (!exact && !survivesJson(value))) return;
    // What holds a value env_var() handed a template (a rendered SQL, its translation) stays off the disk.
    if (anyEnvValues() && holdsEnvValue(JSON.stringify(value))) return;
    this.#used.set(key, value);
    this.#changed = true;
  }

  /**
   * Writes the file when this run added an entry or a file stamp: the
   * entries it used, and those unused for fewer than KEEP_IDLE_SAVES writes.
   * A run that adds nothing writes nothing (what it left unused ages only
   * when something is written). Failures are ignored.
   */
  save(): void {
    if (!this.#file || (!this.#changed && !this.files.changed)) return;
    try {
      mkdirSync(join(this.#file, ".."), { recursive: true });
      const temporary = `${this.#file}.${process.pid}.tmp`;
      const entries = Object.fromEntries(this.#used);
      const idle: Record<string, number> = {};
      for (const [key, value] of this.#previous) {
        if (this.#used.has(key)) continue;
        const saves = (this.#idle.get(key) ?? 0) + 1;
        if (saves >= KEEP_IDLE_SAVES) continue;
        entries[key] = value;
        idle[key] = saves;
      }
      // Plain objects only: a toJSON anywhere sends JSON.stringify down its slow path for the whole text (twice the time).
      const stored = { format: FORMAT, version: VERSION, entries, idle, files: this.files.stamps(), filesIdle: this.files.idle() };
      writeFileSync(temporary, JSON.stringify(stored));
      renameSync(temporary, this.#file);
    } catch {
      // A read-only home or a full disk only costs speed.
    }
  }
}

function hash(text: string): string {
  return new Bun.CryptoHasher("sha1").update(text).digest("hex");
}

/** True when JSON.parse(JSON.stringify(value)) equals value: plain data, finite numbers, no -0. */
function survivesJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(survivesJson);
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value as object).every((item) => item !== undefined && survivesJson(item));
  }
  return false;
}
