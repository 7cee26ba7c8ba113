/**
 * Rewrites of a query's clauses on the transpiler's syntax tree, where
 * BigQuery's grammar reaches DuckDB in a form DuckDB's parser rejects
 * (`LEFT JOIN UNNEST(...)` without ON, `FULL UNION ALL BY NAME`), and the
 * checks that keep PIVOT and UNPIVOT to the forms whose columns DuckDB names
 * and fills as BigQuery does.
 */
import type { TreeNode } from "./transpiler.ts";

interface Join {
  this: unknown;
  on: unknown;
  using: unknown[];
  kind: string;
}

/** The UNNEST a join reads (aliased or not), or null. */
function joinsUnnest(join: Join): boolean {
  const target = join.this as { unnest?: unknown; alias?: { this?: { unnest?: unknown } } };
  return target.unnest !== undefined || target.alias?.this?.unnest !== undefined;
}

/**
 * BigQuery's `LEFT JOIN UNNEST(t.list)` takes no ON: each row of t meets each
 * element, and a row whose array is empty or NULL is kept once with NULL.
 * DuckDB's LEFT JOIN needs a condition; with `ON true` it gives the same rows.
 */
function leftJoinUnnest(node: TreeNode): TreeNode | undefined {
  const select = node.select as { joins?: Join[] } | undefined;
  const joins = select?.joins;
  if (!joins?.some((join) => join.kind === "Left" && join.on === null && join.using.length === 0 && joinsUnnest(join))) return undefined;
  return {
    select: {
      ...select,
      joins: joins.map((join) =>
        join.kind === "Left" && join.on === null && join.using.length === 0 && joinsUnnest(join)
          ? { ...join, on: { boolean: { value: true } } }
          : join,
      ),
    },
  };
}

/**
 * A set operation BY NAME: BigQuery's FULL mode (every column of both sides,
 * NULL where a side has none, the left side's columns first) is DuckDB's
 * UNION [ALL] BY NAME; the other modes (columns in both, the left side's, the
 * same columns required) are refused by name.
 */
function byName(node: TreeNode): TreeNode | undefined {
  const [kind] = Object.keys(node);
  if (kind !== "union" && kind !== "intersect" && kind !== "except") return undefined;
  const operation = node[kind] as {
    by_name?: boolean;
    side?: string | null;
    kind?: string | null;
    corresponding?: boolean;
    strict?: boolean;
    on?: unknown;
  };
  if (operation.corresponding)
    return { refuse: `${kind.toUpperCase()} CORRESPONDING: slp has not verified BigQuery's CORRESPONDING against DuckDB's BY NAME` };
  if (!operation.by_name) return undefined;
  const plain = !operation.corresponding && !operation.strict && (operation.on ?? null) === null;
  // FULL [OUTER]: the transpiler holds OUTER as the operation's kind.
  if (kind === "union" && operation.side === "FULL" && (operation.kind ?? "OUTER") === "OUTER" && plain) {
    const { side: _side, kind: _kind, ...rest } = operation;
    return { [kind]: rest };
  }
  const mode = [operation.side, operation.kind].filter(Boolean).join(" ") || "without a mode";
  return {
    refuse: `${kind.toUpperCase()} BY NAME ${mode}: slp runs BigQuery's FULL UNION [ALL] BY NAME only (DuckDB's UNION BY NAME)`,
  };
}

const isString = (node: unknown) => (node as { literal?: { literal_type?: string } }).literal?.literal_type === "string";

/**
 * PIVOT and UNPIVOT in a SELECT's FROM, checked. PIVOT: one aggregate without
 * an alias (BigQuery names an aliased one's columns alias_value, DuckDB
 * value_alias) over one FOR column, its values string literals or aliased
 * (BigQuery names an integer's column _1); the columns not named are the
 * groups, first, in both. UNPIVOT: one value column (which rows BigQuery's
 * EXCLUDE NULLS drops for several slp has not verified), the names plain or
 * aliased by a string; under a SELECT that names its columns, as DuckDB puts
 * the name column before the value column where BigQuery puts it after.
 */
function pivots(node: TreeNode): TreeNode | undefined {
  const select = node.select as { expressions?: unknown[]; from?: { expressions?: unknown[] }; joins?: { this: unknown }[] } | undefined;
  if (!select) return undefined;
  const sources = [...(select.from?.expressions ?? []), ...(select.joins ?? []).map((join) => join.this)] as TreeNode[];
  for (const source of sources) {
    const pivot = source.pivot as { expressions: unknown[]; fields: unknown[]; unpivot?: boolean } | undefined;
    if (pivot && !pivot.unpivot) {
      const [aggregate] = pivot.expressions;
      const field = (pivot.fields[0] as { in?: { expressions?: unknown[] } } | undefined)?.in;
      if (pivot.expressions.length !== 1 || (aggregate as TreeNode).alias !== undefined)
        return { refuse: "PIVOT: slp runs one aggregate without an alias (BigQuery and DuckDB name an aliased one's columns differently)" };
      if (
        pivot.fields.length !== 1 ||
        !field?.expressions?.every(
          (value) => isString(value) || (value as TreeNode).alias !== undefined || (value as TreeNode).pivot_alias !== undefined,
        )
      )
        return { refuse: "PIVOT: slp runs FOR one column IN string literals or aliased values (BigQuery names an integer's column _1)" };
    }
    const unpivot = source.unpivot as { value_column_parenthesized?: boolean; columns?: unknown[] } | undefined;
    if (unpivot) {
      if (unpivot.value_column_parenthesized)
        return { refuse: "UNPIVOT: slp runs one value column (it has not verified which rows BigQuery's EXCLUDE NULLS drops for several)" };
      const named = (unpivot.columns ?? []).every((column) => {
        const aliased = (column as { pivot_alias?: { this: unknown; alias: unknown } }).pivot_alias;
        return aliased
          ? isString(aliased.alias) && (aliased.this as TreeNode).column !== undefined
          : (column as TreeNode).column !== undefined;
      });
      if (!named) return { refuse: "UNPIVOT: slp runs columns named plainly or aliased by a string" };
      if ((select.expressions ?? []).some((expression) => (expression as TreeNode).star !== undefined))
        return {
          refuse: "UNPIVOT: under SELECT * (DuckDB puts the name column before the value column, BigQuery after): name the columns",
        };
    }
  }
  return undefined;
}

/** The rewrite of one node of the syntax tree (transpiler.ts rewriteTree), or undefined to keep it. */
export function queryRewrite(node: TreeNode): TreeNode | undefined {
  return leftJoinUnnest(node) ?? byName(node) ?? pivots(node);
}
