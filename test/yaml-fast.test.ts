/**
 * The YAML fast path (src/project/files/yaml-fast.ts) reads what it reads exactly
 * as js-yaml with PyYAML's resolvers does: the same value (same types, same
 * key order), the same lines, and every text it cannot vouch for left to
 * js-yaml, so errors and their messages stay js-yaml's.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../src/core/errors.ts";
import { configureLimits, LimitError } from "../src/core/limits.ts";
import { lineAt } from "../src/project/files/lines.ts";
import { parseFast, parseWithJsYaml, parseYamlWithLines, type ParsedYaml } from "../src/project/files/yaml.ts";
import { type FastReading, readFast } from "../src/project/files/yaml-fast.ts";
import { DIVERGENT, FEATURES, type Feature, generate, rng, writeDocument, type WrittenDocument } from "./support/yaml-documents.ts";

const ROOT = join(import.meta.dir, "..");

/** Deep equality that tells apart what toEqual does not: key order, -0, NaN. */
function same(a: unknown, b: unknown): boolean {
  if (a === null || typeof a !== "object" || b === null || typeof b !== "object") return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length || keysA.some((key, i) => key !== keysB[i])) return false;
  return keysA.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

type Outcome = "fast" | "js-yaml";

/** Reads a text both ways; fails the test when the fast path reads it and js-yaml reads it otherwise (or refuses it). */
function agree(text: string): Outcome {
  const fast = parseFast(text);
  if (fast === null) return "js-yaml";
  let slow: ReturnType<typeof parseWithJsYaml>;
  try {
    slow = parseWithJsYaml(text, { file: "x.yml" });
  } catch (error) {
    throw new Error(`the fast path read a text js-yaml refuses (${(error as Error).message}):\n${text}`);
  }
  if (!same(fast.value, slow.value)) {
    throw new Error(`values differ:\n${text}\nfast ${JSON.stringify(fast.value)}\njs-yaml ${JSON.stringify(slow.value)}`);
  }
  if (fast.lines !== slow.lines) throw new Error(`lines differ:\n${text}\nfast ${fast.lines}\njs-yaml ${slow.lines}`);
  return "fast";
}

function ymlFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...ymlFilesUnder(path));
    else if (/\.ya?ml$/.test(name)) found.push(path);
  }
  return found;
}

describe("the fast path and js-yaml agree", () => {
  test("on 6,000 generated documents, damaged ones among them, and the fast path takes its share", () => {
    const random = rng(20261201);
    const counts: Record<Outcome, number> = { fast: 0, "js-yaml": 0 };
    for (let i = 0; i < 6000; i++) counts[agree(generate(random))]++;
    // Most generated documents hold a scalar the fast path leaves to js-yaml; enough are read fast to mean something.
    expect(counts.fast).toBeGreaterThan(800);
    expect(counts["js-yaml"]).toBeGreaterThan(800);
  });

  test("on every yml of the fixtures and examples, nearly all read fast", () => {
    const files = [...ymlFilesUnder(join(ROOT, "test", "fixtures")), ...ymlFilesUnder(join(ROOT, "examples"))];
    const counts: Record<Outcome, number> = { fast: 0, "js-yaml": 0 };
    for (const file of files) counts[agree(readFileSync(file, "utf8"))]++;
    expect(counts.fast).toBeGreaterThan(files.length * 0.9);
  });

  test.each(DIVERGENT)("the plain scalar %p, as a value, a key and in flow collections", (scalar) => {
    const texts = [
      `v: ${scalar}\n`,
      `${scalar}: v\n`,
      `- ${scalar}\n- x\n`,
      `v: [${scalar}, x]\n`,
      `v: {k: ${scalar}}\n`,
      `v:\n  ${scalar}\n  more\n`,
    ];
    for (const text of texts) {
      agree(text);
      // And whichever path reads it, the answer is js-yaml's (or its refusal).
      let expected: unknown;
      try {
        expected = parseWithJsYaml(text, { file: "x.yml" }).value;
      } catch (error) {
        expect(() => parseYamlWithLines(text, { file: "x.yml" })).toThrow((error as Error).message);
        continue;
      }
      expect(same(parseYamlWithLines(text, { file: "x.yml" }).value, expected)).toBe(true);
    }
  });

  test.each([
    ["a non-printable character", "a: x\u0001y\n"],
    ["DEL", "a: x\u007fy\n"],
    ["U+FFFE", "a: x\ufffey\n"],
    ["a lone surrogate", "a: x\ud800y\n"],
    ["a tab", "a:\tb\n"],
    ["a carriage return", "a: b\r\n"],
    ["a byte-order mark", "\ufeffa: b\n"],
    ["an anchor and an alias", "a: &x 1\nb: *x\n"],
    ["a merge key", "base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n"],
    ["a tag", "a: !!str 1\n"],
    ["a second document", "a: 1\n---\nb: 2\n"],
    ["a document end", "a: 1\n...\n"],
    ["a directive", "%YAML 1.1\n---\na: 1\n"],
    ["an explicit key", "? a\n: b\n"],
    ["a multi-line quoted scalar", "a: 'x\n  y'\n"],
    ["an unknown escape", 'a: "x\\qy"\n'],
    ["a `__proto__` key", "__proto__: 1\n"],
    ["an integer key JavaScript moves first", "b: 1\n2: x\n"],
    ["an empty list item", "a:\n  -\n  - b\n"],
    ["a one-pair mapping in a flow list", "a: [k: v]\n"],
    ["a flow key without a value", "a: {k}\n"],
  ])("%s goes to js-yaml", (_, text) => {
    expect(parseFast(text)).toBeNull();
    agree(text);
  });

  test("what the fast path reads includes the styles dbt projects use", () => {
    const text = [
      "version: 2",
      "models:",
      "- name: fct_orders # a comment",
      "  description: >-",
      "    Orders, one row",
      "    per order.",
      "  meta: {spec: {grain: 'one row per order', primary_key: [order_id]}}",
      "  columns:",
      '    - name: "order_id"',
      "      data_tests: [unique, not_null]",
      "    - name: status",
      "      description: a plain scalar",
      "        over two rows",
      "unit_tests:",
      "  - name: t",
      "    given:",
      "      - input: ref('stg_orders')",
      "        format: csv",
      "        rows: |",
      "          id,status",
      "          1,shipped",
      "    expect: {rows: [{id: 1, when: 2024-05-01, at: 2024-05-01 08:00:00, on: yes, n: 010, e: 1e3}]}",
      "",
    ].join("\n");
    expect(agree(text)).toBe("fast");
    const value = parseFast(text)?.value as { unit_tests: { expect: { rows: Record<string, unknown>[] } }[] };
    // PyYAML's readings, not YAML 1.2's: a date stays its text, a timestamp is ISO text, yes is true, 010 is octal, 1e3 a string.
    expect(value.unit_tests[0]?.expect.rows[0]).toEqual({
      id: 1,
      when: "2024-05-01",
      at: "2024-05-01T08:00:00",
      true: true,
      n: 8,
      e: "1e3",
    });
  });
});

/** Whether a key path names a node of the value (lineAt falls back to a parent's line on a miss, which would hide a wrong line). */
function holds(value: unknown, path: readonly (string | number)[]): boolean {
  let node = value;
  for (const step of path) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, step)) return false;
    node = (node as Record<string | number, unknown>)[step];
  }
  return true;
}

/** Fails when a parse does not put every declaration the writer made at the line it was written on. */
function linesMatch(parsed: ParsedYaml, written: WrittenDocument, reader: string): void {
  for (const { path, line } of written.declarations) {
    if (!holds(parsed.value, path)) throw new Error(`${reader} lost ${JSON.stringify(path)}:\n${written.text}`);
    const found = lineAt(parsed, path);
    if (found !== line) throw new Error(`${reader} puts ${JSON.stringify(path)} at line ${found}, written at ${line}:\n${written.text}`);
  }
}

describe("documents written with known lines and known refusals", () => {
  // What the fast path reads itself; every other feature sends a text to js-yaml (anchors, tags, tabs, merge keys, ...).
  const READ_FAST: Feature[] = [
    "block mapping",
    "block list",
    "compact list",
    "list of mappings",
    "flow",
    "multi-line flow",
    "single-quoted",
    "double-quoted",
    "escape",
    "block scalar",
    "keep chomping",
    "multi-line plain",
    "comment",
    "comment-like content",
    "blank line",
    "YAML 1.1 scalar",
    "YAML 1.1 key",
    "empty value",
    "document start",
    "no final newline",
    "root list",
  ];

  test("on 4,000 of them both readers agree, put every key and list item at its line, and refuse exactly the duplicates and second documents", () => {
    const random = rng(20261202);
    const seen = new Map<Feature, { all: number; fast: number }>(FEATURES.map((feature) => [feature, { all: 0, fast: 0 }]));
    for (let i = 0; i < 4000; i++) {
      const written = writeDocument(random);
      const outcome = agree(written.text);
      for (const feature of written.features) {
        const count = seen.get(feature) as { all: number; fast: number };
        count.all++;
        if (outcome === "fast") count.fast++;
      }
      if (written.refusal !== null) {
        let refused: unknown;
        try {
          parseYamlWithLines(written.text, { file: "models/x.yml" });
        } catch (error) {
          refused = error;
        }
        if (!(refused instanceof InputError)) throw new Error(`expected a refusal (${written.refusal.kind}):\n${written.text}`);
        expect(refused.message).toContain(written.refusal.kind === "duplicate" ? "appears twice in one mapping" : "YAML documents");
        if (refused.line !== written.refusal.line)
          throw new Error(`refused at line ${refused.line}, expected ${written.refusal.line}:\n${written.text}`);
        continue;
      }
      if (written.merges) continue;
      linesMatch(parseWithJsYaml(written.text, { file: "x.yml" }), written, "js-yaml");
      const fast = parseFast(written.text);
      if (fast !== null) linesMatch(fast, written, "the fast path");
    }
    // Every feature is written often enough to mean something, and the fast path reads its share of each it claims.
    for (const [feature, count] of seen) {
      expect({ feature, enough: count.all >= 50 }).toEqual({ feature, enough: true });
      if (READ_FAST.includes(feature)) expect({ feature, readFast: count.fast >= 20 }).toEqual({ feature, readFast: true });
    }
  });

  test("a second document after a directive is named at its own `---`, not the first document's", () => {
    try {
      parseYamlWithLines("%YAML 1.1\n---\na: 1\n---\nb: 2\n", { file: "models/x.yml" });
      throw new Error("expected a refusal");
    } catch (error) {
      expect((error as InputError).line).toBe(4);
    }
  });
});

describe("the limits apply to what the fast path reads", () => {
  /** Shapes whose depth js-yaml counts differently (a list item and a value on its own row count once more), `depth` collections deep. */
  const nested = (depth: number): string[] => {
    const chain = (open: (i: number) => string, leaf: string) =>
      `${Array.from({ length: depth }, (_, i) => `${"  ".repeat(i)}${open(i)}`).join("\n")} ${leaf}\n`;
    return [
      chain((i) => `k${i}:`, "1"),
      chain(() => "-", "1"),
      chain((i) => (i % 2 === 0 ? `k${i}:` : "-"), "[1]"),
      chain((i) => `k${i}:`, `|\n${"  ".repeat(depth)}text`),
      `${chain((i) => `k${i}:`, "")}${"  ".repeat(depth)}1\n`,
      `k: ${"[".repeat(depth)}1${"]".repeat(depth)}\n`,
      `k: ${"[{a: ".repeat(depth)}1${"}]".repeat(depth)}\n`,
    ];
  };

  test("under any nesting_depth, the fast path reads only what js-yaml reads within it, and what js-yaml refuses is refused naming the limit", () => {
    const random = rng(20261203);
    let readFastWithinLimit = 0;
    try {
      for (let depthLimit = 1; depthLimit <= 8; depthLimit++) {
        configureLimits({ SLP_LIMIT_NESTING_DEPTH: String(depthLimit) });
        const texts = [
          ...Array.from({ length: 7 }, (_, depth) => nested(depth + 1)).flat(),
          ...Array.from({ length: 300 }, () => writeDocument(random).text),
        ];
        for (const text of texts) {
          let refusal: unknown = null;
          try {
            parseWithJsYaml(text, { file: "models/x.yml" });
          } catch (error) {
            refusal = error;
          }
          const fast = parseFast(text);
          if (fast !== null && refusal !== null)
            throw new Error(
              `nesting_depth ${depthLimit}: the fast path read a text js-yaml refuses (${(refusal as Error).message}):\n${text}`,
            );
          if (fast !== null) readFastWithinLimit++;
          if (refusal instanceof LimitError) expect(() => parseYamlWithLines(text, { file: "models/x.yml" })).toThrow(LimitError);
        }
      }
    } finally {
      configureLimits({});
    }
    expect(readFastWithinLimit).toBeGreaterThan(200);
  });

  test("under any yaml_values, a text is refused or read alike whichever reader takes it", () => {
    const random = rng(20261204);
    const texts = [
      "a: 'select * from x'\nb: [1, 2, 3]\nc: {d: 4, e: 5}\n",
      "a: 1\nb: 2\n",
      ...Array.from({ length: 300 }, () => writeDocument(random).text).filter((text) => text.includes("*")),
    ];
    let refusedBoth = 0;
    try {
      for (const values of [1, 3, 8, 20]) {
        configureLimits({ SLP_LIMIT_YAML_VALUES: String(values) });
        for (const text of texts) {
          let slow: unknown = null;
          let either: unknown = null;
          try {
            parseWithJsYaml(text, { file: "models/x.yml" });
          } catch (error) {
            slow = error;
          }
          try {
            parseYamlWithLines(text, { file: "models/x.yml" });
          } catch (error) {
            either = error;
          }
          if (slow instanceof LimitError !== either instanceof LimitError) {
            throw new Error(
              `yaml_values ${values}: js-yaml ${slow instanceof LimitError ? "refuses" : "does not refuse"} a text the readers together ${either instanceof LimitError ? "refuse" : "do not"}:\n${text}`,
            );
          }
          if (slow instanceof LimitError) refusedBoth++;
        }
      }
    } finally {
      configureLimits({});
    }
    expect(refusedBoth).toBeGreaterThan(10);
  });

  test("within the default nesting_depth, the fast path reads a deep block document itself", () => {
    expect(parseFast(nested(40)[0] as string)).not.toBeNull();
  });
});

describe("what js-yaml refuses stays refused, with its file and line", () => {
  test.each([
    ["block", "a: 1\nb: 2\na: 3\n", 3],
    ["flow", "a: {x: 1, x: 2}\n", 1],
    ["a plain and a quoted spelling", "a:\n  b: 1\n  'b': 2\n", 3],
    ["two spellings of true", "true: 1\nTrue: 2\n", 2],
  ])("a key written twice (%s)", (_, text, line) => {
    try {
      parseYamlWithLines(text, { file: "models/x.yml" });
      throw new Error("expected a refusal");
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).file).toBe("models/x.yml");
      expect((error as InputError).line).toBe(line);
      expect((error as InputError).message).toContain("appears twice in one mapping");
    }
  });
});

describe("the whole-text reader and its table of pieces read each piece where it stands", () => {
  test.each([
    ["a `#` and a `:` only in a later row", "a: b\nc: d # e\nf: g\n"],
    ["a comment that holds a colon", "a: b # c: d\ne: f\n"],
    ["`#` and `:` inside words", "a#b: c#d\ne:f: g\nh: i:j\n"],
    ["a key whose comment comes before a colon", "a # b: c\n"],
    ["a backslash only in a later row", 'a: "x"\nb: "y\\n"\nc: "z"\n'],
    ["a backslash in an earlier row", 'a: "y\\ty"\nb: "x"\n'],
    ["a plain scalar over rows, with `: ` and ` #` further on", "a: b\n  c\nd: e # f\n"],
    ["a plain scalar over rows that holds `: `", "a: b\n  c: d\n"],
    ["a flow over rows, a comment between", "a: [b, # c\n  d]\ne: f\n"],
    ["a flow over rows, a scalar at a row's end", "a: [b,\n  c\n  ]\nd: e\n"],
    ["a quoted scalar closed only in a later row", "a: 'b\nc: 'd'\n"],
    ["a double-quoted scalar closed only in a later row", 'a: "b\nc: "d"\n'],
    ["the last row without a line break", "a: b\nc: [d, e]"],
  ])("%s", (_, text) => {
    agree(text);
  });

  test("one piece read as a key, a plain value and a quoted value gives each reading", () => {
    const text = "k: yes\nq: 'yes'\nd: \"yes\"\nyes: 1\n'yes': 2\nn: -010\n-010: -010\n'-010': '-010'\n~: ~\n'~': '~'\n";
    expect(agree(text)).toBe("fast");
    expect(parseFast(text)?.value).toEqual({
      k: true,
      q: "yes",
      d: "yes",
      true: 1,
      yes: 2,
      n: -8,
      "-8": -8,
      "-010": "-010",
      null: null,
      "~": "~",
    });
  });

  test("pieces the table's hash cannot tell apart (same length, same ends and middle) are told apart", () => {
    // The hash reads a piece's length, first, middle and last two characters: these differ only in the second.
    const pairs = [
      ["aXbcd", "aYbcd"],
      ["10001", "11001"],
      ["nXll", "null"],
      ["tRue", "true"],
    ];
    for (const [one, other] of pairs) {
      const text = Array.from({ length: 6 }, (_, i) => `k${i}: ${i % 2 === 0 ? one : other}\n`).join("");
      // As keys behind a letter, so that the numbers are no array indices (which js-yaml places).
      const keys = `- k${one}: 1\n- k${other}: 2\n- {k${one}: 3, 'k${other}': 4}\n`;
      for (const again of [text, keys, `x: ${other}\ny: ${one}\n`, `- [${one}, ${other}, '${one}', "${other}"]\n`, text, keys])
        expect(agree(again)).toBe("fast");
      expect(parseFast(text)?.value).toEqual(
        Object.fromEntries(
          Array.from({ length: 6 }, (_, i) => [`k${i}`, parseWithJsYaml(`${i % 2 === 0 ? one : other}`, { file: "x.yml" }).value]),
        ),
      );
    }
  });

  test("a piece whose reading is text of its own (a timestamp made ISO) is read again each time", () => {
    const text = "a: 2024-05-01 08:00:00\nb: 2024-05-01 08:00:00\nc: [2024-05-01 08:00:00, 2024-05-01T08:00:00Z]\n";
    for (let i = 0; i < 3; i++) {
      expect(agree(text)).toBe("fast");
      expect(parseFast(text)?.value).toEqual({
        a: "2024-05-01T08:00:00",
        b: "2024-05-01T08:00:00",
        c: ["2024-05-01T08:00:00", "2024-05-01T08:00:00+00:00"],
      });
    }
  });

  test("the table answers for the reading it was filled with, not another", () => {
    const decode = (text: string, _style: number, start: number, end: number) => text.slice(start, end);
    const upper: FastReading = { resolve: (text) => text.toUpperCase(), decode, maxDepth: 10 };
    const lower: FastReading = { resolve: (text) => text.toLowerCase(), decode, maxDepth: 10 };
    const text = "Key: Value\nlist: [Item]\n";
    expect(readFast(text, upper)?.value).toEqual({ KEY: "VALUE", LIST: ["ITEM"] });
    expect(readFast(text, lower)?.value).toEqual({ key: "value", list: ["item"] });
    expect(readFast(text, upper)?.value).toEqual({ KEY: "VALUE", LIST: ["ITEM"] });
  });

  test("every code unit, in a value and in a key, is read as js-yaml reads it or left to js-yaml", () => {
    let fast = 0;
    for (let code = 0; code < 0x10000; code++) {
      // Every code unit where the printable ranges start or end, and every 97th one between.
      const edge = [0x0a, 0x20, 0x7e, 0x85, 0xa0, 0xd7ff, 0xe000, 0xfffd].some((at) => Math.abs(code - at) <= 1);
      if (!edge && code % 97 !== 0 && code >= 0x100) continue;
      const char = String.fromCharCode(code);
      for (const text of [`a: x${char}y\n`, `x${char}y: a\n`, `a: 'x${char}'\n`]) if (agree(text) === "fast") fast++;
    }
    expect(fast).toBeGreaterThan(1000);
  });
});
