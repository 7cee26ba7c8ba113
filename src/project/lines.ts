/** Where the nodes of a parsed YAML or JSON document start: what a finding's line is read from. */

/**
 * A tree shaped like the value: a scalar is its 1-based line; a mapping is
 * `[line, {key: child}]`, where a child's line is its key's; a list is
 * `[line, [item...]]`. Plain JSON, so the parse cache keeps it beside the value.
 */
export type Lines = number | [number, { [key: string]: Lines }] | [number, Lines[]];

/** The line at a key path (["models", 0, "meta", "spec"]): the deepest step found, the root's line when none is. */
export function lineAt(lines: Lines, path: readonly (string | number)[]): number {
  let node: Lines = lines;
  let line = typeof node === "number" ? node : node[0];
  for (const step of path) {
    if (typeof node === "number") break;
    const children: { [key: string]: Lines } | Lines[] = node[1];
    const child: Lines | undefined = Array.isArray(children)
      ? typeof step === "number"
        ? children[step]
        : undefined
      : Object.hasOwn(children, String(step))
        ? children[String(step)]
        : undefined;
    if (child === undefined) break;
    node = child;
    line = typeof node === "number" ? node : node[0];
  }
  return line;
}
