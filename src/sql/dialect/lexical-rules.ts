/**
 * How a warehouse reads the text of its SQL before any function is
 * translated: the facts of its lexical layer, one entry per warehouse
 * (warehouses/<name>.ts), read by the rewrites that depend on them.
 */

/**
 * What a backslash before a character other than _, % or itself means in a
 * LIKE pattern: `itself` that character (Postgres, Redshift: as DuckDB reads
 * it), `error` an error (Databricks: "It is invalid to escape any other
 * character"), `unverified` not documented (BigQuery documents escaping \, _
 * and % only).
 */
export type OtherEscape = "itself" | "error" | "unverified";

export interface LexicalRules {
  /**
   * LIKE and ILIKE's default escape: the backslash, with what it means before
   * another character, or null where the warehouse has none unless `ESCAPE`
   * is written (Snowflake, as DuckDB).
   */
  likeEscape: OtherEscape | null;
  /** The character that quotes an identifier. */
  identifierQuote: '"' | "`";
}
