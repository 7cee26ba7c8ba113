/**
 * Mutation verdicts kept between runs, per model, by what decides them: the
 * model's file and text, each of its unit tests' fingerprints (definition,
 * the model's SQL as it runs with its upstream inputs resolved, fixtures
 * with their column types, expectation, engine), the listed equivalents, the
 * operator set, the cap and slp's version. An agent's loop mutates the same
 * changed mart at every attempt; an attempt that did not touch its model,
 * inputs or tests pays nothing for its mutants. In slp's cache folder, never
 * in the work tree (SLP_NO_CACHE=1 turns it off, SLP_CACHE_DIR moves it); a
 * run a time limit cut short is never kept.
 */
import { ParseCache } from "../project/files/cache.ts";
import type { MutationEquivalent } from "../schemas/mutation.ts";
import { VERSION } from "../version.ts";
import { operators } from "./operators/index.ts";
import type { ModelRun } from "./run.ts";

/** Bumped when a kept ModelRun changes shape. */
const FORMAT = 2;

const OPERATORS = operators.map((operator) => `${operator.code}:${operator.name}`).join(",");

export interface ModelKey {
  model: string;
  file: string;
  source: string;
  warehouse: string;
  maxMutants: number;
  equivalents: readonly MutationEquivalent[];
  /** The fingerprints of the model's unit tests, in the run's order; a null one (a test not prepared) keeps nothing. */
  tests: readonly (string | null)[];
}

export class MutantCache {
  readonly #cache: ParseCache<ModelRun>;

  private constructor(cache: ParseCache<ModelRun>) {
    this.#cache = cache;
  }

  static open(projectDir: string, env: Record<string, string | undefined>): MutantCache {
    return new MutantCache(ParseCache.open<ModelRun>(projectDir, env, "mutants"));
  }

  /** The key of a model's run, or null when it cannot be kept (a test that could not be prepared). */
  static key(parts: ModelKey): string | null {
    if (parts.tests.some((test) => test === null)) return null;
    return ParseCache.key(JSON.stringify([FORMAT, VERSION, OPERATORS, parts]));
  }

  get(key: string | null): ModelRun | undefined {
    return key === null ? undefined : this.#cache.get(key);
  }

  /** Keeps a model's run, unless a time limit decided part of it (a mutant not run, or timed out). */
  set(key: string | null, run: ModelRun): void {
    if (key === null) return;
    const cut = (verdict: string) => verdict === "not_run" || verdict === "timeout";
    if (run.mutants.some((mutant) => cut(mutant.verdict))) return;
    if (run.edgeTests.some((test) => test.undecided.length > 0) || run.hintsCut) return;
    this.#cache.set(key, { ...run, cached: false });
  }

  save(): void {
    this.#cache.save();
  }
}
