/**
 * The translate stage, the unit runner's one hook for a warehouse dialect:
 * before a test runs, its model's SQL (and any `format: sql` fixture or
 * expectation, written in the same dialect) is translated through
 * src/sql/dialect/, slp's DuckDB macros the translation calls are created
 * once per database, and a construct slp cannot translate is the test's
 * error, naming the construct, the dialect, the model, file and line. An
 * upstream's SQL read for its columns goes through the same translation.
 */
import type { Database } from "../engine/duckdb.ts";
import { readText } from "../project/files/source.ts";
import { divisionMacros } from "../sql/dialect/arithmetic.ts";
import { ParseCache } from "../project/files/cache.ts";
import { dialectMacros, macroStatements } from "../sql/dialect/macros.ts";
import type { Dialect, DialectChoice } from "../sql/dialect/dialects.ts";
import type { Untranslatable } from "../sql/dialect/translation.ts";
import { Translator } from "../sql/dialect/translator.ts";
import { renderedPlace } from "./sql-place.ts";
import type { TestError, TestPlan } from "./types.ts";

/**
 * The macros created (or being created) in each database, and the creation
 * under way: a database lent to several runs (gate --verify-commits runs
 * unit at every commit on one) has each macro created once, not once a run.
 */
const MACROS_OF = new WeakMap<Database, { created: Set<string>; creating: Promise<void> }>();

function macrosOf(database: Database): { created: Set<string>; creating: Promise<void> } {
  let state = MACROS_OF.get(database);
  if (!state) MACROS_OF.set(database, (state = { created: new Set(), creating: Promise.resolve() }));
  return state;
}

export class DialectRun {
  readonly #choice: DialectChoice;
  readonly #translator: Translator;
  readonly #projectDir: string;

  /** The warehouse dialect the models are written in. */
  get dialect(): DialectChoice["dialect"] {
    return this.#choice.dialect;
  }

  constructor(choice: DialectChoice, projectDir: string, env: Record<string, string | undefined>) {
    this.#choice = choice;
    this.#projectDir = projectDir;
    this.#translator = new Translator(choice.dialect as Exclude<Dialect, "duckdb">, projectDir, env);
  }

  /** The plan with its SQL as DuckDB runs it, or the error that stops the test. */
  async prepare(plan: TestPlan, database: Database, lane: number): Promise<{ plan: TestPlan } | { error: TestError }> {
    const model = await this.#translator.translate(plan.modelSql);
    if (!model.ok)
      return {
        error:
          (await this.#parseError(model.untranslatable, plan)) ?? this.#refusal(model.untranslatable, plan, plan.modelFile, plan.modelSql),
      };
    const macros = new Set(model.translation.macros);
    const fixtures = [];
    for (const fixture of plan.fixtures) {
      if (!fixture.fromSql) {
        fixtures.push(fixture);
        continue;
      }
      const translated = await this.#translator.translate(fixture.sql);
      if (!translated.ok)
        return {
          error: this.#refusal(translated.untranslatable, plan, plan.test.file, null, `the format: sql fixture of ${fixture.input}`),
        };
      for (const macro of translated.translation.macros) macros.add(macro);
      fixtures.push({ ...fixture, sql: translated.translation.sql });
    }
    let expectSql = plan.expectSql;
    if (expectSql !== null) {
      const translated = await this.#translator.translate(expectSql);
      if (!translated.ok)
        return { error: this.#refusal(translated.untranslatable, plan, plan.test.file, null, "the format: sql expectation") };
      for (const macro of translated.translation.macros) macros.add(macro);
      expectSql = translated.translation.sql;
    }
    await this.#macros(macros, database, lane);
    return { plan: { ...plan, modelSql: model.translation.sql, fixtures, expectSql } };
  }

  /**
   * Creates the macros every `/` of the dialect becomes, as soon as the
   * database is open: DuckDB's thread is idle while this one loads and
   * renders, and nearly every model divides. They are created as a model
   * that divides would create them (once, in order); a test waits for them
   * only when it needs macros itself. A failure here stops no other macro's
   * creation: a query that calls a macro that is not there says so itself.
   */
  prime(database: Database): void {
    const division = divisionMacros(this.#choice.dialect as Exclude<Dialect, "duckdb">);
    macrosOf(database).creating = this.#macros(new Set(["__slp_typed", division.value, division.type]), database, 0).catch(() => undefined);
  }

  /** Any SQL of the project's dialect (an upstream read for its columns) as DuckDB runs it, with the macros it calls created. */
  async translate(sql: string, database: Database): Promise<{ sql: string } | { error: string }> {
    const translated = await this.#translator.translate(sql);
    if (!translated.ok)
      return {
        error: `untranslatable: ${translated.untranslatable.construct} in ${this.#choice.dialect} SQL: ${translated.untranslatable.why}`,
      };
    await this.#macros(new Set(translated.translation.macros), database, 0);
    return { sql: translated.translation.sql };
  }

  /** A digest of every macro slp may create: what the types of SQL that calls them depend on. */
  get macroDigest(): string {
    return ParseCache.key(
      Object.entries(dialectMacros(this.#translator.dialect))
        .map(([name, definition]) => `${name}\0${definition.sql}`)
        .join("\0"),
    );
  }

  save(): void {
    this.#translator.save();
  }

  /** Creates slp's macros the SQL calls in the database, once each, in order (a macro after those it calls). */
  #macros(names: Set<string>, database: Database, lane: number): Promise<void> {
    const state = macrosOf(database);
    const statements = macroStatements(names, state.created, dialectMacros(this.#translator.dialect));
    state.creating = state.creating.then(async () => {
      await database.defineMacros(statements, lane);
    });
    return state.creating;
  }

  /**
   * The transpiler cannot read the model: where it stops in the model's
   * rendered SQL (asked again of that SQL as written, since the refusal may
   * come from a later pass over rewritten text whose lines moved), taken back
   * to the model's file; null when that SQL alone parses.
   */
  async #parseError(untranslatable: Untranslatable, plan: TestPlan): Promise<TestError | null> {
    const { dialect } = this.#choice;
    if (untranslatable.construct !== `${dialect} SQL` || !/cannot read it/.test(untranslatable.why)) return null;
    const { toDuckdb } = await import("../sql/dialect/transpiler.ts");
    const again = await toDuckdb(plan.modelSql, dialect as Exclude<Dialect, "duckdb">);
    if (again.ok) return null;
    // `Parse error at line L, column C: Expected X, got Y ('text') near [...]`: C is past the token it got.
    const parse = /^Parse error at line (\d+), column (\d+): ([\s\S]*)$/.exec(again.error);
    if (!parse) return null;
    const [, line, column, what] = parse as unknown as [string, string, string, string];
    const got = /\bgot [^(]*\('((?:[^']|'')*)'\)/.exec(what)?.[1] ?? "";
    const place = renderedPlace(
      plan.modelSql,
      { line: Number(line), column: Math.max(1, Number(column) - got.length) },
      { projectDir: this.#projectDir, file: plan.modelFile },
    );
    if (!place) return null;
    return {
      message: `the ${dialect} SQL of model ${plan.test.model} does not parse: ${what}`,
      file: plan.modelFile,
      line: place.line,
      column: place.column,
      fix: "fix the model's SQL there",
    };
  }

  #refusal(
    untranslatable: Untranslatable,
    plan: TestPlan,
    file: string,
    rendered: string | null,
    what = `model ${plan.test.model}`,
  ): TestError {
    const { dialect } = this.#choice;
    return {
      message: `untranslatable: ${untranslatable.construct} in ${dialect} SQL (${what}): ${untranslatable.why}`,
      file,
      line: rendered === null ? null : this.#line(file, untranslatable, rendered),
      fix: `rewrite it with constructs slp runs for ${dialect} (the README's dialect table), or set dialect: in slp.yml if the project is not written in ${dialect}`,
    };
  }

  /**
   * The construct's line in the model's own file: where its name first
   * appears there (the compiled SQL's lines move with Jinja), else the line
   * in the compiled SQL.
   */
  #line(file: string, untranslatable: Untranslatable, rendered: string): number | null {
    const word = untranslatable.construct.replace(/\(\)$/, "").split(/\s+/)[0]?.toLowerCase() ?? "";
    if (word !== "" && !/ sql$/i.test(untranslatable.construct)) {
      let text: string;
      try {
        text = readText(this.#projectDir, file);
      } catch {
        return untranslatable.line;
      }
      const lines = text.split("\n");
      const isWord = /^\w+$/.test(word);
      const index = lines.findIndex((line) => {
        const lower = line.toLowerCase();
        if (!isWord) return lower.includes(word);
        const at = lower.search(new RegExp(`(^|[^\\w.])${word}\\b`));
        return at >= 0;
      });
      if (index >= 0) return index + 1;
    }
    return untranslatable.line === null ? null : Math.min(untranslatable.line, rendered.split("\n").length);
  }
}
