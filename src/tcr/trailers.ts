/**
 * The record a tcr commit carries in its message, as git trailers (the
 * `Key: value` lines `git interpret-trailers` reads): that tcr made it, the
 * steps it ran, the strikes before it, any strike reset since the last
 * commit, and slp's version. `gate --verify-commits` reads them back.
 */

export const TRAILER = {
  /** `green`: every step passed when tcr made this commit; `red` in a reverted attempt's saved message. */
  tcr: "Slp-Tcr",
  /** In a reverted attempt's saved message: the steps (or the hook) that were red. */
  red: "Slp-Tcr-Red",
  steps: "Slp-Tcr-Steps",
  strikes: "Slp-Tcr-Strikes",
  reset: "Slp-Tcr-Reset",
  version: "Slp-Version",
} as const;

export type Trailers = [key: string, value: string][];

/**
 * A commit message as `git commit -m` leaves it (cleanup "whitespace":
 * trailing spaces and surrounding blank lines dropped, runs of blank lines
 * made one), ending in a newline; "" when nothing is left.
 */
export function cleanMessage(text: string): string {
  const lines = text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/\s+$/, ""));
  const out: string[] = [];
  for (const line of lines) {
    if (line === "" && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/** The message with trailers appended: to its own trailer block when it ends with one, else after a blank line. */
export function withTrailers(message: string, trailers: Trailers): string {
  const body = cleanMessage(message).replace(/\n$/, "");
  const lines = trailers.map(([key, value]) => `${key}: ${oneLine(value)}`);
  const paragraphs = body.split("\n\n");
  const endsWithTrailers = paragraphs.length > 1 && isTrailerBlock(paragraphs[paragraphs.length - 1] as string);
  return `${body}${endsWithTrailers ? "\n" : "\n\n"}${lines.join("\n")}\n`;
}

/**
 * The message of a red attempt as it is saved beside its patch: the green
 * claim the candidate carried (`Slp-Tcr: green`) becomes `Slp-Tcr: red`,
 * followed by the steps that were red, so a saved message can never be
 * mistaken for (or committed as) a green step's record.
 */
export function asRedMessage(message: string, redSteps: readonly string[]): string {
  const red: [string, string][] = [
    [TRAILER.tcr, "red"],
    [TRAILER.red, redSteps.join(", ")],
  ];
  const body = cleanMessage(message).replace(/\n$/, "");
  const paragraphs = body.split("\n\n");
  const last = paragraphs[paragraphs.length - 1] as string;
  const claim = new RegExp(`^${TRAILER.tcr}:\\s*green\\s*$`, "i");
  if (paragraphs.length < 2 || !isTrailerBlock(last) || !last.split("\n").some((line) => claim.test(line))) {
    return withTrailers(message, red);
  }
  const lines = last.split("\n").flatMap((line) => (claim.test(line) ? red.map(([key, value]) => `${key}: ${oneLine(value)}`) : [line]));
  return `${[...paragraphs.slice(0, -1), lines.join("\n")].join("\n\n")}\n`;
}

/** The trailers of a commit message, keys as written, in order (none when its last paragraph is not a trailer block). */
export function readTrailers(message: string): Trailers {
  const paragraphs = cleanMessage(message).replace(/\n$/, "").split("\n\n");
  const last = paragraphs[paragraphs.length - 1] as string;
  if (paragraphs.length < 2 || !isTrailerBlock(last)) return [];
  const trailers: Trailers = [];
  for (const line of last.split("\n")) {
    const match = /^([A-Za-z0-9][A-Za-z0-9-]*):\s*(.*)$/.exec(line);
    if (match) trailers.push([match[1] as string, match[2] as string]);
    else if (trailers.length > 0) trailers[trailers.length - 1]![1] += ` ${line.trim()}`;
  }
  return trailers;
}

/** Every value of one trailer key (case-insensitive, as git compares them). */
export function trailerValues(trailers: Trailers, key: string): string[] {
  return trailers.filter(([name]) => name.toLowerCase() === key.toLowerCase()).map(([, value]) => value);
}

function isTrailerBlock(paragraph: string): boolean {
  const lines = paragraph.split("\n");
  return (
    /^[A-Za-z0-9][A-Za-z0-9-]*:\s/.test(lines[0] as string) &&
    lines.every((line) => /^[A-Za-z0-9][A-Za-z0-9-]*:\s/.test(line) || /^\s+\S/.test(line))
  );
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}
