/**
 * What a check rule sees: the project model read the way check reads it
 * (spec/rules.md §1.1: every yml under the marts paths' top folders, in path
 * segment order, a model declared twice refused; the `.sql` under the marts
 * paths), with lazy, memoized accessors, so a rule that never asks for
 * CODEOWNERS or a `.sql` never reads one.
 */
import { InputError } from "../../core/errors.ts";
import { compareCodePoints } from "../../core/text.ts";
import { isMapping, type Mapping } from "../../core/values.ts";
import { readCodeowners, type Codeowners } from "../../project/slp/codeowners.ts";
import type { ModelDeclaration, Project, UnitTestDeclaration } from "../../project/model.ts";
import { ymlIn } from "../../project/nodes/context.ts";
import { refuseDuplicateUnitTests, unitTestConfig } from "../../project/nodes/unit-tests.ts";
import type { WorkTree } from "../../project/files/source.ts";
import { sortPathsBySegments, stem, topDirectories } from "../../project/files/paths.ts";
import { unitTestDisabled } from "../../project/dbt/data-tests.ts";
import { ruleDefiner } from "../define-rule.ts";
import type { LineageEnvironment } from "../shared/sensitive-lineage.ts";

/** A model as check reads it: its yml declaration. */
export type Model = ModelDeclaration;

export type UnitTest = UnitTestDeclaration;

/** The project as check and compare read it. */
export interface CheckProject {
  /** The model it was read from (its files, settings, nodes): check and compare read the work tree, never git. */
  model: Project<WorkTree>;
  /** Absolute project directory. */
  dir: string;
  /** The project directory as the user gave it, for messages. */
  dirAsGiven: string;
  /** Normalised marts paths (trailing slash), in the order given, duplicates kept. */
  martsPaths: string[];
  /** Every yml read, in read order (path segments). */
  ymlFiles: string[];
  /** Every model, by name. */
  models: Map<string, Model>;
  /** The names of the marts models: under a marts path by their yml, or a marts `.sql` carries the name. */
  marts: Set<string>;
  /** Unit tests in read order. */
  unitTests: UnitTest[];
  /** The unit tests their config disables (their own `config: {enabled: false}`, or a `unit_tests:` folder config): dbt skips them, so they prove nothing. */
  disabledUnitTests?: ReadonlySet<UnitTest>;
  /** Stem -> project-relative path of each `.sql` under a marts path (the later in segment order wins). */
  martsSql: Map<string, string>;
  /** What sensitive-column lineage needs to render the models (set by the commands that judge it); without it, no lineage is read. */
  lineage?: LineageEnvironment;
}

/**
 * Reads the project as check does: dbt_project.yml first (its folders must
 * make sense), then every yml under the top folders in segment order; a
 * model declared twice is refused, naming the file read first.
 */
export async function readCheckProject(
  model: Project<WorkTree>,
  dir: string,
  dirAsGiven: string,
  martsPaths: string[],
): Promise<CheckProject> {
  const settings = await model.settings();
  const listed = await model.list(topDirectories(martsPaths));
  const martsSql = new Map<string, string>();
  const sql = listed.filter((file) => file.path.endsWith(".sql") && martsPaths.some((marts) => file.path.startsWith(marts)));
  for (const path of sortPathsBySegments(sql.map((file) => file.path))) martsSql.set(stem(path), path);
  const ymlFiles = sortPathsBySegments(ymlIn(listed).map((file) => file.path));
  const project: CheckProject = {
    model,
    dir,
    dirAsGiven,
    martsPaths,
    ymlFiles,
    models: new Map(),
    marts: new Set(),
    unitTests: [],
    martsSql,
  };
  for (const path of ymlFiles) {
    // One after the other: the first file in read order that cannot be read is the one named.
    const declared = await model.properties({ path });
    for (const declaration of declared.models) {
      const earlier = project.models.get(declaration.name);
      if (earlier) {
        throw new InputError(`model ${declaration.name} is declared twice: ${earlier.file} and ${declaration.file}`, {
          file: declaration.file,
          line: declaration.line,
          fix: "keep one declaration of each model",
        });
      }
      project.models.set(declaration.name, declaration);
      if (martsPaths.some((marts) => declaration.file.startsWith(marts)) || martsSql.has(declaration.name))
        project.marts.add(declaration.name);
    }
    project.unitTests.push(...declared.unitTests);
  }
  refuseDuplicateUnitTests(project.unitTests, settings);
  project.disabledUnitTests = new Set(project.unitTests.filter((unit) => unitTestConfig(settings, unit).enabled === false));
  model.store.save();
  return project;
}

export class CheckContext {
  readonly project: CheckProject;
  #models?: Model[];
  #unitTests?: Map<string, { enabled: UnitTest[]; disabled: UnitTest[] }>;
  #codeowners?: Codeowners | null;
  readonly #texts = new Map<string, string>();

  constructor(project: CheckProject) {
    this.project = project;
  }

  /** Every model, sorted by name. */
  get models(): Model[] {
    this.#models ??= [...this.project.models.values()].sort((a, b) => compareCodePoints(a.name, b.name));
    return this.#models;
  }

  /** Marts models, sorted by name. */
  get martsModels(): Model[] {
    return this.models.filter((model) => this.isMarts(model));
  }

  /** Under a marts path by its yml, or a marts `.sql` carries its name. */
  isMarts(model: Model): boolean {
    return this.project.marts.has(model.name);
  }

  /**
   * The unit tests whose `model` is this model's name, in read order: the ones
   * that run. A test disabled by its config proves nothing (slp unit skips it).
   */
  unitTestsOf(model: string): UnitTest[] {
    return this.#unitTestsByModel(model).enabled;
  }

  /** The unit tests of this model that their config (or a folder config) disables, in read order. */
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
        // Disabled by its own config or by a unit_tests: folder config in dbt_project.yml, as the project model reads them.
        const disabled = this.project.disabledUnitTests ? this.project.disabledUnitTests.has(unit) : unitTestDisabled(unit.entry);
        (disabled ? lists.disabled : lists.enabled).push(unit);
      }
    }
    return this.#unitTests.get(model) ?? { enabled: [], disabled: [] };
  }

  /** The project's CODEOWNERS as GitHub finds it (at the repository root), or null. */
  codeowners(): Codeowners | null {
    if (this.#codeowners === undefined) this.#codeowners = readCodeowners(this.project.dir);
    return this.#codeowners;
  }

  /** A project-relative path exists (file or folder). */
  exists(path: string): boolean {
    return this.project.model.source.existsSync(path);
  }

  /** The text of a project file, read once. */
  text(path: string): string {
    let text = this.#texts.get(path);
    if (text === undefined) {
      text = this.project.model.source.readText(path);
      this.#texts.set(path, text);
    }
    return text;
  }

  /** Where a finding about the model points: its yml, its entry's line (or a key inside it). */
  at(model: Model, path?: readonly (string | number)[]): { file: string; model: string; line: number } {
    return { file: model.file, model: model.name, line: path ? model.lineOf(path) : model.line };
  }

  /** The model's spec when it is a mapping, else null. */
  spec(model: Model): Mapping | null {
    return isMapping(model.spec) ? model.spec : null;
  }
}

export const defineCheckRule = ruleDefiner<CheckContext>("check");
