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
 * PIVOT and UNPIVOT in a SELECT's FROM, checked. PIVOT: FOR one column, its
 * values non-empty string literals or aliased (BigQuery names an integer's
 * column _1, the empty string's _empty_string_value);
 * the columns not named are the groups, first, in both. Aggregates: one
 * without an alias (its columns named by the values in both), or each with an
 * alias, whose columns BigQuery names alias_value (one aliased aggregate too:
 * sum_x_test in ZetaSQL's analyzer tests, pivot.test) where DuckDB names them
 * value_alias (both value by value, the aggregates in order): the PIVOT
 * becomes a subquery that renames them (pivotRenamed). Several aggregates
 * with one unaliased BigQuery rejects. UNPIVOT: one value column, or several
 * with INCLUDE NULLS (which rows BigQuery's EXCLUDE NULLS drops for several is
 * not documented), the names plain or aliased by a string; under a SELECT that names its columns, as
 * DuckDB puts the name column before the value column where BigQuery puts it
 * after.
 */
function pivots(node: TreeNode): TreeNode | undefined {
  const select = node.select as { expressions?: unknown[]; from?: { expressions?: unknown[] }; joins?: { this: unknown }[] } | undefined;
  if (!select) return undefined;
  const sources = [...(select.from?.expressions ?? []), ...(select.joins ?? []).map((join) => join.this)] as TreeNode[];
  for (const source of sources) {
    const pivot = source.pivot as { expressions: unknown[]; fields: unknown[]; unpivot?: boolean } | undefined;
    if (pivot && !pivot.unpivot) {
      const field = (pivot.fields[0] as { in?: { expressions?: unknown[] } } | undefined)?.in;
      const values = (field?.expressions ?? []).map(pivotValueName);
      if (pivot.fields.length !== 1 || values.length === 0 || values.some((value) => value === null))
        return {
          refuse:
            "PIVOT: slp runs FOR one column IN non-empty string literals or aliased values (BigQuery names an integer's column _1, the empty string's _empty_string_value)",
        };
      const aliases = pivot.expressions.map((aggregate) => aggregateAlias(aggregate as TreeNode));
      if (aliases.every((alias) => alias === null)) {
        if (aliases.length !== 1) return { refuse: "PIVOT: several aggregates need an alias each (BigQuery names their columns by it)" };
        continue;
      }
      if (aliases.some((alias) => alias === null))
        return { refuse: "PIVOT: several aggregates need an alias each (BigQuery names their columns by it)" };
      if (renamesPivot(select.expressions ?? [], values as string[], aliases as string[])) continue;
      // The transpiler writes the names EXCEPT lists unquoted.
      if (pivotColumns(values as string[], aliases as string[]).some((column) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(column.duckdb)))
        return {
          refuse: "PIVOT: slp names the columns of aliased aggregates where each value and alias is a plain name (letters, digits, _)",
        };
      return pivotRenamed(node, source, values as string[], aliases as string[]);
    }
    const unpivot = source.unpivot as
      | { value_column_parenthesized?: boolean; include_nulls?: boolean | null; extra_value_columns?: unknown[]; columns?: unknown[] }
      | undefined;
    if (unpivot) {
      // Several value columns: with INCLUDE NULLS every set is a row in both; BigQuery documents EXCLUDE NULLS as
      // "do not add rows with NULL values", which leaves a set with some NULLs open (DuckDB drops it), so it stays refused.
      const width = unpivot.value_column_parenthesized ? 1 + (unpivot.extra_value_columns ?? []).length : 1;
      if (width > 1 && unpivot.include_nulls !== true)
        return {
          refuse:
            "UNPIVOT: with several value columns slp runs INCLUDE NULLS only (BigQuery's EXCLUDE NULLS of a set with some NULL values is not documented; DuckDB drops it)",
        };
      const isColumn = (node: unknown) =>
        width === 1
          ? (node as TreeNode).column !== undefined
          : ((node as { tuple?: { expressions?: unknown[] } }).tuple?.expressions ?? []).length === width &&
            ((node as { tuple: { expressions: unknown[] } }).tuple.expressions ?? []).every(
              (part) => (part as TreeNode).column !== undefined,
            );
      const named = (unpivot.columns ?? []).every((column) => {
        const aliased = (column as { pivot_alias?: { this: unknown; alias: unknown } }).pivot_alias;
        return aliased ? isString(aliased.alias) && isColumn(aliased.this) : isColumn(column);
      });
      if (!named)
        return {
          refuse: "UNPIVOT: slp runs columns named plainly or aliased by a string (for several value columns, sets of as many columns)",
        };
      if ((select.expressions ?? []).some((expression) => (expression as TreeNode).star !== undefined))
        return {
          refuse: "UNPIVOT: under SELECT * (DuckDB puts the name column before the value column, BigQuery after): name the columns",
        };
    }
  }
  return undefined;
}

/** The column name a PIVOT value gives (its alias, or a non-empty string literal's value), or null for a value BigQuery names otherwise. */
function pivotValueName(value: unknown): string | null {
  const node = value as {
    pivot_alias?: { alias: { column?: { name: { name: string } }; identifier?: { name: string } } };
    alias?: { alias: { name: string } };
    literal?: { literal_type?: string; value?: string };
  };
  if (node.pivot_alias) return node.pivot_alias.alias.column?.name.name ?? node.pivot_alias.alias.identifier?.name ?? null;
  if (node.alias) return node.alias.alias.name;
  // BigQuery names the empty string's column _empty_string_value (ZetaSQL's analyzer tests, pivot.test); DuckDB does not.
  return isString(value) && node.literal?.value !== "" ? (node.literal?.value ?? null) : null;
}

/** An aggregate's alias in a PIVOT, or null. */
function aggregateAlias(aggregate: TreeNode): string | null {
  return (aggregate.alias as { alias?: { name?: string } } | undefined)?.alias?.name ?? null;
}

const identifier = (name: string) => ({ name, quoted: true, trailing_comments: [] });
const columnNamed = (name: string) => ({ column: { name: identifier(name), table: null, join_mark: false, trailing_comments: [] } });

/** Each pivot column as DuckDB names it (value_alias) and as BigQuery does (alias_value), value by value. */
function pivotColumns(values: string[], aliases: string[]): { duckdb: string; bigquery: string }[] {
  return values.flatMap((value) => aliases.map((alias) => ({ duckdb: `${value}_${alias}`, bigquery: `${alias}_${value}` })));
}

/** The SELECT pivotRenamed writes around a PIVOT (so the walk, reaching it, leaves it as it is). */
function renamesPivot(expressions: unknown[], values: string[], aliases: string[]): boolean {
  const except = (expressions[0] as { star?: { except?: { name: string }[] | null } } | undefined)?.star?.except ?? [];
  const columns = pivotColumns(values, aliases);
  return except.length === columns.length && except.every((name, i) => name.name === columns[i]?.duckdb);
}

/**
 * The SELECT with its PIVOT of aliased aggregates read from a subquery that
 * keeps the group columns (SELECT * EXCEPT the pivot columns) and then names
 * each pivot column as BigQuery does, in DuckDB's (and BigQuery's) order;
 * the PIVOT's alias becomes the subquery's.
 */
function pivotRenamed(node: TreeNode, source: TreeNode, values: string[], aliases: string[]): TreeNode {
  const pivot = source.pivot as { alias?: unknown };
  const columns = pivotColumns(values, aliases);
  const inner = {
    select: {
      expressions: [
        { star: { table: null, except: columns.map((column) => identifier(column.duckdb)), replace: null, rename: null } },
        ...columns.map((column) => ({
          alias: {
            this: columnNamed(column.duckdb),
            alias: identifier(column.bigquery),
            column_aliases: [],
            alias_explicit_as: true,
            pre_alias_comments: [],
            trailing_comments: [],
          },
        })),
      ],
      from: { expressions: [{ pivot: { ...pivot, alias: null } }] },
      ...EMPTY_SELECT,
    },
  };
  const subquery = {
    subquery: {
      this: inner,
      alias: pivot.alias ?? identifier("__slp_pivot"),
      column_aliases: [],
      alias_explicit_as: true,
      alias_keyword: "as",
      order_by: null,
      limit: null,
      offset: null,
      lateral: false,
      modifiers_inside: false,
      trailing_comments: [],
    },
  };
  const select = node.select as { from?: { expressions?: unknown[] }; joins?: { this: unknown }[] };
  return {
    select: {
      ...select,
      ...(select.from
        ? { from: { ...select.from, expressions: (select.from.expressions ?? []).map((item) => (item === source ? subquery : item)) } }
        : {}),
      joins: (select.joins ?? []).map((join) => (join.this === source ? { ...join, this: subquery } : join)),
    },
  };
}

/** The clauses of a SELECT that has none but its list and FROM, as the transpiler's tree holds them. */
const EMPTY_SELECT = {
  joins: [],
  lateral_views: [],
  where_clause: null,
  group_by: null,
  having: null,
  qualify: null,
  order_by: null,
  distribute_by: null,
  cluster_by: null,
  sort_by: null,
  limit: null,
  offset: null,
  fetch: null,
  distinct: false,
  distinct_on: null,
  top: null,
  with: null,
  sample: null,
  windows: null,
  hint: null,
  connect: null,
  into: null,
  locks: [],
  leading_comments: [],
};

/** The rewrite of one node of the syntax tree (transpiler.ts rewriteTree), or undefined to keep it. */
export function queryRewrite(node: TreeNode): TreeNode | undefined {
  return leftJoinUnnest(node) ?? byName(node) ?? pivots(node);
}
