/**
 * Column-level lineage of one rendered SELECT: for each output column, the
 * input relations' columns whose values flow into it with their identity
 * (what a person could be recognised by), read from the syntax tree of the
 * SQL parser adapter. A column used only to filter, join, group or order
 * carries nothing; an aggregate that counts or a boolean test removes
 * identity; every other expression passes it on. What it cannot follow is
 * named (construct and line), never guessed.
 */
import { BOOLEAN_TEST_FUNCTIONS, BOOLEAN_TEST_OPERATORS, IDENTITY_REMOVING_FUNCTIONS } from "./identity.ts";
import { isNode, parseSql, type SqlNode } from "./parser.ts";

/** Words that name a date part where a function takes one bare (BigQuery's `date_trunc(d, month)`): no column. */
const DATE_PARTS: readonly string[] = [
  "date",
  "datetime",
  "day",
  "dayofweek",
  "dayofyear",
  "hour",
  "isoweek",
  "isoyear",
  "microsecond",
  "millisecond",
  "minute",
  "month",
  "quarter",
  "second",
  "time",
  "week",
  "year",
];

/** An input column a value comes from: the relation as the SQL names it, and the column (`*`: every column of it). */
export interface Origin {
  relation: string;
  column: string;
}

/** How a star carried a column: the star as written and its line. */
export interface Star {
  text: string;
  line: number;
}

export interface OutputColumn {
  name: string;
  origins: Origin[];
  line: number;
  /** Set when a `select *` or `t.*` put the column in the output. */
  star: Star | null;
}

/** A relation whose every column a star passes on under its own name (its columns are not known here). */
export interface Passthrough {
  relation: string;
  star: Star;
}

/** A construct the lineage cannot follow, and where. */
export interface Unresolved {
  construct: string;
  line: number;
}

export interface StatementLineage {
  columns: OutputColumn[];
  passthrough: Passthrough[];
  unresolved: Unresolved[];
}

/** The lineage of the SQL's one statement, or why it cannot be read (a parse error, more than one statement). */
export function columnLineage(sql: string, warehouse: string): StatementLineage | { error: string; line: number; column?: number } {
  const parsed = parseSql(sql, warehouse);
  if ("error" in parsed)
    return parsed.at
      ? { error: `the SQL parser cannot read it: ${parsed.error}`, line: parsed.at.line, column: parsed.at.column }
      : { error: `the SQL parser cannot read it: ${parsed.error}`, line: 1 };
  const statements = ((parsed.root.statements as SqlNode[] | undefined) ?? []).filter((node) => isNode(node) && node.type !== "empty");
  if (statements.length !== 1) return { error: `it holds ${statements.length} statements, and a model is one SELECT`, line: 1 };
  const reader = new Reader(sql);
  const shape = reader.query(statements[0] as SqlNode, { ctes: new Map(), outer: null });
  const columns: OutputColumn[] = [];
  for (const column of shape.columns.values()) columns.push(column);
  return {
    columns,
    passthrough: shape.open.map((open) => ({ relation: open.relation, star: open.star ?? { text: "*", line: 1 } })),
    unresolved: reader.unresolved,
  };
}

// --- internal ---

/** What a relation in scope offers: its known columns, and relations whose every column it passes on. */
interface Shape {
  columns: Map<string, OutputColumn>;
  open: { relation: string; star: Star | null }[];
  /** A relation whose columns all carry these origins (a table function, VALUES). */
  opaque?: Origin[];
}

interface Input {
  alias: string;
  shape: Shape;
}

interface Env {
  ctes: Map<string, Shape>;
  outer: Scope | null;
}

interface Scope {
  inputs: Input[];
  outer: Scope | null;
  /** Aliases of the select list read so far (DuckDB, Snowflake and BigQuery let later columns name them). */
  aliases: Map<string, OutputColumn>;
}

const lower = (text: string) => text.toLowerCase();

function keywordText(value: unknown): string {
  if (Array.isArray(value)) return value.map(keywordText).join(" ");
  if (typeof value === "string") return value;
  if (isNode(value) && typeof value.text === "string") return value.text;
  return "";
}

function nameOf(node: unknown): string | null {
  return isNode(node) && node.type === "identifier" && typeof node.name === "string" ? node.name : null;
}

function dedupe(origins: Origin[]): Origin[] {
  const seen = new Map<string, Origin>();
  for (const origin of origins) seen.set(`${origin.relation}\0${origin.column}`, origin);
  return [...seen.values()];
}

class Reader {
  readonly unresolved: Unresolved[] = [];
  /** The whole rows the expression being read names (its relation's alias as a value), by shape. */
  #rows: Shape[] | null = null;
  /** Output columns that hold whole rows, and the shapes of those rows. */
  readonly #rowColumns = new WeakMap<OutputColumn, Shape[]>();
  readonly #sql: string;
  readonly #lineStarts: number[] = [0];

  constructor(sql: string) {
    this.#sql = sql;
    for (let i = 0; i < sql.length; i++) if (sql.charCodeAt(i) === 10) this.#lineStarts.push(i + 1);
  }

  line(node: SqlNode): number {
    const offset = node.range?.[0] ?? 0;
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#lineStarts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  text(node: SqlNode): string {
    return node.range ? this.#sql.slice(node.range[0], node.range[1]).replace(/\s+/g, " ") : node.type;
  }

  refuse(construct: string, node: SqlNode): void {
    this.unresolved.push({ construct, line: this.line(node) });
  }

  // --- queries ---

  query(node: SqlNode, env: Env): Shape {
    switch (node.type) {
      case "paren_expr":
        return this.query(node.expr as SqlNode, env);
      case "select_stmt":
        return this.select(node, env);
      case "compound_select_stmt":
        return this.compound(node, env);
      default:
        this.refuse(`a ${node.type.replace(/_/g, " ")} where a query was expected`, node);
        return { columns: new Map(), open: [] };
    }
  }

  compound(node: SqlNode, env: Env): Shape {
    const left = this.query(node.left as SqlNode, env);
    const right = this.query(node.right as SqlNode, env);
    const columns = new Map<string, OutputColumn>();
    if (left.open.length === 0 && right.open.length === 0 && left.columns.size === right.columns.size) {
      // Known on both sides: the branches line up by position, named by the first.
      const rightColumns = [...right.columns.values()];
      [...left.columns.values()].forEach((column, i) => {
        const other = rightColumns[i] as OutputColumn;
        columns.set(lower(column.name), {
          ...column,
          origins: dedupe([...column.origins, ...other.origins]),
          star: column.star ?? other.star,
        });
      });
      return { columns, open: [] };
    }
    // A star on either side: its columns line up by name (what every union of `select *` in a dbt project relies on).
    for (const column of [...left.columns.values(), ...right.columns.values()]) {
      const earlier = columns.get(lower(column.name));
      columns.set(
        lower(column.name),
        earlier ? { ...earlier, origins: dedupe([...earlier.origins, ...column.origins]), star: earlier.star ?? column.star } : column,
      );
    }
    return { columns, open: [...left.open, ...right.open] };
  }

  select(node: SqlNode, env: Env): Shape {
    const clauses = (node.clauses as SqlNode[]).filter(isNode);
    let ctes = env.ctes;
    const withClause = clauses.find((clause) => clause.type === "with_clause");
    if (withClause) {
      if (withClause.recursiveKw) this.refuse("a recursive CTE (with recursive)", withClause);
      ctes = new Map(ctes);
      for (const cte of ((withClause.tables as SqlNode).items as SqlNode[]).filter(isNode)) {
        const name = nameOf(cte.table);
        if (name === null) {
          this.refuse("a CTE without a plain name", cte);
          continue;
        }
        if (cte.columnNames) this.refuse(`CTE ${name} renames its columns in a list`, cte);
        ctes.set(lower(name), this.query(cte.expr as SqlNode, { ctes, outer: env.outer }));
      }
    }
    const scope: Scope = { inputs: [], outer: env.outer, aliases: new Map() };
    const from = clauses.find((clause) => clause.type === "from_clause");
    if (from) this.from(from.expr as SqlNode, scope, { ctes, outer: env.outer });
    const selectClause = clauses.find((clause) => clause.type === "select_clause");
    const shape: Shape = { columns: new Map(), open: [] };
    if (!selectClause) {
      this.refuse("a query without a select list", node);
      return shape;
    }
    for (const clause of clauses) {
      if (
        ![
          "with_clause",
          "select_clause",
          "from_clause",
          "where_clause",
          "group_by_clause",
          "having_clause",
          "order_by_clause",
          "limit_clause",
          "window_clause",
          "qualify_clause",
          "offset_clause",
          "fetch_clause",
        ].includes(clause.type)
      )
        this.refuse(`a ${clause.type.replace(/_/g, " ")}`, clause);
    }
    const items = ((selectClause.columns as SqlNode).items as SqlNode[]).filter(isNode);
    for (const item of items) this.selectItem(item, scope, shape, ctes);
    return shape;
  }

  selectItem(item: SqlNode, scope: Scope, shape: Shape, ctes: Map<string, Shape>): void {
    const add = (column: OutputColumn) => {
      shape.columns.set(lower(column.name), column);
      scope.aliases.set(lower(column.name), column);
    };
    if (item.type === "all_columns") {
      const star = { text: "select *", line: this.line(item) };
      for (const input of scope.inputs) this.expand(input.shape, star, shape);
      return;
    }
    if (item.type === "member_expr" && isNode(item.property) && item.property.type === "all_columns") {
      const qualifier = this.parts(item.object);
      const input = qualifier && this.input(scope, qualifier[qualifier.length - 1] as string);
      const star = { text: `select ${this.text(item)}`, line: this.line(item) };
      if (input) {
        this.expand(input.shape, star, shape);
        return;
      }
      // `s.*` over a column that holds whole rows (dbt_utils.deduplicate's `array_agg(original ...)[offset(0)] unique`):
      // the fields of the rows it holds.
      const holder = qualifier?.length === 1 ? this.rowColumn(scope, qualifier[0] as string) : null;
      if (!holder) {
        this.refuse(`${this.text(item)}, whose relation is not in the FROM clause`, item);
        return;
      }
      for (const row of holder) this.expand(row, star, shape);
      return;
    }
    const env = { ctes, outer: scope };
    const aliased = item.type === "alias";
    const expression = aliased ? (item.expr as SqlNode) : item;
    const parts = !aliased && (item.type === "identifier" || item.type === "member_expr") ? this.parts(item) : null;
    const name = aliased
      ? (nameOf(item.alias) ?? this.text(item.alias as SqlNode))
      : parts
        ? (parts[parts.length - 1] as string)
        : this.text(item);
    const outerRows = this.#rows;
    this.#rows = [];
    const column = { name, origins: this.flow(expression, scope, env), line: this.line(item), star: null };
    if (this.#rows.length > 0) this.#rowColumns.set(column, this.#rows);
    this.#rows = outerRows;
    add(column);
  }

  /** A star over an input: its known columns by name, and its open relations passed on whole. */
  expand(input: Shape, star: Star, into: Shape): void {
    for (const column of input.columns.values()) into.columns.set(lower(column.name), { ...column, star });
    for (const open of input.open) into.open.push({ relation: open.relation, star });
    if (input.opaque && input.opaque.length > 0) into.open.push(...input.opaque.map((origin) => ({ relation: origin.relation, star })));
  }

  // --- FROM ---

  from(node: SqlNode, scope: Scope, env: Env): void {
    switch (node.type) {
      case "join_expr":
        this.from(node.left as SqlNode, scope, env);
        this.from(node.right as SqlNode, scope, env);
        return;
      case "alias": {
        const alias = nameOf(node.alias);
        if (node.columnAliases) {
          // Renamed columns: each name's value is not followed by position, so the relation's origins stand for all.
          const shape = this.relation(node.expr as SqlNode, scope, env);
          const all = this.everything(shape);
          const columns = new Map<string, OutputColumn>();
          for (const item of (((node.columnAliases as SqlNode).expr as SqlNode).items as SqlNode[]).filter(isNode)) {
            const name = nameOf(item) ?? this.text(item);
            columns.set(lower(name), { name, origins: all, line: this.line(item), star: null });
          }
          scope.inputs.push({ alias: lower(alias ?? ""), shape: { columns, open: [] } });
          return;
        }
        scope.inputs.push({ alias: lower(alias ?? ""), shape: this.relation(node.expr as SqlNode, scope, env) });
        return;
      }
      case "paren_expr":
        if (isNode(node.expr) && node.expr.type === "join_expr") {
          this.from(node.expr, scope, env);
          return;
        }
        scope.inputs.push({ alias: "", shape: this.relation(node, scope, env) });
        return;
      default: {
        const parts = node.type === "identifier" || node.type === "member_expr" ? this.parts(node) : null;
        scope.inputs.push({ alias: lower(parts ? (parts[parts.length - 1] as string) : ""), shape: this.relation(node, scope, env) });
      }
    }
  }

  /** Every origin a shape's columns carry (what a renamed or opaque relation stands for). */
  everything(shape: Shape): Origin[] {
    return dedupe([
      ...[...shape.columns.values()].flatMap((column) => column.origins),
      ...shape.open.map((open) => ({ relation: open.relation, column: "*" })),
      ...(shape.opaque ?? []),
    ]);
  }

  relation(node: SqlNode, scope: Scope, env: Env): Shape {
    if (node.type === "identifier" || node.type === "member_expr") {
      const parts = this.parts(node);
      if (!parts) {
        this.refuse(`the relation ${this.text(node)}`, node);
        return { columns: new Map(), open: [] };
      }
      const name = parts[parts.length - 1] as string;
      const cte = parts.length === 1 ? env.ctes.get(lower(name)) : undefined;
      if (cte) return cte;
      return { columns: new Map(), open: [{ relation: name, star: null }] };
    }
    if (node.type === "paren_expr" || node.type === "select_stmt" || node.type === "compound_select_stmt") {
      const inner = node.type === "paren_expr" ? (node.expr as SqlNode) : node;
      if (inner.type === "func_call" && lower(nameOf(inner.name) ?? "") === "values") return { columns: new Map(), open: [], opaque: [] };
      return this.query(inner, { ctes: env.ctes, outer: env.outer });
    }
    if (node.type === "lateral_derived_table") return this.query(node.expr as SqlNode, { ctes: env.ctes, outer: scope });
    if (node.type === "unnest_expr") {
      // UNNEST(array): each element carries what the array does.
      return { columns: new Map(), open: [], opaque: this.flow(node.expr, scope, { ctes: env.ctes, outer: scope }) };
    }
    if (node.type === "func_call") {
      // A table function (unnest, generate_series, json_each): every column it yields carries what its arguments do.
      return { columns: new Map(), open: [], opaque: this.flow(node.args as SqlNode, scope, { ctes: env.ctes, outer: scope }) };
    }
    this.refuse(`a ${node.type.replace(/_/g, " ")} in the FROM clause`, node);
    return { columns: new Map(), open: [], opaque: [] };
  }

  // --- expressions ---

  /** The names of an identifier or a chain of member accesses (`t.col.field`), or null for anything else. */
  parts(node: unknown): string[] | null {
    if (!isNode(node)) return null;
    if (node.type === "identifier") return typeof node.name === "string" ? [node.name] : null;
    if (node.type === "member_expr") {
      const object = this.parts(node.object);
      const property = nameOf(node.property);
      return object && property !== null ? [...object, property] : null;
    }
    return null;
  }

  input(scope: Scope | null, alias: string): Input | null {
    for (let at = scope; at; at = at.outer) {
      const found = at.inputs.find((input) => input.alias === lower(alias));
      if (found) return found;
    }
    return null;
  }

  /** The row shapes a column of an input holds, when it holds whole rows. */
  rowColumn(scope: Scope, name: string): Shape[] | null {
    for (let at: Scope | null = scope; at; at = at.outer)
      for (const input of at.inputs) {
        const column = input.shape.columns.get(lower(name));
        const rows = column ? this.#rowColumns.get(column) : undefined;
        if (rows) return rows;
      }
    return null;
  }

  /** True when a relation in scope (or an outer one) has a known column of this name. */
  known(scope: Scope | null, name: string): boolean {
    for (let at = scope; at; at = at.outer) if (at.inputs.some((input) => input.shape.columns.has(lower(name)))) return true;
    return false;
  }

  /** A column of a shape by name: its known origins, else what its open relations give under that name; null when it has none. */
  columnOf(shape: Shape, name: string): Origin[] | null {
    const known = shape.columns.get(lower(name));
    if (known) return known.origins;
    if (shape.opaque) return shape.opaque;
    if (shape.open.length > 0) return shape.open.map((open) => ({ relation: open.relation, column: name }));
    return null;
  }

  columnReference(node: SqlNode, scope: Scope): Origin[] {
    const parts = this.parts(node) as string[];
    // Qualified by an input's alias: that input's column (a further part is a field of it, which keeps identity).
    if (parts.length > 1) {
      const input = this.input(scope, parts[0] as string);
      if (input) {
        const found = this.columnOf(input.shape, parts[1] as string);
        if (found) return found;
        this.refuse(`column ${this.text(node)}, which ${parts[0]} does not have`, node);
        return [];
      }
      // Qualified by the relation's full name (schema.table.column): the last input with that name.
      const byTable = parts.length > 2 ? this.input(scope, parts[parts.length - 2] as string) : null;
      if (byTable) return this.columnOf(byTable.shape, parts[parts.length - 1] as string) ?? [];
    }
    const name = parts[0] as string;
    for (let at: Scope | null = scope; at; at = at.outer) {
      const known = at.inputs.filter((input) => input.shape.columns.has(lower(name)));
      if (known.length > 0) return dedupe(known.flatMap((input) => this.columnOf(input.shape, name) ?? []));
      // A relation's alias as a value is its whole row (BigQuery's `array_agg(original)`): every column of it.
      const row = at.inputs.find((input) => input.alias === lower(name));
      if (row) {
        this.#rows?.push(row.shape);
        return this.everything(row.shape);
      }
      const open = at.inputs.filter((input) => input.shape.open.length > 0 || input.shape.opaque);
      if (open.length > 0) return dedupe(open.flatMap((input) => this.columnOf(input.shape, name) ?? []));
      const alias = at.aliases.get(lower(name));
      if (alias) return alias.origins;
    }
    this.refuse(`column ${this.text(node)}, which no relation of its query has`, node);
    return [];
  }

  flow(node: unknown, scope: Scope, env: Env): Origin[] {
    if (Array.isArray(node)) return dedupe(node.flatMap((item) => this.flow(item, scope, env)));
    if (!isNode(node)) return [];
    switch (node.type) {
      case "identifier":
      case "member_expr": {
        if (node.type === "member_expr" && isNode(node.property) && node.property.type === "all_columns") {
          const qualifier = this.parts(node.object);
          const input = qualifier && this.input(scope, qualifier[qualifier.length - 1] as string);
          return input ? this.everything(input.shape) : [];
        }
        if (this.parts(node)) return this.columnReference(node, scope);
        // An element or field of an expression (`arr[1]`, `(x).f`): it keeps what the expression carries.
        return this.flow([node.object, node.property], scope, env);
      }
      case "all_columns":
        return dedupe(scope.inputs.flatMap((input) => this.everything(input.shape)));
      case "keyword":
      case "data_type":
      case "named_data_type":
      case "interval_unit":
        return [];
      case "func_call": {
        const name = lower((this.parts(node.name) ?? [""]).at(-1) as string);
        if (IDENTITY_REMOVING_FUNCTIONS.includes(name) || BOOLEAN_TEST_FUNCTIONS.includes(name)) return [];
        // The window's partition and order, and the filter, choose rows; they are not the value. A bare date part
        // among the arguments (`date_trunc(d, month)`) is a word, unless a relation of the query has a column of that name.
        const args = isNode(node.args) && isNode(node.args.expr) && isNode(node.args.expr.args) ? node.args.expr.args.items : undefined;
        if (Array.isArray(args)) {
          const datePart = (item: unknown) => {
            const name = nameOf(item);
            return name !== null && DATE_PARTS.includes(lower(name)) && !this.known(scope, name);
          };
          return this.flow(
            args.filter((item) => !datePart(item)),
            scope,
            env,
          );
        }
        return this.flow(node.args, scope, env);
      }
      case "func_args":
        return this.flow(node.args, scope, env);
      case "binary_expr":
        if (BOOLEAN_TEST_OPERATORS.includes(lower(keywordText(node.operator)))) return [];
        return this.flow([node.left, node.right], scope, env);
      case "prefix_op_expr": {
        const operator = lower(keywordText(node.operator));
        if (operator === "not" || operator === "exists") return [];
        return this.flow(node.expr, scope, env);
      }
      case "postfix_op_expr":
        // `x is null`, `x notnull`: tests.
        return [];
      case "between_expr":
      case "exists_expr":
        return [];
      case "case_expr":
        // The subject and the conditions are tested; the results are the value.
        return this.flow(
          (node.clauses as SqlNode[]).filter(isNode).map((clause) => clause.result),
          scope,
          env,
        );
      case "cast_expr":
        return this.flow(((node.args as SqlNode).expr as SqlNode).expr, scope, env);
      case "cast_operator_expr":
        return this.flow(node.left, scope, env);
      case "select_stmt":
      case "compound_select_stmt": {
        // A scalar subquery: its one column.
        const shape = this.query(node, { ctes: env.ctes, outer: scope });
        const first = [...shape.columns.values()][0];
        return dedupe([...(first?.origins ?? []), ...shape.open.map((open) => ({ relation: open.relation, column: "*" }))]);
      }
      default:
        if (node.type.endsWith("_literal") && node.type !== "array_literal_expr") return [];
        // Any other expression (arithmetic, concatenation, arrays, structs, extract, ...) passes on what its parts carry.
        return this.flow(
          Object.entries(node)
            .filter(([key]) => key !== "range" && key !== "type")
            .map(([, value]) => value),
          scope,
          env,
        );
    }
  }
}
