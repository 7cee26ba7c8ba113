/**
 * The files `slp init` adds to a dbt repository, as text: CODEOWNERS (from
 * protected.ts, the list gate protects, and the models S5 wants owned by
 * name), AGENTS.md, the pull-request workflow, slp.yml, .slp-version,
 * tcr.sh and, with --hooks, each agent's pre-tool hook settings.
 */
import { relative } from "node:path";
import { repositoryRoot } from "../project/slp/slp-yml.ts";
import { readDbtPaths } from "../project/dbt/dbt-paths.ts";
import { protectedEntries, type ProtectedEntry } from "../project/history/protected.ts";
import agentsTemplate from "./templates/AGENTS.md.txt";
import slpYmlTemplate from "./templates/slp.yml.txt";
import workflowTemplate from "./templates/workflow.yml.txt";
import tcrScript from "../../tcr.sh" with { type: "text" };

export const OWNER_PLACEHOLDER = "@your-org/data-platform";
export const WORKFLOW_FILE = ".github/workflows/slp.yml";
/** Opens the part of CODEOWNERS that lists protected paths (and nothing else). */
export const PROTECTED_SECTION = "# Protected paths:";
export const MODELS_SECTION = "# Models a human approves by name";

export interface InitFile {
  /** Repository-relative. */
  path: string;
  content: string;
  executable?: boolean;
  /** JSON settings that already exist are merged into, never replaced (hook settings). */
  mergeJson?: boolean;
}

export interface InitOptions {
  /** The dbt project, absolute. */
  projectDir: string;
  version: string;
  agentLogin?: string;
  hooks: boolean;
  /** Project-relative yml and sql paths of the models S5 wants listed by name (incremental, critical). */
  ownedModels: readonly string[];
}

/** A GitHub login (a bot's ends in [bot]): nothing else may reach the workflow's expression. */
export const AGENT_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/;

export function initFiles(options: InitOptions): { root: string; files: InitFile[] } {
  const root = repositoryRoot(options.projectDir);
  const prefix = relative(root, options.projectDir).split("\\").join("/");
  const entries = protectedEntries({ prefix, dbtPaths: readDbtPaths(options.projectDir) });
  const projectDirFlag = prefix === "" ? "" : ` --project-dir ${prefix}`;
  const fill = (template: string, values: Record<string, string>) =>
    template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
  const agentPr = options.agentLogin
    ? `\${{ github.event.pull_request.user.login == '${options.agentLogin}' }}`
    : "${{ vars.AGENT_LOGIN == '' || vars.AGENT_LOGIN == github.event.pull_request.user.login }}";
  const files: InitFile[] = [
    {
      path: "CODEOWNERS",
      content: codeowners(
        entries,
        options.ownedModels.map((path) => (prefix === "" ? path : `${prefix}/${path}`)),
        options.version,
      ),
    },
    {
      path: "AGENTS.md",
      content: fill(agentsTemplate, {
        version: options.version,
        protected_paths: entries.map((entry) => `\`${entry.pattern}\``).join(", "),
      }),
    },
    {
      path: WORKFLOW_FILE,
      content: fill(workflowTemplate, { version: options.version, agent_pr: agentPr, project_dir_flag: projectDirFlag }),
    },
    { path: "slp.yml", content: slpYmlTemplate },
    { path: ".slp-version", content: `${options.version}\n` },
    { path: "tcr.sh", content: tcrScript, executable: true },
  ];
  if (options.hooks) files.push(...hookSettings());
  return { root, files };
}

/** CODEOWNERS: every path gate protects, grouped by the rule that blocks it, then the models S5 names. */
export function codeowners(entries: readonly ProtectedEntry[], ownedModels: readonly string[], version: string): string {
  const width = Math.max(...entries.map((entry) => entry.pattern.length), ...ownedModels.map((path) => path.length)) + 3;
  const line = (path: string) => `/${path}`.padEnd(width) + OWNER_PLACEHOLDER;
  const lines = [
    `# CODEOWNERS: what only a human changes (Spec-Lock-Diff Control 5A), written by slp init ${version}.`,
    `# Replace ${OWNER_PLACEHOLDER} with the team that approves these changes, and require`,
    "# code-owner review on the default branch. The agent's own login must not be an owner.",
    "",
    `${PROTECTED_SECTION} each one is a path slp gate blocks a pull request for (slp explain <rule>).`,
  ];
  for (const rule of ["G9", "G6", "G1", "G5"] as const) {
    const group = entries.filter((entry) => entry.rule === rule);
    if (group.length === 0) continue;
    lines.push(`# ${rule}: ${group[0]?.blocks}`);
    for (const entry of group) lines.push(line(entry.pattern));
  }
  lines.push("", `${MODELS_SECTION} (slp check S5): each incremental or critical model's yml and sql.`);
  for (const path of ownedModels) lines.push(line(path));
  lines.push(
    "# Critical models: a Partner approves every change (Stage E), for example:",
    "# /models/marts/finance/   @your-org/finance-partners",
  );
  return `${lines.join("\n")}\n`;
}

/** The shell line each agent's hook runs: slp from node_modules or PATH, and any failure to run it refuses the tool call. */
export function hookCommand(agent: "claude" | "codex" | "cursor"): string {
  const cd = agent === "claude" ? 'cd "${CLAUDE_PROJECT_DIR:-.}" && ' : "";
  return (
    `sh -c '${cd}slp=node_modules/.bin/slp; [ -x "$slp" ] || slp=$(command -v slp) || ` +
    `{ echo "slp guard cannot run (slp is not installed: npm install --save-dev spec-lock-diff), so this tool call is refused" >&2; exit 2; }; ` +
    `"$slp" guard --hook ${agent} || exit 2'`
  );
}

function hookSettings(): InitFile[] {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return [
    {
      path: ".claude/settings.json",
      mergeJson: true,
      content: json({
        hooks: {
          PreToolUse: [
            {
              matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash",
              // onFailure: a hook that cannot start or times out blocks the call (Claude Code 2.1.295 and later).
              hooks: [{ type: "command", command: hookCommand("claude"), timeout: 60, onFailure: "block" }],
            },
          ],
        },
      }),
    },
    {
      path: ".codex/hooks.json",
      mergeJson: true,
      content: json({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash|apply_patch|shell|exec_command|Write|Edit",
              hooks: [{ type: "command", command: hookCommand("codex"), timeout: 60 }],
            },
          ],
        },
      }),
    },
    {
      path: ".cursor/hooks.json",
      mergeJson: true,
      content: json({
        version: 1,
        hooks: {
          beforeShellExecution: [{ command: hookCommand("cursor"), timeout: 60, failClosed: true }],
          preToolUse: [
            { matcher: "Write|Edit|StrReplace|MultiEdit|Delete", command: hookCommand("cursor"), timeout: 60, failClosed: true },
          ],
        },
      }),
    },
  ];
}
