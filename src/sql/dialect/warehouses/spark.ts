/** Apache Spark (dbt-spark) runs with ANSI mode off, its 3.x default: Databricks SQL but for what ANSI mode changes. */
import { ex, type Construct } from "../construct.ts";
import { defineDialect } from "../define.ts";
import databricks, { makeDate, sparkCasts } from "./databricks.ts";

/** Apache Spark's function reference, for what Spark documents itself. */
const SPARK_FUNCTIONS = "https://spark.apache.org/docs/latest/api/sql/index.html#size";

/** What differs from Databricks SQL. */
const SPARK_OWN: Construct[] = [
  ...sparkCasts(false),
  makeDate(false),
  ...["size", "cardinality"].map((name): Construct => ({
    name,
    how: "corrected",
    note: "-1 for NULL (spark.sql.legacy.sizeOfNull, on without ANSI mode)",
    rewrite: (call) => `coalesce(size(${call.args.join(", ")}), -1)`,
    examples: [ex(`select ${name}(array('b', 'd', 'c', 'a'))`, ["4"], SPARK_FUNCTIONS), ex(`select ${name}(cast(null as array<int>))`, ["-1"], SPARK_FUNCTIONS)],
  })),
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
