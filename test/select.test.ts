/**
 * dbt's node selection (src/project/dbt/select.ts) on its own: the criterion
 * grammar, methods, graph operators, set operators and eager indirect
 * selection of unit tests, over a small hand-made DAG.
 */
import { describe, expect, test } from "bun:test";
import { fnmatch, selectNodes, SelectorError, splitCriteria, type SelectableNode } from "../src/project/dbt/select.ts";

function node(id: string, extra: Partial<SelectableNode> = {}): SelectableNode {
  const [kind, pkg, name] = id.split(".") as [SelectableNode["resourceType"], string, string];
  return {
    id,
    resourceType: kind,
    name: extra.name ?? name,
    package: pkg,
    fqn: extra.fqn ?? [pkg, name],
    path: extra.path ?? `models/${name}.sql`,
    ymlPath: null,
    tags: [],
    config: {},
    version: null,
    latest: true,
    latestVersion: null,
    parents: [],
    ...extra,
  };
}

// src -> a -> b -> c, a -> d; unit tests on b and c; a versioned model e (v1 old, v2 latest).
const NODES: SelectableNode[] = [
  node("source.p.raw.orders", { name: "orders", source: "raw", fqn: ["p", "raw", "orders"], path: "models/_sources.yml" }),
  node("model.p.a", { parents: ["source.p.raw.orders"], fqn: ["p", "staging", "a"], path: "models/staging/a.sql", tags: ["staging"] }),
  node("model.p.b", {
    parents: ["model.p.a"],
    fqn: ["p", "marts", "b"],
    path: "models/marts/b.sql",
    tags: ["t1", "t2"],
    config: { materialized: "table", meta: { owner: "x" }, tags: ["t1", "t2"] },
  }),
  node("model.p.c", {
    parents: ["model.p.b"],
    fqn: ["p", "marts", "c"],
    path: "models/marts/c.sql",
    config: { materialized: "incremental", enabled: true },
  }),
  node("model.p.d", { parents: ["model.p.a"], fqn: ["p", "marts", "d"], path: "models/marts/d.sql" }),
  node("model.p.e.v1", { name: "e", fqn: ["p", "e", "v1"], version: "1", latest: false, latestVersion: "2" }),
  node("model.p.e.v2", { name: "e", fqn: ["p", "e", "v2"], version: "2", latest: true, latestVersion: "2" }),
  node("unit_test.p.b.ut_b", {
    name: "ut_b",
    parents: ["model.p.b"],
    fqn: ["p", "marts", "b", "ut_b"],
    path: "models/marts/_unit.yml",
    tags: ["critical"],
    display: "b::ut_b",
  }),
  node("unit_test.p.c.ut_c", {
    name: "ut_c",
    parents: ["model.p.c"],
    fqn: ["p", "marts", "c", "ut_c"],
    path: "models/marts/_unit.yml",
    display: "c::ut_c",
  }),
  node("unit_test.p.e.ut_e_v1", {
    name: "ut_e",
    parents: ["model.p.e.v1"],
    fqn: ["p", "e", "ut_e"],
    path: "models/_unit.yml",
    version: "1",
    display: "e::ut_e_v1",
  }),
  node("model.q.z", { fqn: ["q", "z"], path: "models/z.sql" }),
];

const pick = (select: string[], exclude: string[] = []) => [...selectNodes(NODES, select, exclude).ids].sort();

describe("criteria", () => {
  test("a name selects the node and, eagerly, the unit tests of it", () => {
    expect(pick(["b"])).toEqual(["model.p.b", "unit_test.p.b.ut_b"]);
  });
  test("graph operators walk parents and children, with a depth", () => {
    expect(pick(["+b"])).toEqual(["model.p.a", "model.p.b", "source.p.raw.orders", "unit_test.p.b.ut_b"]);
    expect(pick(["1+b"])).toEqual(["model.p.a", "model.p.b", "unit_test.p.b.ut_b"]);
    expect(pick(["a+1"])).toEqual(["model.p.a", "model.p.b", "model.p.d", "unit_test.p.b.ut_b"]);
    expect(pick(["a+"])).toEqual(["model.p.a", "model.p.b", "model.p.c", "model.p.d", "unit_test.p.b.ut_b", "unit_test.p.c.ut_c"]);
    expect(pick(["@b"])).toEqual([
      "model.p.a",
      "model.p.b",
      "model.p.c",
      "source.p.raw.orders",
      "unit_test.p.b.ut_b",
      "unit_test.p.c.ut_c",
    ]);
  });
  test("methods", () => {
    expect(pick(["tag:critical"])).toEqual(["unit_test.p.b.ut_b"]);
    expect(pick(["tag:t*"])).toEqual(["model.p.b", "unit_test.p.b.ut_b"]);
    expect(pick(["config.materialized:incremental"])).toEqual(["model.p.c", "unit_test.p.c.ut_c"]);
    expect(pick(["config.tags:t2"])).toEqual(["model.p.b", "unit_test.p.b.ut_b"]);
    expect(pick(["config.meta.owner:x"])).toEqual(["model.p.b", "unit_test.p.b.ut_b"]);
    expect(pick(["config.enabled:true"])).toEqual(["model.p.c", "unit_test.p.c.ut_c"]);
    expect(pick(["path:models/staging"])).toEqual(["model.p.a"]);
    expect(pick(["path:models/marts/*.sql"])).toEqual(["model.p.b", "model.p.c", "model.p.d", "unit_test.p.b.ut_b", "unit_test.p.c.ut_c"]);
    expect(pick(["models/**/c.sql"])).toEqual(["model.p.c", "unit_test.p.c.ut_c"]);
    expect(pick(["file:d.sql"])).toEqual(["model.p.d"]);
    expect(pick(["package:q"])).toEqual(["model.q.z"]);
    expect(pick(["source:raw.orders"])).toEqual(["source.p.raw.orders"]);
    expect(pick(["test_name:ut_*"])).toEqual(["unit_test.p.b.ut_b", "unit_test.p.c.ut_c", "unit_test.p.e.ut_e_v1"]);
    expect(pick(["test_type:unit"])).toEqual(["unit_test.p.b.ut_b", "unit_test.p.c.ut_c", "unit_test.p.e.ut_e_v1"]);
    expect(pick(["resource_type:source"])).toEqual(["source.p.raw.orders"]);
    expect(pick(["unit_test:p.ut_c"])).toEqual(["unit_test.p.c.ut_c"]);
    expect(pick(["c::ut_c"])).toEqual(["unit_test.p.c.ut_c"]);
  });
  test("fqn: a dotted prefix from the package or the first folder, a wildcard over the rest, versions", () => {
    expect(pick(["p.marts"])).toEqual(pick(["marts"]));
    expect(pick(["marts.d"])).toEqual(["model.p.d"]);
    expect(pick(["p.marts.*"])).toEqual(pick(["marts"]));
    expect(pick(["e"])).toEqual(["model.p.e.v1", "model.p.e.v2", "unit_test.p.e.ut_e_v1"]);
    expect(pick(["e.v1"])).toEqual(["model.p.e.v1", "unit_test.p.e.ut_e_v1"]);
    expect(pick(["e_v2"])).toEqual(["model.p.e.v2"]);
    expect(pick(["version:old"])).toEqual(["model.p.e.v1", "unit_test.p.e.ut_e_v1"]);
    expect(pick(["version:latest"])).toEqual(["model.p.e.v2"]);
  });
  test("a space or a repeat is a union, a comma an intersection, --exclude a difference (with the tests of what it excludes)", () => {
    expect(pick(["b c"])).toEqual(pick(["b", "c"]));
    expect(pick(["a+,tag:critical"])).toEqual(["unit_test.p.b.ut_b"]);
    expect(pick(["a+"], ["c"])).toEqual(["model.p.a", "model.p.b", "model.p.d", "unit_test.p.b.ut_b"]);
    expect(splitCriteria([" a  b", "c,d"])).toEqual(["a", "b", "c,d"]);
  });
  test("no --select: everything, less what --exclude removes", () => {
    expect(pick([], ["marts"]).filter((id) => id.startsWith("unit_test"))).toEqual(["unit_test.p.e.ut_e_v1"]);
  });
});

describe("refusals", () => {
  const refusal = (select: string[], exclude: string[] = []) => {
    try {
      selectNodes(NODES, select, exclude);
    } catch (error) {
      expect(error).toBeInstanceOf(SelectorError);
      return (error as Error).message;
    }
    return null;
  };
  test("an unknown method, a malformed criterion, or a --select criterion that matches nothing", () => {
    expect(refusal(["colour:red"])).toBe("'colour' is not a valid method name");
    expect(refusal(["tag:"])).toContain("no search value");
    expect(refusal(["@b+"])).toContain('"@" prefix and "+" suffix are incompatible');
    expect(refusal(["nope"])).toBe("The selection criterion 'nope' does not match any enabled nodes");
    expect(refusal(["b,c"])).toBe("The selection criterion 'b,c' does not match any enabled nodes");
    expect(refusal(["test_type:widget"])).toContain("Invalid test type selector widget");
    expect(refusal(["state:modified"])).toContain("state: compares against a previous manifest");
  });
  test("an --exclude that matches nothing is not an error (dbt warns only for --select)", () => {
    expect(refusal(["b"], ["nope"])).toBeNull();
  });
});

test("fnmatch is Python's fnmatchcase", () => {
  expect(fnmatch("stg_orders", "stg_*")).toBe(true);
  expect(fnmatch("stg_orders", "stg_?rders")).toBe(true);
  expect(fnmatch("a.b", "a*")).toBe(true);
  expect(fnmatch("x1", "x[0-9]")).toBe(true);
  expect(fnmatch("x1", "x[!0-9]")).toBe(false);
  expect(fnmatch("Stg", "stg")).toBe(false);
  expect(fnmatch("a+b", "a+b")).toBe(true);
});
