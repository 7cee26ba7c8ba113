/**
 * JSON in Postgres, Redshift and BigQuery SQL, as calls of slp's JSON
 * functions (src/engine/json-values.ts), which read and print JSON text the
 * way each warehouse does: the call rewrites for the construct tables, and
 * the syntax-tree rule for Postgres's JSON operators and casts to jsonb.
 * Paths must be literals: slp reads them when it translates, so a path it
 * cannot read is a refusal by name, never a guess at run time.
 */
import type { Call } from "./construct.ts";
import type { TreeNode } from "./transpiler.ts";

/** A path as the JSON functions take it: a JSON array of steps (`k` key, `i` index, `p` Postgres text step), each URI-encoded so no dialect's string escapes touch it. */
export function encodedPath(steps: string[]): string {
  return `'${JSON.stringify(steps.map((step) => encodeURIComponent(step)))}'`;
}

/** The value of a string literal argument as written in the call (quotes removed), or null. */
function stringLiteral(call: Call, index: number): string | null {
  const written = call.written[index]?.trim() ?? "";
  return /^['"]/.test(written) ? call.literal(index) : null;
}

/** A trailing `true` / `false` argument (Redshift's null_if_invalid), or null. */
function booleanArgument(call: Call, index: number): boolean | null {
  const written = call.written[index]?.trim().toLowerCase();
  return written === "true" || written === "t" ? true : written === "false" || written === "f" ? false : null;
}

/** Redshift JSON_EXTRACT_PATH_TEXT(json, key, ... [, null_if_invalid]): the keys as written, up to five. */
export function redshiftPathText(call: Call): string | { refuse: string } {
  const lenient = call.args.length > 2 ? booleanArgument(call, call.args.length - 1) : null;
  const keys = call.args.slice(1, lenient === null ? undefined : -1).map((_, i) => stringLiteral(call, i + 1));
  if (keys.length === 0 || keys.length > 5) return { refuse: "json_extract_path_text takes a JSON text and one to five path elements" };
  if (keys.some((key) => key === null))
    return { refuse: "slp translates json_extract_path_text with its path elements written as string literals" };
  return `__slp_jsonf_get(${call.args[0]}, ${encodedPath(keys.map((key) => `k${key}`))}, 'redshift_text${lenient ? "?" : ""}')`;
}

/** Redshift JSON_EXTRACT_ARRAY_ELEMENT_TEXT(json, pos [, null_if_invalid]) with a literal position from 0. */
export function redshiftArrayElementText(call: Call): string | { refuse: string } {
  const lenient = call.args.length === 3 ? booleanArgument(call, 2) : false;
  const position = call.literal(1);
  if (call.args.length < 2 || call.args.length > 3 || lenient === null)
    return { refuse: "json_extract_array_element_text takes a JSON array text, a position and null_if_invalid" };
  if (position === null || !/^\d+$/.test(position))
    return { refuse: "slp translates json_extract_array_element_text with a position written as a whole number (from 0)" };
  return `__slp_jsonf_get(${call.args[0]}, ${encodedPath([`i${position}`])}, 'redshift_text${lenient ? "?" : ""}')`;
}

/** Postgres's text-array literal '{a,b,"c d"}' as its elements, or null when slp cannot read it. */
export function postgresTextArray(literal: string): string[] | null {
  const body = /^\s*\{(.*)\}\s*$/s.exec(literal)?.[1];
  if (body === undefined) return null;
  if (body.trim() === "") return [];
  const elements: string[] = [];
  const pattern = /\s*(?:"((?:[^"\\]|\\.)*)"|([^",{}\\]*?))\s*(,|$)/gy;
  let at = 0;
  while (at < body.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(body);
    if (!match || match[0] === "") return null;
    const quoted = match[1];
    const bare = (match[2] ?? "").trim();
    if (quoted === undefined && /^null$/i.test(bare)) return null;
    elements.push(quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : bare);
    at = pattern.lastIndex;
    if (match[3] === "") break;
  }
  return elements;
}

/** Postgres json(b)_extract_path[_text](json, VARIADIC text): steps as literals. */
export function postgresExtractPath(reader: "pg" | "pg_text") {
  return (call: Call): string | { refuse: string } => {
    const steps = call.args.slice(1).map((_, i) => stringLiteral(call, i + 1));
    if (steps.some((step) => step === null))
      return { refuse: `slp translates ${call.name} with its path elements written as string literals` };
    const get = `__slp_jsonf_get(${call.args[0]}, ${encodedPath(steps.map((step) => `p${step}`))}, '${reader}')`;
    return reader === "pg" ? `__slp_as_json(${get})` : get;
  };
}

/**
 * A BigQuery JSONPath as steps: `$`, `.key`, `[index]`, and a key with
 * other characters as `."a.b"` (the standard extractors) or `['a.b']` (the
 * legacy ones); null when slp cannot read it (wildcards, filters, the other
 * quoting), which BigQuery does not read either.
 */
export function bigqueryPath(path: string, legacy: boolean): string[] | null {
  if (!path.startsWith("$")) return null;
  const steps: string[] = [];
  let rest = path.slice(1);
  const quoted = legacy ? /^\['((?:[^'\\]|\\.)*)'\]/ : /^\."((?:[^"\\]|\\.)*)"/;
  while (rest.length > 0) {
    const index = /^\[(\d+)\]/.exec(rest);
    const step = index ?? quoted.exec(rest) ?? /^\.([^.[\]"'\s]+)/.exec(rest);
    if (!step) return null;
    steps.push(index ? `i${index[1]}` : `k${(step[1] as string).replace(/\\(.)/g, "$1")}`);
    rest = rest.slice(step[0].length);
  }
  return steps;
}

/** BigQuery's extractors with a literal JSONPath ('$' when left out): JSON_VALUE, JSON_QUERY and the legacy JSON_EXTRACT_SCALAR, JSON_EXTRACT. */
export function bigqueryExtract(reader: "bigquery_value" | "bigquery_query", legacy: boolean) {
  return (call: Call): string | { refuse: string } => {
    const path = bigqueryCallPath(call, legacy);
    if (typeof path !== "string") return path;
    return `__slp_jsonf_get(${call.args[0]}, ${path}, '${reader}')`;
  };
}

/** BigQuery's array extractors: JSON_QUERY_ARRAY / JSON_EXTRACT_ARRAY (JSON text of each element), JSON_VALUE_ARRAY / JSON_EXTRACT_STRING_ARRAY (each scalar's text). */
export function bigqueryExtractArray(reader: "bigquery_value" | "bigquery_query", legacy: boolean) {
  return (call: Call): string | { refuse: string } => {
    const path = bigqueryCallPath(call, legacy);
    if (typeof path !== "string") return path;
    return `__slp_text_list(__slp_jsonf_items(${call.args[0]}, ${path}, '${reader}'))`;
  };
}

function bigqueryCallPath(call: Call, legacy: boolean): string | { refuse: string } {
  if (call.args.length < 1 || call.args.length > 2) return { refuse: `${call.name} takes a JSON value (or JSON text) and a JSONPath` };
  const path = call.args.length === 2 ? stringLiteral(call, 1) : "$";
  if (path === null) return { refuse: `slp translates ${call.name} with its JSONPath written as a string literal` };
  const steps = bigqueryPath(path, legacy);
  if (steps === null) return { refuse: `slp cannot read the JSONPath '${path}' as BigQuery's ${call.name} does` };
  return encodedPath(steps);
}

/** A call of one of slp's JSON functions with the arguments given and string literals after them. */
export function jsonFunction(name: string, arity: number, ...literals: string[]) {
  return (call: Call): string | { refuse: string } =>
    call.args.length === arity
      ? `${name}(${[...call.args, ...literals.map((text) => `'${text}'`)].join(", ")})`
      : { refuse: `${call.name} takes ${arity} argument${arity === 1 ? "" : "s"} in slp` };
}

// --- the syntax tree: Postgres's JSON operators and casts to jsonb ---

const fn = (name: string, args: unknown[]): TreeNode => ({
  function: { name, args, distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
});
const text = (value: string): TreeNode => ({ literal: { literal_type: "string", value } });

/** A step of `->` / `->>`: a string literal is a key, an integer literal (negative from the end) an index. */
function arrowStep(path: unknown): string | null {
  const node = path as {
    literal?: { literal_type?: string; value?: string };
    neg?: { this?: { literal?: { literal_type?: string; value?: string } } };
  };
  const literal = node.literal ?? node.neg?.this?.literal;
  if (!literal || typeof literal.value !== "string") return null;
  if (literal.literal_type === "string" && !node.neg) return `k${literal.value}`;
  if (literal.literal_type === "number" && /^\d+$/.test(literal.value)) return `i${node.neg ? "-" : ""}${literal.value}`;
  return null;
}

/** The steps of a `#>` / `#>>` path literal. */
function hashSteps(path: unknown): string[] | null {
  const literal = (path as { literal?: { literal_type?: string; value?: string } }).literal;
  if (literal?.literal_type !== "string" || typeof literal.value !== "string") return null;
  return postgresTextArray(literal.value)?.map((step) => `p${step}`) ?? null;
}

interface Extract {
  this: unknown;
  path?: unknown;
  paths?: unknown[];
  arrow_syntax?: boolean;
  hash_arrow_syntax?: boolean;
}

/** A JSON-valued `->` or `#>` node: its operand and steps (a chain of them folded into one path), or a refusal, or null for another node. */
function jsonValued(node: unknown): { operand: unknown; steps: string[] } | { refuse: string } | null {
  const record = node as TreeNode;
  const [kind] = Object.keys(record);
  if (kind !== "json_extract" && kind !== "json_extract_path") return null;
  const extract = record[kind] as Extract;
  const steps = kind === "json_extract" ? [arrowStep(extract.path)] : extract.paths?.length === 1 ? hashSteps(extract.paths[0]) : null;
  if (steps === null || steps.includes(null))
    return { refuse: `${kind === "json_extract" ? "->" : "#>"}: slp translates a key, an index or a path written as a literal` };
  const inner = jsonValued(extract.this);
  if (inner && "refuse" in inner) return inner;
  return inner
    ? { operand: inner.operand, steps: [...inner.steps, ...(steps as string[])] }
    : { operand: extract.this, steps: steps as string[] };
}

/**
 * Postgres's JSON operators on the syntax tree, as calls of slp's JSON
 * functions: `->` and `#>` (the value's text as Postgres holds it), `->>`
 * and `#>>` (a string's characters), `?`, `?|`, `?&`, `@>` and `<@` of
 * jsonb, `||` of two jsonb values, and a cast to jsonb (jsonb's own text:
 * keys sorted, `": "` and `", "`). `jsonbType` tells a type placeholder
 * that stands for jsonb.
 */
export function postgresJsonRule(jsonbType: (name: string) => boolean) {
  const unwrap = (node: unknown): unknown =>
    (node as { paren?: { this?: unknown } }).paren ? unwrap((node as { paren: { this: unknown } }).paren.this) : node;
  const isJsonb = (node: unknown): boolean => {
    const record = unwrap(node) as TreeNode;
    const cast = record.cast as { to?: { name?: string } } | undefined;
    if (cast?.to?.name && jsonbType(cast.to.name)) return true;
    const [kind] = Object.keys(record);
    return kind === "json_extract" || kind === "json_extract_path";
  };
  return (node: TreeNode): TreeNode | { refuse: string } | undefined => {
    const [kind] = Object.keys(node);
    const value = node[kind as string] as Record<string, unknown>;
    switch (kind) {
      case "json_extract":
      case "json_extract_path": {
        const found = jsonValued(node);
        if (!found || "refuse" in found) return found ?? undefined;
        // A JSON value (its text as Postgres holds it), typed JSON for what reads it.
        return fn("__slp_as_json", [
          fn("__slp_jsonf_get", [found.operand, text(JSON.stringify(found.steps.map(encodeURIComponent))), text("pg")]),
        ]);
      }
      case "json_extract_scalar": {
        const extract = value as unknown as Extract;
        const last = extract.hash_arrow_syntax ? hashSteps(extract.path) : [arrowStep(extract.path)];
        if (last === null || last.includes(null))
          return { refuse: `${extract.hash_arrow_syntax ? "#>>" : "->>"}: slp translates a key, an index or a path written as a literal` };
        const inner = jsonValued(extract.this);
        if (inner && "refuse" in inner) return inner;
        const steps = [...(inner?.steps ?? []), ...(last as string[])];
        return fn("__slp_jsonf_get", [
          inner ? inner.operand : extract.this,
          text(JSON.stringify(steps.map(encodeURIComponent))),
          text("pg_text"),
        ]);
      }
      case "j_s_o_n_b_contains":
        return fn("__slp_jsonf_has", [
          value.this,
          { array_func: { expressions: [value.expression], bracket_notation: false, use_list_keyword: false } },
          text("any"),
        ]);
      case "j_s_o_n_b_contains_any_top_keys":
        return fn("__slp_jsonf_has", [value.left, value.right, text("any")]);
      case "j_s_o_n_b_contains_all_top_keys":
        return fn("__slp_jsonf_has", [value.left, value.right, text("all")]);
      case "array_contains_all":
      case "array_contained_by": {
        const [outer, inner] = kind === "array_contains_all" ? [value.left, value.right] : [value.right, value.left];
        const jsonLike = (side: unknown) =>
          isJsonb(side) || (unwrap(side) as { literal?: { literal_type?: string } }).literal?.literal_type === "string";
        if (isJsonb(value.left) || isJsonb(value.right) || (jsonLike(value.left) && jsonLike(value.right)))
          return fn("__slp_jsonf_contains", [outer, inner]);
        if ((value.left as TreeNode).array_func || (value.right as TreeNode).array_func) return undefined;
        return {
          refuse: `${kind === "array_contains_all" ? "@>" : "<@"}: slp cannot tell jsonb containment from array containment here; cast an operand (::jsonb)`,
        };
      }
      case "concat": {
        const [left, right] = [value.left, value.right];
        const literal = (side: unknown) => (unwrap(side) as { literal?: { literal_type?: string } }).literal?.literal_type === "string";
        if (isJsonb(left) && isJsonb(right)) return fn("__slp_jsonf_concat", [left, right]);
        if ((isJsonb(left) && literal(right)) || (literal(left) && isJsonb(right))) return fn("__slp_jsonf_concat", [left, right]);
        if (isJsonb(left) || isJsonb(right))
          return { refuse: "||: slp cannot tell jsonb concatenation from text concatenation here; cast both operands (::jsonb or ::text)" };
        if (literal(left) || literal(right)) return undefined;
        // Two values slp cannot type here: text (or arrays) concatenate as written; two jsonb values (a fixture's columns) are refused when met.
        return fn("__slp_pg_concat", [left, right]);
      }
      case "cast": {
        const cast = value as { this: unknown; to?: { name?: string } };
        if (!cast.to?.name || !jsonbType(cast.to.name)) return undefined;
        if ((cast.this as { null?: unknown }).null !== undefined) return undefined;
        // jsonb's own text, still typed JSON (the placeholder's type) for what reads it.
        return {
          cast: {
            ...value,
            this: fn("__slp_jsonf_print", [
              { cast: { this: cast.this, to: { data_type: "text" }, double_colon_syntax: false } },
              text("jsonb"),
            ]),
          },
        };
      }
      default:
        return undefined;
    }
  };
}

/**
 * BigQuery's `x[i]`, `x[OFFSET(i)]`, `x[ORDINAL(i)]` and their SAFE_ forms
 * as slp's macro `__slp_bq_index`: DuckDB's index of an array is 1-based but
 * of a JSON value 0-based, which only the value's type tells, at run time.
 * A string key (`json['a']`) is DuckDB's own JSON field access.
 */
export function bigquerySubscript(node: TreeNode): TreeNode | undefined {
  // The transpiler writes a cast of an array literal back as the typed literal `T[...]`, which it then cannot read
  // as a cast to slp's type placeholder: parenthesized, the literal stays a cast.
  const cast = node.cast as { this?: { array_func?: { bracket_notation?: boolean } }; to?: { data_type?: string } } | undefined;
  if (cast?.this?.array_func && cast.to?.data_type === "custom")
    return { cast: { ...cast, this: { paren: { this: cast.this, trailing_comments: [] } } } };
  const subscript = node.subscript as { this: unknown; index: unknown } | undefined;
  if (!subscript) return undefined;
  const index = subscript.index as { literal?: { literal_type?: string }; function?: { name?: string; args?: unknown[] } };
  if (index.literal?.literal_type === "string") return undefined;
  const name = index.function?.name?.toLowerCase() ?? "";
  const wrapped = /^(safe_)?(offset|ordinal)$/.test(name) && index.function?.args?.length === 1;
  const at = wrapped ? (index.function?.args?.[0] as unknown) : index;
  const base = { literal: { literal_type: "number", value: name.endsWith("ordinal") ? "1" : "0" } };
  // A bare index is an OFFSET (an error past the end, as OFFSET is); SAFE_ gives NULL there.
  return fn("__slp_bq_index", [subscript.this, at, base, { boolean: { value: !name.startsWith("safe_") } }]);
}

const PARTIQL =
  "PartiQL navigation into SUPER reads attribute names case-insensitively unless enable_case_sensitive_super_attribute is set, and gives NULL where a step leads nowhere (lax mode); slp has not verified either on DuckDB, whose JSON field access is case-sensitive";

/**
 * Redshift's PartiQL on the syntax tree, refused by name: a name of three
 * parts or more in an expression (`c.a.b`), a qualified name whose qualifier
 * is no table, alias or CTE of the statement (`payload.attr`), and unnesting
 * (`FROM t AS c, c.arr AS x`). DuckDB would read the first two as its own
 * JSON field access and refuse the last.
 */
export function redshiftPartiqlRule(): (node: TreeNode) => TreeNode | { refuse: string } | undefined {
  // The names of the statement's tables, aliases and CTEs, read from the first node the walk meets (the statement).
  let known: Set<string> | null = null;
  const scan = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) scan(item);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    const keys = Object.keys(record);
    // A table (its name and alias), a derived table's alias, a CTE's name; never a column's alias.
    const source =
      keys.length === 1 && (keys[0] === "table" || keys[0] === "subquery")
        ? (record[keys[0]] as { name?: { name?: string }; alias?: { name?: string } })
        : null;
    for (const name of [source?.name?.name, source?.alias?.name]) if (typeof name === "string") known?.add(name.toLowerCase());
    if (Array.isArray(record.ctes))
      for (const cte of record.ctes as { alias?: { name?: string } }[])
        if (typeof cte.alias?.name === "string") known?.add(cte.alias.name.toLowerCase());
    for (const value of Object.values(record)) scan(value);
  };
  return (node) => {
    if (known === null) {
      known = new Set();
      scan(node);
    }
    const [kind] = Object.keys(node);
    if (kind === "dot") return { refuse: `c.a.b: ${PARTIQL}` };
    // || of two SUPER values (JSON in slp) is refused when met; text concatenates as written.
    if (kind === "concat") {
      const operands = node.concat as { left: unknown; right: unknown };
      const literal = (side: unknown) => (side as { literal?: unknown }).literal !== undefined;
      return literal(operands.left) || literal(operands.right) ? undefined : fn("__slp_pg_concat", [operands.left, operands.right]);
    }
    const value = node[kind as string] as { table?: { name?: string }; schema?: { name?: string }; catalog?: unknown; name?: unknown };
    if (kind === "column" && typeof value.table?.name === "string" && !known.has(value.table.name.toLowerCase()))
      return { refuse: `${value.table.name}.${(value.name as { name?: string }).name}: ${PARTIQL}` };
    if (kind === "table" && typeof value.schema?.name === "string" && !value.catalog && known.has(value.schema.name.toLowerCase()))
      return {
        refuse: `FROM ${value.schema.name}.${(value.name as { name?: string }).name}: PartiQL unnesting of a SUPER array, which slp does not run`,
      };
    return undefined;
  };
}
