/**
 * Snowflake's semi-structured values (VARIANT, OBJECT, ARRAY) on DuckDB: held
 * as DuckDB JSON with an object's keys sorted and no blanks, the form
 * Snowflake keeps them in (macros.ts `__slp_variant`). The function calls are
 * rewritten here before the transpiler sees them (the construct table's
 * entries); the syntax (casts, `v:a.b` paths, `x[i]` subscripts) is rewritten
 * on the transpiler's syntax tree, where each operand is one node:
 *
 * - a cast to text is `__slp_sf_text(x)`: a VARIANT's text is its string
 *   without quotes, NULL for a JSON null, an object's or an array's JSON;
 *   anything else keeps DuckDB's cast;
 * - a cast to VARIANT, OBJECT or ARRAY is `__slp_to_variant/object/array(x)`;
 * - `v:a.b[0]` is `__slp_variant_get(v, '$."a"."b"[0]')`;
 * - `x[i]` counts from 0 on a VARIANT (JSON) and on a list slp holds as
 *   DuckDB's (from SPLIT, ARRAY_AGG), whichever the value is at run time.
 */
import type { Call } from "./construct.ts";
import { snowflakeJsonPath } from "./rewrites.ts";
import type { TreeNode } from "./transpiler.ts";

/** Which semi-structured type a cast names, by the type's name. */
export type VariantKind = "variant" | "object" | "array";

/** The casts slp rewrites on the tree, by the index of the type placeholder (`__slp_type_<n>`) translate.ts wrote. */
export interface VariantCasts {
  /** Casts to a text type. */
  text: Set<number>;
  /** Casts to a semi-structured type. */
  semi: Map<number, VariantKind>;
}

const PLACEHOLDER = /^__slp_type_(\d+)$/i;

function call(name: string, args: unknown[]): TreeNode {
  return {
    function: { name, args, distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
  };
}

const string = (value: string): TreeNode => ({ literal: { literal_type: "string", value } });

/** The rewrite of one node of Snowflake SQL's syntax tree (transpiler.ts rewriteTree), or undefined to keep it. */
export function variantRewrite(casts: VariantCasts) {
  return (node: TreeNode): TreeNode | { refuse: string } | undefined => {
    const [kind] = Object.keys(node);
    const misuse = implicitConversion(node, casts);
    if (misuse !== null) return { refuse: misuse };
    if (kind === "cast" || kind === "try_cast") {
      const cast = node[kind] as { this: unknown; to?: { data_type?: string; name?: string } };
      const match = cast.to?.data_type === "custom" ? PLACEHOLDER.exec(cast.to.name ?? "") : null;
      if (!match) return undefined;
      const index = Number(match[1]);
      if (casts.text.has(index)) return call("__slp_sf_text", [cast.this]);
      const semi = casts.semi.get(index);
      if (semi) return call(`__slp_to_${semi}`, [cast.this]);
      return undefined;
    }
    if (kind === "j_s_o_n_extract") {
      const extract = node[kind] as { this: unknown; expression?: { literal?: { value?: string } }; variant_extract?: unknown };
      const path = extract.expression?.literal?.value;
      if (!extract.variant_extract || typeof path !== "string") return { refuse: "variant path: slp cannot read the path" };
      const duckdb = snowflakeJsonPath(path);
      if (typeof duckdb !== "string") return { refuse: `variant path: ${duckdb.refuse}` };
      return call("__slp_variant_get", [extract.this, string(duckdb)]);
    }
    // A VARIANT path compared with a literal (v:kind = 'click'): slp's macro compares them as VARIANTs where
    // Snowflake's coercion cannot change the answer, and is an error where it could.
    if (kind === "eq" || kind === "neq") {
      const { left, right } = node[kind] as Sides;
      const [path, literal] =
        isVariantPath(left) && isLiteral(right) ? [left, right] : isVariantPath(right) && isLiteral(left) ? [right, left] : [null, null];
      if (path !== null) {
        const equal = call("__slp_variant_eq", [path, literal]);
        return kind === "eq" ? equal : { not: { this: equal } };
      }
    }
    if (kind === "in") {
      const list = node[kind] as { this: unknown; expressions?: unknown[]; query?: unknown; not?: unknown };
      if (isVariantPath(list.this) && !list.query && list.expressions?.length && list.expressions.every(isLiteral)) {
        const within = call("__slp_variant_in", [
          list.this,
          call(
            "list_value",
            list.expressions.map((item) => call("__slp_to_variant", [item])),
          ),
        ]);
        return list.not ? { not: { this: within } } : within;
      }
    }
    if (kind === "subscript") {
      const subscript = node[kind] as { this: unknown; index: { literal?: { literal_type?: string } } };
      // A key (v['k']) reads an object's field in DuckDB's JSON as in Snowflake; an index counts from 0 (slp's macro).
      if (subscript.index.literal?.literal_type === "string") return undefined;
      return call("__slp_sf_element", [subscript.this, subscript.index]);
    }
    return undefined;
  };
}

type Sides = { left: unknown; right: unknown };

/**
 * slp's functions that take a VARIANT as Snowflake does (the construct
 * table's rewrites and the tree's): anywhere else a VARIANT is converted
 * implicitly, and there the two warehouses part. Snowflake casts it to the
 * type the place needs (a string loses its quotes: `v:name || '!'` is
 * `Ada!`), while DuckDB's JSON is its JSON text (`"Ada"!`).
 */
const TAKES_VARIANT = new Set([
  "__slp_array_construct",
  "__slp_array_contains",
  "__slp_array_size",
  "__slp_array_to_string",
  "__slp_flatten",
  // JSON_EXTRACT_PATH_TEXT reads a VARIANT string as the text it holds, and slp errors where that differs
  "__slp_json_path_text",
  "__slp_object_construct",
  "__slp_object_keys",
  "__slp_sf_element",
  "__slp_sf_text",
  "__slp_strip_null_value",
  "__slp_to_array",
  "__slp_to_object",
  "__slp_to_variant",
  "__slp_variant_eq",
  "__slp_variant_get",
  "__slp_variant_in",
  "__slp_variant_is",
  "__slp_variant_json",
  "__slp_variant_typeof",
  // the list of VARIANTs the IN rewrite below builds (Snowflake has no list_value: a model calling it is refused)
  "list_value",
]);

/** slp's functions whose value is a VARIANT (JSON). */
const GIVES_VARIANT = new Set([
  "__slp_array_construct",
  "__slp_object_construct",
  "__slp_parse_json",
  "__slp_sf_element",
  "__slp_strip_null_value",
  "__slp_to_array",
  "__slp_to_object",
  "__slp_to_variant",
  "__slp_try_parse_json",
  "__slp_variant",
  "__slp_variant_get",
]);

/** Whether one of slp's macros gives a VARIANT (a function call the construct table rewrote). */
export function givesVariantMacro(macro: string): boolean {
  return GIVES_VARIANT.has(macro.toLowerCase());
}

/** Nodes that hold a VARIANT as it is: a select list's item, its alias, a cast, a path or subscript on it, a NULL test, COUNT. */
const HOLDS_VARIANT = new Set([
  "select",
  "alias",
  "cast",
  "try_cast",
  "j_s_o_n_extract",
  "subscript",
  "paren",
  "is",
  "is_null",
  "not_null",
  "count",
  // a list of VARIANTs (slp's OBJECT_CONSTRUCT and ARRAY_CONSTRUCT pass their values as one)
  "array_func",
]);

/** How a refusal names the place of a node kind that is not a function's own. */
const PLACES: Record<string, string> = { this: "a condition or an argument", expressions: "ORDER BY or GROUP BY", concat: "||" };

/** A function node's name, lower case; null for another node. */
function functionName(node: unknown): string | null {
  const name = (node as { function?: { name?: unknown } } | null)?.function?.name;
  return typeof name === "string" ? name.toLowerCase() : null;
}

/** Whether a node's value is a VARIANT the SQL makes (a path, slp's VARIANT functions, a cast to VARIANT; not a column of one). */
function givesVariant(node: unknown, casts: VariantCasts): boolean {
  if (node === null || typeof node !== "object") return false;
  if (isVariantPath(node)) return true;
  const name = functionName(node);
  if (name !== null) return GIVES_VARIANT.has(name);
  const inner = node as { this?: unknown; paren?: { this?: unknown }; subscript?: { this?: unknown }; cast?: { to?: { name?: string } } };
  if (inner.this) return givesVariant(inner.this, casts);
  if (inner.paren) return givesVariant(inner.paren.this, casts);
  if (inner.subscript) return givesVariant(inner.subscript.this, casts);
  const placeholder = inner.cast ? PLACEHOLDER.exec(inner.cast.to?.name ?? "") : null;
  return placeholder !== null && casts.semi.has(Number(placeholder[1]));
}

/** Whether a value is a node of the tree: one key (its kind) holding its fields. */
const isNode = (value: unknown): boolean =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 1;

/** The nodes directly under a node: its payload when that is a node, else its fields' nodes, and those of a plain record in a list (an ORDER BY item). */
function operands(node: TreeNode): unknown[] {
  const payload = Object.values(node)[0];
  if (isNode(payload)) return [payload];
  const found: unknown[] = [];
  const visit = (value: unknown, depth: number) => {
    if (Array.isArray(value)) for (const item of value) visit(item, depth);
    else if (isNode(value)) found.push(value);
    else if (value !== null && typeof value === "object" && depth < 1) for (const field of Object.values(value)) visit(field, depth + 1);
  };
  if (Array.isArray(payload)) visit(payload, 0);
  else if (payload !== null && typeof payload === "object") for (const field of Object.values(payload)) visit(field, 0);
  return found;
}

/**
 * Why a VARIANT the SQL makes is converted implicitly at this node, which
 * slp cannot do as Snowflake does (see TAKES_VARIANT); null where it is not.
 * Two VARIANTs compare as slp holds them (JSON text with sorted keys); a
 * VARIANT and a literal compare by slp's macro (the eq/in rewrites below).
 */
function implicitConversion(node: TreeNode, casts: VariantCasts): string | null {
  const [kind] = Object.keys(node) as [string];
  if (HOLDS_VARIANT.has(kind)) return null;
  const name = functionName(node);
  if (name !== null && TAKES_VARIANT.has(name)) return null;
  if (kind === "eq" || kind === "neq") {
    const { left, right } = node[kind] as Sides;
    const [leftVariant, rightVariant] = [givesVariant(left, casts), givesVariant(right, casts)];
    if (leftVariant === rightVariant) return null;
    if ((leftVariant && isVariantPath(left) && isLiteral(right)) || (rightVariant && isVariantPath(right) && isLiteral(left))) return null;
  }
  if (kind === "in") {
    const list = node[kind] as { this: unknown; expressions?: unknown[]; query?: unknown };
    if (isVariantPath(list.this) && !list.query && list.expressions?.length && list.expressions.every(isLiteral)) return null;
  }
  if (!operands(node).some((operand) => givesVariant(operand, casts))) return null;
  const where = name ?? PLACES[kind] ?? kind.replace(/_/g, " ");
  return `VARIANT used without a cast in ${where}: Snowflake converts a VARIANT to the type it needs (a string without its quotes), where slp holds it as JSON text; cast it where it is used (v:a::string, v:n::number)`;
}

/** A `v:a.b` path node. */
function isVariantPath(node: unknown): boolean {
  const extract = (node as { j_s_o_n_extract?: { variant_extract?: unknown } } | null)?.j_s_o_n_extract;
  return Boolean(extract?.variant_extract);
}

/** A string, number or boolean literal (not NULL). */
function isLiteral(node: unknown): boolean {
  const literal = (node as { literal?: { literal_type?: string } } | null)?.literal;
  return (
    literal?.literal_type === "string" ||
    literal?.literal_type === "number" ||
    (node as { boolean?: unknown } | null)?.boolean !== undefined
  );
}

/** The macros the tree rewrite may call. */
export const VARIANT_TREE_MACROS = [
  "__slp_sf_text",
  "__slp_to_variant",
  "__slp_to_object",
  "__slp_to_array",
  "__slp_variant_get",
  "__slp_sf_element",
];

// --- the function calls (the construct table's rewrites) ---

const one = (name: string, macro: string) => (call: Call) =>
  call.args.length === 1 ? `${macro}(${call.args[0]})` : { refuse: `slp translates ${name} of one value` };

export const parseJson = one("parse_json", "__slp_parse_json");
export const tryParseJson = one("try_parse_json", "__slp_try_parse_json");
export const toVariant = one("to_variant", "__slp_to_variant");
export const toJson = one("to_json", "__slp_variant_json");
export const arraySize = one("array_size", "__slp_array_size");
export const objectKeys = one("object_keys", "__slp_object_keys");

/** OBJECT_CONSTRUCT(k1, v1, ...) (and _KEEP_NULL): its keys and VARIANT values side by side for slp's macro. */
export function objectConstruct(keepNull: boolean) {
  return (call: Call): string | { refuse: string } => {
    if (call.args.length === 1 && call.args[0]?.trim() === "*")
      return { refuse: `${call.name}(*): slp builds objects from key-value pairs` };
    if (call.args.length % 2 !== 0) return { refuse: `${call.name} takes keys and values in pairs` };
    if (call.args.length === 0) return "__slp_variant('{}')";
    const keys = call.args.filter((_, i) => i % 2 === 0).map((key) => `cast(${key} as varchar)`);
    const values = call.args.filter((_, i) => i % 2 === 1).map((value) => `__slp_to_variant(${value})`);
    return `__slp_object_construct(${keepNull}, [${keys.join(", ")}], [${values.join(", ")}])`;
  };
}

/** ARRAY_CONSTRUCT(v, ...) (and _COMPACT): its VARIANT values for slp's macro. */
export function arrayConstruct(compact: boolean) {
  return (call: Call): string =>
    call.args.length === 0
      ? "__slp_variant('[]')"
      : `__slp_array_construct([${call.args.map((arg) => `__slp_to_variant(${arg})`).join(", ")}], ${compact})`;
}

/** GET(v, 'key' | index) and GET_PATH(v, 'a.b[0]'): a literal key, index or path. */
export function variantGet(call: Call): string | { refuse: string } {
  if (call.args.length !== 2) return { refuse: `${call.name} takes a value and a ${call.name === "get" ? "key or an index" : "path"}` };
  const literal = call.literal(1);
  if (literal === null) return { refuse: `slp translates ${call.name} with a literal ${call.name === "get" ? "key or index" : "path"}` };
  const quoted = /^\s*'/.test(call.args[1] as string);
  let path: string | { refuse: string };
  if (call.name === "get")
    path = quoted
      ? `$.${JSON.stringify(literal)}`
      : /^\d+$/.test(literal)
        ? `$[${literal}]`
        : { refuse: `get by '${literal}': slp reads a key or an index of 0 or more` };
  else path = quoted ? snowflakeJsonPath(literal) : { refuse: "get_path takes its path as a string" };
  if (typeof path !== "string") return path;
  return `__slp_variant_get(${call.args[0]}, '${path.replace(/'/g, "''")}')`;
}

/** ARRAY_CONTAINS(value, array): the value first, as Snowflake takes it. */
export function arrayContains(call: Call): string | { refuse: string } {
  return call.args.length === 2
    ? `__slp_array_contains(${call.args[0]}, ${call.args[1]})`
    : { refuse: "array_contains takes a value and an array" };
}

export const stripNullValue = one("strip_null_value", "__slp_strip_null_value");

/** ARRAY_TO_STRING(array, separator). */
export function arrayToString(call: Call): string | { refuse: string } {
  return call.args.length === 2
    ? `__slp_array_to_string(${call.args[0]}, ${call.args[1]})`
    : { refuse: "array_to_string takes an array and a separator" };
}

/** FLATTEN(INPUT => x[, OUTER => TRUE|FALSE]) as slp's table macro; PATH, RECURSIVE and MODE are refused. */
export function flatten(call: Call): string | { refuse: string } {
  let input: string | null = null;
  let outer = "false";
  for (const [position, arg] of call.args.entries()) {
    const named = /^\s*(\w+)\s*=>\s*([\s\S]+)$/.exec(arg);
    const name = named ? (named[1] as string).toLowerCase() : position === 0 ? "input" : null;
    const value = (named ? named[2] : arg)?.trim() ?? "";
    if (name === "input") input = value;
    else if (name === "outer" && /^(true|false)$/i.test(value)) outer = value.toLowerCase();
    else
      return {
        refuse: `flatten with ${name === null ? "a positional argument after INPUT" : `${name.toUpperCase()} => ${value}`}: slp runs FLATTEN(INPUT => ...[, OUTER => TRUE|FALSE])`,
      };
  }
  if (input === null) return { refuse: "flatten takes INPUT => the value to flatten" };
  return `__slp_flatten(${input}, ${outer})`;
}

/** TABLE(FLATTEN(...)): the flattened rows, joined laterally as LATERAL FLATTEN is. */
export function tableOfFlatten(call: Call): string | { refuse: string } {
  // Checked on the call as written (flatten) and as rewritten (__slp_flatten).
  return call.args.length === 1 && /^\s*(__slp_)?flatten\s*\(/i.test(call.args[0] as string)
    ? `lateral ${(call.args[0] as string).trim()}`
    : { refuse: "slp runs TABLE(...) only around FLATTEN(...)" };
}

export const variantTypeof = one("typeof", "__slp_variant_typeof");

/** IS_ARRAY, IS_OBJECT, ...: whether a VARIANT holds a value of the JSON kind `kind` (DuckDB's json_type name). */
export function variantIs(kind: string) {
  return (call: Call): string | { refuse: string } =>
    call.args.length === 1 ? `__slp_variant_is(${call.args[0]}, '${kind}')` : { refuse: `slp translates ${call.name} of one value` };
}
