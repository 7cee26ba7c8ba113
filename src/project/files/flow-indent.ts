/**
 * PyYAML (so dbt) reads a flow collection (`[...]`, `{...}`) whose lines sit
 * at or left of its key's indentation, such as a closing `]` under `values:`;
 * js-yaml refuses that ("deficient indentation", as the YAML spec does).
 * This moves each such line right, just past the column of the node on the
 * line the outermost collection opened on, so js-yaml reads what PyYAML reads.
 * Only spaces are inserted at line starts, so every line keeps its number;
 * inside a flow collection leading spaces are never content (a quoted or
 * plain scalar folds them away), and block scalars and comments are skipped.
 * The yml reader uses it only after js-yaml refused a text for that reason.
 */

/** The text with every line of a flow collection indented past the line it opened on; the text itself when none needed it. */
export function indentFlowLines(text: string): string {
  const lines = text.split("\n");
  let depth = 0;
  /** The least indentation a line inside the current outermost collection needs. */
  let needed = 0;
  let quote: "'" | '"' | null = null;
  /** The indentation of the line a block scalar (`|`, `>`) started on: lines indented more are its content. */
  let blockScalarOf: number | null = null;
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n] as string;
    const indent = line.length - line.trimStart().length;
    const blank = line.trim() === "";
    if (blockScalarOf !== null) {
      if (blank || indent > blockScalarOf) continue;
      blockScalarOf = null;
    }
    if (depth > 0 && !blank && indent < needed) {
      line = " ".repeat(needed - indent) + line;
      lines[n] = line;
      changed = true;
    }
    let i = line.length - line.trimStart().length;
    // In block context a node starts after the indentation, after `- ` and `? `, and after a key's `: `.
    let nodeStart = true;
    while (i < line.length) {
      const ch = line[i] as string;
      if (quote !== null) {
        if (quote === "'" && ch === "'" && line[i + 1] === "'") i += 2;
        else if (quote === '"' && ch === "\\") i += 2;
        else {
          if (ch === quote) quote = null;
          i++;
        }
        continue;
      }
      if (ch === "#" && (i === 0 || line[i - 1] === " " || line[i - 1] === "\t")) break;
      if (ch === " " || ch === "\t") {
        i++;
        continue;
      }
      if (depth === 0) {
        if (nodeStart && (ch === "'" || ch === '"')) quote = ch;
        else if (nodeStart && (ch === "[" || ch === "{")) {
          depth = 1;
          // Past the column of the line's node (after any `- `): more indentation never changes a flow collection.
          needed = (/^[ \t]*(?:[-?][ \t]+)*/.exec(line)?.[0].length ?? indent) + 1;
          nodeStart = true;
        } else if (nodeStart && (ch === "|" || ch === ">")) {
          blockScalarOf = indent;
          break;
        } else if ((ch === "-" || ch === "?" || ch === ":") && /[ \t]|$/.test(line[i + 1] ?? "")) nodeStart = true;
        else {
          // A plain scalar (a key or a value): it runs to a `: ` or the end of the line.
          const separator = line.slice(i).search(/:([ \t]|$)| #/);
          if (separator === -1) break;
          i += separator;
          if (line[i] === " ") break;
          nodeStart = true;
        }
        i++;
        continue;
      }
      if (ch === "[" || ch === "{") depth++;
      else if (ch === "]" || ch === "}") {
        depth--;
        nodeStart = false;
        i++;
        continue;
      } else if (nodeStart && (ch === "'" || ch === '"')) quote = ch;
      nodeStart = ch === "[" || ch === "{" || ch === "," || (ch === ":" && /[ \t,\]}]|$/.test(line[i + 1] ?? "")) || ch === "?";
      i++;
    }
  }
  return changed ? lines.join("\n") : text;
}
