/**
 * A cache of parsed YAML, keyed by a hash of the text, so a run only parses
 * the files that changed since the last one (YAML parsing is most of
 * `slp check`'s cost). One JSON file per project under the user's cache
 * folder; it never lives in the work tree. A value that JSON cannot carry
 * exactly (NaN, infinities, -0, binary) is not cached; an unreadable cache
 * is ignored and rewritten. `SLP_NO_CACHE=1` turns it off; `SLP_CACHE_DIR`
 * moves it. Errors are never cached: a file that fails is parsed again.
 * Beside the parses it keeps the work tree's file stamps (file-ids.ts), so a
 * warm run knows an unchanged file's content id without reading it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../version.ts";
import { FileIds } from "./file-ids.ts";

/** Bumped when what is cached changes shape, so an older cache is never read. */
const FORMAT = 7;

export class ParseCache<T> {
  readonly #file: string | null;
  readonly #previous: Map<string, T>;
  readonly #used = new Map<string, T>();
  #changed = false;
  /** The content ids of the work-tree files read for this cache, by path and stat (file-ids.ts). */
  readonly files: FileIds;

  private constructor(file: string | null, previous: Map<string, T>, files = new FileIds()) {
    this.#file = file;
    this.#previous = previous;
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
    let files: unknown;
    try {
      const stored = JSON.parse(readFileSync(file, "utf8")) as {
        format?: number;
        version?: string;
        entries?: Record<string, T>;
        files?: unknown;
      };
      if (stored.format === FORMAT && stored.version === VERSION && stored.entries) {
        previous = new Map(Object.entries(stored.entries));
        files = stored.files;
      }
    } catch {
      // No cache yet, or one we cannot read: start empty.
    }
    return new ParseCache<T>(file, previous, new FileIds(files, now));
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
    this.#used.set(key, value);
    this.#changed = true;
  }

  /** Writes the entries this run used (stale ones drop out); failures are ignored. */
  save(): void {
    if (!this.#file || (!this.#changed && this.#used.size === this.#previous.size && !this.files.changed)) return;
    try {
      mkdirSync(join(this.#file, ".."), { recursive: true });
      const temporary = `${this.#file}.${process.pid}.tmp`;
      // Plain objects only: a toJSON anywhere sends JSON.stringify down its slow path for the whole text (twice the time).
      const stored = { format: FORMAT, version: VERSION, entries: Object.fromEntries(this.#used), files: this.files.stamps() };
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
