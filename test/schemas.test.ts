/**
 * Schema errors are the reference validator's set (Python jsonschema,
 * iter_errors), each worded as the requirement the schema states
 * (spec/rules.md §4.5-4.7).
 */
import { describe, expect, test } from "bun:test";
import { PreRegistration } from "../src/schemas/pre-registration.ts";
import { Spec } from "../src/schemas/spec.ts";
import { isValid, pythonJson, schemaErrors, schemaProblems } from "../src/schemas/validate.ts";

const SPEC = {
  grain: "one row per order",
  primary_key: ["order_id"],
  tier: "standard",
  metrics: { revenue: "sum of amount" },
  known_edges: [],
  sensitive_columns: [],
};
const CRITICAL = {
  ...SPEC,
  tier: "critical",
  reconciliation_query: "analyses/reconciliation_orders.sql",
  reconciliation_tolerance: "0.1%",
  external_validation: "finance ledger",
};
const PREREG = {
  type: "data_change",
  reason: "refunds net out",
  row_delta: { min: 0, max: 0 },
  removed_pks: { max: 0 },
  altered_columns: ["amount"],
  metrics: { revenue: { delta_pct: { min: -1, max: 0 } } },
};
const REFACTORING = { ...PREREG, type: "refactoring", altered_columns: [], metrics: { revenue: { delta_pct: { min: 0, max: 0 } } } };

const specErrors = (value: unknown) => schemaErrors(Spec, value, "spec");
const preErrors = (value: unknown) => schemaErrors(PreRegistration, value, "pre_registration");
const description = (schema: object, path: string[]): string => {
  let node = schema as Record<string, unknown>;
  for (const step of path) node = (node.properties as Record<string, Record<string, unknown>>)[step] as Record<string, unknown>;
  return node.description as string;
};

describe("valid values have no error", () => {
  test.each([
    ["a standard spec", Spec, SPEC],
    ["a critical spec", Spec, CRITICAL],
    ["a data_change pre-registration", PreRegistration, PREREG],
    ["a refactoring", PreRegistration, REFACTORING],
  ])("%s", (_, schema, value) => {
    expect(schemaErrors(schema, value, "x")).toEqual([]);
  });
});

describe("one evaluator, asked two ways", () => {
  test("isValid answers true exactly when there is no error to report", () => {
    const { grain: _grain, ...noGrain } = SPEC;
    const cases: [object, unknown][] = [
      [Spec, SPEC],
      [Spec, noGrain],
      [Spec, { ...SPEC, tier: "gold", extra: 1 }],
      [Spec, "a spec written as text"],
      [PreRegistration, PREREG],
      [PreRegistration, { ...REFACTORING, row_delta: { min: 5, max: 0 } }],
      [PreRegistration, { ...PREREG, metrics: { revenue: {} } }],
    ];
    for (const [schema, value] of cases) expect(isValid(schema, value)).toBe(schemaErrors(schema, value, "x").length === 0);
  });
});

describe("the sentences of §4.5", () => {
  test("a critical spec missing its three fields: three errors at spec, explained by the conditional block", () => {
    const { reconciliation_query: _q, reconciliation_tolerance: _t, external_validation: _e, ...spec } = CRITICAL;
    const why = "a critical model also declares reconciliation_query, reconciliation_tolerance and external_validation";
    expect(specErrors(spec)).toEqual([
      `spec: missing required field 'external_validation' - ${why}`,
      `spec: missing required field 'reconciliation_query' - ${why}`,
      `spec: missing required field 'reconciliation_tolerance' - ${why}`,
    ]);
  });

  test("a missing field is explained by its own description", () => {
    const { grain: _, ...spec } = SPEC;
    expect(specErrors(spec)).toEqual([`spec: missing required field 'grain' - ${description(Spec, ["grain"])}`]);
  });

  test("a spec written as a string fails type at the root, with the root description and what it got", () => {
    expect(specErrors("TODO")).toEqual([`spec: ${(Spec as { description: string }).description} (got "TODO")`]);
  });

  test("a spec written as a list says nothing of what it got (arrays and objects are not quoted)", () => {
    expect(specErrors(["grain"])).toEqual([`spec: ${(Spec as { description: string }).description}`]);
  });

  test("unknown keys are ONE error per object, sorted, each quoted", () => {
    expect(specErrors({ ...SPEC, owner: "x", Tier: "y", alpha: 1 })).toEqual(["spec: unknown field 'Tier', 'alpha', 'owner'"]);
  });

  test("errors sort as strings by code point: spec.grain before spec: missing", () => {
    const { tier: _, ...spec } = SPEC;
    const errors = specErrors({ ...spec, grain: "" });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toStartWith("spec.grain: ");
    expect(errors[1]).toStartWith("spec: missing required field 'tier'");
  });

  test("items of primary_key print 'must be a column name'; uniqueItems fails once, without 'got'", () => {
    expect(specErrors({ ...SPEC, primary_key: ["", 5, "a", "a"] })).toEqual([
      `spec.primary_key: ${description(Spec, ["primary_key"])}`,
      'spec.primary_key[0]: must be a column name (got "")',
      "spec.primary_key[1]: must be a column name (got 5)",
    ]);
  });

  test("uniqueItems finds equal items whatever their kind, in one pass over them", () => {
    const unique = (items: unknown[]) => schemaErrors({ type: "array", uniqueItems: true }, items, "x").length === 0;
    expect(unique([1, 1.0])).toBe(false);
    expect(unique([0, -0])).toBe(false);
    expect(
      unique([
        { a: 1, b: [2, "c"] },
        { b: [2, "c"], a: 1 },
      ]),
    ).toBe(false);
    expect(unique([null, "null", 0, false, "0", [], {}])).toBe(true);
    expect(unique([true, 1])).toBe(true);
    expect(unique([["a,b"], ["a", "b"]])).toBe(true);
    expect(unique([{ "a:1": 2 }, { a: "1:2" }])).toBe(true);
    // NaN equals nothing, itself included.
    expect(unique([Number.NaN, Number.NaN])).toBe(true);
    const wide = Array.from({ length: 50_000 }, (_, i) => `column_${i}`);
    expect(unique(wide)).toBe(true);
    expect(unique([...wide, "column_49999"])).toBe(false);
  });

  test("minItems fails once with the array's description", () => {
    expect(specErrors({ ...SPEC, primary_key: [] })).toEqual([`spec.primary_key: ${description(Spec, ["primary_key"])}`]);
  });

  test("type-specific keywords skip other types: a string where a list goes fails type only", () => {
    expect(specErrors({ ...SPEC, known_edges: "none" })).toEqual([`spec.known_edges: ${description(Spec, ["known_edges"])} (got "none")`]);
  });

  test("a misspelled tier fails its enum and asks for none of the critical fields (if fails, then adds nothing)", () => {
    expect(specErrors({ ...SPEC, tier: "Critical" })).toEqual([`spec.tier: ${description(Spec, ["tier"])} (got "Critical")`]);
  });

  test("pattern is a search whose $ also matches before one final newline", () => {
    expect(specErrors({ ...CRITICAL, reconciliation_query: "analyses/reconciliation_orders.sql\n" })).toEqual([]);
    expect(specErrors({ ...CRITICAL, reconciliation_query: "analyses/reconciliation_orders.sql\n\n" })).toHaveLength(1);
    expect(specErrors({ ...CRITICAL, reconciliation_tolerance: "0.1 %" })).toHaveLength(1);
    expect(specErrors({ ...CRITICAL, reconciliation_tolerance: "999%" })).toEqual([]);
  });

  test("a refactoring with min 'x' gives both the type error and the pin, with their two descriptions", () => {
    const errors = preErrors({ ...REFACTORING, row_delta: { min: "x", max: 0 } });
    expect(errors).toEqual([
      'pre_registration.row_delta.min: a refactoring may not change any number, so row_delta.min must be 0 (got "x")',
      `pre_registration.row_delta.min: ${description(PreRegistration, ["row_delta", "min"])} (got "x")`,
    ]);
  });

  test("a refactoring with min 5 gives one error (the pin)", () => {
    expect(preErrors({ ...REFACTORING, row_delta: { min: 5, max: 5 } })).toEqual([
      "pre_registration.row_delta.max: a refactoring may not change any number, so row_delta.max must be 0 (got 5)",
      "pre_registration.row_delta.min: a refactoring may not change any number, so row_delta.min must be 0 (got 5)",
    ]);
  });

  test("a refactoring's altered_columns fails maxItems once; a value interval fails its 'not'", () => {
    const errors = preErrors({ ...REFACTORING, altered_columns: ["a", "b"], metrics: { revenue: { value: { min: 0, max: 0 } } } });
    expect(errors).toEqual([
      "pre_registration.altered_columns: a refactoring may not change any number, so altered_columns must be empty",
      "pre_registration.metrics.revenue: a refactoring keeps every metric where it is, so each is pre-registered by delta_pct, not value",
    ]);
  });

  test("oneOf (zero or two intervals) is one error at the metric's path; its branches add nothing", () => {
    const errors = preErrors({ ...PREREG, metrics: { a: {}, b: { delta_pct: { min: 0, max: 1 }, value: { min: 0, max: 1 } } } });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toStartWith("pre_registration.metrics.a: must declare exactly one of delta_pct");
    expect(errors[1]).toStartWith("pre_registration.metrics.b: must declare exactly one of delta_pct");
  });

  test("an open interval misses its end", () => {
    expect(preErrors({ ...PREREG, row_delta: { min: -5 } })).toEqual([
      `pre_registration.row_delta: missing required field 'max' - ${description(PreRegistration, ["row_delta", "max"])}`,
    ]);
  });

  test("integer accepts a float with no fraction; booleans are never numbers", () => {
    expect(preErrors({ ...PREREG, row_delta: { min: -1.0, max: 1000.0 } })).toEqual([]);
    expect(preErrors({ ...PREREG, row_delta: { min: 1.5, max: true } })).toEqual([
      `pre_registration.row_delta.max: ${description(PreRegistration, ["row_delta", "max"])} (got true)`,
      `pre_registration.row_delta.min: ${description(PreRegistration, ["row_delta", "min"])} (got 1.5)`,
    ]);
  });

  test("const 0 accepts 0.0 but not false; NaN and the infinities are no number (a departure from the reference)", () => {
    expect(preErrors({ ...REFACTORING, row_delta: { min: 0.0, max: -0 } })).toEqual([]);
    expect(preErrors({ ...REFACTORING, removed_pks: { max: false } })).toHaveLength(2);
    const errors = preErrors({ ...PREREG, metrics: { revenue: { delta_pct: { min: Number.NaN, max: Number.POSITIVE_INFINITY } } } });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^pre_registration\.metrics\.revenue\.delta_pct\.max: must be the highest .*, a number \(got Infinity\)$/);
    expect(errors[1]).toMatch(/^pre_registration\.metrics\.revenue\.delta_pct\.min: must be the lowest .*, a number \(got NaN\)$/);
  });

  test("minimum: removed_pks.max below 0", () => {
    expect(preErrors({ ...PREREG, removed_pks: { max: -1 } })).toEqual([
      `pre_registration.removed_pks.max: ${description(PreRegistration, ["removed_pks", "max"])} (got -1)`,
    ]);
  });
});

describe("schemaProblems keeps the structure", () => {
  test("path, keyword and the unknown keys", () => {
    const [problem] = schemaProblems(Spec, { ...SPEC, b: 1, a: 2 }, "spec");
    expect(problem).toEqual({ path: [], keyword: "additionalProperties", sentence: "spec: unknown field 'a', 'b'", keys: ["a", "b"] });
    const [typed] = schemaProblems(Spec, { ...SPEC, metrics: { revenue: 5 } }, "spec");
    expect(typed?.path).toEqual(["metrics", "revenue"]);
    expect(typed?.keyword).toBe("type");
  });
});

describe("pythonJson, the '(got ...)' text", () => {
  test.each([
    ["x", '"x"'],
    ["café", '"café"'],
    [1.5, "1.5"],
    [-3, "-3"],
    [true, "true"],
    [null, "null"],
    [Number.NaN, "NaN"],
    [Infinity, "Infinity"],
    [[1, "a"], '[1, "a"]'],
    [{ k: [true] }, '{"k": [true]}'],
  ])("%p prints %s", (value, printed) => {
    expect(pythonJson(value)).toBe(printed);
  });
});
