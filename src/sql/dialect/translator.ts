/**
 * Translations of one project's warehouse SQL, cached by content hash across
 * runs: a warm run reads the cache and never loads the construct table, the
 * rewrites or the transpiler (translate.ts is imported on a miss only). A
 * refusal is cached as a translation is: both follow from the SQL text and
 * the dialect alone, and a project with one untranslatable model would
 * otherwise start the transpiler (a third of a second) on every run.
 */
import { ParseCache } from "../../project/files/cache.ts";
import type { Dialect } from "./dialects.ts";
import type { TranslationResult } from "./translation.ts";

/** Bumped whenever the table or the rewrites change what a translation is, so a stale cache entry is never used (the cache is shared by every checkout on a machine: a number no other branch uses). */
export const TRANSLATION_FORMAT = 63;

/** Translations of one project, cached by content across runs. */
export class Translator {
  readonly dialect: Exclude<Dialect, "duckdb">;
  readonly #cache: ParseCache<TranslationResult>;

  constructor(dialect: Exclude<Dialect, "duckdb">, projectDir: string, env: Record<string, string | undefined>) {
    this.dialect = dialect;
    this.#cache = ParseCache.open<TranslationResult>(projectDir, env, "dialect");
  }

  async translate(sql: string): Promise<TranslationResult> {
    const key = ParseCache.key(`${TRANSLATION_FORMAT}\0${this.dialect}\0${sql}`);
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const { translateSql } = await import("./translate.ts");
    const result = await translateSql(sql, this.dialect);
    this.#cache.set(key, result);
    return result;
  }

  /** Writes the translations this run used; failures only cost speed. */
  save(): void {
    this.#cache.save();
  }
}
