/**
 * The agents' pre-tool hook protocols `slp guard --hook` speaks: how each one
 * hands over the tool call it is about to make (a file write, an edit, a
 * patch, a shell command) and how it is told no. Claude Code and Codex share
 * one shape (`tool_name`, `tool_input`; a `hookSpecificOutput` deny); Cursor
 * sends `beforeShellExecution` and `preToolUse` events and reads
 * `permission`. An event slp cannot read is refused: a guard that waves
 * through what it does not understand guards nothing.
 */
import { isMapping, type Mapping } from "../core/values.ts";
import { commandEffects, type Effect } from "./commands.ts";

export const HOOK_AGENTS = ["claude", "codex", "cursor"] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

/** What a tool call is about to do: write these paths, or run this command line. */
export interface ToolCall {
  /** Paths it writes, as the agent gave them (absolute, or relative to `cwd`). */
  paths: string[];
  /** Shell command lines it runs. */
  commands: string[];
  /** Where relative paths and commands are read from. */
  cwd: string;
}

/** Keys under which the agents put the file a tool writes. */
const PATH_KEYS = ["file_path", "path", "notebook_path", "target_file", "filePath", "filename"];
const COMMAND_KEYS = ["command", "cmd"];

/** Reads one event; throws with the reason when it is not one slp can judge. */
export function readToolCall(agent: HookAgent, text: string, fallbackCwd: string): ToolCall {
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new Error("the hook event on stdin is not JSON");
  }
  if (!isMapping(event)) throw new Error("the hook event on stdin is not a JSON object");
  const cwd = typeof event.cwd === "string" && event.cwd !== "" ? event.cwd : (workspaceRoot(event) ?? fallbackCwd);
  const call: ToolCall = { paths: [], commands: [], cwd };
  // Cursor's beforeShellExecution carries the command at the top level.
  if (agent === "cursor" && typeof event.command === "string" && event.tool_input === undefined) {
    call.commands.push(event.command);
    return call;
  }
  const tool = typeof event.tool_name === "string" ? event.tool_name : "";
  let input: unknown = event.tool_input;
  if (typeof input === "string") {
    try {
      input = JSON.parse(input);
    } catch {
      input = { command: input };
    }
  }
  if (!isMapping(input)) throw new Error(`the hook event has no tool_input for ${tool || "its tool"}`);
  collect(call, tool, input);
  return call;
}

function collect(call: ToolCall, tool: string, input: Mapping): void {
  if (tool === "apply_patch") {
    const patch = [input.command, input.patch, input.input].find((value) => typeof value === "string") as string | undefined;
    if (patch === undefined) throw new Error("the apply_patch event carries no patch");
    call.paths.push(...patchPaths(patch));
    return;
  }
  for (const key of PATH_KEYS) if (typeof input[key] === "string") call.paths.push(input[key] as string);
  if (Array.isArray(input.edits)) {
    for (const edit of input.edits) if (isMapping(edit) && typeof edit.file_path === "string") call.paths.push(edit.file_path);
  }
  for (const key of COMMAND_KEYS) {
    const value = input[key];
    if (typeof value === "string") call.commands.push(value);
    // Codex may pass argv as a list: ["bash", "-lc", "..."].
    else if (Array.isArray(value) && value.every((part) => typeof part === "string")) call.commands.push(value.map(quoteWord).join(" "));
  }
}

/** The files an apply_patch body adds, updates, deletes or moves to. */
function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const match of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)) {
    paths.push((match[1] ?? match[2] ?? "").trim());
  }
  return paths;
}

function workspaceRoot(event: Mapping): string | undefined {
  const roots = event.workspace_roots;
  return Array.isArray(roots) && typeof roots[0] === "string" ? roots[0] : undefined;
}

function quoteWord(word: string): string {
  return /^[\w./=:@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** What a call's commands may do to the files. */
export function callEffects(call: ToolCall): Effect[] {
  return call.commands.flatMap((command) => commandEffects(command, call.cwd));
}

/** How the agent is told: what to print on stdout and the exit code, for an allow and for a deny. */
export function answer(agent: HookAgent, reason: string | null): { stdout: string; exitCode: number } {
  if (agent === "cursor") {
    const body = reason === null ? { permission: "allow" } : { permission: "deny", user_message: reason, agent_message: reason };
    return { stdout: `${JSON.stringify(body)}\n`, exitCode: 0 };
  }
  if (reason === null) return { stdout: "", exitCode: 0 };
  const body = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } };
  return { stdout: `${JSON.stringify(body)}\n`, exitCode: 0 };
}
