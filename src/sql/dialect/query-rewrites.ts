/**
 * Rewrites of a query's clauses on the transpiler's syntax tree, where
 * BigQuery's grammar reaches DuckDB in a form DuckDB's parser rejects:
 * `LEFT JOIN UNNEST(...)` without ON, and `FULL UNION ALL BY NAME`.
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

/** The rewrite of one node of the syntax tree (transpiler.ts rewriteTree), or undefined to keep it. */
export function queryRewrite(node: TreeNode): TreeNode | undefined {
  return leftJoinUnnest(node) ?? byName(node);
}
