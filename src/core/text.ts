/** String helpers whose exact behaviour the output contract depends on. */

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Compares two strings by Unicode code point, the order the reference tool
 * (and Python) sorts by. JavaScript's `<` compares UTF-16 units, which puts
 * characters above U+FFFF before U+E000-U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  // Without surrogates, UTF-16 order is code point order, and `<` is native.
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate half stands for a code point above every BMP unit.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** True when a text holds a surrogate; among texts with none, UTF-16 order (JavaScript's `<`) is code point order. */
export function hasSurrogate(text: string): boolean {
  return SURROGATE.test(text);
}

/** Compares by UTF-16 unit: code point order for texts without surrogates (hasSurrogate). */
export function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts a copy of `items` by code point of `key(item)`; stable. */
export function sortByText<T>(items: Iterable<T>, key: (item: T) => string = String): T[] {
  return [...items].sort((a, b) => compareCodePoints(key(a), key(b)));
}

/**
 * Python's whitespace set for str.split() (what `str.isspace()` accepts),
 * written out: JavaScript's `\s` lacks U+001C-U+001F and U+0085 and has
 * U+FEFF, which Python keeps as text.
 */
const PY_WHITESPACE = /[\t\n\v\f\r \u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** What collapseWhitespace would change: whitespace other than a space, two spaces, or a space at either end. */
const NOT_COLLAPSED = /[\t\n\v\f\r\u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]| {2}|^ | $/;

/** Splits on whitespace and re-joins with single spaces, as `" ".join(s.split())`. */
export function collapseWhitespace(text: string): string {
  // Most text is collapsed already: one test instead of a split and a join.
  if (!NOT_COLLAPSED.test(text)) return text;
  return text
    .split(PY_WHITESPACE)
    .filter((part) => part !== "")
    .join(" ");
}

/** "1 model" / "2 models". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** The text as a regular expression that matches exactly it. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
