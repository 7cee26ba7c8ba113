/** Whether a model's primary key has a uniqueness test that can fail: T1 judges it, review reports it. */
import type { Value } from "../../core/values.ts";
import type { ModelDeclaration as Model } from "../../project/dbt/properties.ts";
import { cannotFailReason, MUTE_KEYS, type DataTest } from "../../project/dbt/data-tests.ts";

const COMBINATION_TESTS = new Set(["unique_combination_of_columns", "dbt_utils.unique_combination_of_columns"]);

export interface KeyUniqueness {
  /** The uniqueness tests on exactly this key, in the order of spec/rules.md §1.1. */
  matches: DataTest[];
  /** Some matching test can fail the build. */
  canFail: boolean;
  /** Why the first matching test cannot fail ("" when one can, or none matches). */
  reason: string;
}

export function keyUniqueness(model: Model, key: string[]): KeyUniqueness {
  const matches = model.tests.filter((test) => coversKey(test, key));
  const canFail = matches.some((test) => cannotFailReason(test.config, MUTE_KEYS) === "");
  const first = matches[0];
  return { matches, canFail, reason: canFail || !first ? "" : cannotFailReason(first.config, MUTE_KEYS) };
}

/** `unique` on the key's only column, or a combination test whose columns are the key's, as sets. */
function coversKey(test: DataTest, key: string[]): boolean {
  if (test.name === "unique") {
    const column: Value | undefined = test.column !== "" ? test.column : test.args.column_name;
    return key.length === 1 && column === key[0];
  }
  if (COMBINATION_TESTS.has(test.name)) {
    const columns = test.args.combination_of_columns;
    if (!Array.isArray(columns)) return false;
    const a = new Set<Value>(columns);
    const b = new Set<Value>(key);
    return a.size === b.size && [...a].every((column) => b.has(column));
  }
  return false;
}
