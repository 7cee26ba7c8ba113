/**
 * The corpus results (corpus/results.json, written by `bun run corpus`) and
 * corpus/RESULTS.md, which is generated from them and from the triage the
 * team writes by hand in corpus/triage.yml: one function turns the two into
 * the Markdown, so a test can hold the committed file to it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { load } from "js-yaml";
import { schemaErrors } from "../src/schemas/validate.ts";
import { CORPUS_DIR } from "./manifest.ts";

const Refusal = Type.Object(
  {
    name: Type.String({ description: "the model (or unit test) refused" }),
    construct: Type.String({ description: "slp's own words for what it cannot judge, first line" }),
  },
  { additionalProperties: false },
);

const stepFields = {
  exit: Type.Union([Type.Integer(), Type.Null()], { description: "slp's exit code, null when the step ran out of time" }),
  ms: Type.Integer({ description: "wall time of the step" }),
  summary: Type.String({ description: "slp's summary line" }),
};
const Step = Type.Object(stepFields, { additionalProperties: false });

export const ProjectResult = Type.Object(
  {
    name: Type.String(),
    repo: Type.String(),
    commit: Type.String(),
    adapter: Type.String(),
    models: Type.Object(
      {
        step: Step,
        rendered: Type.Integer({ description: "models slp rendered (mutate --dry-run over every model path)" }),
        refused: Type.Array(Refusal, { description: "models slp refused to render, with the construct" }),
      },
      { additionalProperties: false },
    ),
    unit: Type.Object(
      {
        step: Step,
        passed: Type.Array(Type.String(), { description: "model::test of every passing unit test" }),
        failed: Type.Array(Type.Object({ name: Type.String(), detail: Type.String() }, { additionalProperties: false })),
        refused: Type.Array(Refusal, { description: "unit tests slp stopped with exit 2 (construct, untranslatable SQL, ...)" }),
        disabled: Type.Integer({ description: "unit tests dbt would not run (disabled test or model)" }),
      },
      { additionalProperties: false },
    ),
    check: Step,
    gate: Type.Object(
      { ...stepFields, changed: Type.String({ description: "the model file the synthetic commit touched" }) },
      { additionalProperties: false },
    ),
    refusedWhole: Type.Union([Type.String(), Type.Null()], {
      description: "why slp read no part of the project (unit and the model render both stopped before any node), or null",
    }),
  },
  { additionalProperties: false },
);

export const Results = Type.Object(
  {
    slp: Type.String({ description: "the slp commit the corpus ran" }),
    projects: Type.Array(ProjectResult),
  },
  { additionalProperties: false },
);

export type ProjectResultT = Static<typeof ProjectResult>;
export type ResultsT = Static<typeof Results>;

/** Triage, written by hand: per project, per unit test or model (or `*`), the cause of its failure or refusal. */
export type Triage = Record<string, Record<string, string>>;

export const RESULTS_JSON = join(CORPUS_DIR, "results.json");
export const RESULTS_MD = join(CORPUS_DIR, "RESULTS.md");
export const TRIAGE_YML = join(CORPUS_DIR, "triage.yml");

export function readResults(file = RESULTS_JSON): ResultsT {
  const data = JSON.parse(readFileSync(file, "utf8"));
  const errors = schemaErrors(Results, data, "results.json");
  if (errors.length > 0) throw new Error(`${file}: ${errors.join("; ")}`);
  return data as ResultsT;
}

export function readTriage(file = TRIAGE_YML): Triage {
  return ((load(readFileSync(file, "utf8")) ?? {}) as Triage) ?? {};
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const exitText = (step: Static<typeof Step>) => (step.exit === null ? "timeout" : String(step.exit));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The triage entry of one failure or refusal: its exact name, else the first
 * key that matches it: `prefix*` on its name, `~text` on what slp said (the
 * construct or the difference). A project's entries come before `all`'s.
 */
function triageEntry(triage: Triage, project: string, name: string, said: string): { scope: string; key: string; text: string } | null {
  const own = triage[project] ?? {};
  const entries: [string, string, string][] = [
    ...Object.entries(own).map(([key, text]): [string, string, string] => [project, key, text]),
    ...Object.entries(triage.all ?? {})
      .filter(([key]) => !(key in own))
      .map(([key, text]): [string, string, string] => ["all", key, text]),
  ];
  const exact = entries.find(([, key]) => key === name);
  const found =
    exact ??
    entries.find(
      ([, key]) => (key.endsWith("*") && name.startsWith(key.slice(0, -1))) || (key.startsWith("~") && said.includes(key.slice(1))),
    );
  return found ? { scope: found[0], key: found[1], text: found[2] } : null;
}

function triageOf(triage: Triage, project: string, name: string, said: string): string {
  return triageEntry(triage, project, name, said)?.text ?? "not yet triaged";
}

/** Everything results.json says went wrong, as the triage reads it: the name it is known by, and what slp said. */
function judged(project: ProjectResultT): { name: string; said: string }[] {
  const items = [
    ...(project.refusedWhole ? [{ name: "*whole", said: project.refusedWhole }] : []),
    ...project.unit.failed.map((failed) => ({ name: failed.name, said: failed.detail })),
    ...project.unit.refused.map((refused) => ({ name: refused.name, said: refused.construct })),
    ...project.models.refused.map((refused) => ({ name: `model:${refused.name}`, said: refused.construct })),
  ];
  if (project.check.exit === 2) items.push({ name: "check", said: project.check.summary });
  if (project.gate.exit === 2) items.push({ name: "gate", said: project.gate.summary });
  return items;
}

/**
 * Whether the triage covers the results exactly: every failure and refusal has
 * an entry, and every entry still answers one (a fixed cause leaves no stale line).
 */
export function triageAudit(results: ResultsT, triage: Triage): { untriaged: string[]; unused: string[] } {
  const untriaged: string[] = [];
  const used = new Set<string>();
  for (const project of results.projects)
    for (const item of judged(project)) {
      const entry = triageEntry(triage, project.name, item.name, item.said);
      if (entry) used.add(`${entry.scope}\u0000${entry.key}`);
      else untriaged.push(`${project.name}: ${item.name}: ${item.said}`);
    }
  const unused = Object.entries(triage).flatMap(([scope, entries]) =>
    Object.keys(entries ?? {})
      .filter((key) => !used.has(`${scope}\u0000${key}`))
      .map((key) => `${scope}: ${key}`),
  );
  return { untriaged, unused };
}

/** RESULTS.md: the table, then each project's failures and refusals with their triage. Deterministic. */
export function resultsMarkdown(results: ResultsT, triage: Triage): string {
  const lines: string[] = [
    "# slp on the corpus of public dbt projects",
    "",
    "Generated by `bun run corpus` from `corpus/results.json` and the triage in `corpus/triage.yml`; do not edit.",
    `slp commit: \`${results.slp}\`. The projects, their commits and licenses are in \`corpus/projects.yml\`.`,
    "",
    "| project | adapter | models rendered / refused | unit pass / fail / refused (disabled) | check exit, time | gate exit, time | render time | unit time |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  const totals = { pass: 0, fail: 0, refused: 0 };
  for (const project of results.projects) {
    totals.pass += project.unit.passed.length;
    totals.fail += project.unit.failed.length;
    totals.refused += project.unit.refused.length;
    lines.push(
      `| ${project.name}${project.refusedWhole ? " (refused whole)" : ""} | ${project.adapter} | ${project.models.rendered} / ${project.models.refused.length} | ${project.unit.passed.length} / ${project.unit.failed.length} / ${project.unit.refused.length} (${project.unit.disabled}) | ${exitText(project.check)}, ${seconds(project.check.ms)} | ${exitText(project.gate)}, ${seconds(project.gate.ms)} | ${seconds(project.models.step.ms)} | ${seconds(project.unit.step.ms)} |`,
    );
  }
  const all = totals.pass + totals.fail + totals.refused;
  lines.push(
    "",
    `Unit tests: ${totals.pass} passed, ${totals.fail} failed, ${totals.refused} refused of ${all}${all > 0 ? ` (${((100 * totals.pass) / all).toFixed(0)}% pass)` : ""}.`,
  );
  for (const project of results.projects) {
    lines.push("", `## ${project.name}`, "", `\`${project.repo}\` at \`${project.commit.slice(0, 12)}\`, ${project.adapter}.`, "");
    if (project.refusedWhole)
      lines.push(
        `**Refused whole:** ${cell(project.refusedWhole)} — ${triageOf(triage, project.name, "*whole", project.refusedWhole)}`,
        "",
      );
    lines.push(`- models: ${project.models.step.summary}`);
    lines.push(`- unit: ${project.unit.step.summary}`);
    const stopped = (step: Static<typeof Step>, name: string) =>
      step.exit === 2 ? ` — ${triageOf(triage, project.name, name, step.summary)}` : "";
    lines.push(`- check (exit ${exitText(project.check)}): ${project.check.summary}${stopped(project.check, "check")}`);
    lines.push(
      `- gate on a commit touching \`${project.gate.changed}\` (exit ${exitText(project.gate)}): ${project.gate.summary}${stopped(project.gate, "gate")}`,
    );
    if (project.unit.failed.length > 0) {
      lines.push("", "| failed unit test | what differs | triage |", "| --- | --- | --- |");
      for (const failed of project.unit.failed)
        lines.push(
          `| ${cell(failed.name)} | ${cell(failed.detail)} | ${cell(triageOf(triage, project.name, failed.name, failed.detail))} |`,
        );
    }
    if (project.unit.refused.length > 0) {
      lines.push("", "| refused unit test | construct | triage |", "| --- | --- | --- |");
      for (const refused of project.unit.refused)
        lines.push(
          `| ${cell(refused.name)} | ${cell(refused.construct)} | ${cell(triageOf(triage, project.name, refused.name, refused.construct))} |`,
        );
    }
    if (project.models.refused.length > 0) {
      lines.push("", "| refused model | construct | triage |", "| --- | --- | --- |");
      for (const refused of project.models.refused)
        lines.push(
          `| ${cell(refused.name)} | ${cell(refused.construct)} | ${cell(triageOf(triage, project.name, `model:${refused.name}`, refused.construct))} |`,
        );
    }
  }
  return `${lines.join("\n")}\n`;
}

/** What one unit run of a project says now, in the terms results.json keeps. */
export interface UnitNow {
  readWhole: boolean;
  passed: readonly string[];
  failed: readonly string[];
  refused: readonly string[];
}

/**
 * How a project's unit tests moved against its committed results, in the
 * direction that is not allowed: a project read whole that is refused whole,
 * a pass that no longer passes, a refusal that became a failure, a failure
 * that changed without the results being updated, a new test that fails.
 * A refusal that turns into a pass is progress, and silent.
 */
export function regressions(committed: ProjectResultT, now: UnitNow): string[] {
  const found: string[] = [];
  if (committed.refusedWhole === null && !now.readWhole) found.push(`${committed.name} was read whole and is now refused whole`);
  if (!now.readWhole) return found;
  const status = new Map<string, string>();
  for (const name of now.passed) status.set(name, "pass");
  for (const name of now.failed) status.set(name, "fail");
  for (const name of now.refused) status.set(name, "refused");
  const known = new Set<string>();
  for (const name of committed.unit.passed) {
    known.add(name);
    if (status.get(name) !== "pass") found.push(`${name} passed and is now ${status.get(name) ?? "gone"}`);
  }
  for (const { name } of committed.unit.refused) {
    known.add(name);
    if (status.get(name) === "fail" || status.get(name) === undefined)
      found.push(`${name} was refused and is now ${status.get(name) ?? "gone"}`);
  }
  for (const { name } of committed.unit.failed) {
    known.add(name);
    if (status.get(name) !== "fail")
      found.push(`${name} failed and is now ${status.get(name) ?? "gone"}: update corpus/results.json (bun run corpus)`);
  }
  for (const name of now.failed) if (!known.has(name)) found.push(`${name} is new and fails`);
  return found;
}
