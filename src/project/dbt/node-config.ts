/**
 * How dbt puts a node's config together: the folder configs of
 * dbt_project.yml matched along the node's fqn, then its yml `config:`, then
 * the `config(...)` call in its SQL, each later one winning (dbt's order of
 * precedence). Keys follow dbt's reading of a level: `+key` is always a
 * config, a plain key is a config unless its value is a mapping (then it is a
 * folder or package level), so `meta:` needs its `+`. Values merge the way
 * dbt's MergeBehavior says: tags and hooks append, meta and docs update key
 * by key, grants append per key, everything else replaces.
 */
import { isMapping, type Mapping, type Value } from "../../core/values.ts";

const APPEND = new Set(["tags", "pre-hook", "post-hook", "pre_hook", "post_hook", "packages"]);
const UPDATE = new Set(["meta", "docs", "contract", "quoting", "persist_docs"]);

/** The configs that apply along an fqn (`[project, folder..., name]`), from the block's top level down. */
export function folderConfig(block: Mapping, fqn: readonly string[]): Mapping {
  const merged: Mapping = {};
  let level: Mapping = block;
  applyLevel(merged, level);
  for (const step of fqn) {
    const next = level[step];
    if (!isMapping(next)) break;
    level = next;
    applyLevel(merged, level);
  }
  return merged;
}

function applyLevel(merged: Mapping, level: Mapping): void {
  for (const [key, value] of Object.entries(level)) {
    if (key.startsWith("+")) mergeConfig(merged, key.slice(1).trim(), value);
    else if (!isMapping(value)) mergeConfig(merged, key, value);
  }
}

/** Merges every key of `config` into `target`, each by its merge behaviour. */
export function mergeConfigs(target: Mapping, config: Value | undefined): Mapping {
  if (isMapping(config)) for (const [key, value] of Object.entries(config)) mergeConfig(target, key, value);
  return target;
}

/** One key: tags append (once each), meta merges key by key, grants append per key, the rest replaces. */
export function mergeConfig(target: Mapping, key: string, value: Value): void {
  if (APPEND.has(key)) {
    const existing = listify(target[key]);
    const added = listify(value);
    target[key] = key === "tags" ? [...existing, ...added.filter((tag) => !existing.includes(tag))] : [...existing, ...added];
  } else if (UPDATE.has(key) && isMapping(value)) {
    target[key] = { ...(isMapping(target[key]) ? (target[key] as Mapping) : {}), ...value };
  } else if (key === "grants" && isMapping(value)) {
    const grants: Mapping = { ...(isMapping(target.grants) ? target.grants : {}) };
    for (const [privilege, grantees] of Object.entries(value)) {
      // `+select: [...]` appends to an inherited grant; a plain key replaces it.
      if (privilege.startsWith("+")) grants[privilege.slice(1)] = [...listify(grants[privilege.slice(1)]), ...listify(grantees)];
      else grants[privilege] = grantees;
    }
    target.grants = grants;
  } else target[key] = value;
}

function listify(value: Value | undefined): Value[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The literal settings of a SQL file's `{{ config(...) }}` calls, read
 * statically: strings, numbers, booleans, None, and lists and dicts of those.
 * What is not a literal (a variable, a macro call, `var(...)`) is kept as its
 * source text in `dynamic`, so a rule can say that the value depends on
 * rendering instead of guessing it.
 */
export function sqlConfig(sql: string): { config: Mapping; dynamic: Mapping } {
  const config: Mapping = {};
  const dynamic: Mapping = {};
  const text = sql.replace(/\{#[\s\S]*?#\}/g, "");
  for (const call of text.matchAll(/\{\{-?\s*config\s*\(/g)) {
    const start = (call.index ?? 0) + call[0].length;
    const body = balanced(text, start);
    if (body === null) continue;
    for (const [key, raw] of keywordArguments(body)) {
      const literal = pythonLiteral(raw);
      if (literal.ok) {
        mergeConfig(config, key, literal.value);
        delete dynamic[key];
      } else dynamic[key] = raw.trim();
    }
  }
  return { config, dynamic };
}

/** The text from `start` up to the parenthesis that closes the one before it, quotes respected; null when it never closes. */
function balanced(text: string, start: number): string | null {
  let depth = 1;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) return text.slice(start, i);
    }
  }
  return null;
}

/** `a='x', b=[1, 2]` -> [["a", "'x'"], ["b", "[1, 2]"]]; positional arguments are skipped. */
function keywordArguments(body: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of splitTopLevel(body, ",")) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)([\s\S]*)$/.exec(part);
    if (match) out.push([match[1] as string, match[2] as string]);
  }
  return out;
}

function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      current += ch;
      if (ch === "\\" && i + 1 < text.length) current += text[++i];
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") depth--;
    if (ch === separator && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  if (current.trim() !== "") parts.push(current);
  return parts;
}

/** A Jinja/Python literal: strings, numbers, true/false/none in any case, lists and dicts of literals. */
function pythonLiteral(raw: string): { ok: true; value: Value } | { ok: false } {
  const text = raw.trim();
  const string = /^(['"])((?:\\.|(?!\1)[^\\])*)\1$/s.exec(text);
  if (string) return { ok: true, value: (string[2] as string).replace(/\\(.)/g, "$1") };
  if (/^[-+]?\d+(\.\d*)?([eE][-+]?\d+)?$/.test(text)) return { ok: true, value: Number(text) };
  if (/^true$/i.test(text)) return { ok: true, value: true };
  if (/^false$/i.test(text)) return { ok: true, value: false };
  if (/^none$/i.test(text)) return { ok: true, value: null };
  if (text.startsWith("[") && text.endsWith("]")) {
    const items: Value[] = [];
    for (const part of splitTopLevel(text.slice(1, -1), ",")) {
      const item = pythonLiteral(part);
      if (!item.ok) return { ok: false };
      items.push(item.value);
    }
    return { ok: true, value: items };
  }
  if (text.startsWith("{") && text.endsWith("}")) {
    const mapping: Mapping = {};
    for (const part of splitTopLevel(text.slice(1, -1), ",")) {
      const colon = splitTopLevel(part, ":");
      if (colon.length !== 2) return { ok: false };
      const key = pythonLiteral(colon[0] as string);
      const value = pythonLiteral(colon[1] as string);
      if (!key.ok || !value.ok || typeof key.value !== "string") return { ok: false };
      mapping[key.value] = value.value;
    }
    return { ok: true, value: mapping };
  }
  return { ok: false };
}
