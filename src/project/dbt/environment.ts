/**
 * Where a SQL file (or a macro) reads the environment dbt runs in: `target`,
 * `env_var()`, `invocation_id`, `run_started_at`, `flags`, `execute`. SQL
 * that branches on them is not the same SQL in unit tests, in CI and in
 * production, so what slp proves about it need not hold where it runs.
 * Only Jinja is read (`{{ }}` and `{% %}`, comments dropped): in plain SQL
 * these are column names.
 */

export interface EnvironmentReference {
  /** As printed: `target.name`, `env_var('DBT_ENV')`, `flags.FULL_REFRESH`, `execute`. */
  expression: string;
  /** 1-based line in the text. */
  line: number;
}

const JINJA = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;
const ENV_VAR = /(?<![\w.])env_var\s*\(\s*(?:(['"])([^'"]*)\1)?/g;
const STRING = /'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g;
const NAMES =
  /(?<![\w.])(target|flags)(?:\s*\.\s*([A-Za-z_]\w*)|\s*\[\s*['"]([^'"]+)['"]\s*\])?|(?<![\w.])(invocation_id|run_started_at|execute)(?!\w)/g;

/** Every reference to the environment in the text's Jinja, in order. */
function environmentReferences(text: string): EnvironmentReference[] {
  // Comments are blanked, newlines kept, so lines stay where they are.
  const code = text.replace(/\{#[\s\S]*?#\}/g, (comment) => comment.replace(/[^\n]/g, " "));
  const found: { expression: string; at: number }[] = [];
  for (const block of code.matchAll(JINJA)) {
    const start = block.index ?? 0;
    const body = block[0];
    // Calls and names inside string literals are text, not the environment (a subscript's key is read from the raw text).
    const literals = [...body.matchAll(STRING)].map((literal) => [literal.index ?? 0, (literal.index ?? 0) + literal[0].length] as const);
    const inLiteral = (at: number) => literals.some(([from, to]) => at >= from && at < to);
    for (const call of body.matchAll(ENV_VAR)) {
      if (inLiteral(call.index ?? 0)) continue;
      found.push({ expression: call[2] !== undefined ? `env_var('${call[2]}')` : "env_var(...)", at: start + (call.index ?? 0) });
    }
    for (const name of body.matchAll(NAMES)) {
      if (inLiteral(name.index ?? 0)) continue;
      const expression = name[4] ?? ((name[2] ?? name[3]) ? `${name[1]}.${name[2] ?? name[3]}` : (name[1] as string));
      found.push({ expression, at: start + (name.index ?? 0) });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return found.map(({ expression, at }) => ({ expression, line: code.slice(0, at).split("\n").length }));
}

/** The references in `now` that `before` does not have as many times (each expression at its first new place). */
export function addedReferences(now: string, before: string | null): EnvironmentReference[] {
  const counts = new Map<string, number>();
  for (const reference of before === null ? [] : environmentReferences(before))
    counts.set(reference.expression, (counts.get(reference.expression) ?? 0) + 1);
  const added: EnvironmentReference[] = [];
  const reported = new Set<string>();
  for (const reference of environmentReferences(now)) {
    const left = counts.get(reference.expression) ?? 0;
    if (left > 0) {
      counts.set(reference.expression, left - 1);
      continue;
    }
    if (reported.has(reference.expression)) continue;
    reported.add(reference.expression);
    added.push(reference);
  }
  return added;
}
