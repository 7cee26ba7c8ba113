/**
 * `bun corpus/extract.ts [name...]`: writes each manifest project's extract
 * (what slp reads of a dbt project, and the packages it installs) from the
 * fetched mirrors of their public repositories into the corpus data folder,
 * as a git repository of one commit so `gate` and `mutate` can run on it.
 * No network: the mirrors are bare git folders already on this machine.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { load } from "js-yaml";
import { corpusDataDir, type ManifestPackage, type ManifestProject, readManifest } from "./manifest.ts";

/** A seed larger than this keeps only its first lines: the corpus holds no data beyond small seeds. */
const WHOLE_SEED_BYTES = 4096;
const SEED_HEAD_LINES = 20;
/** No source file of a dbt project is this large; one that is, is data, not code. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const READ_EXTENSIONS = [".sql", ".yml", ".yaml", ".md", ".py", ".jinja", ".jinja2"];
const PROJECT_FILES = ["dbt_project.yml", "packages.yml", "dependencies.yml", "package-lock.yml", "selectors.yml"];
const CODEOWNERS_PLACES = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"];
/** Dates of the extract's one commit: fixed, so an extract made twice is the same commit. */
const FIXED_DATE = "2000-01-01T00:00:00Z";

interface Blob {
  path: string;
  oid: string;
  size: number;
}

/** The bare git folder `fetch` brought for a repository, or $SLP_MIRROR_DIR's. */
export function mirrorOf(repo: string, env = process.env): string {
  const base = env.SLP_MIRROR_DIR ?? "/work/.mirror";
  return join(base, repo.replace("/", "+"), "repo");
}

function git(gitDir: string, args: string[], input?: Uint8Array): Buffer {
  const result = Bun.spawnSync(["git", "--git-dir", gitDir, ...args], { stdin: input ?? "ignore", stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} in ${gitDir}: ${result.stderr.toString()}`);
  return result.stdout;
}

function listTree(gitDir: string, commit: string, folder: string): Blob[] {
  const out = git(gitDir, ["ls-tree", "-r", "-z", "--long", commit, "--", folder === "." ? "." : `${folder}/`]).toString();
  const blobs: Blob[] = [];
  for (const line of out.split("\0")) {
    const match = /^\d+ blob ([0-9a-f]+)\s+(\d+)\t(.*)$/s.exec(line);
    if (match) blobs.push({ oid: match[1]!, size: Number(match[2]), path: match[3]! });
  }
  return blobs;
}

/** Reads many blobs in one `git cat-file --batch`. */
function readBlobs(gitDir: string, blobs: readonly Blob[]): Map<string, Buffer> {
  const out = git(gitDir, ["cat-file", "--batch"], new TextEncoder().encode(blobs.map((blob) => `${blob.oid}\n`).join("")));
  const contents = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const newline = out.indexOf(10, at);
    const [oid, , size] = out.subarray(at, newline).toString().split(" ");
    const start = newline + 1;
    contents.set(oid!, out.subarray(start, start + Number(size)));
    at = start + Number(size) + 1;
  }
  return contents;
}

function showFile(gitDir: string, commit: string, path: string): string {
  return git(gitDir, ["show", `${commit}:${path}`]).toString();
}

/** The folders dbt reads a project's resources from, as its dbt_project.yml names them (dbt's defaults otherwise). */
function resourceFolders(dbtProjectYml: string): string[] {
  const config = (load(dbtProjectYml) ?? {}) as Record<string, unknown>;
  const listed = (keys: string[], fallback: string): string[] => {
    for (const key of keys) {
      const value = config[key];
      if (Array.isArray(value)) return value.map(String);
    }
    return [fallback];
  };
  return [
    ...listed(["model-paths", "source-paths"], "models"),
    ...listed(["macro-paths"], "macros"),
    ...listed(["snapshot-paths"], "snapshots"),
    ...listed(["test-paths"], "tests"),
    ...listed(["analysis-paths"], "analyses"),
    ...listed(["seed-paths", "data-paths"], "seeds"),
    ...(Array.isArray(config["docs-paths"]) ? (config["docs-paths"] as unknown[]).map(String) : []),
  ].map((folder) => posix.normalize(folder).replace(/\/$/, ""));
}

function seedFolders(dbtProjectYml: string): string[] {
  const config = (load(dbtProjectYml) ?? {}) as Record<string, unknown>;
  const value = config["seed-paths"] ?? config["data-paths"];
  return (Array.isArray(value) ? value.map(String) : ["seeds"]).map((folder) => posix.normalize(folder).replace(/\/$/, ""));
}

/** A seed's first lines, or the whole seed when it is small. */
function seedHead(content: Buffer): Buffer {
  if (content.length <= WHOLE_SEED_BYTES) return content;
  let at = 0;
  for (let line = 0; line < SEED_HEAD_LINES && at !== -1; line++) at = content.indexOf(10, at + 1);
  return at === -1 ? content : content.subarray(0, at + 1);
}

/**
 * The files of one dbt project (or package) at `folder` of a mirror: its
 * project files and every source file under the folders it reads resources from.
 * Returns paths relative to `folder`.
 */
function dbtProjectFiles(gitDir: string, commit: string, folder: string): Map<string, Buffer> {
  const prefix = folder === "." ? "" : `${folder}/`;
  const dbtProjectYml = showFile(gitDir, commit, `${prefix}dbt_project.yml`);
  const resources = resourceFolders(dbtProjectYml);
  const seeds = seedFolders(dbtProjectYml);
  const under = (path: string, folders: string[]) => folders.some((root) => root === "." || path.startsWith(`${root}/`));
  const chosen: Blob[] = [];
  for (const blob of listTree(gitDir, commit, folder)) {
    const relative = blob.path.slice(prefix.length);
    if (blob.size > MAX_FILE_BYTES) continue;
    if (relative.startsWith("dbt_packages/") || relative.startsWith("target/") || relative.startsWith("logs/")) continue;
    if (PROJECT_FILES.includes(relative)) chosen.push(blob);
    else if (relative.endsWith(".csv") && under(relative, seeds)) chosen.push(blob);
    else if (READ_EXTENSIONS.some((extension) => relative.endsWith(extension)) && under(relative, resources)) chosen.push(blob);
  }
  const contents = readBlobs(gitDir, chosen);
  const files = new Map<string, Buffer>();
  for (const blob of chosen) {
    const relative = blob.path.slice(prefix.length);
    if (relative.endsWith("/profiles.yml") || relative === "profiles.yml") continue;
    const content = contents.get(blob.oid)!;
    files.set(relative, relative.endsWith(".csv") ? seedHead(content) : content);
  }
  return files;
}

/** profiles.yml of the extract: the project's profile with its adapter type and nothing else (no secrets). */
function profilesYml(project: ManifestProject): string {
  return `# Written by corpus/extract.ts: only the adapter type of ${project.repo}'s profile.\n${project.profile}:\n  target: corpus\n  outputs:\n    corpus:\n      type: ${project.adapter}\n`;
}

function writeAll(root: string, files: Map<string, Buffer | string>): void {
  for (const [path, content] of files) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

function packageFiles(pkg: ManifestPackage): Map<string, Buffer | string> {
  const gitDir = mirrorOf(pkg.repo);
  const folder = pkg.subfolder ?? ".";
  const files = new Map<string, Buffer | string>(dbtProjectFiles(gitDir, pkg.commit, folder));
  const license = listTree(gitDir, pkg.commit, ".").find((blob) => /^LICEN[SC]E(\.md|\.txt)?$/i.test(blob.path));
  if (license) files.set("LICENSE", showFile(gitDir, pkg.commit, license.path));
  return files;
}

/** Writes one project's extract and commits it; returns the extract's root. */
export function extractProject(project: ManifestProject, dataDir = corpusDataDir()): string {
  const gitDir = mirrorOf(project.repo);
  const root = join(dataDir, project.name);
  rmSync(root, { recursive: true, force: true });
  const projectRoot = project.subfolder === "." ? "" : `${project.subfolder}/`;
  const files = new Map<string, Buffer | string>();
  for (const [path, content] of dbtProjectFiles(gitDir, project.commit, project.subfolder)) files.set(projectRoot + path, content);
  files.set(`${projectRoot}profiles.yml`, profilesYml(project));
  if (project.license.file) files.set(project.license.file, showFile(gitDir, project.commit, project.license.file));
  const repoFiles = new Set(listTree(gitDir, project.commit, ".").map((blob) => blob.path));
  for (const place of CODEOWNERS_PLACES) if (repoFiles.has(place)) files.set(place, showFile(gitDir, project.commit, place));
  for (const pkg of project.packages) {
    for (const [path, content] of packageFiles(pkg)) files.set(`${projectRoot}dbt_packages/${pkg.name}/${path}`, content);
  }
  writeAll(root, files);
  commitExtract(root, `extract of ${project.repo}@${project.commit} (${project.subfolder})`);
  return root;
}

/** Makes the extract a git repository of one commit, the same commit every time. */
function commitExtract(root: string, message: string): void {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "corpus",
    GIT_AUTHOR_EMAIL: "corpus@localhost",
    GIT_COMMITTER_NAME: "corpus",
    GIT_COMMITTER_EMAIL: "corpus@localhost",
    GIT_AUTHOR_DATE: FIXED_DATE,
    GIT_COMMITTER_DATE: FIXED_DATE,
  };
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["commit", "-q", "--no-verify", "-m", message],
  ]) {
    const result = Bun.spawnSync(["git", ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`git ${args[0]} in ${root}: ${result.stderr.toString()}`);
  }
}

if (import.meta.main) {
  const wanted = process.argv.slice(2);
  const projects = readManifest().filter((project) => wanted.length === 0 || wanted.includes(project.name));
  for (const project of projects) {
    const started = performance.now();
    const root = extractProject(project);
    console.log(`${project.name.padEnd(28)} ${root}  ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}
