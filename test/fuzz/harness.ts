/**
 * One fuzz case: a project written into a fresh folder, the real `main()`
 * run on it in this process, and the invariants checked. node:fs and
 * node:fs/promises are spied (through bun:test's module mock, which reaches
 * the imports slp already holds), so every file slp opens, lists or writes
 * is seen, and anything outside the case's folder and slp's own is a
 * violation. HOME and the caches point into the case's folder.
 */
import { mock } from "bun:test";
import * as realFs from "node:fs";
import * as realFsPromises from "node:fs/promises";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { main } from "../../src/cli.ts";
import { commitAll, git, initRepo } from "../support/git-repo.ts";

/** slp's own files: its sources and dependencies may be read (never written). */
const SLP_ROOT = realpathSync(join(import.meta.dir, "..", ".."));

/** A file outside every project: what an escape would read. Its text must never appear in an output. */
export const CANARY_TEXT = "FUZZ-CANARY-7f3a";
export const CANARY = join(realpathSync(tmpdir()), `slp-fuzz-canary-${process.pid}.txt`);

/** A file of the case: its text, or a symbolic link to `link`. */
export type CaseFile = string | { link: string };

export interface FuzzCase {
  /** What the case exercises, for messages. */
  kind: string;
  /** Project-relative path -> content; written over the base project. */
  files: Record<string, CaseFile>;
  argv: string[];
  /** Commits after the base, each a set of files (gate); the work tree is a git repository when present. */
  commits?: Record<string, CaseFile>[];
  /** Standard input, for diff-from-row. */
  stdin?: string;
  /** Set when the input is one a strict reader rejects: slp must not exit 0 on it. */
  mustRefuse?: string;
  env?: Record<string, string>;
}

export interface CaseResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Paths slp touched outside the case's folder and its own. */
  violations: string[];
}

// --- the spy ---

let recording: { allowed: string[]; violations: string[] } | null = null;

/** Calls that read or change a file's content or a folder's listing (metadata such as stat is not content). */
const CONTENT_CALLS = [
  "openSync",
  "open",
  "readFileSync",
  "readFile",
  "readdirSync",
  "readdir",
  "opendirSync",
  "opendir",
  "writeFileSync",
  "writeFile",
  "appendFileSync",
  "appendFile",
  "mkdirSync",
  "mkdir",
  "mkdtempSync",
  "mkdtemp",
  "renameSync",
  "rename",
  "rmSync",
  "rm",
  "unlinkSync",
  "unlink",
  "rmdirSync",
  "rmdir",
  "copyFileSync",
  "copyFile",
  "cpSync",
  "cp",
  "symlinkSync",
  "symlink",
  "truncateSync",
  "truncate",
  "chmodSync",
  "chmod",
  "utimesSync",
  "utimes",
  "createReadStream",
  "createWriteStream",
];

function note(call: string, target: unknown): void {
  if (!recording) return;
  if (typeof target !== "string" && !(target instanceof URL) && !Buffer.isBuffer(target)) return;
  const path = resolve(target instanceof URL ? target.pathname : String(target));
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // A path that does not exist yet (a file about to be written) is judged as written.
  }
  if (!recording.allowed.some((root) => real === root || real.startsWith(`${root}/`) || path.startsWith(`${root}/`))) {
    recording.violations.push(`${call} ${path}`);
  }
}

function spied<T extends Record<string, unknown>>(module: T): T {
  const copy: Record<string, unknown> = { ...module };
  for (const call of CONTENT_CALLS) {
    const original = module[call];
    if (typeof original !== "function") continue;
    copy[call] = function (this: unknown, target: unknown, ...rest: unknown[]) {
      note(call, target);
      // copyFile, rename, symlink, cp: the second path is touched too.
      if (["renameSync", "rename", "copyFileSync", "copyFile", "cpSync", "cp", "symlinkSync", "symlink"].includes(call))
        note(call, rest[0]);
      return (original as (...args: unknown[]) => unknown).call(this, target, ...rest);
    };
  }
  return copy as T;
}

let installed = false;

/** Installs the spy once per process; it records only while a case runs. */
export function installSpy(): void {
  if (installed) return;
  installed = true;
  const fs = spied(realFs as unknown as Record<string, unknown>);
  (fs as { promises?: unknown }).promises = spied(realFsPromises as unknown as Record<string, unknown>);
  mock.module("node:fs", () => ({ ...fs, default: fs }));
  mock.module("fs", () => ({ ...fs, default: fs }));
  const promises = spied(realFsPromises as unknown as Record<string, unknown>);
  mock.module("node:fs/promises", () => ({ ...promises, default: promises }));
  mock.module("fs/promises", () => ({ ...promises, default: promises }));
  // Bun.file cannot be replaced (its property is not configurable); slp calls it on its own files only
  // (the transpiler's wasm), which test/registry.test.ts's neighbour below checks by reading the source.
  writeFileSync(CANARY, `${CANARY_TEXT}\n`);
}

// --- a case ---

/** The project every case starts from: one marts model with a spec, a unit test, CODEOWNERS. */
export const BASE_FILES: Record<string, string> = {
  "dbt_project.yml": "name: fuzz\nversion: '1.0'\nprofile: fuzz\nmodel-paths: [models]\n",
  "models/staging/stg.sql": "select 1 as id, 10 as amount\n",
  "models/marts/fct.sql": "select id, amount from {{ ref('stg') }}\n",
  "models/marts/fct.yml": [
    "version: 2",
    "models:",
    "  - name: fct",
    "    meta:",
    "      spec:",
    "        grain: one row per id",
    "        primary_key: [id]",
    "        tier: critical",
    "        metrics: {amount: sum of amount}",
    "        known_edges: [an id is kept]",
    "        sensitive_columns: []",
    "        reconciliation_query: analyses/reconciliation_fct.sql",
    "        reconciliation_tolerance: 0.1%",
    "        external_validation: the ledger",
    "    columns:",
    "      - name: id",
    "        data_tests: [unique, not_null]",
    "      - name: amount",
    "unit_tests:",
    "  - name: keeps_ids",
    "    model: fct",
    "    config: {meta: {edge: an id is kept}}",
    "    given:",
    "      - input: ref('stg')",
    "        rows: [{id: 1, amount: 10}]",
    "    expect:",
    "      rows: [{id: 1, amount: 10}]",
    "",
  ].join("\n"),
  "analyses/reconciliation_fct.sql": "select 1\n",
  CODEOWNERS: "/models/marts/ @data\n",
};

function writeFiles(root: string, files: Record<string, CaseFile>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    // A generated path stays inside the project.
    if (!resolve(full).startsWith(`${root}/`)) continue;
    rmSync(full, { recursive: true, force: true });
    mkdirSync(dirname(full), { recursive: true });
    if (typeof content === "string") writeFileSync(full, content);
    else symlinkSync(content.link, full);
  }
}

/** Runs a case to completion (or the time limit) and reports what slp did. */
export async function runCase(fuzz: FuzzCase, timeoutMs = 30_000): Promise<CaseResult> {
  installSpy();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "slp-fuzz-")));
  const project = join(root, "project");
  try {
    mkdirSync(project);
    writeFiles(project, BASE_FILES);
    if (fuzz.commits) {
      initRepo(project);
      commitAll(project, "base");
      git(project, ["checkout", "-q", "-b", "feature"]);
      for (const [i, files] of fuzz.commits.entries()) {
        writeFiles(project, files);
        commitAll(project, `step ${i + 1}`);
      }
    }
    writeFiles(project, fuzz.files);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(root, "home"),
      XDG_CACHE_HOME: join(root, "cache"),
      SLP_CACHE_DIR: join(root, "cache", "slp"),
      NO_COLOR: "1",
      TZ: "UTC",
      SLP_ENGINE_CANARY: CANARY_TEXT,
      ...fuzz.env,
    };
    let stdout = "";
    let stderr = "";
    recording = { allowed: [root, SLP_ROOT], violations: [] };
    const violations = recording.violations;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exitCode = await Promise.race([
      main(fuzz.argv, {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        cwd: project,
        env,
        stdin: fuzz.stdin === undefined ? undefined : async () => fuzz.stdin as string,
      }),
      new Promise<number>((done) => {
        timer = setTimeout(() => done(-1), timeoutMs);
      }),
    ]).finally(() => {
      clearTimeout(timer);
      recording = null;
    });
    return { exitCode, stdout, stderr, violations };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every way a result breaks the fuzz invariants; empty when it keeps them. */
export function brokenInvariants(fuzz: FuzzCase, result: CaseResult): string[] {
  const broken: string[] = [];
  const allowed = fuzz.argv[0] === "tcr" ? [0, 1, 2, 3] : [0, 1, 2];
  if (result.exitCode === -1) broken.push("it did not finish within the time limit (a hang)");
  else if (!allowed.includes(result.exitCode)) broken.push(`exit ${result.exitCode}`);
  const output = result.stdout + result.stderr;
  if (/\bunexpected [A-Z]\w*(Error|Exception)?\b|bug in slp/.test(output))
    broken.push(`the internal-error path: ${output.slice(output.search(/unexpected|bug in slp/), 300)}`);
  if (output.includes(CANARY_TEXT)) broken.push("the canary file's text reached the output");
  for (const violation of result.violations) broken.push(`touched outside the project: ${violation}`);
  if (fuzz.mustRefuse && result.exitCode === 0) broken.push(`exit 0 on input a strict reader rejects (${fuzz.mustRefuse})`);
  return broken;
}
