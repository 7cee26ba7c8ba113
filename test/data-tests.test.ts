/** Test normalisation (spec/rules.md §1.2) and the "cannot fail" predicate (§1.3). */
import { describe, expect, test } from "bun:test";
import { InputError } from "../src/core/errors.ts";
import type { Value } from "../src/core/values.ts";
import { cannotFailReason, DEAD_KEYS, MUTE_KEYS, readDataTest } from "../src/project/dbt/data-tests.ts";

const read = (item: Value, column = "order_id") =>
  readDataTest(item, column, "column fct_orders.order_id", "models/x.yml", { value: { t: ["unique"] }, lines: "1:3,6:2,7" }, ["t", 0]);

function refusal(item: Value): string {
  try {
    read(item);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).file).toBe("models/x.yml");
    expect((error as InputError).line).toBe(7);
    return (error as InputError).message;
  }
  throw new Error("expected the test to be refused");
}

describe("readDataTest: the shapes of a test item", () => {
  test("a bare string is a name with no body", () => {
    expect(Object.fromEntries(Object.entries(read("unique")))).toEqual({
      name: "unique",
      column: "order_id",
      config: {},
      args: {},
      argsKey: "{}",
    });
    expect(read("unique").line).toBe(7);
  });

  test("a one-key mapping with a null or mapping body", () => {
    expect(read({ unique: null }).name).toBe("unique");
    expect(read({ accepted_values: { values: ["a"] } }).args).toEqual({ values: ["a"] });
  });

  test("the model-level column is the empty string", () => {
    expect(read("unique", "").column).toBe("");
  });

  test.each<[string, Value]>([
    ["two keys", { unique: null, not_null: null }],
    ["no key", {}],
    ["a list body", { accepted_values: ["a", "b"] }],
    ["a string body", { unique: "order_id" }],
    ["a number", 5],
    ["a list", ["unique"]],
    ["null", null],
  ])("%s cannot be read", (_, item) => {
    expect(refusal(item)).toStartWith("cannot read a test on column fct_orders.order_id: ");
  });
});

describe("readDataTest: config, inert and argument keys", () => {
  test("config keys and inert keys go to config, everything else is an argument", () => {
    const t = read({
      relationships: {
        to: "ref('dim')",
        field: "id",
        where: "x",
        severity: "warn",
        enabled: true,
        error_if: ">1",
        warn_if: ">0",
        fail_calc: "count(*)",
        limit: 10,
        store_failures: true,
        tags: ["a"],
        meta: { o: 1 },
        description: "d",
        name: "n",
        store_failures_as: "view",
        schema: "s",
        database: "db",
        alias: "al",
        group: "g",
        docs: { show: false },
      },
    });
    expect(Object.keys(t.args).sort()).toEqual(["field", "to"]);
    expect(Object.keys(t.config).sort()).toEqual(
      [
        "alias",
        "database",
        "description",
        "docs",
        "enabled",
        "error_if",
        "fail_calc",
        "group",
        "limit",
        "meta",
        "name",
        "schema",
        "severity",
        "store_failures",
        "store_failures_as",
        "tags",
        "warn_if",
        "where",
      ].sort(),
    );
  });

  test("a nested config: mapping is flattened into the same split; unknown keys in it are arguments", () => {
    const t = read({ unique: { config: { where: "x", tags: ["t"], quote: false } } });
    expect(t.config).toEqual({ where: "x", tags: ["t"] });
    expect(t.args).toEqual({ quote: false });
  });

  test("a config: that is not a mapping (null included) is an argument named config", () => {
    expect(read({ unique: { config: null } }).args).toEqual({ config: null });
    expect(read({ unique: { config: "warn" } }).args).toEqual({ config: "warn" });
  });

  test.each(["where", "tags", "values"])("%s both on the test and under config: is ambiguous", (key) => {
    expect(refusal({ accepted_values: { [key]: 1, config: { [key]: 2 } } })).toBe(
      `ambiguous: ${key} of test accepted_values on column fct_orders.order_id is given twice (on the test and under config)`,
    );
  });

  test("arguments: merges into the arguments; every key under it is an argument, even a config key's name", () => {
    const t = read({ accepted_values: { arguments: { values: ["a"], where: "x" }, severity: "warn" } });
    expect(t.args).toEqual({ values: ["a"], where: "x" });
    expect(t.config).toEqual({ severity: "warn" });
  });

  test("a where on the test and another under arguments: are a filter and an argument, not a clash", () => {
    const t = read({ unique: { where: "a", arguments: { where: "b" } } });
    expect(t.config).toEqual({ where: "a" });
    expect(t.args).toEqual({ where: "b" });
  });

  test("arguments: null is ignored; arguments: {} next to top-level arguments is accepted", () => {
    expect(read({ accepted_values: { values: ["a"], arguments: null } }).args).toEqual({ values: ["a"] });
    expect(read({ accepted_values: { values: ["a"], arguments: {} } }).args).toEqual({ values: ["a"] });
  });

  test("arguments: that is not a mapping is refused", () => {
    expect(refusal({ accepted_values: { arguments: ["a"] } })).toBe(
      "arguments of accepted_values on column fct_orders.order_id must be a mapping",
    );
  });

  test("an argument on the test (or from config:) and under arguments: is ambiguous", () => {
    expect(refusal({ accepted_values: { values: ["a"], arguments: { values: ["b"] } } })).toStartWith("ambiguous: argument values");
    expect(refusal({ accepted_values: { config: { values: ["a"] }, arguments: { values: ["b"] } } })).toStartWith(
      "ambiguous: argument values",
    );
  });
});

describe("readDataTest: the identity of the arguments", () => {
  test("canonical JSON with sorted keys, whatever the order or the nesting", () => {
    const a = read({ relationships: { to: "ref('d')", field: "id" } });
    const b = read({ relationships: { arguments: { field: "id", to: "ref('d')" } } });
    expect(a.argsKey).toBe('{"field":"id","to":"ref(\'d\')"}');
    expect(b.argsKey).toBe(a.argsKey);
  });

  test("config and inert keys are not part of it", () => {
    expect(read({ unique: { severity: "warn", tags: ["x"] } }).argsKey).toBe(read("unique").argsKey);
  });

  test("true and 1 are different arguments", () => {
    expect(read({ t: { quote: true } }).argsKey).not.toBe(read({ t: { quote: 1 } }).argsKey);
  });
});

describe("cannotFailReason (§1.3)", () => {
  test("a plain test can fail", () => {
    expect(cannotFailReason({}, MUTE_KEYS)).toBe("");
    expect(cannotFailReason({ enabled: true, severity: "error", tags: ["x"], store_failures: true }, MUTE_KEYS)).toBe("");
  });

  test.each<[string, Value]>([
    ["false", false],
    ["null", null],
    ['the string "true"', "true"],
    ["the number 1", 1],
  ])("enabled set to %s: it is disabled", (_, enabled) => {
    expect(cannotFailReason({ enabled }, MUTE_KEYS)).toBe("it is disabled");
  });

  test("a severity other than error, compared lower-case, printed as written", () => {
    expect(cannotFailReason({ severity: "warn" }, MUTE_KEYS)).toBe("its severity is warn");
    expect(cannotFailReason({ severity: "WARN" }, MUTE_KEYS)).toBe("its severity is WARN");
    expect(cannotFailReason({ severity: "ERROR" }, MUTE_KEYS)).toBe("");
    expect(cannotFailReason({ severity: "Error" }, DEAD_KEYS)).toBe("");
    expect(cannotFailReason({ severity: null }, MUTE_KEYS)).toBe("its severity is null");
  });

  test("narrowing keys are listed in the fixed order where, error_if, warn_if, fail_calc, limit; null counts as present", () => {
    const config = { limit: null, fail_calc: "x", warn_if: "x", error_if: "x", where: "x" };
    expect(cannotFailReason(config, MUTE_KEYS)).toBe("it sets where, error_if, warn_if, fail_calc, limit");
    expect(cannotFailReason(config, DEAD_KEYS)).toBe("it sets error_if, warn_if, fail_calc, limit");
    expect(cannotFailReason({ limit: null }, DEAD_KEYS)).toBe("it sets limit");
  });

  test("where narrows for T1 (MUTE) but not for new tests (DEAD)", () => {
    expect(cannotFailReason({ where: "1 = 0" }, MUTE_KEYS)).toBe("it sets where");
    expect(cannotFailReason({ where: "1 = 0" }, DEAD_KEYS)).toBe("");
  });

  test("the first step that applies wins: disabled, then severity, then keys", () => {
    expect(cannotFailReason({ enabled: false, severity: "warn", where: "x" }, MUTE_KEYS)).toBe("it is disabled");
    expect(cannotFailReason({ severity: "warn", where: "x" }, MUTE_KEYS)).toBe("its severity is warn");
  });
});
