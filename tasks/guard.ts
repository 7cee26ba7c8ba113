/**
 * `slp guard PATH...` and `slp guard --hook claude|codex|cursor`: refuses a
 * write to a protected path before it happens. With paths, exit 2 naming
 * each protected one and the rule; as an agent's pre-tool hook, reads the
 * tool call on stdin and answers in that agent's protocol. gate in CI stays
 * the authority: the hook stops the agent early, the gate stops the branch.
 */
import { Type } from "@sinclair/typebox";
import { resolve } from "node:path";
import { UsageError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import type { Finding } from "../src/schemas/finding.ts";
import { answer, commandWrites, HOOK_AGENTS, readToolCall, type HookAgent } from "../src/guard/hooks.ts";
import { judge, loadProtection, repositoryPath, type Protection, type Verdict } from "../src/guard/protection.ts";
import { ProjectDirOption } from "../src/project/slp/options.ts";
import { gateRules } from "../src/rules/index.ts";
import { defineTask } from "../src/runner/define-task.ts";

const USAGE = "usage: slp guard [-h] [PATH ...] [--hook {claude,codex,cursor}] [--project-dir DIR]";

export default defineTask({
  name: "guard",
  description:
    "Refuse a write to a protected path before it happens: slp guard PATH..., or an agent's pre-tool hook (--hook claude|codex|cursor)",
  input: Type.Object({
    paths: Type.Optional(Type.Array(Type.String(), { positional: true, metavar: "PATH", description: "paths about to be written" })),
    hook: Type.Optional(
      Type.Union(
        HOOK_AGENTS.map((agent) => Type.Literal(agent)),
        { metavar: "AGENT", description: "read that agent's pre-tool event on stdin and answer in its protocol" },
      ),
    ),
    projectDir: ProjectDirOption,
  }),
  async run({ input, environment }): Promise<Report> {
    const protection = await loadProtection(resolve(environment.cwd, input.projectDir));
    if (input.hook) return await hookAnswer(input.hook, protection, environment.cwd, environment.readStdin);
    if (!input.paths || input.paths.length === 0) throw new UsageError("give the paths about to be written, or --hook AGENT", USAGE);
    const verdicts = input.paths
      .map((path: string) => verdictFor(protection, environment.cwd, path))
      .filter((v: Verdict | null): v is Verdict => v !== null);
    const findings = verdicts.map(findingOf);
    return {
      command: "guard",
      findings,
      exitCode: findings.length > 0 ? 2 : 0,
      note: `${input.paths.length} ${input.paths.length === 1 ? "path" : "paths"}, none protected`,
      data: { protected: verdicts.map((verdict) => ({ path: verdict.path, rule: verdict.entry.rule })) },
    };
  },
});

function verdictFor(protection: Protection, cwd: string, path: string): Verdict | null {
  const rel = repositoryPath(protection, cwd, path);
  return rel === null ? null : judge(protection, rel);
}

/** The first protected path a tool call writes, as the reason the agent reads. */
async function hookAnswer(
  agent: HookAgent,
  protection: Protection,
  cwd: string,
  readStdin: (() => Promise<string>) | undefined,
): Promise<Report> {
  let reason: string | null;
  try {
    const call = readToolCall(agent, readStdin ? await readStdin() : "", cwd);
    const targets = [...call.paths.map((path) => ({ cwd: call.cwd, word: path })), ...commandWrites(call)];
    const verdict = targets.map((target) => verdictFor(protection, target.cwd, target.word)).find((v) => v !== null) ?? null;
    reason = verdict === null ? null : `slp guard: ${findingOf(verdict).message} [${verdict.entry.rule}]`;
  } catch (error) {
    reason = `slp guard cannot read this tool call (${error instanceof Error ? error.message : String(error)}), so it is refused; if it is harmless, ask a human to run it`;
  }
  const { stdout, exitCode } = answer(agent, reason);
  return { command: "guard", findings: [], text: stdout, exitCode, data: { agent, denied: reason !== null, reason } };
}

function findingOf(verdict: Verdict): Finding {
  const rule = gateRules.find((candidate) => candidate.code === verdict.entry.rule);
  return {
    severity: "BLOCK",
    rule: verdict.entry.rule,
    name: rule?.name ?? "",
    file: verdict.path,
    model: "",
    line: null,
    message: `${verdict.path} is protected (${verdict.entry.pattern}: slp gate blocks ${verdict.entry.blocks}); Rule 8: stop and ask a human, who changes it in a pull request of their own`,
  };
}
