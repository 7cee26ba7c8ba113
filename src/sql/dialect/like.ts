/**
 * LIKE and ILIKE with the warehouse's escape character. DuckDB's LIKE has
 * none unless the query names one; BigQuery, Databricks/Spark, Postgres and
 * Redshift escape with the backslash by default (Snowflake has no default,
 * as DuckDB), so `x like 'a\_%'` matches 'a_1' there and not in DuckDB
 * unless `ESCAPE '\'` is written (each warehouse's `lexical.likeEscape`). Quantified LIKE ANY / ALL (p1, p2, ...)
 * is written out as the ORs / ANDs of its patterns, each in parentheses.
 */
import type { Warehouse } from "./dialects.ts";
import type { OtherEscape } from "./lexical-rules.ts";
import type { TreeNode } from "./transpiler.ts";
import { warehouse } from "./warehouses/index.ts";

/** slp's macro that checks a pattern computed at run time the way the warehouse does. */
export const LIKE_PATTERN_MACRO = "__slp_like_pattern";

const string = (value: string): TreeNode => ({ literal: { literal_type: "string", value } });

/** Whether a pattern's backslashes are escapes the warehouse takes: none last, none before another character unless `itself`. */
function wellEscaped(pattern: string, other: OtherEscape): boolean {
  const rest = other === "itself" ? pattern.replace(/\\[\s\S]/g, "") : pattern.replace(/\\[\\_%]/g, "");
  return !rest.includes("\\");
}

function call(name: string, args: unknown[]): TreeNode {
  return {
    function: { name, args, distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
  };
}

/** The patterns of LIKE ANY / ALL: a list in parentheses, or (Postgres) ARRAY[...]; else null. */
function quantifiedPatterns(right: unknown): unknown[] | null {
  const node = right as { tuple?: { expressions?: unknown[] }; paren?: { this?: { array_func?: { expressions?: unknown[] } } } };
  return node.tuple?.expressions ?? node.paren?.this?.array_func?.expressions ?? null;
}

/**
 * The rewrite of one node of the syntax tree (transpiler.ts rewriteTree), or
 * undefined to keep it (`literalValue` gives the value of a literal translate.ts
 * carries as a placeholder): a LIKE or ILIKE without ESCAPE gets the warehouse's
 * escape character (its lexical rules); a literal pattern is read by its value, as
 * the warehouse reads the literal (lexer.ts wrote it in the transpiler's form,
 * and translate.ts checks the transpiler reads that value); a pattern computed at run time is checked by slp's macro
 * as the warehouse checks it; a quantified LIKE becomes its ORs or ANDs.
 */
export function likeRewrite(dialect: Warehouse, literalValue: (literal: string) => string = (literal) => literal) {
  const other = warehouse(dialect).lexical.likeEscape;
  return (node: TreeNode): TreeNode | undefined => {
    const [kind] = Object.keys(node);
    if (kind === "not") {
      const inner = (node.not as { this?: TreeNode }).this;
      const like = inner ? (inner.like ?? inner.i_like) : undefined;
      if ((like as { quantifier?: unknown } | undefined)?.quantifier)
        return {
          refuse:
            "NOT LIKE ANY / ALL: slp cannot tell `x NOT LIKE ALL (...)` (no pattern matches) from `NOT x LIKE ALL (...)` in the transpiler's reading; write the ANDs or ORs of NOT LIKE",
        };
      return undefined;
    }
    if (kind !== "like" && kind !== "i_like") return undefined;
    const like = node[kind] as { left: unknown; right: unknown; escape: unknown; quantifier: string | null };
    if (like.quantifier) {
      const patterns = quantifiedPatterns(like.right);
      const joiner = /^(any|some)$/i.test(like.quantifier) ? "or" : /^all$/i.test(like.quantifier) ? "and" : null;
      if (!patterns || patterns.length === 0 || !joiner)
        return { refuse: `LIKE ${like.quantifier}: slp has not verified it of anything but a list of patterns` };
      const each = patterns.map(
        (pattern): TreeNode => ({ paren: { this: { [kind]: { ...like, right: pattern, quantifier: null } }, trailing_comments: [] } }),
      );
      const joined = each.slice(1).reduce((left, right) => ({ [joiner]: { left, right } }), each[0] as TreeNode);
      return { paren: { this: joined, trailing_comments: [] } };
    }
    if (like.escape !== null || other === null) return undefined;
    const literal = (like.right as { literal?: { literal_type?: string; value?: string } }).literal;
    if (literal?.literal_type === "string" && typeof literal.value === "string") {
      const pattern = literalValue(literal.value);
      if (wellEscaped(pattern, other)) return { [kind]: { ...like, escape: string("\\") } };
      if (other === "unverified")
        return {
          refuse: `LIKE: the pattern '${pattern}' escapes a character other than \\, _ or %, or ends with a backslash: BigQuery documents escaping \\, _ and % only`,
        };
    }
    // A pattern computed at run time (or a literal the warehouse rejects) is checked when it runs, as the warehouse checks it.
    return { [kind]: { ...like, right: call(LIKE_PATTERN_MACRO, [like.right, string(other)]), escape: string("\\") } };
  };
}
