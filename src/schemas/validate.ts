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

/**
 * Like schemaErrors, with the structure kept (config warnings need the keyword
 * and keys). Most values are valid, so a compiled yes/no check runs first and
 * the error-collecting walk only runs on a value that fails it; `walkAlways`
 * skips that shortcut (the test that proves the two agree uses it).
 */
export function schemaProblems(schema: object, instance: Json, prefix: string, walkAlways = false): SchemaProblem[] {
  if (!walkAlways && compile(schema as SchemaNode)(instance)) return [];
  const errors: RawError[] = [];
  walk(schema as SchemaNode, instance, null, errors);
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
  return compile(schema as SchemaNode)(instance);
}

// --- internal ---

function walk(schema: SchemaNode, instance: Json, path: PathNode, out: RawError[]): void {
  const fail = (keyword: string, detail?: string | string[]) =>
    out.push({ path, keyword, holder: schema, instance, detail });

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => isType(instance, type))) fail("type");
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => jsonEqual(option, instance))) fail("enum");
  if ("const" in schema && !jsonEqual(schema.const, instance)) fail("const");

  if (isMapping(instance)) {
    const properties = (schema.properties ?? {}) as Record<string, SchemaNode>;
    if (Array.isArray(schema.required)) {
      for (const field of schema.required as string[]) if (!Object.hasOwn(instance, field)) fail("required", field);
    }
    const patterns = compiledPatterns(schema);
    const extras: string[] = [];
    for (const key of Object.keys(instance)) {
      const value = instance[key];
      let known = false;
      if (Object.hasOwn(properties, key)) {
        known = true;
        walk(properties[key] as SchemaNode, value, { parent: path, step: key }, out);
      }
      for (const [regex, sub] of patterns) {
        if (regex.test(key)) {
          known = true;
          walk(sub, value, { parent: path, step: key }, out);
        }
      }
      if (!known) extras.push(key);
    }
    const additional = schema.additionalProperties;
    if (additional === false && extras.length > 0) fail("additionalProperties", extras.sort(compareCodePoints));
    if (isMapping(additional)) for (const key of extras) walk(additional, instance[key], { parent: path, step: key }, out);
  }

  if (Array.isArray(instance)) {
    if (isMapping(schema.items)) instance.forEach((item, i) => walk(schema.items as SchemaNode, item, { parent: path, step: i }, out));
    if (typeof schema.minItems === "number" && instance.length < schema.minItems) fail("minItems");
    if (typeof schema.maxItems === "number" && instance.length > schema.maxItems) fail("maxItems");
    if (schema.uniqueItems === true && hasDuplicates(instance)) fail("uniqueItems");
  }

  if (typeof instance === "string") {
    if (typeof schema.minLength === "number" && [...instance].length < schema.minLength) fail("minLength");
    if (typeof schema.pattern === "string" && !pythonRegex(schema.pattern).test(instance)) fail("pattern");
  }

  if (typeof instance === "number" && typeof schema.minimum === "number" && instance < schema.minimum) fail("minimum");

  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf as SchemaNode[]) walk(sub, instance, path, out);
  if (Array.isArray(schema.anyOf) && !(schema.anyOf as SchemaNode[]).some((sub) => validAt(sub, instance))) fail("anyOf");
  if (Array.isArray(schema.oneOf) && (schema.oneOf as SchemaNode[]).filter((sub) => validAt(sub, instance)).length !== 1) {
    fail("oneOf");
  }
  if (isMapping(schema.not) && validAt(schema.not as SchemaNode, instance)) fail("not");
  if (isMapping(schema.if)) {
    const branch = validAt(schema.if as SchemaNode, instance) ? schema.then : schema.else;
    if (isMapping(branch)) walk(branch as SchemaNode, instance, path, out);
  }
}

const patternCache = new WeakMap<SchemaNode, (readonly [RegExp, SchemaNode])[]>();
function compiledPatterns(schema: SchemaNode): (readonly [RegExp, SchemaNode])[] {
  let patterns = patternCache.get(schema);
  if (!patterns) {
    patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, SchemaNode>).map(
      ([pattern, sub]) => [pythonRegex(pattern), sub] as const,
    );
    patternCache.set(schema, patterns);
  }
  return patterns;
}

function validAt(schema: SchemaNode, instance: Json): boolean {
  return compile(schema)(instance);
}

type Check = (value: Json) => boolean;
const compiledChecks = new WeakMap<SchemaNode, Check>();

/**
 * The same keywords as `walk`, compiled once per schema node into closures
 * that answer valid or not and stop at the first failure: the fast path for
 * the common case of a value with nothing to report.
 */
function compile(schema: SchemaNode): Check {
  const cached = compiledChecks.get(schema);
  if (cached) return cached;
  const checks: Check[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    checks.push((value) => types.some((type) => isType(value, type)));
  }
  if (Array.isArray(schema.enum)) {
    const options = schema.enum as Json[];
    checks.push((value) => options.some((option) => jsonEqual(option, value)));
  }
  if ("const" in schema) checks.push((value) => jsonEqual(schema.const, value));

  const properties = new Map(Object.entries((schema.properties ?? {}) as Record<string, SchemaNode>).map(([key, sub]) => [key, compile(sub)]));
  const patterns = compiledPatterns(schema).map(([regex, sub]) => [regex, compile(sub)] as const);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const additional = schema.additionalProperties;
  const extraCheck = isMapping(additional) ? compile(additional as SchemaNode) : null;
  if (properties.size > 0 || patterns.length > 0 || required.length > 0 || additional !== undefined) {
    checks.push((value) => {
      if (!isMapping(value)) return true;
      for (const field of required) if (!Object.hasOwn(value, field)) return false;
      for (const key of Object.keys(value)) {
        const item = value[key];
        let known = false;
        const property = properties.get(key);
        if (property) {
          known = true;
          if (!property(item)) return false;
        }
        for (const [regex, check] of patterns) {
          if (regex.test(key)) {
            known = true;
            if (!check(item)) return false;
          }
        }
        if (!known && (additional === false || (extraCheck && !extraCheck(item)))) return false;
      }
      return true;
    });
  }

  const items = isMapping(schema.items) ? compile(schema.items as SchemaNode) : null;
  const { minItems, maxItems, uniqueItems } = schema;
  if (items || typeof minItems === "number" || typeof maxItems === "number" || uniqueItems === true) {
    checks.push((value) => {
      if (!Array.isArray(value)) return true;
      if (items && !value.every(items)) return false;
      if (typeof minItems === "number" && value.length < minItems) return false;
      if (typeof maxItems === "number" && value.length > maxItems) return false;
      return !(uniqueItems === true && hasDuplicates(value));
    });
  }
  const { minLength, pattern, minimum } = schema;
  if (typeof minLength === "number") checks.push((value) => typeof value !== "string" || [...value].length >= minLength);
  if (typeof pattern === "string") {
    const regex = pythonRegex(pattern);
    checks.push((value) => typeof value !== "string" || regex.test(value));
  }
  if (typeof minimum === "number") checks.push((value) => typeof value !== "number" || value >= minimum);

  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf as SchemaNode[]) checks.push(compile(sub));
  if (Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as SchemaNode[]).map(compile);
    checks.push((value) => branches.some((branch) => branch(value)));
  }
  if (Array.isArray(schema.oneOf)) {
    const branches = (schema.oneOf as SchemaNode[]).map(compile);
    checks.push((value) => branches.filter((branch) => branch(value)).length === 1);
  }
  if (isMapping(schema.not)) {
    const negated = compile(schema.not as SchemaNode);
    checks.push((value) => !negated(value));
  }
  if (isMapping(schema.if)) {
    const condition = compile(schema.if as SchemaNode);
    const then = isMapping(schema.then) ? compile(schema.then as SchemaNode) : null;
    const otherwise = isMapping(schema.else) ? compile(schema.else as SchemaNode) : null;
    checks.push((value) => {
      const branch = condition(value) ? then : otherwise;
      return !branch || branch(value);
    });
  }
  const check: Check = (value) => {
    for (const one of checks) if (!one(value)) return false;
    return true;
  };
  compiledChecks.set(schema, check);
  return check;
}

function isType(instance: Json, type: string): boolean {
  switch (type) {
    case "object":
      return isMapping(instance);
    case "array":
      return Array.isArray(instance);
    case "string":
      return typeof instance === "string";
    case "number":
      // NaN and the infinities are not numbers for any bound or measurement: a
      // departure from the reference's jsonschema, where `number` accepts NaN
      // and a .nan bound then passes check (README "departures").
      return typeof instance === "number" && Number.isFinite(instance);
    case "integer":
      return typeof instance === "number" && Number.isInteger(instance);
    case "boolean":
      return typeof instance === "boolean";
    case "null":
      return instance === null;
    default:
      return false;
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

function hasDuplicates(items: Json[]): boolean {
  for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) if (jsonEqual(items[i], items[j])) return true;
  return false;
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
  const where = prefix + materialise(error.path).map((step) => (typeof step === "number" ? `[${step}]` : `.${step}`)).join("");
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
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`).join(", ")}}`;
  }
  return JSON.stringify(String(value));
}
