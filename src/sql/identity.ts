/**
 * What removes a person's identity from a value, as data: the functions and
 * operators whose result keeps nothing of the value a person could be
 * recognised or joined by. Read by the column lineage (column-lineage.ts) and
 * by S6's docs, apart from the lineage so check loads only these lists.
 */

/**
 * Functions whose result keeps nothing of a person's value: counts. A
 * min/max/any_value/string_agg/array_agg/first/last returns one of the
 * values; sum/avg over a group of one is the value; a hash (md5, sha2,
 * hash, farm_fingerprint) is still a key that joins back to the person: all
 * of those keep identity, as does every scalar function not listed here.
 */
export const IDENTITY_REMOVING_FUNCTIONS: readonly string[] = [
  "approx_count_distinct",
  "approx_distinct",
  "count",
  "count_big",
  "count_if",
  "countif",
  "hll_count_distinct",
];

/** Functions that answer a yes/no question about a value (one bit of it, not the value). */
export const BOOLEAN_TEST_FUNCTIONS: readonly string[] = [
  "contains",
  "ends_with",
  "endswith",
  "is_nan",
  "isnan",
  "regexp_contains",
  "regexp_full_match",
  "regexp_like",
  "regexp_matches",
  "starts_with",
  "startswith",
];

/** Operators whose result is a boolean: comparisons, pattern matches, null and membership tests, logic. */
export const BOOLEAN_TEST_OPERATORS: readonly string[] = [
  "=",
  "==",
  "!=",
  "<>",
  "<",
  "<=",
  ">",
  ">=",
  "<=>",
  "~",
  "~*",
  "!~",
  "!~*",
  "@>",
  "<@",
  "&&",
  "and",
  "or",
  "xor",
  "is",
  "is not",
  "is distinct from",
  "is not distinct from",
  "like",
  "not like",
  "ilike",
  "not ilike",
  "similar to",
  "not similar to",
  "rlike",
  "regexp",
  "in",
  "not in",
  "glob",
];
