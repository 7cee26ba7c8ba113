/**
 * Where a place in a model's compiled SQL comes from in the model's own
 * .sql file: both are cut into tokens (each Jinja tag in the source one
 * opaque token), aligned with a sequence diff (core/sequence-diff.ts), and a compiled token that matches a source token maps
 * exactly; one that Jinja produced maps to the tag that produced it. The
 * same alignment maps SQL slp translated from a warehouse dialect back to
 * the SQL it was translated from (mutants' places, and the place of an error
 * DuckDB reports in a model's SQL).
 */
import { diffSequences } from "../core/sequence-diff.ts";

export interface SourcePosition {
  /** 1-based line and column in the model's .sql file. */
  line: number;
  column: number;
  /** True when the compiled text is the source text itself (not produced by Jinja). */
  exact: boolean;
}

/** A compiled offset's place in the source, as an offset. */
export interface SourceOffset {
  offset: number;
  /** The compiled text there is the source text itself. */
  exact: boolean;
  /** Not exact, and the source token it maps to is a Jinja tag (`{{ }}` or `{% %}`): the tag that produced the text. */
  tag: boolean;
}

interface Token {
  text: string;
  start: number;
}

const TOKEN =
  /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}|--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'|"(?:[^"]|"")*"|[\p{L}\p{N}_$.]+|\S/gu;

function tokens(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((match) => ({ text: match[0], start: match.index }));
}

export class SourceMap {
  readonly #compiled: Token[];
  readonly #source: Token[];
  /** For each compiled token, the source token it maps to (index), and whether it matched exactly. */
  readonly #target: { index: number; exact: boolean }[] = [];
  readonly #lineStarts: number[];

  constructor(
    readonly source: string,
    readonly compiled: string,
  ) {
    this.#source = tokens(source);
    this.#compiled = tokens(compiled);
    this.#lineStarts = [0, ...[...source.matchAll(/\n/g)].map((match) => match.index + 1)];
    // A Jinja tag never equals compiled text, so it can only be an unmatched source token.
    const key = (token: Token, i: number) => (/^\{[{%#]/.test(token.text) ? `\u0000${i}` : token.text);
    const changes = diffSequences(
      this.#source.map(key),
      this.#compiled.map((token) => token.text),
    );
    let s = 0;
    let pendingSource: number[] = [];
    for (const change of changes) {
      const count = change.value.length;
      if (change.removed) {
        pendingSource = Array.from({ length: count }, (_, i) => s + i);
        s += count;
      } else if (change.added) {
        const tag = pendingSource.find((index) => /^\{[{%]/.test((this.#source[index] as Token).text));
        const index = tag ?? pendingSource[0] ?? Math.max(0, s - 1);
        for (let i = 0; i < count; i++) this.#target.push({ index, exact: false });
        pendingSource = [];
      } else {
        for (let i = 0; i < count; i++) this.#target.push({ index: s + i, exact: true });
        s += count;
        pendingSource = [];
      }
    }
  }

  /** The source position of a compiled offset. */
  position(offset: number): SourcePosition {
    const at = this.sourceOffset(offset);
    return { ...this.lineColumn(at.offset), exact: at.exact };
  }

  /** The source offset of a compiled offset: where the same text is, or the tag (or the source text) that produced it. */
  sourceOffset(offset: number): SourceOffset {
    let low = 0;
    let high = this.#compiled.length - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if ((this.#compiled[mid] as Token).start <= offset) {
        found = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    if (found < 0 || this.#source.length === 0) return { offset: 0, exact: false, tag: false };
    const target = this.#target[found] as { index: number; exact: boolean };
    const sourceToken = this.#source[target.index] as Token;
    const inside = offset - (this.#compiled[found] as Token).start;
    const at = target.exact && inside < sourceToken.text.length ? sourceToken.start + inside : sourceToken.start;
    return { offset: at, exact: target.exact, tag: !target.exact && /^\{[{%]/.test(sourceToken.text) };
  }

  /** 1-based line and column of a source offset. */
  lineColumn(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.#lineStarts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (this.#lineStarts[low] as number) + 1 };
  }
}
