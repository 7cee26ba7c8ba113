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
  return (node: TreeNode): TreeNode | undefined => {
    const [kind] = Object.keys(node);
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
