/** The YAML adapter reads scalars the way PyYAML's safe_load does (YAML 1.1), and refuses what dbt would misread. */
import { describe, expect, test } from "bun:test";
import { InputError } from "../src/core/errors.ts";
import { indentFlowLines } from "../src/project/files/flow-indent.ts";
import { lineAt } from "../src/project/files/lines.ts";
import { parseYaml, parseYamlWithLines, parseYamlWithPositions } from "../src/project/files/yaml.ts";

const read = (text: string) => parseYaml(text, { file: "models/x.yml" });
/** The value of one plain scalar written after `v: `. */
const scalar = (written: string) => (read(`v: ${written}\n`) as { v: unknown }).v;

function failure(text: string): InputError {
  try {
    read(text);
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("expected the text to be refused");
}

describe("PyYAML scalar resolution (spec/rules.md §13)", () => {
  test.each([
    ["yes", true],
    ["Yes", true],
    ["YES", true],
    ["on", true],
    ["On", true],
    ["ON", true],
    ["true", true],
    ["True", true],
    ["TRUE", true],
    ["no", false],
    ["No", false],
    ["NO", false],
    ["off", false],
    ["Off", false],
    ["OFF", false],
    ["false", false],
    ["False", false],
    ["FALSE", false],
  ])("%s is the boolean %p", (written, value) => {
    expect(scalar(written)).toBe(value);
  });

  test.each(["y", "Y", "n", "N", "yEs", "tRUE", "onn"])("%s stays a string", (written) => {
    expect(scalar(written)).toBe(written);
  });

  test.each([
    ["010", 8], // a leading 0 is octal
    ["0777", 511],
    ["0x1F", 31],
    ["0b101", 5],
    ["1_000", 1000],
    ["1_", 1], // underscores are dropped wherever they are
    ["+12", 12],
    ["-0", 0],
    ["12:30:00", 45000], // base 60
    ["-1:30", -90],
  ])("integer %s is %p", (written, value) => {
    expect(scalar(written)).toBe(value);
  });

  test.each([
    ["1.0e+3", 1000],
    ["1.5", 1.5],
    ["1.", 1],
    [".5", 0.5],
    ["-2.5e-1", -0.25],
    ["190:20:30.15", 685230.15],
  ])("float %s is %p", (written, value) => {
    expect(scalar(written)).toBe(value);
  });

  test("infinities and NaN", () => {
    expect(scalar(".inf")).toBe(Infinity);
    expect(scalar("-.Inf")).toBe(-Infinity);
    expect(scalar("+.INF")).toBe(Infinity);
    expect(Number.isNaN(scalar(".nan") as number)).toBe(true);
    expect(Number.isNaN(scalar(".NaN") as number)).toBe(true);
  });

  test.each(["1e3", "1.5e3", "1E+3", "0o17", "09", "12:60", ".inf.", "0x"])(
    "%s is a string (a float needs a dot, an exponent needs a sign; 0o and 09 are not YAML 1.1 numbers)",
    (written) => {
      expect(scalar(written)).toBe(written);
    },
  );

  test.each(["~", "null", "Null", "NULL", ""])("'%s' is null", (written) => {
    expect(scalar(written)).toBeNull();
  });

  test("dates and timestamps become the ISO text dbt renders them as (dbt-unit-tests.md §1.6)", () => {
    expect(scalar("2024-01-31")).toBe("2024-01-31");
    expect(scalar("2024-01-31 10:00:00")).toBe("2024-01-31T10:00:00");
    expect(scalar("2024-01-31T08:05:09Z")).toBe("2024-01-31T08:05:09+00:00");
    expect(scalar("2024-1-5 7:00:00 -05")).toBe("2024-01-05T07:00:00-05:00");
    expect(scalar("2024-01-31t10:00:00.25+01:30")).toBe("2024-01-31T10:00:00.250000+01:30");
    expect(scalar("2024-01-31 10:00:00.000")).toBe("2024-01-31T10:00:00");
    // Without a time, a one-digit month is not a date.
    expect(scalar("2024-1-5")).toBe("2024-1-5");
  });

  test("quoting keeps the text", () => {
    expect(read("a: 'yes'\nb: \"010\"\nc: '2024-01-31'\n")).toEqual({ a: "yes", b: "010", c: "2024-01-31" });
  });

  test("anchors and merge keys work as in dbt projects", () => {
    const text = "base: &base {severity: warn, where: x}\ntest:\n  <<: *base\n  where: y\n";
    expect(read(text)).toEqual({ base: { severity: "warn", where: "x" }, test: { severity: "warn", where: "y" } });
  });
});

describe("documents", () => {
  test("an empty or comments-only text is null (an empty mapping to the project reader)", () => {
    expect(read("")).toBeNull();
    expect(read("# nothing here\n\n")).toBeNull();
    expect(read("null\n")).toBeNull();
  });

  test("a second document is refused, naming its line", () => {
    const error = failure("version: 2\nmodels: []\n---\nversion: 2\n");
    expect(error.file).toBe("models/x.yml");
    expect(error.line).toBe(3);
    expect(error.message).toContain("2 YAML documents");
  });

  test("a document that starts with --- is still one document", () => {
    expect(read("---\nversion: 2\n")).toEqual({ version: 2 });
  });
});

describe("errors name the file and the line", () => {
  test("a duplicate key in block style", () => {
    const error = failure("version: 2\nmodels:\n  - name: a\n    description: x\n    name: b\n");
    expect(error.line).toBe(5);
    expect(error.message).toBe("the key 'name' appears twice in one mapping");
  });

  test("a duplicate key inside a flow mapping names that key, not the line's first", () => {
    const error = failure("models:\n  - name: a\n    config: {materialized: table, materialized: view}\n");
    expect(error.line).toBe(3);
    expect(error.message).toBe("the key 'materialized' appears twice in one mapping");
  });

  test("a duplicate quoted key", () => {
    const error = failure("a:\n  'b c': 1\n  \"b c\": 2\n");
    expect(error.line).toBe(3);
    expect(error.message).toBe("the key 'b c' appears twice in one mapping");
  });

  test("unquoted Jinja is named, at the line that holds it", () => {
    const error = failure("version: 2\nmodels:\n  - name: a\n    description: {{ doc('a') }}\n");
    expect(error.line).toBe(4);
    expect(error.message).toContain("this file contains Jinja, which slp does not render");
    expect(error.fix).toContain("quote the Jinja expression");
  });

  test("Jinja that parses (quoted) is just text", () => {
    expect(read("description: \"{{ doc('a') }}\"\n")).toEqual({ description: "{{ doc('a') }}" });
  });

  test("a syntax error gives the parser's reason, line and column", () => {
    const error = failure("models:\n  - name: a\n   description: b\n");
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^not valid YAML: .+ \(column \d+\)$/);
  });

  test("a text read from history says at which commit", () => {
    try {
      parseYaml("a: 1\na: 2\n", { file: "models/x.yml", at: "1a2b3c4d" });
      throw new Error("expected a refusal");
    } catch (error) {
      expect((error as InputError).message).toBe("at 1a2b3c4d, the key 'a' appears twice in one mapping");
    }
  });
});

describe("positions", () => {
  test("lineOf finds keys and list items", () => {
    const parsed = parseYamlWithPositions("a: 1\nb:\n  - x\n  - c: 2\n", { file: "slp.yml" });
    expect(parsed.lineOf(["b"])).toBe(2);
    expect(parsed.lineOf(["b", 1])).toBe(4);
    expect(parsed.lineOf(["b", 1, "c"])).toBe(4);
    // A missing step answers with the deepest line found.
    expect(parsed.lineOf(["b", 7])).toBe(2);
  });
});

describe("a flow collection left of its key's indentation, as PyYAML reads it", () => {
  // Each text with the value PyYAML 6 (yaml.safe_load, what dbt uses) reads from it; js-yaml alone refuses each one.
  const CASES: Record<string, [string, unknown]> = {
    closing: [
      'a:\n  values: [\n    "x",\n    "y"\n  ]\n',
      {
        a: {
          values: ["x", "y"],
        },
      },
    ],
    left_of_key: [
      "models:\n  - name: a\n    tests:\n      - accepted_values:\n          values: [\n          \"x\", 'it''s [not] a list'\n        ]\n",
      {
        models: [
          {
            name: "a",
            tests: [
              {
                accepted_values: {
                  values: ["x", "it's [not] a list"],
                },
              },
            ],
          },
        ],
      },
    ],
    nested: [
      'a:\n  b: {c: [\n  1, 2], d: "e"\n  }\n',
      {
        a: {
          b: {
            c: [1, 2],
            d: "e",
          },
        },
      },
    ],
    dash: [
      "- values: [\n  1,\n  2\n]\n",
      [
        {
          values: [1, 2],
        },
      ],
    ],
    block_scalar: [
      "d: |\n  text [ with bracket\nv: [\n  1\n]\n",
      {
        d: "text [ with bracket\n",
        v: [1],
      },
    ],
    comment: [
      "a: 1 # [ not flow\nb: [\n 2\n]\n",
      {
        a: 1,
        b: [2],
      },
    ],
    plain: [
      "d: see [docs] here\nv: [\n  3\n]\n",
      {
        d: "see [docs] here",
        v: [3],
      },
    ],
    multiline_quoted: [
      'v: [\n"one\n two"\n]\n',
      {
        v: ["one two"],
      },
    ],
  };
  for (const [name, [text, value]] of Object.entries(CASES)) {
    test(name, () => {
      expect(parseYamlWithLines(text, { file: "x.yml" }).value).toEqual(value as never);
    });
  }

  test("lines stay where they were: a key after the collection keeps its line", () => {
    const parsed = parseYamlWithLines("a:\n  values: [\n    1\n  ]\n  after: 2\n", { file: "x.yml" });
    expect(lineAt(parsed, ["a", "after"])).toBe(5);
  });

  test("what PyYAML refuses too stays refused, with js-yaml's first reason", () => {
    expect(() => parseYamlWithLines("a: [\n1,\nb: c\n", { file: "x.yml" })).toThrow("not valid YAML: deficient indentation (column 1)");
  });

  test("a text that needs nothing is returned as it is", () => {
    const text = "a: [1, 2]\nb: |\n  [\n";
    expect(indentFlowLines(text)).toBe(text);
  });
});
