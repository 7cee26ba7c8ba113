/**
 * The compiled yes/no check that lets valid values skip the error walk must
 * agree with the walk on every value: every spec, pre-registration and diff in
 * the fixtures, and for each of them every one-step mutation (a key removed,
 * a value replaced by one of another type).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isMapping, type Value } from "../src/core/values.ts";
import { Diff } from "../src/schemas/diff.ts";
import { PreRegistration } from "../src/schemas/pre-registration.ts";
import { Spec } from "../src/schemas/spec.ts";
import { isValid, schemaProblems } from "../src/schemas/validate.ts";
import { parseYaml } from "../src/project/yaml.ts";

const FIXTURES = join(import.meta.dir, "fixtures");
const REPLACEMENTS: Value[] = [null, true, 0, 1.5, -1, "", "x", "critical", "refactoring", [], ["a"], ["a", "a"], {}, { min: 0, max: 1 }];

/** Every mapping found under `meta.spec` / `meta.pre_registration` (either spelling) in a parsed yml. */
function collect(value: unknown, key: string, out: Value[]): void {
  if (Array.isArray(value)) for (const item of value) collect(item, key, out);
  else if (isMapping(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === key && v !== null) out.push(v);
      collect(v, key, out);
    }
  }
}

/** The value, and every value one step away from it. */
function mutations(value: Value): Value[] {
  const out: Value[] = [value];
  const visit = (node: Value, replace: (next: Value) => Value) => {
    for (const replacement of REPLACEMENTS) out.push(replace(replacement));
    if (isMapping(node)) {
      for (const key of Object.keys(node)) {
        const { [key]: _dropped, ...rest } = node;
        out.push(replace(rest));
        visit(node[key] as Value, (next) => replace({ ...node, [key]: next }));
      }
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, (next) => replace(node.map((old, j) => (i === j ? next : old)))));
    }
  };
  visit(value, (next) => next);
  return out;
}

function corpus(key: string): Value[] {
  const values: Value[] = [];
  for (const file of new Bun.Glob("**/*.{yml,yaml}").scanSync({ cwd: FIXTURES, dot: true })) {
    try {
      collect(parseYaml(readFileSync(join(FIXTURES, file), "utf8"), { file }), key, values);
    } catch {
      // A fixture that is meant not to parse has nothing to offer here.
    }
  }
  return values;
}

function diffCorpus(): Value[] {
  const values: Value[] = [];
  for (const file of new Bun.Glob("**/*.json").scanSync({ cwd: FIXTURES, dot: true })) {
    try {
      values.push(JSON.parse(readFileSync(join(FIXTURES, file), "utf8")));
    } catch {
      // Not JSON on purpose.
    }
  }
  return values;
}

describe.each([
  ["spec", Spec, () => corpus("spec")],
  ["pre_registration", PreRegistration, () => corpus("pre_registration")],
  ["diff", Diff, diffCorpus],
] as const)("%s", (name, schema, values) => {
  test("the compiled check and the error walk agree on every value and mutation", () => {
    const seeds = values();
    expect(seeds.length).toBeGreaterThan(5);
    let checked = 0;
    let invalid = 0;
    for (const seed of seeds.slice(0, 60)) {
      for (const value of mutations(seed)) {
        const walked = schemaProblems(schema, value, name, true).length === 0;
        if (isValid(schema, value) !== walked) throw new Error(`disagree on ${JSON.stringify(value)}: walk says ${walked}`);
        checked++;
        if (!walked) invalid++;
      }
    }
    expect(invalid).toBeGreaterThan(0);
    expect(checked - invalid).toBeGreaterThan(0);
  });
});
