/**
 * The checks a dbt adapter makes of a unit test's fixture rows before its
 * warehouse sees them, reproduced where that adapter would raise them, so a
 * test errors under slp as it errors under dbt (naming the fixture). dbt
 * renders each dict or csv input with get_fixture_sql, which calls the
 * adapter's dispatch of validate_fixture_rows(rows, row_number)
 * (dbt-adapters, include/global_project/macros/unit_test_sql/get_fixture_sql.sql):
 * default__validate_fixture_rows checks nothing, and of the adapters slp
 * translates only dbt-redshift overrides it. A rule is data (what it checks,
 * the adapter's message, where it is written) and one check per kind here.
 */
import type { Value } from "../../core/values.ts";
import type { Dialect } from "./dialects.ts";

/** One kind of check an adapter makes, with the adapter's own message and where it comes from. */
export interface FixtureRule {
  /** The kind of check: `a-row-free-of-nulls` (some row gives every column it names a value). */
  kind: "a-row-free-of-nulls";
  /** The adapter macro that raises it. */
  macro: string;
  /** The adapter's message; `{fixture}` is the input's name in quotes, `{model}` its name. */
  message: string;
  /** Where the rule is written (source or documentation). */
  source: string;
  /** Why dbt has it, for the docs page. */
  why: string;
}

/** A fixture as a rule reads it: the input's node name (dbt's fixture model is named after it), its format and its rows as given. */
export interface FixtureToCheck {
  name: string;
  format: "dict" | "csv";
  rows: Record<string, Value>[];
}

/**
 * dbt-redshift: a fixture with rows none of which is free of nulls is a
 * compiler error. dbt-core first moves the first row with no None value to
 * the top (UnitTestParser._promote_first_non_none_row, for dict and csv
 * fixtures, an empty csv value read as None), and redshift__validate_fixture_rows
 * raises when the first row still has one: Redshift types a column whose first
 * value is NULL as VARCHAR(1). A column a dict row does not name is no None
 * in that row (dbt fills it later from the column's typed NULL).
 */
export const REDSHIFT_ROW_FREE_OF_NULLS: FixtureRule = {
  kind: "a-row-free-of-nulls",
  macro: "redshift__validate_fixture_rows",
  message:
    "Unit test fixture {fixture} in {model} does not have any row free of null values, which may cause type mismatch errors during unit test execution.",
  source: "https://github.com/dbt-labs/dbt-adapters/blob/main/dbt-redshift/src/dbt/include/redshift/macros/adapters/unit_testing.sql",
  why: "Redshift types a column of a UNION ALL of SELECTs by its first value, and a first NULL as VARCHAR(1)",
};

/** The adapter's error for a fixture that breaks one of `rules`, or null when it keeps them all. */
export function fixtureRuleError(rules: readonly FixtureRule[], fixture: FixtureToCheck): string | null {
  for (const rule of rules) {
    if (rule.kind === "a-row-free-of-nulls") {
      if (fixture.rows.length === 0) continue;
      const free = fixture.rows.some((row) => Object.values(row).every((value) => value !== null && value !== undefined));
      if (!free) return rule.message.replaceAll("{fixture}", `'${fixture.name}'`).replaceAll("{model}", fixture.name);
    }
  }
  return null;
}

/** Each dialect's fixture rules: dbt-redshift's; BigQuery, Snowflake, Databricks, Spark and Postgres dispatch to default__validate_fixture_rows, which checks nothing. */
const FIXTURE_RULES: Record<Dialect, readonly FixtureRule[]> = {
  bigquery: [],
  databricks: [],
  duckdb: [],
  postgres: [],
  redshift: [REDSHIFT_ROW_FREE_OF_NULLS],
  snowflake: [],
  spark: [],
};

export function fixtureRulesOf(dialect: Dialect): readonly FixtureRule[] {
  return FIXTURE_RULES[dialect];
}
