/**
 * The corpus (issue 22) holds: corpus/RESULTS.md is exactly what
 * corpus/results.json and corpus/triage.yml generate, every manifest project
 * has results, and every project whose extract is on this machine still
 * gets, from `slp unit`, no worse than its committed results.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { corpusDataDir, extractRoot, readManifest, unitArgs } from "../corpus/manifest.ts";
import { type ProjectResultT, RESULTS_MD, readResults, readTriage, regressions, resultsMarkdown, triageAudit } from "../corpus/results.ts";
import { slp } from "../corpus/run.ts";

const manifest = readManifest();
const results = readResults();

describe("corpus results", () => {
  test("RESULTS.md is what results.json and triage.yml generate", () => {
    expect(readFileSync(RESULTS_MD, "utf8")).toBe(resultsMarkdown(results, readTriage()));
  });

  test("every failure and refusal has its triage, and every triage entry still answers one", () => {
    expect(triageAudit(results, readTriage())).toEqual({ untriaged: [], unused: [] });
  });

  test("every manifest project has results, and nothing else has", () => {
    expect(results.projects.map((project) => project.name).sort()).toEqual(manifest.map((project) => project.name).sort());
    for (const project of results.projects) {
      const entry = manifest.find((candidate) => candidate.name === project.name)!;
      expect([project.repo, project.commit, project.adapter]).toEqual([entry.repo, entry.commit, entry.adapter]);
    }
  });
});

describe("the manifest", () => {
  const entry = (license: string) =>
    `projects:\n  - { name: p, repo: o/p, commit: "${"0".repeat(40)}", license: ${license}, subfolder: ., adapter: duckdb, adapterEvidence: x, profile: p, packages: [], exclude: [tag:skip+] }\n`;
  const read = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), "slp-manifest-"));
    try {
      writeFileSync(join(dir, "projects.yml"), text);
      return readManifest(join(dir, "projects.yml"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test("a project without a LICENSE says none and names no file; its CI's exclusions reach slp unit", () => {
    const [project] = read(entry("{ spdx: none }"));
    expect(unitArgs(project!)).toEqual(["--exclude", "tag:skip+", "--dialect", "duckdb"]);
    expect(read(entry("{ spdx: MIT, file: LICENSE }"))[0]!.license.file).toBe("LICENSE");
  });

  test("refuses a license that names no file, and license none that names one", () => {
    expect(() => read(entry("{ spdx: MIT }"))).toThrow("only license none has none");
    expect(() => read(entry("{ spdx: none, file: LICENSE }"))).toThrow("only license none has none");
  });
});

describe("regressions against committed results", () => {
  const committed: ProjectResultT = {
    name: "p",
    repo: "o/p",
    commit: "0".repeat(40),
    adapter: "duckdb",
    models: { step: { exit: 0, ms: 1, summary: "" }, rendered: 1, refused: [] },
    unit: {
      step: { exit: 1, ms: 1, summary: "" },
      passed: ["m::passes"],
      failed: [{ name: "m::fails", detail: "" }],
      refused: [{ name: "m::refused", construct: "x()" }],
      disabled: 0,
    },
    check: { exit: 0, ms: 1, summary: "" },
    gate: { exit: 0, ms: 1, summary: "", changed: "models/m.sql" },
    refusedWhole: null,
  };

  test("stay silent when nothing moved, and when a refusal turns into a pass", () => {
    expect(regressions(committed, { readWhole: true, passed: ["m::passes"], failed: ["m::fails"], refused: ["m::refused"] })).toEqual([]);
    expect(regressions(committed, { readWhole: true, passed: ["m::passes", "m::refused"], failed: ["m::fails"], refused: [] })).toEqual([]);
  });

  test("fire on a pass lost, a refusal turned failure, a failure changed, a new failure, a project refused whole", () => {
    expect(regressions(committed, { readWhole: true, passed: [], failed: ["m::fails", "m::passes"], refused: ["m::refused"] })).toEqual([
      "m::passes passed and is now fail",
    ]);
    expect(regressions(committed, { readWhole: true, passed: ["m::passes"], failed: ["m::fails", "m::refused"], refused: [] })).toEqual([
      "m::refused was refused and is now fail",
    ]);
    expect(regressions(committed, { readWhole: true, passed: ["m::passes", "m::fails"], failed: [], refused: ["m::refused"] })).toEqual([
      "m::fails failed and is now pass: update corpus/results.json (bun run corpus)",
    ]);
    expect(
      regressions(committed, { readWhole: true, passed: ["m::passes"], failed: ["m::fails", "m::new"], refused: ["m::refused"] }),
    ).toEqual(["m::new is new and fails"]);
    expect(regressions(committed, { readWhole: false, passed: [], failed: [], refused: [] })).toEqual([
      "p was read whole and is now refused whole",
    ]);
  });
});

// Each project on this machine: one `slp unit` on its extract (it writes nothing there).
const present = manifest.flatMap((project) => {
  const root = extractRoot(project, corpusDataDir());
  return root ? [{ project, root }] : [];
});

describe.each(present.map((entry) => [entry.project.name, entry]))("corpus project %s", (_name, { project, root }) => {
  test("keeps its committed unit results", () => {
    const committed = results.projects.find((result) => result.name === project.name)!;
    const unit = slp(["unit", ...unitArgs(project)], join(root, project.subfolder));
    const tests: { model: string; name: string; status: string }[] = unit.envelope?.data?.tests ?? [];
    const named = (status: string) => tests.filter((test) => test.status === status).map((test) => `${test.model}::${test.name}`);
    const now = {
      readWhole: unit.envelope?.data?.tests !== undefined,
      passed: named("pass"),
      failed: named("fail"),
      refused: named("error"),
    };
    expect(regressions(committed, now)).toEqual([]);
  }, 120_000);
});
