/**
 * Spark's from_json on DuckDB, as far as slp has verified it: the JSON text is
 * read by Spark's rules for each type of the schema (Jackson's tokens: an INT
 * field takes an integer token in range, a DOUBLE any number, a STRING a
 * string, a struct an object whose missing fields are NULL and extra ones
 * ignored), and written back as JSON whose values DuckDB's cast then reads
 * exactly. Anything Spark would read some other way (a number for a STRING, a
 * string for an INT, malformed text, which PERMISSIVE mode turns into NULLs)
 * is an error naming it, never a guess. src/engine/duckdb.ts registers the function;
 * the translation (src/sql/dialect/nested.ts) writes the schema it checks.
 */

/** A schema as the function reads it: a scalar kind, or a struct, array or map of schemas. */
export type JsonSchema =
  | { kind: "string" | "boolean" | "double" }
  | { kind: "integer"; bits: 8 | 16 | 32 | 64 }
  | { kind: "decimal"; precision: number; scale: number }
  | { kind: "struct"; fields: [string, JsonSchema][] }
  | { kind: "array"; element: JsonSchema }
  | { kind: "map"; value: JsonSchema };

/** A JSON value as read, numbers kept as their text. */
export type JsonNode =
  | { kind: "object"; entries: [string, JsonNode][] }
  | { kind: "array"; items: JsonNode[] }
  | { kind: "string"; value: string }
  | { kind: "number"; text: string; integral: boolean }
  | { kind: "boolean"; value: boolean }
  | { kind: "null" };

export class SparkJsonError extends Error {}

/** Strict JSON (RFC 8259), numbers kept as written; anything else an error. */
export function parseJson(text: string): JsonNode {
  let at = 0;
  const fail = (what: string): never => {
    throw new SparkJsonError(
      `from_json(): the text is not JSON slp reads (${what} at character ${at + 1}); Spark's PERMISSIVE mode gives NULLs there, which slp has not verified`,
    );
  };
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at] as string)) at++;
  };
  const value = (): JsonNode => {
    space();
    const char = text[at];
    if (char === "{") {
      at++;
      const entries: [string, JsonNode][] = [];
      space();
      if (text[at] === "}") {
        at++;
        return { kind: "object", entries };
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail("a field name that is not a double-quoted string");
        const key = string();
        space();
        if (text[at++] !== ":") fail("a missing colon");
        entries.push([key, value()]);
        space();
        const next = text[at++];
        if (next === "}") return { kind: "object", entries };
        if (next !== ",") fail("a missing comma");
      }
    }
    if (char === "[") {
      at++;
      const items: JsonNode[] = [];
      space();
      if (text[at] === "]") {
        at++;
        return { kind: "array", items };
      }
      for (;;) {
        items.push(value());
        space();
        const next = text[at++];
        if (next === "]") return { kind: "array", items };
        if (next !== ",") fail("a missing comma");
      }
    }
    if (char === '"') return { kind: "string", value: string() };
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (number) {
      at += number[0].length;
      return { kind: "number", text: number[0], integral: number[2] === undefined && number[3] === undefined };
    }
    for (const [word, node] of [
      ["true", { kind: "boolean", value: true }],
      ["false", { kind: "boolean", value: false }],
      ["null", { kind: "null" }],
    ] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return node;
      }
    }
    return fail("an unexpected character");
  };
  const string = (): string => {
    const match = /^"((?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"/.exec(text.slice(at));
    if (!match) fail("a malformed string");
    at += (match as RegExpExecArray)[0].length;
    return JSON.parse((match as RegExpExecArray)[0]) as string;
  };
  const root = value();
  space();
  if (at < text.length) fail("text after the value");
  return root;
}

const INTEGER_RANGE: Record<8 | 16 | 32 | 64, [bigint, bigint]> = {
  8: [-(2n ** 7n), 2n ** 7n - 1n],
  16: [-(2n ** 15n), 2n ** 15n - 1n],
  32: [-(2n ** 31n), 2n ** 31n - 1n],
  64: [-(2n ** 63n), 2n ** 63n - 1n],
};

function describe(node: JsonNode): string {
  return node.kind === "number"
    ? `the number ${node.text}`
    : node.kind === "string"
      ? `the string ${JSON.stringify(node.value)}`
      : `a JSON ${node.kind}`;
}

/** The value as JSON DuckDB casts to the schema's type exactly: each field, element and entry checked by Spark's rules. */
export function conform(node: JsonNode, schema: JsonSchema, path = "$"): string {
  if (node.kind === "null") return "null";
  const unverified = (): never => {
    throw new SparkJsonError(
      `from_json(): ${describe(node)} at ${path} for a ${schema.kind} field: Spark's PERMISSIVE mode reads it its own way, which slp has not verified`,
    );
  };
  switch (schema.kind) {
    case "string":
      return node.kind === "string" ? JSON.stringify(node.value) : unverified();
    case "boolean":
      return node.kind === "boolean" ? String(node.value) : unverified();
    case "double":
      return node.kind === "number" ? node.text : unverified();
    case "integer": {
      if (node.kind !== "number" || !node.integral) return unverified();
      const [min, max] = INTEGER_RANGE[schema.bits];
      const value = BigInt(node.text);
      return value >= min && value <= max ? node.text : unverified();
    }
    case "decimal": {
      if (node.kind !== "number" || /[eE]/.test(node.text)) return unverified();
      const [whole = "", fraction = ""] = node.text.replace(/^-/, "").split(".");
      // A value that needs rounding, or more digits than the precision, is read by Spark's own rules.
      if (fraction.length > schema.scale || whole.replace(/^0+/, "").length > schema.precision - schema.scale) return unverified();
      return node.text;
    }
    case "struct": {
      if (node.kind !== "object") return unverified();
      const seen = new Set<string>();
      for (const [key] of node.entries) {
        if (seen.has(key))
          throw new SparkJsonError(
            `from_json(): the field ${JSON.stringify(key)} at ${path} is given twice; slp has not verified which Spark keeps`,
          );
        seen.add(key);
      }
      const byName = new Map(node.entries);
      return `{${schema.fields
        .map(([name, type]) => {
          const field = byName.get(name);
          return `${JSON.stringify(name)}:${field === undefined ? "null" : conform(field, type, `${path}.${name}`)}`;
        })
        .join(",")}}`;
    }
    case "array":
      return node.kind === "array"
        ? `[${node.items.map((item, i) => conform(item, schema.element, `${path}[${i}]`)).join(",")}]`
        : unverified();
    case "map":
      return node.kind === "object"
        ? `{${node.entries.map(([key, item]) => `${JSON.stringify(key)}:${conform(item, schema.value, `${path}.${key}`)}`).join(",")}}`
        : unverified();
  }
}

/** `__slp_nested_from_json(text, schema)`: the text conformed to the schema (JSON), NULL for NULL text. */
export function fromJson(text: string, schema: string): string {
  return conform(parseJson(text), JSON.parse(schema) as JsonSchema);
}

/**
 * Spark's schema_of_json of a JSON text, as the schema string from_json takes
 * (JsonInferSchema): an object a STRUCT of its fields sorted by name, an
 * integer BIGINT, any other number DOUBLE, a string or NULL STRING, an array
 * the merge of its elements' types (STRING when empty); types that do not
 * merge are refused, not guessed.
 */
export function schemaOfJson(text: string): string {
  type Inferred =
    | { kind: "null" | "string" | "bigint" | "double" | "boolean" }
    | { kind: "struct"; fields: Map<string, Inferred> }
    | { kind: "array"; element: Inferred };
  const infer = (node: JsonNode): Inferred => {
    switch (node.kind) {
      case "null":
        return { kind: "null" };
      case "string":
        return { kind: "string" };
      case "boolean":
        return { kind: "boolean" };
      case "number":
        if (node.integral && (BigInt(node.text) < INTEGER_RANGE[64][0] || BigInt(node.text) > INTEGER_RANGE[64][1]))
          throw new SparkJsonError(`schema_of_json(): ${node.text} is past a BIGINT; slp has not verified the DECIMAL Spark infers`);
        return { kind: node.integral ? "bigint" : "double" };
      case "array":
        return { kind: "array", element: node.items.map(infer).reduce(merge, { kind: "null" } as Inferred) };
      case "object":
        return { kind: "struct", fields: new Map(node.entries.map(([key, item]) => [key, infer(item)])) };
    }
  };
  const merge = (a: Inferred, b: Inferred): Inferred => {
    if (a.kind === "null") return b;
    if (b.kind === "null") return a;
    if (a.kind === b.kind && a.kind !== "struct" && a.kind !== "array") return a;
    if ((a.kind === "bigint" && b.kind === "double") || (a.kind === "double" && b.kind === "bigint")) return { kind: "double" };
    if (a.kind === "struct" && b.kind === "struct") {
      const fields = new Map(a.fields);
      for (const [name, type] of b.fields) fields.set(name, fields.has(name) ? merge(fields.get(name) as Inferred, type) : type);
      return { kind: "struct", fields };
    }
    if (a.kind === "array" && b.kind === "array") return { kind: "array", element: merge(a.element, b.element) };
    throw new SparkJsonError(
      "schema_of_json(): values of different kinds in one array or field; slp has not verified the type Spark infers",
    );
  };
  const write = (type: Inferred): string => {
    switch (type.kind) {
      case "null":
      case "string":
        return "STRING";
      case "bigint":
        return "BIGINT";
      case "double":
        return "DOUBLE";
      case "boolean":
        return "BOOLEAN";
      case "array":
        return `ARRAY<${write(type.element)}>`;
      case "struct":
        return `STRUCT<${[...type.fields.keys()]
          .sort()
          .map(
            (name) =>
              `${/^[A-Za-z_]\w*$/.test(name) ? name : `\`${name.replace(/`/g, "``")}\``}: ${write(type.fields.get(name) as Inferred)}`,
          )
          .join(", ")}>`;
    }
  };
  return write(infer(parseJson(text)));
}

/** A JSON string as Jackson writes it: quotes, backslashes and control characters escaped, nothing else. */
export function jacksonString(text: string): string {
  const short: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  return `"${text.replace(/["\\\u0000-\u001f]/g, (char) => short[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

/**
 * A DOUBLE as Java's Double.toString writes it (Spark's cast to STRING, and
 * Jackson's JSON): the shortest digits, at least one after the point, and
 * below 1E-3 or from 1E7 on as d.dddE<n>.
 */
export function javaDouble(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    const text = String(value);
    return text.includes(".") ? text : `${text}.0`;
  }
  const [mantissa, exponent] = value.toExponential().split("e") as [string, string];
  return `${mantissa.includes(".") ? mantissa : `${mantissa}.0`}E${exponent.replace(/^\+/, "")}`;
}

/** One step of a get_json_object path: a field or an array index. */
type PathStep = { field: string } | { index: number };

/** `$.a.b[0]['c d']` as its steps; null for a path slp does not read (wildcards, recursion, anything else). */
export function jsonPath(path: string): PathStep[] | null {
  if (!path.startsWith("$")) return null;
  const steps: PathStep[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const field = /^\.([^.[\]*]+)/.exec(rest) ?? /^\['([^'*]+)'\]/.exec(rest);
    const index = /^\[(\d+)\]/.exec(rest);
    if (field) steps.push({ field: field[1] as string });
    else if (index) steps.push({ index: Number(index[1]) });
    else return null;
    rest = rest.slice(((field ?? index) as RegExpExecArray)[0].length);
  }
  return steps;
}

/** A value as Jackson copies it (get_json_object's result for an object, array or number): compact, numbers as Java writes them. */
function copied(node: JsonNode): string {
  switch (node.kind) {
    case "object":
      return `{${node.entries.map(([key, item]) => `${jacksonString(key)}:${copied(item)}`).join(",")}}`;
    case "array":
      return `[${node.items.map(copied).join(",")}]`;
    case "string":
      return jacksonString(node.value);
    case "number":
      if (!node.integral) return javaDouble(Number(node.text));
      return BigInt(node.text).toString();
    case "boolean":
      return String(node.value);
    case "null":
      return "null";
  }
}

/**
 * Spark's get_json_object(text, path): the value at the path, a string's text
 * unquoted, anything else as Jackson writes it; NULL where the path leads
 * nowhere or to a JSON null. Text that is not JSON is an error (Spark reads
 * some of it leniently and returns NULL for the rest; slp has not verified which).
 */
export function getJsonObject(text: string, path: string): string | null {
  const steps = jsonPath(path);
  if (steps === null)
    throw new SparkJsonError(`get_json_object(): slp reads the path $ followed by .field, ['field'] and [n] only, not ${path}`);
  let node: JsonNode = parseJson(text);
  for (const step of steps) {
    if ("field" in step) {
      if (node.kind !== "object") return null;
      const found = node.entries.filter(([key]) => key === step.field);
      if (found.length > 1)
        throw new SparkJsonError(
          `get_json_object(): the field ${JSON.stringify(step.field)} is given twice; slp has not verified which Spark reads`,
        );
      if (found.length === 0) return null;
      node = (found[0] as [string, JsonNode])[1];
    } else {
      if (node.kind !== "array" || step.index >= node.items.length) return null;
      node = node.items[step.index] as JsonNode;
    }
  }
  if (node.kind === "null") return null;
  return node.kind === "string" ? node.value : copied(node);
}
