/**
 * Writing text from a repository into Markdown that GitHub renders: nothing
 * an agent wrote may become markup, a link, an image, a mention or a broken
 * table, and a pull-request comment stays within GitHub's size limit.
 */
import { formatNumber } from "../core/numbers.ts";

/** GitHub refuses a comment (and a job summary shows nothing of one) longer than this many characters. */
export const COMMENT_LIMIT = 65_536;

/** Characters that start inline Markdown (emphasis, code, links and images, strike-through, table cells, HTML, math). */
const INLINE_MARKUP = /[\\`*_[\]<>|~$]/g;

/**
 * Text as inline Markdown that reads as written: markup characters escaped,
 * `&` kept literal, newlines as `<br>`, and `@` broken so that `@team` in an
 * edge text notifies nobody (the zero-width space Dependabot uses).
 */
export function mdInline(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(INLINE_MARKUP, (char) => (char === "<" ? "&lt;" : char === ">" ? "&gt;" : `\\${char}`))
    .replace(/@/g, "@&#8203;")
    .replace(/\r\n|\r|\n/g, "<br>");
}

/** A fenced code block that the text cannot close: the fence is longer than any run of backticks inside. */
export function fence(text: string, info = ""): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const marks = "`".repeat(Math.max(3, longest + 1));
  return `${marks}${info}\n${text.replace(/\n$/, "")}\n${marks}`;
}

/** Text as HTML text (for `<summary>` and attributes inside Markdown), `@` broken as in mdInline. */
export function htmlText(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/@/g, "@&#8203;")
    .replace(/\r\n|\r|\n/g, " ");
}

/**
 * A Markdown document cut to the comment limit at a line boundary, with a
 * closing line saying how much was left out and where the rest is; the
 * document as it is when it fits. A code fence left open is closed, so the
 * closing line is never swallowed by it.
 */
export function fitToLimit(markdown: string, whereTheRestIs: string, limit = COMMENT_LIMIT): string {
  if (markdown.length <= limit) return markdown;
  const lines = markdown.split("\n");
  const notice = (left: number) =>
    `\n> **Cut here:** ${counted(left, "more line")} did not fit in GitHub's ${formatNumber(COMMENT_LIMIT)}-character limit; ${whereTheRestIs}.\n`;
  let best = { kept: 0, closing: "" };
  let used = 0;
  let open: string | null = null;
  for (let kept = 0; kept <= lines.length; kept++) {
    const closing = open ? `${open}\n` : "";
    if (used + closing.length + notice(lines.length - kept).length > limit) break;
    best = { kept, closing };
    if (kept === lines.length) break;
    const line = lines[kept] as string;
    used += line.length + 1;
    const marks = /^(`{3,})/.exec(line)?.[1];
    if (marks && (open === null || marks.length >= open.length)) open = open === null ? marks : null;
  }
  const body = lines
    .slice(0, best.kept)
    .map((line) => `${line}\n`)
    .join("");
  return `${body}${best.closing}${notice(lines.length - best.kept)}`;
}

/** `1 block`, `2 infos`: a count and its noun, the count grouped by thousands. */
export function counted(count: number, noun: string): string {
  return `${formatNumber(count)} ${noun}${count === 1 ? "" : "s"}`;
}
