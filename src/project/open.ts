/** Opening the project model the way commands do: the work tree, with the parse cache behind it. */
import type { Mapping } from "../core/values.ts";
import { ParseCache } from "./files/cache.ts";
import { ParseStore, Project } from "./model.ts";
import { WorkTree } from "./files/source.ts";
import type { ParsedYaml } from "./files/yaml.ts";

/**
 * The project in a folder on disk, its yml parses remembered between runs
 * (SLP_NO_CACHE=1 turns that off); `vars` are `--vars`, for a `config(enabled=var(...))`.
 */
export function openWorkTree(dir: string, env: Record<string, string | undefined>, vars: Mapping = {}): Project<WorkTree> {
  const cache = ParseCache.open<ParsedYaml>(dir, env);
  return new Project(new WorkTree(dir, cache.files), { store: new ParseStore(cache), vars });
}

/** A parse store backed by the parse cache of a project folder. */
export function parseStore(dir: string, env: Record<string, string | undefined>): ParseStore {
  return new ParseStore(ParseCache.open<ParsedYaml>(dir, env));
}
