/**
 * The checks a dbt adapter makes of a unit test's fixture rows before its
 * warehouse sees them, reproduced where that adapter would raise them, so a
 * test errors under slp as it errors under dbt (naming the fixture). dbt
 * renders each dict or csv input with get_fixture_sql, which calls the
 * adapter's dispatch of validate_fixture_rows(rows, row_number)
 * (dbt-adapters, include/global_project/macros/unit_test_sql/get_fixture_sql.sql):
 * default__validate_fixture_rows checks nothing, and of the adapters slp
 * translates only dbt-redshift overrides it. Each warehouse lists its rules
 * in its file (`fixtureRules`, warehouses/<name>.ts); the unit runner applies
 * them (src/unit/fixtures.ts).
 */
import type { FixtureRule, FixtureToCheck } from "./define.ts";

/**
 * dbt-redshift: a fixture with rows none of which is free of nulls is a
 * compiler error. dbt-core first moves the first row with no None value to
 * the top (UnitTestParser._promote_first_non_none_row, for dict and csv
 * fixtures, an empty csv value read as None), and redshift__validate_fixture_rows
 * raises when the first row still has one: Redshift types a column of a UNION
 * ALL of SELECTs by its first value, and a first NULL as VARCHAR(1). A column
 * a dict row does not name is no None in that row (dbt fills it later with
 * the column's typed NULL); a format: sql fixture is not checked.
 */
export const REDSHIFT_ROW_FREE_OF_NULLS: FixtureRule = {
  name: "a-row-free-of-nulls",
  macro: "redshift__validate_fixture_rows",
  source: "https://github.com/dbt-labs/dbt-redshift/blob/main/dbt/include/redshift/macros/adapters/unit_testing.sql",
  check(fixture) {
    if (fixture.rows.length === 0) return null;
    const free = fixture.rows.some((row) => Object.values(row).every((value) => value !== null && value !== undefined));
    return free
      ? null
      : `Unit test fixture '${fixture.name}' in ${fixture.name} does not have any row free of null values, which may cause type mismatch errors during unit test execution.`;
  },
};

/** The adapter's error for a fixture that breaks one of `rules` (the first), or null when it keeps them all. */
export function fixtureRuleError(rules: readonly FixtureRule[], fixture: FixtureToCheck): string | null {
  for (const rule of rules) {
    const error = rule.check(fixture);
    if (error !== null) return error;
  }
  return null;
}
