/** `slp compare`: each diff.json held against the pre-registration committed before the code (framework Stage E). */
import { Type } from "@sinclair/typebox";
import type { Report } from "../src/core/report.ts";
import { isMapping } from "../src/core/values.ts";
import { plural, sortByText } from "../src/core/text.ts";
import { assertOneDiffPerModel, expandDiffArguments, readDiffFiles } from "../src/project/history/diff-files.ts";
import { MartsPathOption, ProjectDirOption, resolveProjectOnDisk } from "../src/project/slp/options.ts";
import { lineageMode } from "../src/project/dbt/lineage.ts";
import { openWorkTree } from "../src/project/open.ts";
import { readCheckProject } from "../src/rules/context/check.ts";
import { CompareContext, DiffContext } from "../src/rules/context/compare.ts";
import { compareDiffRules, compareRules, compareRunRules } from "../src/rules/index.ts";
import type { Finding } from "../src/schemas/finding.ts";
import { defineTask } from "../src/runner/define-task.ts";
import type { DiffFile } from "../src/project/history/diff-files.ts";

export default defineTask({
  name: "compare",
  description: "Compare each diff.json with the pre-registration committed before the code (C0-C7, I2)",
  input: Type.Object({
    diffs: Type.Array(Type.String(), {
      positional: true,
      metavar: "DIFF.json",
      description: "the diffs, one per model, all in one call; a quoted glob such as 'diff/*.json' works",
    }),
    base: Type.Optional(
      Type.String({
        metavar: "REF",
        description: "the branch this one targets: a pre-registration identical to the merge-base's is inherited, not this branch's",
      }),
    ),
    projectDir: ProjectDirOption,
    martsPath: MartsPathOption,
  }),
  async run({ input, environment }): Promise<Report> {
    const resolved = resolveProjectOnDisk(environment.cwd, input.projectDir, input.martsPath);
    const project = await readCheckProject(
      openWorkTree(resolved.dir, environment.env),
      resolved.dir,
      resolved.dirAsGiven,
      resolved.martsPaths,
    );
    // Git is read (and loaded) only for --base; then slp.yml is the base's too.
    const facts =
      input.base === undefined
        ? null
        : await (await import("../src/project/history/stale.ts")).readBaseFacts(project, input.base, project.model.store);
    const stale = facts?.stale ?? null;
    const config = (facts?.changes.config ?? resolved.config).config;
    const settings = { changed: facts?.changes.changed ?? null, lineage: lineageMode(config.lineage), ceilings: config.band_ceilings };
    const files = readDiffFiles(environment.cwd, expandDiffArguments(environment.cwd, input.diffs));
    assertOneDiffPerModel(files);
    await refuseStale(resolved.dir, files);

    const run = new CompareContext(project, files, stale, settings);
    const findings: Finding[] = [];
    const compared: { file: string; model: string; compared: boolean }[] = [];
    const [contract, ...measures] = compareDiffRules;
    for (const file of files) {
      const context = new DiffContext(run, file);
      const found = await contract.findings(context);
      findings.push(...found);
      // "ok" in the reference: C1-C6 and I2 read only a diff whose contract blocked nothing.
      context.contractHeld = !found.some((finding) => finding.severity === "BLOCK");
      for (const rule of measures) findings.push(...(await rule.findings(context)));
      compared.push({ file: file.path, model: file.model, compared: context.contractHeld });
    }
    for (const rule of compareRunRules) findings.push(...(await rule.findings(run)));

    return {
      command: "compare",
      findings,
      note: plural(files.length, "file"),
      notes: resolved.config.warnings,
      // The diffs' own paths are relative to where slp ran, not to the project.
      filesAsGiven: files.map((file) => file.path),
      scope: [
        {
          rules: compareRules.map((rule) => rule.code),
          models: sortByText(
            new Set([
              ...files.map((file) => file.model).filter(Boolean),
              ...run.models.filter((model) => isMapping(model.preRegistration)).map((model) => model.name),
            ]),
          ),
        },
      ],
      data: {
        files: files.length,
        diffs: compared,
        base: stale ? { ref: stale.base, merge_base: stale.mergeBase, inherited: sortByText(stale.models) } : null,
      },
    };
  },
});

/**
 * A diff that records what it was measured on (extra.slp, slp diff writes it)
 * and whose model's code has changed since is exit 2: its numbers are of
 * other code. A diff without the record (the reference's) is read as before.
 */
async function refuseStale(dir: string, files: readonly DiffFile[]): Promise<void> {
  const recorded = files.filter((file) => isMapping(file.value.extra) && Object.hasOwn(file.value.extra, "slp"));
  if (recorded.length === 0) return;
  const { readProvenance, changedSince, refuseStaleDiffs } = await import("../src/data/provenance.ts");
  const stale = [];
  for (const file of recorded) {
    const measured = readProvenance(file.path, file.value) as NonNullable<ReturnType<typeof readProvenance>>;
    const changed = changedSince(dir, measured);
    if (changed.length > 0) stale.push({ diff: file.path, model: file.model || "?", measured, changed });
  }
  await refuseStaleDiffs(dir, stale);
}
