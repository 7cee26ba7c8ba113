/**
 * `slp guard PATH...`, `slp guard --command LINE` and `slp guard --hook
 * claude|codex|cursor`: refuses a write to a protected path before it
 * happens. With paths or command lines, exit 2 naming each protected path
 * and the rule; as an agent's pre-tool hook, reads the tool call on stdin and
 * answers in that agent's protocol. The guard is the early warning; slp gate
 * in CI stays the lock: the hook stops the agent early, the gate stops the
 * branch, and nothing the guard misses gets past the gate.
 */
import { Type } from "@sinclair/typebox";
import { resolve } from "node:path";
import { UsageError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import type { Finding } from "../src/schemas/finding.ts";
import { answer, callEffects, HOOK_AGENTS, readToolCall, type HookAgent } from "../src/guard/hooks.ts";
import { commandEffects, type Effect } from "../src/guard/commands.ts";
import { effectVerdict, loadProtection, pathVerdict, type Protection, type Verdict } from "../src/guard/protection.ts";
import { ProjectDirOption } from "../src/project/slp/options.ts";
import { gateRules } from "../src/rules/index.ts";
import { defineTask } from "../src/runner/define-task.ts";

const USAGE = "usage: slp guard [-h] [PATH ...] [--command LINE] [--hook {claude,codex,cursor}] [--project-dir DIR]";

export default defineTask({
  name: "guard",
  description:
    "Refuse a write to a protected path before it happens (links followed; globs, variables, inline scripts, archives and tree-rewriting git commands refused when they could reach one): slp guard PATH..., --command LINE, or an agent's pre-tool hook (--hook claude|codex|cursor). The early warning: slp gate in CI stays the lock",
  input: Type.Object({
    paths: Type.Optional(Type.Array(Type.String(), { positional: true, metavar: "PATH", description: "paths about to be written" })),
    command: Type.Optional(
      Type.Array(Type.String(), {
        metavar: "LINE",
        description: "a shell command line about to run, judged as the hook judges it (repeatable)",
      }),
    ),
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
    const paths = input.paths ?? [];
    const commands = input.command ?? [];
    if (paths.length === 0 && commands.length === 0)
      throw new UsageError("give the paths about to be written, --command LINE, or --hook AGENT", USAGE);
    const verdicts = [
      ...paths.map((path: string) => pathVerdict(protection, environment.cwd, path)),
      ...commands.map((line: string) => firstVerdict(protection, commandEffects(line, environment.cwd))),
    ].filter((v: Verdict | null): v is Verdict => v !== null);
    const findings = verdicts.map(findingOf);
    const counted = [plural(paths.length, "path"), plural(commands.length, "command")].filter(Boolean).join(" and ");
    return {
      command: "guard",
      findings,
      exitCode: findings.length > 0 ? 2 : 0,
      note: `${counted}, none protected`,
      data: { protected: verdicts.map((verdict) => ({ path: verdict.path, rule: verdict.entry.rule })) },
    };
  },
});

function plural(count: number, noun: string): string {
  return count === 0 ? "" : `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The first effect of a command line that may reach a protected path. */
function firstVerdict(protection: Protection, effects: readonly Effect[]): Verdict | null {
  for (const effect of effects) {
    const verdict = effectVerdict(protection, effect);
    if (verdict) return verdict;
  }
  return null;
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
    const verdict =
      call.paths.map((path) => pathVerdict(protection, call.cwd, path)).find((v) => v !== null) ??
      firstVerdict(protection, callEffects(call));
    reason = verdict === null ? null : `slp guard: ${findingOf(verdict).message} [${verdict.entry.rule}]`;
  } catch (error) {
    reason = `slp guard cannot read this tool call (${error instanceof Error ? error.message : String(error)}), so it is refused; if it is harmless, ask a human to run it`;
  }
  const { stdout, exitCode } = answer(agent, reason);
  return { command: "guard", findings: [], text: stdout, exitCode, data: { agent, denied: reason !== null, reason } };
}

const ASK = "Rule 8: stop and ask a human, who changes it in a pull request of their own";

function findingOf(verdict: Verdict): Finding {
  const rule = gateRules.find((candidate) => candidate.code === verdict.entry.rule);
  return {
    severity: "BLOCK",
    rule: verdict.entry.rule,
    name: rule?.name ?? "",
    file: verdict.kind === "opaque" || verdict.kind === "human" ? "" : verdict.path,
    model: "",
    line: null,
    message: `${verdict.via ? `\`${verdict.via}\`: ` : ""}${messageOf(verdict)}`,
    // Rule 8: a protected path is the human's.
    fix: "human",
  };
}

/** Why the write is refused, and what to do instead. */
function messageOf(verdict: Verdict): string {
  const { entry, reason, path, given } = verdict;
  const protectedBy = `(${entry.pattern}: slp gate blocks ${entry.blocks})`;
  const plainly = "name the files it writes plainly, or stop and ask a human";
  // The work tree, or a folder above it, holds every protected path.
  const whole = `which holds protected paths (${entry.pattern} and the rest slp gate blocks)`;
  switch (verdict.kind) {
    case "human":
      return `${reason}: that is a human's to do (slp gate: ${entry.rule}); stop and ask a human`;
    case "opaque":
      return `${reason}, so slp cannot tell it writes no protected path; ${plainly}`;
    case "reaches":
      return path === "." ? `${reason}, ${whole}; ${plainly}` : `${reason}, which is protected ${protectedBy}; ${plainly}`;
    default:
      if (path === ".") return `${given ?? "this"} is the work tree or a folder above it, ${whole}; ${ASK}`;
      if (given)
        return `${given} is ${path} (links followed; case, trailing dots and Unicode forms folded), which is protected ${protectedBy}; ${ASK}`;
      return `${path} is protected ${protectedBy}; ${ASK}`;
  }
}
