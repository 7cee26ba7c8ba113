/**
 * The `ref` and `source` calls a model's SQL text makes, read the way T3
 * reads them (spec/rules.md §2.1): a text pattern, not a Jinja render, so a
 * ref built from a variable or a macro is invisible here.
 */

const COMMENTS = /\{#[\s\S]*?#\}|\/\*[\s\S]*?\*\//g;
const LINE_COMMENT = /--[^\n]*/g;
const CALL = /(?<![\p{L}\p{N}_])(ref|source)\(([^()]*?)\)/gu;
const QUOTED = /['"]([^'"]*)['"]/g;

/** `ref('x')` / `source('a', 'b')` for every call in `sql`, as a set of printed inputs. */
export function sqlInputs(sql: string): Set<string> {
  const text = sql.replace(COMMENTS, "").replace(LINE_COMMENT, "");
  const inputs = new Set<string>();
  for (const call of text.matchAll(CALL)) {
    const names = [...(call[2] ?? "").matchAll(QUOTED)].map((match) => match[1] ?? "");
    if (call[1] === "ref" && names.length >= 1) inputs.add(`ref('${names[names.length - 1]}')`);
    if (call[1] === "source" && names.length >= 2) inputs.add(`source('${names[0]}', '${names[1]}')`);
  }
  return inputs;
}
