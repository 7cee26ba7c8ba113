/**
 * The run as one report in Stryker's mutation-testing-report schema (v2),
 * which Stryker's own HTML report, its dashboard and other tools read: one
 * file entry per model with the model's .sql as the source, each mutant at
 * its place in that file, the unit tests as test files. Verdicts map to
 * Stryker's states: rejected is CompileError, equivalent and not_run are
 * Ignored with the reason. No durations, so the same run gives the same bytes.
 */
import { VERSION } from "../version.ts";
import type { ModelRun } from "./run.ts";

const STATUS = {
  killed: "Killed",
  survived: "Survived",
  equivalent: "Ignored",
  rejected: "CompileError",
  timeout: "Timeout",
  not_run: "Ignored",
} as const;

export function strykerReport(models: readonly ModelRun[], thresholds: { high: number; low: number }): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  const testFiles: Record<string, { tests: { id: string; name: string; location?: { start: { line: number; column: number } } }[] }> = {};
  for (const model of models) {
    const testId = (name: string) => model.tests.find((test) => test.name === name)?.id ?? name;
    files[model.file] = {
      language: "sql",
      source: model.source,
      mutants: model.mutants.map((mutant) => ({
        id: `${model.model}:${mutant.id}`,
        mutatorName: mutant.operatorName,
        replacement: mutant.replacement,
        description: `${mutant.original} -> ${mutant.replacement}`,
        location: { start: { line: mutant.line, column: mutant.column }, end: { line: mutant.endLine, column: mutant.endColumn } },
        status: STATUS[mutant.verdict],
        ...(mutant.verdict === "not_run"
          ? { statusReason: "not run: the time budget ran out" }
          : mutant.reason
            ? { statusReason: mutant.reason }
            : {}),
        coveredBy: mutant.ranBy.map(testId),
        killedBy: mutant.caughtBy.map(testId),
        testsCompleted: mutant.ranBy.length,
      })),
    };
    for (const test of model.tests) {
      const file = (testFiles[test.file] ??= { tests: [] });
      file.tests.push({
        id: test.id,
        name: `${model.model}::${test.name}`,
        ...(test.line ? { location: { start: { line: test.line, column: 1 } } } : {}),
      });
    }
  }
  return {
    schemaVersion: "2",
    thresholds,
    files,
    testFiles,
    framework: { name: "slp mutate", version: VERSION },
  };
}
