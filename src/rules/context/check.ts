/**
 * What a check rule sees: the project read from the filesystem, with lazy,
 * memoized accessors, so a rule that never asks for CODEOWNERS or a `.sql`
 * never reads one.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { compareCodePoints } from "../../core/text.ts";
import { isMapping, type Mapping } from "../../core/values.ts";
import { readCodeowners, type Codeowners } from "../../project/codeowners.ts";
import { unitTestDisabled } from "../../project/tests.ts";
import { readText, type Model, type Project, type UnitTest } from "../../project/project.ts";
import { ruleDefiner } from "../define-rule.ts";

export class CheckContext {
  readonly project: Project;
  #models?: Model[];
  #unitTests?: Map<string, { enabled: UnitTest[]; disabled: UnitTest[] }>;
  #codeowners?: Codeowners | null;
  #sql = new Map<string, string>();

  constructor(project: Project) {
    this.project = project;
  }

  /** Every model, sorted by name. */
  get models(): Model[] {
    this.#models ??= [...this.project.models.values()].sort((a, b) => compareCodePoints(a.name, b.name));
    return this.#models;
  }

  /** Marts models, sorted by name. */
  get martsModels(): Model[] {
    return this.models.filter((model) => model.marts);
  }

  /**
   * The unit tests whose `model` is this model's name, in read order: the ones
   * that run. A test disabled by its config proves nothing (slp unit skips it).
   */
  unitTestsOf(model: string): UnitTest[] {
    return this.#unitTestsByModel(model).enabled;
  }

  /** The unit tests of this model that their config disables, in read order. */
  disabledUnitTestsOf(model: string): UnitTest[] {
    return this.#unitTestsByModel(model).disabled;
  }

  #unitTestsByModel(model: string): { enabled: UnitTest[]; disabled: UnitTest[] } {
    if (!this.#unitTests) {
      this.#unitTests = new Map();
      for (const unit of this.project.unitTests) {
        if (typeof unit.model !== "string") continue;
        let lists = this.#unitTests.get(unit.model);
        if (!lists) {
          lists = { enabled: [], disabled: [] };
          this.#unitTests.set(unit.model, lists);
        }
        (unitTestDisabled(unit.entry) ? lists.disabled : lists.enabled).push(unit);
      }
    }
    return this.#unitTests.get(model) ?? { enabled: [], disabled: [] };
  }

  /** The first CODEOWNERS of the three locations, or null. */
  codeowners(): Codeowners | null {
    if (this.#codeowners === undefined) this.#codeowners = readCodeowners(this.project.dir);
    return this.#codeowners;
  }

  /** A project-relative path exists (file or folder). */
  exists(path: string): boolean {
    return existsSync(join(this.project.dir, path));
  }

  /** The text of a project file, read once. */
  text(path: string): string {
    let text = this.#sql.get(path);
    if (text === undefined) {
      text = readText(this.project.dir, path);
      this.#sql.set(path, text);
    }
    return text;
  }

  /** The model's spec when it is a mapping, else null. */
  spec(model: Model): Mapping | null {
    return isMapping(model.spec) ? model.spec : null;
  }
}

export const defineCheckRule = ruleDefiner<CheckContext>("check");
