/**
 * What a compare rule sees. A whole run (CompareContext: the project, every
 * diff read, the stale set of `--base`) is what C7 judges; each diff
 * (DiffContext) is what C0-C6 and I2 judge. C0, the contract, decides whether
 * a diff may be read at all: the others see its numbers only through
 * `measured()`, which answers null unless the contract held.
 */
import { compareCodePoints } from "../../core/text.ts";
import { isMapping, type Mapping } from "../../core/values.ts";
import type { DiffFile } from "../../project/history/diff-files.ts";
import type { CheckProject, Model } from "./check.ts";
import { DEFAULT_LINEAGE, type LineageMode } from "../../project/dbt/lineage.ts";
import { owedDiffs, type OwedDiffs } from "../../project/history/owed-diffs.ts";
import type { Config } from "../../schemas/config.ts";
import type { StaleSet } from "../../project/history/stale.ts";
import type { Diff } from "../../schemas/diff.ts";
import type { PreRegistration } from "../../schemas/pre-registration.ts";
import type { Spec } from "../../schemas/spec.ts";
import { lineAt } from "../../project/files/lines.ts";
import { ruleDefiner } from "../define-rule.ts";

/** How a compare run reads what the branch changed (with `--base`, from git), how far downstream it follows changes, and the band ceilings. */
export interface CompareSettings {
  /** The changed nodes' unique ids (with `--base`); null without it (the pre-registered models stand for them). */
  changed: ReadonlySet<string> | null;
  lineage: LineageMode;
  /** slp.yml's band_ceilings, by tier (the base's with --base). */
  ceilings: Config["band_ceilings"];
}

export class CompareContext {
  readonly project: CheckProject;
  /** Every diff read, in the order given (globs expanded and sorted). */
  readonly diffs: readonly DiffFile[];
  /** With `--base`: the inherited pre-registrations; null without it (nothing is stale). */
  readonly stale: StaleSet | null;
  readonly settings: CompareSettings;
  #models?: Model[];
  #owed?: Promise<OwedDiffs>;

  constructor(
    project: CheckProject,
    diffs: readonly DiffFile[],
    stale: StaleSet | null,
    settings: CompareSettings = { changed: null, lineage: DEFAULT_LINEAGE, ceilings: undefined },
  ) {
    this.project = project;
    this.diffs = diffs;
    this.stale = stale;
    this.settings = settings;
  }

  /** Every model, sorted by name. */
  get models(): Model[] {
    this.#models ??= [...this.project.models.values()].sort((a, b) => compareCodePoints(a.name, b.name));
    return this.#models;
  }

  /** The models that owe a diff (pre-registered of this branch, and the marts and critical ones downstream of a change), with why. */
  owed(): Promise<OwedDiffs> {
    this.#owed ??= owedDiffs(this.project, this.settings.changed, this.stale?.models ?? new Set<string>(), this.settings.lineage);
    return this.#owed;
  }

  /** True when `--base` found this model's pre-registration already at the merge-base. */
  isStale(model: string): boolean {
    return this.stale?.models.has(model) ?? false;
  }
}

/** A diff that kept its contract, typed: the schema, the spec and the pre-registration all held. */
export interface Measured {
  diff: Diff;
  model: Model;
  spec: Spec;
  preRegistration: PreRegistration;
}

export class DiffContext {
  readonly run: CompareContext;
  readonly file: DiffFile;
  /** Set by the runner once C0 has run: true when it blocked nothing. */
  contractHeld = false;

  constructor(run: CompareContext, file: DiffFile) {
    this.run = run;
    this.file = file;
  }

  /** Where this diff's findings point: the diff as given, the model it names, and the line of its first key. */
  get at(): { file: string; model: string; line: number } {
    return this.atKey();
  }

  /** The same, at the line of a key path of the diff (`row_delta`, `metrics` + a metric): its deepest step the diff has, else the first line. */
  atKey(...path: string[]): { file: string; model: string; line: number } {
    return { file: this.file.path, model: this.file.model, line: path.length === 0 ? 1 : lineAt(this.file.parsed, path) };
  }

  /** The model the diff names, when the project declares it. */
  get model(): Model | undefined {
    return this.file.model === "" ? undefined : this.run.project.models.get(this.file.model);
  }

  /** The diff, its model, spec and pre-registration, typed; null unless C0 blocked nothing. */
  measured(): Measured | null {
    const model = this.model;
    if (!this.contractHeld || !model || !isMapping(model.spec) || !isMapping(model.preRegistration)) return null;
    return {
      diff: this.file.value as unknown as Diff,
      model,
      spec: model.spec as unknown as Spec,
      preRegistration: model.preRegistration as unknown as PreRegistration,
    };
  }

  /** The raw parsed diff, for the contract rule. */
  get value(): Mapping {
    return this.file.value;
  }
}

/** A rule judged once per diff (C0-C6, I2). */
export const defineCompareRule = ruleDefiner<DiffContext>("compare");
/** A rule judged once per run, after every diff (C7). */
export const defineCompareRunRule = ruleDefiner<CompareContext>("compare");
