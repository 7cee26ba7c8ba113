/**
 * The loop's settings (steps, base) as slp.yml has them at HEAD, never as the
 * work tree has them: one step cannot take gate out of its own run.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Repository } from "../git/repository.ts";
import { CONFIG_FILE, type LoadedConfig } from "../project/slp/slp-yml.ts";
import { configAt } from "../project/history/history.ts";
import { readProjectText } from "../project/files/files.ts";

export async function headConfig(projectDir: string): Promise<LoadedConfig & { notes: string[] }> {
  const repo = Repository.open(projectDir);
  let head: string;
  try {
    head = await repo.resolveCommit("HEAD");
  } catch {
    // No commit yet: the loop refuses that later, with its own message.
    return { config: {}, file: null, warnings: [], notes: [] };
  }
  const loaded = await configAt(repo, head, "HEAD");
  const notes = [...loaded.warnings];
  const onDisk = join(repo.root, CONFIG_FILE);
  const committed = loaded.file ? await repo.readText((await repo.filesIn(head, [CONFIG_FILE]))[0]!, "HEAD") : null;
  const current = existsSync(onDisk) ? readProjectText(repo.root, CONFIG_FILE) : null;
  if (committed !== current) notes.push(`${CONFIG_FILE} has uncommitted changes; tcr reads its steps and base from HEAD's copy`);
  return { ...loaded, notes };
}
