/** The output contract: numbers, code-point order, sorting, summary lines and check's note (spec/rules.md §4.1-4.2). */
import { describe, expect, test } from "bun:test";
import { sortFindings, summaryLine } from "../src/core/findings.ts";
import { decimalsMayBeShortened, formatDecimal, formatNumber, shortDecimal } from "../src/core/numbers.ts";
import { collapseWhitespace, compareCodePoints, sortByText } from "../src/core/text.ts";
import { normaliseMartsPath, sortPathsBySegments } from "../src/project/files/paths.ts";
import type { Finding } from "../src/schemas/finding.ts";
import { runMain } from "./support/cli.ts";
import { tempDir, writeTree } from "./support/temp.ts";

const finding = (rule: string, severity: "BLOCK" | "INFO", file = "f.yml", model = "m", message = rule): Finding => ({
  severity,
  rule,
  name: rule.toLowerCase(),
  file,
  model,
  line: null,
  message,
  fix: "sql",
});

describe("formatNumber: numbers the way a person writes them", () => {
  test.each([
    [0, "0"],
    [-0, "0"],
    [12000, "12,000"],
    [-3, "-3"],
    [1000000.0, "1,000,000"],
    [0.30000000000000004, "0.3"],
    [0.1 + 0.2 - 0.3, "5.55111512313e-17"],
    [14203118.4, "14,203,118.4"],
    [-1234.5, "-1,234.5"],
    [1e21, "1e+21"],
    [1e-7, "1e-7"],
    [0.000001, "0.000001"],
    [Number.NaN, "NaN"],
    [Infinity, "infinity"],
    [-Infinity, "-infinity"],
  ])("%p prints %s", (value, printed) => {
    expect(formatNumber(value)).toBe(printed);
  });
});

describe("formatDecimal and shortDecimal: at most four significant decimals", () => {
  test.each([
    [666.3333333333334, "666.3333"],
    [-2.123456789, "-2.1235"],
    [0.000123456, "0.0001235"],
    [0.5, "0.5"],
    [19.99, "19.99"],
    [1234567.891234, "1234567.8912"],
    [-0.00001, "-0.00001"],
    [3, "3"],
  ])("%p prints %s", (value, printed) => {
    expect(formatDecimal(value)).toBe(printed);
  });

  test("shortDecimal shortens a plain decimal of more than four decimals and leaves any other text", () => {
    expect(shortDecimal("666.3333333333334")).toBe("666.3333");
    expect(shortDecimal("19.9900")).toBe("19.9900");
    expect(shortDecimal("1.23456e-7")).toBe("1.23456e-7");
    expect(shortDecimal("bruno@example.com")).toBe("bruno@example.com");
    expect(shortDecimal("2025-12-01 09:00:00.123456")).toBe("2025-12-01 09:00:00.123456");
  });

  test("rows that differ only past the fourth decimal keep every digit", () => {
    expect(decimalsMayBeShortened([["1", "19.99"]], [["1", "666.3333333333334"]])).toBe(true);
    expect(decimalsMayBeShortened([["1", "0.33333"]], [["1", "0.3333333333"]])).toBe(false);
    expect(decimalsMayBeShortened([["0.33333"], ["0.33333"]], [])).toBe(true);
  });
});

describe("compareCodePoints: Python's order, not UTF-16's", () => {
  test("plain ASCII and prefixes", () => {
    expect(compareCodePoints("a", "b")).toBe(-1);
    expect(compareCodePoints("b", "a")).toBe(1);
    expect(compareCodePoints("a", "a")).toBe(0);
    expect(compareCodePoints("a", "ab")).toBe(-1);
    expect(compareCodePoints("G10", "G2")).toBe(-1);
    expect(compareCodePoints("Z", "a")).toBe(-1);
  });

  test("a character above U+FFFF sorts after U+E000-U+FFFF (UTF-16 puts it before)", () => {
    const astral = "\u{1F600}";
    expect("\uFFFD" < astral).toBe(false); // what JavaScript's < says
    expect(compareCodePoints("\uFFFD", astral)).toBe(-1);
    expect(compareCodePoints(astral, "\uE000")).toBe(1);
    expect(compareCodePoints(`x${astral}`, `x${astral}`)).toBe(0);
    expect(compareCodePoints("\u{1F600}", "\u{1F601}")).toBe(-1);
    expect(sortByText(["\u{10000}", "\uFF01", "a"])).toEqual(["a", "\uFF01", "\u{10000}"]);
  });
});

describe("sortFindings", () => {
  test("by file, model, BLOCK before INFO, rule as a string; ties keep their order", () => {
    const findings = [
      finding("I5", "INFO", "b.yml", "m"),
      finding("T2", "BLOCK", "b.yml", "m", "first"),
      finding("G2", "BLOCK", "b.yml", "m"),
      finding("G10", "BLOCK", "b.yml", "m"),
      finding("T2", "BLOCK", "b.yml", "m", "second"),
      finding("S1", "BLOCK", "b.yml", "a"),
      finding("S4", "BLOCK", "a.sql", "z"),
      finding("C3", "INFO", "b.yml", "m"),
    ];
    expect(sortFindings(findings).map((f) => `${f.file} ${f.model} ${f.rule} ${f.message}`)).toEqual([
      "a.sql z S4 S4",
      "b.yml a S1 S1",
      "b.yml m G10 G10",
      "b.yml m G2 G2",
      "b.yml m T2 first",
      "b.yml m T2 second",
      "b.yml m C3 C3",
      "b.yml m I5 I5",
    ]);
  });
});

describe("summaryLine (§4.2)", () => {
  const note = "2 models in models/marts/, of 4 models read";
  test("no finding: OK, with the note when there is one", () => {
    expect(summaryLine("check", [], note)).toBe(`slp check: OK (${note})`);
    expect(summaryLine("gate", [])).toBe("slp gate: OK");
  });

  test("infos only: counted, OK, the note kept", () => {
    expect(summaryLine("check", [finding("I5", "INFO"), finding("I7", "INFO")], note)).toBe(`slp check: 2 infos - OK (${note})`);
    expect(summaryLine("check", [finding("I5", "INFO")])).toBe("slp check: 1 info - OK");
  });

  test("a block: blocks first, singular for one, never a note", () => {
    const infos = Array.from({ length: 6 }, () => finding("I2", "INFO"));
    expect(summaryLine("compare", [finding("C1", "BLOCK"), ...infos], "1 file")).toBe("slp compare: 1 block, 6 infos - BLOCKED");
    expect(summaryLine("check", [finding("S1", "BLOCK"), finding("S2", "BLOCK")], note)).toBe("slp check: 2 blocks - BLOCKED");
  });
});

describe("marts paths", () => {
  test.each([
    ["models/marts", "models/marts/"],
    ["./models/marts/", "models/marts/"],
    ["././models/core", "models/core/"],
    ["/models/marts//", "models/marts/"],
    ["models//marts", "models//marts/"],
  ])("%s normalises to %s", (given, normalised) => {
    expect(normaliseMartsPath(given)).toBe(normalised);
  });

  test("paths sort segment by segment: a/b.yml before a-b.yml", () => {
    expect(sortPathsBySegments(["m/a-b.yml", "m/a/b.yml", "m/a.yml"])).toEqual(["m/a/b.yml", "m/a-b.yml", "m/a.yml"]);
  });
});

describe("check's note", () => {
  const model = (name: string) =>
    `version: 2\nmodels:\n  - name: ${name}\n    meta:\n      spec: {grain: g, primary_key: [id], tier: standard, metrics: {}, known_edges: [], sensitive_columns: []}\n    columns:\n      - name: id\n        data_tests: [unique]\n`;

  test("the marts paths in the order given, duplicates kept; marts models of every model read", async () => {
    using dir = tempDir();
    writeTree(dir.path, {
      "models/staging/stg.yml": model("stg_a"),
      "models/marts/fct.yml": model("fct_a"),
      "models/other/x.yml": model("x"),
    });
    const result = await runMain(
      ["check", "--marts-path", "models/staging", "--marts-path", "./models/marts/", "--marts-path", "models/staging"],
      dir.path,
    );
    expect(result.stdout).toBe("slp check: OK (2 models in models/staging/, models/marts/, models/staging/, of 3 models read)\n");
    expect(result.exitCode).toBe(0);
  });

  test("no model anywhere", async () => {
    using dir = tempDir();
    writeTree(dir.path, { "models/marts/.keep": "" });
    const result = await runMain(["check"], dir.path);
    expect(result.stdout).toBe("slp check: OK (no model in models/marts/, of none read)\n");
  });

  test("one model, not marts", async () => {
    using dir = tempDir();
    writeTree(dir.path, { "models/marts/.keep": "", "models/staging/stg.yml": model("stg_a") });
    const result = await runMain(["check"], dir.path);
    expect(result.stdout).toBe("slp check: OK (no model in models/marts/, of 1 model read)\n");
  });
});

describe('collapseWhitespace: Python\'s " ".join(s.split())', () => {
  test("runs of whitespace become one space; ends are dropped", () => {
    expect(collapseWhitespace("  late \t\n refund  ")).toBe("late refund");
    expect(collapseWhitespace("   ")).toBe("");
  });

  test("Python's set: the ASCII separators U+001C-U+001F, U+0085 and Unicode spaces split; U+FEFF does not", () => {
    expect(collapseWhitespace("a\u001cb\u001fc\u0085d\u00a0e\u2003f\u3000g")).toBe("a b c d e f g");
    expect(collapseWhitespace("a\ufeffb")).toBe("a\ufeffb");
    expect(collapseWhitespace("a\u200bb")).toBe("a\u200bb");
  });
});
