/** Repositories for the TCR loop's tests: the quickstart on a branch, and what the tests look at from outside with git. */
import { expect } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Envelope } from "../../src/schemas/envelope.ts";
import { TcrData } from "../../src/schemas/tcr.ts";
import { schemaErrors } from "../../src/schemas/validate.ts";
import { commitAll, git, initRepo } from "./git-repo.ts";
import { tempDir, type TempDir } from "./temp.ts";

export const ROOT = join(import.meta.dir, "..", "..");
export const QUICKSTART = join(ROOT, "examples", "quickstart");
export const FCT_ORDERS_YML = "models/marts/fct_orders.yml";
export const FCT_ORDERS_SQL = "models/marts/fct_orders.sql";

/** The quickstart as a repository: committed on main, then a branch `agent/work` checked out. */
export function quickstartRepo(steps?: string[]): TempDir {
  const dir = tempDir("slp-tcr-");
  cpSync(QUICKSTART, dir.path, { recursive: true });
  writeFileSync(join(dir.path, ".gitignore"), "*.duckdb\ntarget/\n*.log\n");
  if (steps) writeFileSync(join(dir.path, "slp.yml"), `tcr:\n  steps: [${steps.join(", ")}]\n`);
  initRepo(dir.path);
  commitAll(dir.path, "quickstart");
  git(dir.path, ["checkout", "-q", "-b", "agent/work"]);
  return dir;
}

/** `git status --porcelain`, every untracked file listed, "" when clean. */
export function status(dir: string): string {
  return git(dir, ["status", "--porcelain", "--untracked-files=all"]);
}

export function edit(dir: string, path: string, change: (text: string) => string): void {
  writeFileSync(join(dir, path), change(readFileSync(join(dir, path), "utf8")));
}

/** A change check blocks on: the standard mart loses its spec (S1). */
export function breakSpec(dir: string): void {
  edit(dir, FCT_ORDERS_YML, (text) => text.replace("    meta:\n      spec:", "    meta:\n      not_a_spec:"));
}

/** The mart downstream of fct_orders predicts a change of fct_orders too (gate's G15 asks it a pre-registration of the branch's own). */
export function preRegisterDownstream(dir: string, why: string): void {
  edit(dir, "models/marts/finance/fct_revenue_daily.yml", (text) =>
    text.replace("two days gain revenue and orders", `two days gain revenue and orders; ${why}`),
  );
}

/** A change unit blocks on: the cents edge divides by 10, with the branch's own pre-registrations so gate lets the sql through. */
export function breakCentsEdge(dir: string): void {
  edit(dir, FCT_ORDERS_SQL, (text) => text.replace("/ 100.0", "/ 10.0"));
  edit(dir, FCT_ORDERS_YML, (text) => text.replace("about one order in five", "about one order in five; amounts now in tenths"));
  preRegisterDownstream(dir, "amounts now in tenths");
}

export function strikes(dir: string): string {
  return readFileSync(join(dir, ".git", "slp", "tcr-strikes"), "utf8").trim();
}

/** Every path git tracks at HEAD with its mode and blob: what "the tree is exactly HEAD" is checked against. */
export function headTree(dir: string): string {
  return git(dir, ["ls-tree", "-r", "HEAD"]);
}

/** What the work tree holds as git would stage it (ignored files aside), as `ls-tree` lines: equal to headTree when clean. */
export function workTreeAsStaged(dir: string): string {
  const index = join(dir, ".git", "slp-test-index");
  const env = { GIT_INDEX_FILE: index };
  git(dir, ["read-tree", "HEAD"], env);
  git(dir, ["add", "-A"], env);
  const tree = git(dir, ["write-tree"], env);
  return git(dir, ["ls-tree", "-r", tree]);
}

/** tcr's JSON envelope, checked against schemas/envelope.schema.json and its data against schemas/tcr.schema.json. */
export function tcrEnvelope(stdout: string): any {
  const envelope = JSON.parse(stdout);
  expect(schemaErrors(Envelope, envelope, "envelope")).toEqual([]);
  expect(schemaErrors(TcrData, envelope.data, "data")).toEqual([]);
  return envelope;
}
