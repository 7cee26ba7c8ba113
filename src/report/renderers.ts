/**
 * The output formats, by name. Every task that returns findings renders in
 * each of them; a format's module is loaded only when it is asked for, so
 * `slp check` never loads the SARIF writer.
 */
import type { Format } from "./format.ts";

/** `reference` is text with the reference tool's exact lines (spec/rules.md §4.1): no `:line`, no fix kind. */
export const FORMATS = ["text", "json", "github", "sarif", "junit", "markdown", "reference"] as const;
export type FormatName = (typeof FORMATS)[number];

/** What a task that prints information rather than findings (rules, explain, tasks) can be asked for. */
export const INFORMATION_FORMATS = ["text", "json"] as const;

const LOADERS: Record<FormatName, () => Promise<Format>> = {
  text: async () => (await import("./text.ts")).text,
  json: async () => (await import("./json.ts")).json,
  github: async () => (await import("./github.ts")).github,
  sarif: async () => (await import("./sarif.ts")).sarif,
  junit: async () => (await import("./junit.ts")).junit,
  markdown: async () => (await import("./markdown.ts")).markdown,
  reference: async () => (await import("./text.ts")).reference,
};

export function isFormatName(name: string): name is FormatName {
  return (FORMATS as readonly string[]).includes(name);
}

/** The renderer of a format; text for a name slp does not know (the flag parser has refused it already). */
export function loadFormat(name: string): Promise<Format> {
  return (isFormatName(name) ? LOADERS[name] : LOADERS.text)();
}
