/**
 * What a translation of warehouse SQL is: the DuckDB SQL and the macros it
 * calls, or the construct slp cannot run with the warehouse's meaning. Its
 * own module, so the translator (translator.ts, the cache every run loads)
 * and the translation (translate.ts, loaded on a cache miss only) share it
 * without importing each other.
 */

export interface Translation {
  /** The SQL DuckDB runs. */
  sql: string;
  /** The DuckDB macros (by name) the SQL calls; see macros(). */
  macros: string[];
}

/** A construct slp cannot run with the warehouse's meaning. */
export interface Untranslatable {
  /** The construct as written (`lateral flatten`, `to_char`, `array<geography>`). */
  construct: string;
  /** Why, in one clause. */
  why: string;
  /** 1-based line in the SQL given. */
  line: number | null;
}

export type TranslationResult = { ok: true; translation: Translation } | { ok: false; untranslatable: Untranslatable };
