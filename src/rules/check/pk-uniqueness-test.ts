/** T1: the spec's primary key has no uniqueness test that can fail. */
import { isStringList, type Value } from "../../core/values.ts";
import { cannotFailReason, MUTE_KEYS, type DataTest } from "../../project/tests.ts";
import { defineCheckRule } from "../context/check.ts";

const COMBINATION_TESTS = new Set(["unique_combination_of_columns", "dbt_utils.unique_combination_of_columns"]);

export default defineCheckRule({
  code: "T1",
  name: "pk-uniqueness-test",
  severity: "BLOCK",
  docs: {
    summary: "A marts model whose spec's primary_key has no uniqueness test that can fail the build.",
    rationale:
      "The grain is the spec's most important promise; a duplicated key silently doubles every metric, and a test that is disabled, warns, or filters rows cannot catch it.",
    enforces: "Rule 2: a uniqueness test on the spec's primary_key (Stage D: uniqueness test of the spec's primary_key).",
  },
  messages: {
    missing:
      "no uniqueness test on primary key [{key}]; accepted forms: unique, unique_combination_of_columns, dbt_utils.unique_combination_of_columns",
    cannotFail: "the uniqueness test on primary key [{key}] cannot fail the build: {reason}",
  },
  run(ctx, report) {
    for (const model of ctx.martsModels) {
      const key = ctx.spec(model)?.primary_key;
      if (!isStringList(key) || key.length === 0) continue;
      const matches = model.tests.filter((test) => coversKey(test, key));
      if (matches.some((test) => cannotFailReason(test.config, MUTE_KEYS) === "")) continue;
      const first = matches[0];
      if (first) report("cannotFail", { ...ctx.at(model), line: first.line }, { key: key.join(", "), reason: cannotFailReason(first.config, MUTE_KEYS) });
      else report("missing", ctx.at(model, [...model.specKey, "primary_key"]), { key: key.join(", ") });
    }
  },
});

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

