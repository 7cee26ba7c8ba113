/**
 * Validates a value against one of our JSON Schemas and words each error as
 * the requirement the schema states (spec/rules.md §4.5). The error set is
 * the one Python's `jsonschema` (draft 2020-12, `iter_errors`) yields, which
 * existing users' expectations are built on: every failing keyword at every
 * location is one error; `oneOf`/`anyOf`/`not` are one error at their own
 * location; `if`/`then` adds only the `then` errors. No general-purpose
 * validator reproduces that set, so this small evaluator covers exactly the
 * keywords our TypeBox schemas use. One departure, on purpose: NaN and the
 * infinities are not numbers.
 *
 * One evaluator: each schema node is compiled once into a function that
 * either answers valid-or-not and stops at the first failure (most values are
 * valid, so this is the usual call), or, handed a list, collects every error
 * with its path. The same code decides both, so the two cannot disagree.
 */
import { isMapping } from "../core/values.ts";
import { compareCodePoints } from "../core/text.ts";

type Json = unknown;
type SchemaNode = Record<string, unknown>;
type Path = (string | number)[];
/** A path built only when an error needs it: each step points at its parent. */
type PathNode = { parent: PathNode; step: string | number } | null;

function materialise(node: PathNode): Path {
  const steps: Path = [];
  for (let current = node; current; current = current.parent) steps.unshift(current.step);
  return steps;
}

interface RawError {
  path: PathNode;
  keyword: string;
  holder: SchemaNode;
  instance: Json;
  /** For `required`: the missing field; for `additionalProperties`: the extra keys. */
  detail?: string | string[];
}

/**
 * A compiled schema node: true when the value is valid. With `out`, every
 * error is pushed there (at `path`) and nothing stops early; without it, the
 * first failure returns false.
 */
type Evaluate = (value: Json, path: PathNode, out: RawError[] | null) => boolean;

/** Validates and returns every error as a sentence prefixed with its path, sorted. */
export function schemaErrors(schema: object, instance: Json, prefix: string): string[] {
  return schemaProblems(schema, instance, prefix).map((problem) => problem.sentence);
}

/** One schema error with where it is and which keyword failed. */
export interface SchemaProblem {
  path: Path;
  keyword: string;
  sentence: string;
  /** For additionalProperties: the unknown keys. */
  keys?: string[];
}

/** Like schemaErrors, with the structure kept (config warnings need the keyword and keys; findings, the path). */
export function schemaProblems(schema: object, instance: Json, prefix: string): SchemaProblem[] {
  const evaluate = compile(schema as SchemaNode);
  if (evaluate(instance, null, null)) return [];
  const errors: RawError[] = [];
  evaluate(instance, null, errors);
  return errors
    .map((error) => ({
      path: materialise(error.path),
      keyword: error.keyword,
      sentence: render(error, prefix),
      keys: Array.isArray(error.detail) ? error.detail : undefined,
    }))
    .sort((a, b) => compareCodePoints(a.sentence, b.sentence));
}

/** True when the value satisfies the schema. */
export function isValid(schema: object, instance: Json): boolean {
  return compile(schema as SchemaNode)(instance, null, null);
}

// --- internal ---

const compiled = new WeakMap<SchemaNode, Evaluate>();

function compile(schema: SchemaNode): Evaluate {
  const cached = compiled.get(schema);
  if (cached) return cached;
  // Sub-schemas may refer back through this node while it is built; they reach it through the map.
  const steps: Evaluate[] = [];
  const evaluate: Evaluate = (value, path, out) => {
    let ok = true;
    for (const step of steps) {
      if (!step(value, path, out)) {
        if (!out) return false;
        ok = false;
      }
    }
    return ok;
  };
  compiled.set(schema, evaluate);
  const fail = (keyword: string, value: Json, path: PathNode, out: RawError[] | null, detail?: string | string[]): false => {
    out?.push({ path, keyword, holder: schema, instance: value, detail });
    return false;
  };
  /** A keyword that fails or holds as a whole, at the value's own location. */
  const keyword =
    (name: string, holds: (value: Json) => boolean): Evaluate =>
    (value, path, out) =>
      holds(value) || fail(name, value, path, out);

  if (schema.type !== undefined) {
    // Each type's test picked once here, not looked up by name at every value.
    const tests = (Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]).map(typeTest);
    const [only] = tests;
    steps.push(keyword("type", tests.length === 1 && only ? only : (value) => tests.some((test) => test(value))));
  }
  if (Array.isArray(schema.enum)) {
    const options = schema.enum as Json[];
    steps.push(keyword("enum", (value) => options.some((option) => jsonEqual(option, value))));
  }
  if ("const" in schema) steps.push(keyword("const", (value) => jsonEqual(schema.const, value)));

  const properties = new Map(
    Object.entries((schema.properties ?? {}) as Record<string, SchemaNode>).map(([key, sub]) => [key, compile(sub)]),
  );
  const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, SchemaNode>).map(
    ([pattern, sub]) => [pythonRegex(pattern), compile(sub)] as const,
  );
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const additional = schema.additionalProperties;
  const extra = isMapping(additional) ? compile(additional as SchemaNode) : null;
  if (properties.size > 0 || patterns.length > 0 || required.length > 0 || additional !== undefined) {
    steps.push((value, path, out) => {
      if (!isMapping(value)) return true;
      let ok = true;
      for (const field of required) {
        if (Object.hasOwn(value, field)) continue;
        ok = fail("required", value, path, out, field);
        if (!out) return false;
      }
      const extras: string[] = [];
      for (const key of Object.keys(value)) {
        const item = value[key];
        const at = out ? { parent: path, step: key } : null;
        let known = false;
        const property = properties.get(key);
        if (property) {
          known = true;
          if (!property(item, at, out)) {
            ok = false;
            if (!out) return false;
          }
        }
        for (const [regex, sub] of patterns) {
          if (!regex.test(key)) continue;
          known = true;
          if (!sub(item, at, out)) {
            ok = false;
            if (!out) return false;
          }
        }
        if (known) continue;
        if (additional === false) {
          if (!out) return false;
          extras.push(key);
        } else if (extra && !extra(item, at, out)) {
          ok = false;
          if (!out) return false;
        }
      }
      // One error per object, listing every key it does not know.
      if (extras.length > 0) ok = fail("additionalProperties", value, path, out, extras.sort(compareCodePoints));
      return ok;
    });
  }

  const items = isMapping(schema.items) ? compile(schema.items as SchemaNode) : null;
  if (items) {
    steps.push((value, path, out) => {
      if (!Array.isArray(value)) return true;
      let ok = true;
      for (let i = 0; i < value.length; i++) {
        if (items(value[i], out ? { parent: path, step: i } : null, out)) continue;
        ok = false;
        if (!out) return false;
      }
      return ok;
    });
  }
  const { minItems, maxItems, minLength, pattern, minimum } = schema;
  if (typeof minItems === "number") steps.push(keyword("minItems", (value) => !Array.isArray(value) || value.length >= minItems));
  if (typeof maxItems === "number") steps.push(keyword("maxItems", (value) => !Array.isArray(value) || value.length <= maxItems));
  if (schema.uniqueItems === true) steps.push(keyword("uniqueItems", (value) => !Array.isArray(value) || !hasDuplicates(value)));
  if (typeof minLength === "number") {
    // Lengths count code points; a text of at least twice the units has enough of them whatever it holds.
    steps.push(
      keyword("minLength", (value) => typeof value !== "string" || value.length >= 2 * minLength || [...value].length >= minLength),
    );
  }
  if (typeof pattern === "string") {
    const regex = pythonRegex(pattern);
    steps.push(keyword("pattern", (value) => typeof value !== "string" || regex.test(value)));
  }
  // Python compares as `instance < minimum`: NaN is never below it.
  if (typeof minimum === "number") steps.push(keyword("minimum", (value) => typeof value !== "number" || !(value < minimum)));

  // allOf's branches report at this location as if they were this node's own keywords.
  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf as SchemaNode[]) steps.push(compile(sub));
  // anyOf, oneOf and not are one error here; their branches only answer valid or not.
  if (Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as SchemaNode[]).map(compile);
    steps.push(keyword("anyOf", (value) => branches.some((branch) => branch(value, null, null))));
  }
  if (Array.isArray(schema.oneOf)) {
    const branches = (schema.oneOf as SchemaNode[]).map(compile);
    steps.push(keyword("oneOf", (value) => branches.filter((branch) => branch(value, null, null)).length === 1));
  }
  if (isMapping(schema.not)) {
    const negated = compile(schema.not as SchemaNode);
    steps.push(keyword("not", (value) => !negated(value, null, null)));
  }
  // if/then/else: only the chosen branch's own errors, at their own paths.
  if (isMapping(schema.if)) {
    const condition = compile(schema.if as SchemaNode);
    const then = isMapping(schema.then) ? compile(schema.then as SchemaNode) : null;
    const otherwise = isMapping(schema.else) ? compile(schema.else as SchemaNode) : null;
    steps.push((value, path, out) => {
      const branch = condition(value, null, null) ? then : otherwise;
      return !branch || branch(value, path, out);
    });
  }
  // A node of one keyword is that keyword's own test (what a node that refers back to itself holds stays the loop above).
  if (steps.length > 1) return evaluate;
  const only: Evaluate = steps[0] ?? (() => true);
  compiled.set(schema, only);
  return only;
}

/** The test of one JSON Schema type. */
function typeTest(type: string): (instance: Json) => boolean {
  switch (type) {
    case "object":
      return isMapping;
    case "array":
      return Array.isArray;
    case "string":
      return (instance) => typeof instance === "string";
    case "number":
      // NaN and the infinities are not numbers for any bound or measurement: a
      // departure from the reference's jsonschema, where `number` accepts NaN
      // and a .nan bound then passes check (README "departures").
      return (instance) => typeof instance === "number" && Number.isFinite(instance);
    case "integer":
      return (instance) => typeof instance === "number" && Number.isInteger(instance);
    case "boolean":
      return (instance) => typeof instance === "boolean";
    case "null":
      return (instance) => instance === null;
    default:
      return () => false;
  }
}

/** jsonschema's equality: `1 == 1.0`, but a boolean never equals a number. */
function jsonEqual(a: Json, b: Json): boolean {
  if (typeof a === "boolean" || typeof b === "boolean") return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isMapping(a) && isMapping(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return a === b;
}

/**
 * Linear in the items (a pairwise scan took 13.6 s on a diff row of 100,000
 * columns): two items are jsonEqual exactly when their canonical keys are equal.
 */
function hasDuplicates(items: Json[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = canonicalKey(item);
    if (key !== undefined && seen.size === seen.add(key).size) return true;
  }
  return false;
}

/**
 * A text equal for two values exactly when jsonEqual holds: numbers by value
 * (0 and -0 alike), booleans apart from numbers, mappings whatever their key
 * order. Undefined for a value equal to nothing else (NaN, or anything holding it).
 */
function canonicalKey(value: Json): string | undefined {
  if (typeof value === "number") return Number.isNaN(value) ? undefined : `n${String(value === 0 ? 0 : value)}`;
  if (typeof value === "string") return `s${JSON.stringify(value)}`;
  if (typeof value === "boolean") return value ? "t" : "f";
  if (value === null) return "z";
  if (value === undefined) return "u";
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const key = canonicalKey(item);
      if (key === undefined) return undefined;
      parts.push(key);
    }
    return `[${parts.join(",")}]`;
  }
  if (isMapping(value)) {
    for (const name of Object.keys(value).sort(compareCodePoints)) {
      const key = canonicalKey(value[name]);
      if (key === undefined) return undefined;
      parts.push(`${JSON.stringify(name)}:${key}`);
    }
    return `{${parts.join(",")}}`;
  }
  return undefined;
}

const regexCache = new Map<string, RegExp>();
/** A Python `re.search`: unanchored, and a trailing `$` also matches before a final newline. */
function pythonRegex(pattern: string): RegExp {
  let regex = regexCache.get(pattern);
  if (!regex) {
    regex = new RegExp(pattern.replace(/(?<!\\)\$$/, "(?=\\n?$)"), "u");
    regexCache.set(pattern, regex);
  }
  return regex;
}

function render(error: RawError, prefix: string): string {
  const where =
    prefix +
    materialise(error.path)
      .map((step) => (typeof step === "number" ? `[${step}]` : `.${step}`))
      .join("");
  const holder = error.holder;
  const description = typeof holder.description === "string" ? holder.description : undefined;
  if (error.keyword === "required") {
    const field = error.detail as string;
    const fieldSchema = (holder.properties as Record<string, SchemaNode> | undefined)?.[field];
    const why = typeof fieldSchema?.description === "string" ? fieldSchema.description : description;
    return `${where}: missing required field '${field}'${why ? ` - ${why}` : ""}`;
  }
  if (error.keyword === "additionalProperties") {
    return `${where}: unknown field ${(error.detail as string[]).map((key) => `'${key}'`).join(", ")}`;
  }
  let text = description ?? fallbackText(error);
  const arrayKeyword = error.keyword === "minItems" || error.keyword === "maxItems" || error.keyword === "uniqueItems";
  if (!arrayKeyword && !isMapping(error.instance) && !Array.isArray(error.instance)) {
    text += ` (got ${pythonJson(error.instance)})`;
  }
  return `${where}: ${text}`;
}

function fallbackText(error: RawError): string {
  const value = error.holder[error.keyword];
  if (error.keyword === "enum") return `must be one of: ${pythonJson(value)}`;
  if (error.keyword === "const") return `must be ${pythonJson(value)}`;
  return pythonJson(value);
}

/** JSON with Python's `json.dumps` separators (", " and ": "). */
export function pythonJson(value: Json): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    return String(value);
  }
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (isMapping(value)) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(String(value));
}
