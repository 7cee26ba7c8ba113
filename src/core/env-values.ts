/**
 * The environment variables' values this run handed to templates
 * (`env_var()`), so that none of them reaches an output or a cache: every
 * output slp writes is masked through `maskEnvValues`, and a cache entry that
 * holds one is not kept. A CI environment holds credentials, and a rendered
 * model is printed (its SQL, its failure table, a mutant). One registry per
 * run: `main` forgets it when a run starts.
 */

/** Values shorter than this are left as they are: masking every "1" or "on" would blank the output, and so short a value keeps no secret. */
const SHORTEST_MASKED = 3;

const handed = new Map<string, string>();
let pattern: RegExp | null = null;
/** Each form a value can take in an output (as is, escaped in JSON, in HTML or XML), with the mask for it. */
let masks = new Map<string, string>();

/** Forgets the values of a previous run (`main` calls it first). */
export function forgetEnvValues(): void {
  handed.clear();
  pattern = null;
  masks = new Map();
}

/** Records that `env_var(name)` gave a template `value` from the process environment. */
export function noteEnvValue(name: string, value: string): void {
  if (value.length < SHORTEST_MASKED || handed.get(value) === name) return;
  handed.set(value, name);
  const mask = `<env_var('${name}')>`;
  for (const form of [
    value,
    JSON.stringify(value).slice(1, -1),
    escapeMarkup(value),
    JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1),
  ]) {
    if (!masks.has(form)) masks.set(form, mask);
  }
  // Longest first, so a value inside another is masked as part of the longer one.
  const forms = [...masks.keys()].sort((a, b) => b.length - a.length);
  pattern = new RegExp(forms.map(escapeRegExp).join("|"), "g");
}

/** True when this run handed a template any value worth masking. */
export function anyEnvValues(): boolean {
  return pattern !== null;
}

/** `text` with every handed value replaced by `<env_var('NAME')>`. */
export function maskEnvValues(text: string): string {
  if (pattern === null) return text;
  return text.replace(pattern, (found) => masks.get(found) as string);
}

/** True when `text` holds a handed value (in any of its forms). */
export function holdsEnvValue(text: string): boolean {
  if (pattern === null) return false;
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

function escapeMarkup(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
