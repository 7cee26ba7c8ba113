/** Apache Spark (dbt-spark) runs with ANSI mode off, its 3.x default: Databricks SQL but for what ANSI mode changes. */
import { ex, type Construct } from "../construct.ts";
import { defineDialect } from "../define.ts";
import { sparkNested } from "../nested.ts";
import databricks, { makeDate, sparkCasts } from "./databricks.ts";

/** What differs from Databricks SQL. */
const SPARK_OWN: Construct[] = [
  ...sparkCasts(false),
  makeDate(false),
  // Indexes past the end are NULL and size(NULL) is -1 without ANSI mode.
  ...sparkNested(false).filter((construct) => ["element_at", "[]", "size", "cardinality"].includes(construct.name)),
  {
    name: "/",
    how: "corrected",
    note: "as Databricks, but division by zero is NULL (ANSI mode off)",
    examples: [ex("select 3 / 2", ["1.5"], "https://spark.apache.org/docs/latest/api/sql/index.html#_10"), ex("select 1 / 0", [null], "https://spark.apache.org/docs/latest/sql-ref-ansi-compliance.html")],
  },
];

export default defineDialect({
  name: "spark",
  extends: databricks,
  transpiler: "spark",
  adapterInherits: [],
  constructs: SPARK_OWN,
  // Without ANSI mode, division by zero is NULL.
  division: { byZero: "null" },
});
