/**
 * `slp init [--agent-login NAME] [--hooks] [--force]`: adds Spec-Lock-Diff to
 * an existing dbt repository. It overwrites nothing: when a file it would
 * write is already there with other content, it lists every such file and
 * changes nothing, unless --force (hook settings are then merged into, never
 * replaced).
 */
import { Type } from "@sinclair/typebox";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { InputError, UsageError } from "../src/core/errors.ts";
import { isMapping, type Mapping, type Value } from "../src/core/values.ts";
import type { Report } from "../src/core/report.ts";
import { AGENT_LOGIN, initFiles, type InitFile } from "../src/init/files.ts";
import { codeownersLocationAt } from "../src/project/slp/codeowners.ts";
import { DBT_PROJECT_FILE } from "../src/project/dbt/dbt-paths.ts";
import { ProjectDirOption, requireProjectFolder, resolveProjectOptions } from "../src/project/slp/options.ts";
import { openWorkTree } from "../src/project/open.ts";
import { CheckContext, readCheckProject } from "../src/rules/context/check.ts";
import { modelsToOwn } from "../src/rules/check/unowned-model.ts";
import { defineTask } from "../src/runner/define-task.ts";
import { VERSION } from "../src/version.ts";

export default defineTask({
  name: "init",
  description:
    "Add Spec-Lock-Diff to a dbt repository: CODEOWNERS, AGENTS.md, the pull-request workflow, slp.yml, tcr.sh (overwrites nothing)",
  informational: true,
  input: Type.Object({
    projectDir: ProjectDirOption,
    agentLogin: Type.Optional(
      Type.String({ metavar: "NAME", description: "the agent's GitHub login: its pull requests must pass, a human's are advisory" }),
    ),
    hooks: Type.Optional(
      Type.Boolean({ description: "also write the pre-tool hook settings of Claude Code, Codex and Cursor (slp guard)" }),
    ),
    force: Type.Optional(Type.Boolean({ description: "replace files that are already there (hook settings are merged into)" })),
  }),
  async run({ input, environment }): Promise<Report> {
    const projectDir = resolve(environment.cwd, input.projectDir);
    requireProjectFolder(projectDir, input.projectDir);
    if (!existsSync(join(projectDir, DBT_PROJECT_FILE))) {
      throw new InputError(`${input.projectDir} has no dbt_project.yml, so it is not a dbt project`, {
        fix: "run slp init in the folder that holds dbt_project.yml, or pass it with --project-dir",
      });
    }
    if (input.agentLogin !== undefined && !AGENT_LOGIN.test(input.agentLogin)) {
      throw new UsageError(`--agent-login ${input.agentLogin} is not a GitHub login`, "usage: slp init [--agent-login NAME]");
    }
    const { root, files } = initFiles({
      projectDir,
      version: VERSION,
      agentLogin: input.agentLogin,
      hooks: input.hooks === true,
      ownedModels: await modelsOwnedByName(environment.cwd, input.projectDir, environment.env),
    });
    const plan = files.map((file) => ({ file, ...planFor(root, file, input.force === true) }));
    const conflicts = plan.filter((step) => step.action === "conflict");
    // GitHub reads one CODEOWNERS: a .github/CODEOWNERS would leave the one slp writes unread, and it would leave a docs/CODEOWNERS unread.
    const elsewhere = codeownersLocationAt(root);
    const codeownersFile = files.find((file) => file.path === "CODEOWNERS") as InitFile;
    if (elsewhere !== null && elsewhere !== "CODEOWNERS" && input.force !== true)
      conflicts.push({
        file: codeownersFile,
        action: "conflict",
        content: "",
        why: elsewhere === ".github/CODEOWNERS" ? `GitHub reads ${elsewhere} first` : `GitHub would read it instead of ${elsewhere}`,
      });
    if (conflicts.length > 0) {
      throw new InputError(
        `slp init would change ${conflicts.length === 1 ? "a file that already exists" : `${conflicts.length} files that already exist`}: ${conflicts
          .map((step) => `${step.file.path}${step.why ? ` (${step.why})` : ""}`)
          .join(", ")}; nothing was changed`,
        { fix: "move them aside, run slp init again and merge back what you need, or run slp init --force to replace them" },
      );
    }
    for (const step of plan) {
      if (step.action === "keep") continue;
      const target = join(root, step.file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, step.content);
      if (step.file.executable) chmodSync(target, 0o755);
    }
    const lines = plan.map((step) => `${step.action === "keep" ? "kept" : "wrote"} ${step.file.path}`);
    const next = [
      "",
      "next:",
      "  1. replace @your-org/data-platform in CODEOWNERS and require code-owner review on the default branch",
      `  2. ${input.agentLogin ? `the workflow treats ${input.agentLogin}'s pull requests as the agent's` : "set the repository variable AGENT_LOGIN to the agent's GitHub login"}; make the checks slp and stage-e required`,
      "  3. commit these files in a pull request of your own, then run slp check: it lists the specs still missing",
    ];
    return {
      command: "init",
      findings: [],
      text: `${[...lines, ...next].join("\n")}\n`,
      data: { files: plan.map((step) => ({ path: step.file.path, action: step.action })) },
    };
  },
});

type Step = { action: "write" | "keep" | "conflict"; content: string; why?: string };

/** What to do with one file: write it (new, or --force), keep it (already as slp writes it), or refuse. */
function planFor(root: string, file: InitFile, force: boolean): Step {
  const target = join(root, file.path);
  if (!existsSync(target)) return { action: "write", content: file.content };
  const current = readFileSync(target, "utf8");
  if (file.mergeJson) {
    const merged = mergeHookSettings(current, file.content);
    if (merged === null) return { action: "conflict", content: "", why: "not JSON slp can merge into" };
    if (merged === current) return { action: "keep", content: current };
    return force ? { action: "write", content: merged } : { action: "conflict", content: "" };
  }
  if (current === file.content) return { action: "keep", content: current };
  return force ? { action: "write", content: file.content } : { action: "conflict", content: "" };
}

/** Adds slp's hook entries to existing settings, keeping every other setting and hook; null when the file is not a JSON object. */
function mergeHookSettings(current: string, ours: string): string | null {
  let existing: unknown;
  try {
    existing = JSON.parse(current);
  } catch {
    return null;
  }
  if (!isMapping(existing)) return null;
  const wanted = JSON.parse(ours) as Mapping;
  const merged: Mapping = { ...existing };
  for (const [key, value] of Object.entries(wanted)) {
    if (key !== "hooks") merged[key] ??= value;
  }
  const hooks: Mapping = isMapping(existing.hooks) ? { ...existing.hooks } : {};
  for (const [event, entries] of Object.entries(wanted.hooks as Mapping)) {
    const list: Value[] = Array.isArray(hooks[event]) ? [...(hooks[event] as Value[])] : [];
    for (const entry of entries as Value[]) {
      if (!list.some((present) => JSON.stringify(present) === JSON.stringify(entry))) list.push(entry);
    }
    hooks[event] = list;
  }
  merged.hooks = hooks;
  const text = `${JSON.stringify(merged, null, 2)}\n`;
  return JSON.stringify(merged) === JSON.stringify(existing) ? current : text;
}

/** The yml and sql of every model S5 wants owned by name, as check sees them (none when the marts folder is missing). */
async function modelsOwnedByName(cwd: string, projectDir: string, env: Record<string, string | undefined>): Promise<string[]> {
  const resolved = resolveProjectOptions(cwd, projectDir, undefined);
  if (!resolved.martsPaths.every((marts) => existsSync(join(resolved.dir, marts)))) return [];
  const project = await readCheckProject(openWorkTree(resolved.dir, env), resolved.dir, projectDir, resolved.martsPaths);
  return modelsToOwn(new CheckContext(project))
    .flatMap((owned) => owned.paths)
    .sort();
}
