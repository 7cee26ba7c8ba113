/** `slp gate`: the anti-fraud gate, read straight from git (merge-base..head first-parent for the walk; every commit the branch brings for the record). */
import { Type } from "@sinclair/typebox";
import { resolve } from "node:path";
import { plural, sortByText } from "../src/core/text.ts";
import type { Report } from "../src/core/report.ts";
import { loadConfig } from "../src/project/slp/slp-yml.ts";
import { MartsPathOption, ProjectDirOption, requireProjectFolder } from "../src/project/slp/options.ts";
import { parseStore } from "../src/project/open.ts";
import { GateContext } from "../src/rules/context/gate.ts";
import { gateRules, tcrRecordRules } from "../src/rules/index.ts";
import { defineTask } from "../src/runner/define-task.ts";

export default defineTask({
  name: "gate",
  description:
    "Judge a branch's history against its base: removed or weakened tests, protected paths, specs and pre-registrations, marts that leave marts, changes upstream of marts (G1-G10, G14-G16, I1, I3, I4, I6)",
  ciOrder: 20,
  input: Type.Object({
    base: Type.Optional(
      Type.String({
        metavar: "REF",
        description: "the branch the pull request targets (default: SLP_BASE, else slp.yml's base as the default branch has it, else main)",
      }),
    ),
    head: Type.String({ default: "HEAD", metavar: "REF", description: "the commit to judge (default HEAD)" }),
    projectDir: ProjectDirOption,
    martsPath: MartsPathOption,
    verifyCommits: Type.Optional(
      Type.Boolean({
        description:
          "re-run check and unit at every commit and report tcr's record (G11-G13); on when slp.yml on the base says tcr: required",
      }),
    ),
  }),
  async run({ input, environment }): Promise<Report> {
    // Loaded here, not at start-up: reading git costs every other task nothing.
    const [{ judgedBase, openBranch }, { readInventories, sameInventory }] = await Promise.all([
      import("../src/project/history/history.ts"),
      import("../src/rules/context/gate-history.ts"),
    ]);
    const dir = resolve(environment.cwd, input.projectDir);
    requireProjectFolder(dir, input.projectDir);
    // The branch being judged does not choose its base: slp.yml's base counts only as the default branch has it.
    const judged = await judgedBase(dir, environment.env, input.base, loadConfig(dir).config.base);
    const base = judged.name;
    const branch = await openBranch({ dir, base, head: input.head });
    if (judged.confirmedBy !== undefined) branch.notes.push(`the base is ${base}, as slp.yml on ${judged.confirmedBy} names it`);
    const data = {
      base,
      head: input.head,
      merge_base: branch.mergeBase,
      commits: branch.commits.map((commit) => ({ commit, label: branch.repo.shortSha(commit) })),
    };
    if (branch.commits.length === 0)
      return { command: "gate", findings: [], summary: "slp gate: OK (no commits)", notes: branch.notes, data };
    const read = await readInventories(branch, input.martsPath, parseStore(dir, environment.env));
    const { verifiedRecord } = await import("../src/tcr/record.ts");
    const record = await verifiedRecord(input.verifyCommits, branch, read, environment);
    const context = new GateContext({ ...read, baseName: base, record });
    // The record's rules judge only when the record is read (--verify-commits, tcr: required).
    const rules = record ? gateRules : gateRules.filter((rule) => !tcrRecordRules.includes(rule));
    const findings = [];
    for (const rule of rules) findings.push(...(await rule.findings(context)));
    const note = sameInventory(read.before, read.after) ? "no changes" : plural(branch.commits.length, "commit");
    return {
      command: "gate",
      findings,
      note,
      notes: [...branch.notes, ...read.config.warnings],
      scope: [
        { rules: rules.map((rule) => rule.code), models: sortByText(new Set([...read.before.models.keys(), ...read.after.models.keys()])) },
      ],
      data: {
        ...data,
        commits: read.walk.slice(1).map((step) => ({ commit: step.commit, label: step.label })),
        marts_paths: read.martsPaths,
      },
    };
  },
});
