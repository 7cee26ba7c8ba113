/**
 * The tests of a model the known edges do not list, for `slp review`: its
 * unit tests that name no edge of the spec (or one the spec does not have),
 * and the data tests declared on it and its columns, each with what it
 * asserts in a sentence, so the reviewer reads every test beside the edges.
 */
import { displayValue } from "../core/display.ts";
import { collapseWhitespace } from "../core/text.ts";
import { isMapping, isStringList, pythonStr, type Mapping, type Value } from "../core/values.ts";
import { cannotFailReason, DEAD_KEYS, type DataTest } from "../project/dbt/data-tests.ts";
import type { CheckContext, Model } from "../rules/context/check.ts";
import { edgeClaim, rowCount } from "../rules/shared/unit-gaps.ts";
import type { ReviewOtherTests } from "../schemas/review.ts";

export function otherTestsOf(
  model: Model,
  context: CheckContext,
  status: ReadonlyMap<string, "pass" | "fail" | "error">,
): ReviewOtherTests {
  const spec = context.spec(model);
  const edges = new Set(spec && isStringList(spec.known_edges) ? spec.known_edges.map(collapseWhitespace) : []);
  const unit = context
    .unitTestsOf(model.name)
    .filter((test) => {
      const claim = edgeClaim(test);
      return claim === null || !edges.has(claim);
    })
    .map((test) => ({
      name: test.name,
      file: test.file,
      status: status.get(`${model.name}::${test.name}`) ?? ("not run" as const),
      edge: edgeClaim(test),
      given: (Array.isArray(test.entry.given) ? test.entry.given : [])
        .filter(isMapping)
        .map((item) => `${pythonStr(item.input ?? "")}: ${rows(item)}`),
      expect: rows(isMapping(test.entry.expect) ? test.entry.expect : {}),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const data = model.tests.map((test) => {
    // A where clause hides rows from the test: said beside what it asserts, as the thresholds that keep it from failing are.
    const reason = cannotFailReason(test.config, DEAD_KEYS);
    return {
      name: test.name,
      column: test.column === "" ? null : test.column,
      arguments: displayValue(test.args),
      asserts: `${assertion(test)}${typeof test.config.where === "string" ? `, on the rows where ${test.config.where}` : ""}`,
      cannot_fail: reason === "" ? null : reason,
      line: test.line,
    };
  });
  return { unit, data };
}

function rows(item: Mapping): string {
  const count = rowCount(item.rows);
  return `${count} ${count === "1" ? "row" : "rows"}`;
}

/** What a data test asserts, for the tests dbt and its common packages ship; any other by its name and arguments. */
function assertion(test: DataTest): string {
  const column = test.column !== "" ? test.column : typeof test.args.column_name === "string" ? test.args.column_name : null;
  const on = column ?? "the model";
  const arg = (key: string): Value | undefined => test.args[key];
  const shown = (key: string) => displayValue(arg(key) ?? null);
  const bare = test.name.replace(/^(dbt_utils|dbt_expectations|dbt)\./, "");
  switch (test.name) {
    case "unique":
      return `no two rows share a value of ${on}`;
    case "not_null":
      return `${on} is never null`;
    case "accepted_values":
      return `${on} only takes the values ${shown("values")} (null excepted)`;
    case "relationships":
      return `every ${on} is found in ${shown("to")} as ${shown("field")} (null excepted)`;
  }
  switch (bare) {
    case "unique_combination_of_columns":
      return `no two rows share a combination of ${shown("combination_of_columns")}`;
    case "expression_is_true":
      return `every row satisfies ${column ? `${column} ` : ""}${shown("expression")}`;
    case "accepted_range":
      return `${on} lies ${arg("inclusive") === false ? "strictly " : ""}within ${arg("min_value") === undefined ? "-infinity" : shown("min_value")}..${arg("max_value") === undefined ? "infinity" : shown("max_value")}`;
    case "not_null_proportion":
      return `at least ${shown("at_least")} of ${on} is not null`;
    case "expect_column_values_to_be_between":
      return `${on} lies between ${shown("min_value")} and ${shown("max_value")}`;
    case "expect_column_values_to_not_be_null":
      return `${on} is never null`;
    case "expect_column_values_to_be_unique":
      return `no two rows share a value of ${on}`;
    case "expect_column_values_to_be_in_set":
      return `${on} only takes the values ${shown("value_set")}`;
  }
  const args = Object.keys(test.args).filter((key) => key !== "column_name");
  const written = args.length === 0 ? "no arguments" : args.map((key) => `${key}: ${shown(key)}`).join(", ");
  return `${test.name} holds on ${on} (${written})`;
}
