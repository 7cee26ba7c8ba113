/**
 * The YAML fast path: one pass over the rows of a yml written in the block
 * style dbt projects use, which builds the value and its lines at once. It
 * decodes nothing itself: the adapter (yaml.ts) hands it js-yaml's own
 * scalar decoder and PyYAML's resolvers, so what it reads it reads exactly
 * as js-yaml would. Whatever it does not know for certain (anchors, aliases,
 * tags, merge keys, multi-line quoted text, tabs, a second document, a key
 * written twice, ...) makes it give up, and js-yaml reads the file, with its
 * messages and its limits.
 */
import { noFTL } from "bun:jsc";
import type { Mapping, Value } from "../../core/values.ts";

/** How a scalar is written, for the decoder: js-yaml's SCALAR_STYLE numbers. */
export const STYLE = { plain: 1, single: 2, double: 3, literal: 4, folded: 5 } as const;
/** Block scalar chomping, js-yaml's CHOMPING_MODE numbers. */
export const CHOMP = { clip: 1, strip: 2, keep: 3 } as const;

/** What the fast path needs from the adapter. */
export interface FastReading {
  /** What js-yaml reads a plain scalar's text as (PyYAML's implicit resolvers). */
  resolve(text: string): unknown;
  /** js-yaml's decoder for the scalar text between `start` and `end` of the whole text. */
  decode(text: string, style: number, start: number, end: number, indent: number, chomping: number): string;
  /** Deeper nesting is left to js-yaml and its limit. */
  maxDepth: number;
}

/** A value and its lines (lines.ts's encoding), and whether JSON carries the value exactly (no NaN, infinity or -0); null when js-yaml must read the text. */
export type FastResult = { value: Value; lines: string; jsonExact: boolean } | null;

/** A number JSON does not give back: NaN, an infinity, -0. */
function notJson(value: unknown): boolean {
  return typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0));
}

/**
 * What YAML 1.2 §5.1 (c-printable) leaves out, with the tab and the carriage
 * return on top (their whitespace rules are js-yaml's to apply): js-yaml
 * refuses a text that holds a non-printable character.
 */
const NOT_READ = /[\x00-\x09\x0B-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/;
/**
 * What sends a text to the closer look: a character NOT_READ holds, or a
 * surrogate (a lone one is not printable either). Written as what it does
 * not match (the line break, the printable ranges), which the engine runs
 * about a third faster over a whole text.
 */
const LOOK_CLOSER = /[^\n\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A key JavaScript would move ahead of the others (an array index): the value's order would not be the text's. */
const INDEX_KEY = /^(?:0|[1-9][0-9]{0,9})$/;

/** A key the fast path leaves to js-yaml: one JavaScript orders or treats apart (`__proto__`), or a merge key. */
function keyLeftToJsYaml(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first >= 48 && first <= 57) return INDEX_KEY.test(key);
  return key === "__proto__" || key === "<<";
}

/** Lines in base 36, as lines.ts encodes them, for the first few thousand lines. */
const BASE36: string[] = [];
function base36(line: number): string {
  if (line < 4096) return (BASE36[line] ??= line.toString(36));
  return line.toString(36);
}

/** A container's `:size`, for the few hundred sizes most containers have. */
const SIZES36: string[] = [];
function size36(size: number): string {
  if (size < 4096) return (SIZES36[size] ??= `:${size.toString(36)}`);
  return `:${size.toString(36)}`;
}

const NEWLINE = 10;
const SPACE = 32;
const HASH = 35;
const DASH = 45;
const COLON = 58;
const QUESTION = 63;
const SINGLE = 39;
const DOUBLE = 34;
const BACKSLASH = 92;

/** Characters that may not begin a plain scalar (YAML 1.2 §7.3.3's c-indicator; `-?:` are read apart). */
function isIndicator(code: number): boolean {
  switch (code) {
    case 91: // [
    case 93: // ]
    case 123: // {
    case 125: // }
    case 44: // ,
    case HASH:
    case 38: // &
    case 42: // *
    case 33: // !
    case 124: // |
    case 62: // >
    case SINGLE:
    case DOUBLE:
    case 37: // %
    case 64: // @
    case 96: // `
      return true;
    default:
      return false;
  }
}

// The reader works on the whole text, a row being the offsets between two line breaks: a string per row (or per
// piece looked at) is an allocation the engine pays for at first use, and that was most of a fresh process's cost.

/** At `i`, a space or the end of the row (its line break, or the end of the text): what ends an indicator. */
function endsWord(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code === SPACE || code === NEWLINE || i >= text.length;
}

/** `-`, `?` or `:` followed by a space or the end of the row: an indicator, not text. */
function isMarker(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code !== DASH && code !== QUESTION && code !== COLON) return false;
  return endsWord(text, at + 1);
}

/** Nothing but spaces and maybe a comment from `at` to the end of its row. */
function restIsEmpty(text: string, at: number): boolean {
  let i = at;
  while (text.charCodeAt(i) === SPACE) i++;
  const code = text.charCodeAt(i);
  return i >= text.length || code === NEWLINE || (code === HASH && i > at);
}

/** Hex digits after an escape: the escapes js-yaml decodes, each checked here since the decoder trusts its parser. */
function escapeLength(code: number): number {
  switch (code) {
    case 120: // x
      return 2;
    case 117: // u
      return 4;
    case 85: // U
      return 8;
    // 0 a b t n v f r e space " / \ N _ L P
    case 48:
    case 97:
    case 98:
    case 116:
    case 110:
    case 118:
    case 102:
    case 114:
    case 101:
    case SPACE:
    case DOUBLE:
    case 47:
    case BACKSLASH:
    case 78:
    case 95:
    case 76:
    case 80:
      return 0;
    default:
      return -1;
  }
}

/** True when every escape of a double-quoted scalar's content (text[start, end)) is one js-yaml reads, to a code point that is not a lone surrogate. */
function escapesAreRead(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    if (text.charCodeAt(i) !== BACKSLASH) continue;
    const length = escapeLength(text.charCodeAt(i + 1));
    if (length < 0 || i + 2 + length > end) return false;
    if (length > 0) {
      const hex = text.slice(i + 2, i + 2 + length);
      if (!/^[0-9a-fA-F]+$/.test(hex)) return false;
      const point = parseInt(hex, 16);
      if ((point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return false;
    }
    i += 1 + length;
  }
  return true;
}

/**
 * Where the next `char` at or after a position is. The reader asks in rising
 * positions (mostly), so it scans a text for the character about once, where
 * an indexOf per row would scan on past the row, to the end of the text when
 * the character is rare.
 */
class NextOf {
  readonly char: string;
  text = "";
  /** The position asked last, and the first `char` at or after it (the text's length: none; -1: not looked for). */
  asked = 0;
  found = -1;

  constructor(char: string) {
    this.char = char;
  }

  reset(text: string): void {
    this.text = text;
    this.asked = 0;
    this.found = -1;
  }

  from(at: number): number {
    if (at < this.asked || this.found < at) {
      const found = this.text.indexOf(this.char, at);
      this.found = found === -1 ? this.text.length : found;
    }
    this.asked = at;
    return this.found;
  }
}

/** The kinds of piece Pieces reads: a plain scalar's value, a plain key, a quoted scalar's content. */
const PLAIN = 0;
const KEY = 1;
const QUOTED = 2;
/** Pieces longer than this are sliced each time: they are seldom said twice (descriptions, SQL). */
const MAX_PIECE = 40;
const SLOTS = 4096;

/**
 * Short pieces of text read before, by their characters: a dbt yml says the
 * same keys and words over and over (`name`, `data_tests`, `not_null`), and
 * a piece found here costs no new string, no resolving and no new property
 * name for the engine to intern. One piece per hash slot, the last one read;
 * each is kept as a copy, so no text it came from stays reachable.
 */
class Pieces {
  readonly texts: string[] = new Array<string>(SLOTS).fill("");
  /** Each slot's kind (-1: empty) and what its piece reads as. */
  readonly kinds: number[] = new Array<number>(SLOTS).fill(-1);
  readonly values: unknown[] = new Array<unknown>(SLOTS).fill(null);
  /** The reading the values were resolved with. */
  reading: FastReading | null = null;

  /** What text[start, end) reads as: a plain scalar's value, a key, or (QUOTED) itself. */
  read(text: string, start: number, end: number, kind: number, reading: FastReading): unknown {
    const length = end - start;
    if (length > MAX_PIECE) return readPiece(text.slice(start, end), kind, reading);
    if (reading !== this.reading) {
      this.kinds.fill(-1);
      this.reading = reading;
    }
    // The hash reads the length and a few characters (names differ most at their ends); the engine compares the whole piece.
    let hash = Math.imul((kind << 8) ^ length, 0x01000193);
    if (length > 0) {
      hash = Math.imul(hash ^ text.charCodeAt(start), 0x01000193);
      hash = Math.imul(hash ^ text.charCodeAt(start + (length >> 1)), 0x01000193);
      hash = Math.imul(hash ^ text.charCodeAt(end - 1), 0x01000193);
      // Only inside the piece: a character before it would make the same piece hash apart.
      if (length > 2) hash = Math.imul(hash ^ text.charCodeAt(end - 2), 0x01000193);
    }
    const slot = (hash ^ (hash >>> 15)) & (SLOTS - 1);
    if (this.kinds[slot] === kind) {
      const known = this.texts[slot] as string;
      if (known.length === length && text.startsWith(known, start)) return this.values[slot];
    }
    // A copy: a slice would share (and keep) the whole text's characters.
    const piece = `${text.slice(start, end)}\0`.slice(0, length);
    const value = readPiece(piece, kind, reading);
    // A value of its own text (a timestamp made ISO, a key from a number) is not kept: it may hold on to the text.
    if (typeof value === "string" && value !== piece) return value;
    this.texts[slot] = piece;
    this.kinds[slot] = kind;
    this.values[slot] = value;
    return value;
  }
}

function readPiece(piece: string, kind: number, reading: FastReading): unknown {
  return kind === QUOTED ? piece : kind === KEY ? String(reading.resolve(piece)) : reading.resolve(piece);
}

const pieces = new Pieces();

/** One open block collection. */
interface Open {
  value: Mapping | Value[];
  /** Its column. */
  indent: number;
  isMapping: boolean;
  /** Its entry in the lines. */
  slot: number;
  /** For a mapping, the key whose value comes next. */
  key: string;
}

class FastReader {
  text = "";
  /** Where each row starts in the text (row r is line r + 1), and how many rows there are. */
  readonly starts: number[] = [];
  rowCount = 0;
  /** The block row being read: where it starts and ends (its line break, or the end of the text). */
  rowStart = 0;
  end = 0;
  readonly hashes = new NextOf("#");
  readonly colons = new NextOf(":");
  readonly backslashes = new NextOf("\\");
  reading: FastReading;
  /** The reading's maxDepth, asked once a text. */
  maxDepth = 0;
  readonly open: Open[] = [];
  /** Each node's line in walk order (base 36), containers with `:size` added on closing. */
  readonly out: string[] = [];
  root: Value = null;
  /** False once a value JSON does not carry exactly is read. */
  jsonExact = true;
  /** A key (or `-`) on an earlier row whose value has not started: its column (-1: none) and line. */
  pendingIndent = -1;
  pendingLine = 0;
  pendingKey = false;
  /** A block scalar being read: the column its content must be right of (-1: none), its content's column once seen. */
  blockParent = -1;
  blockIndent = -1;
  blockBlank = 0;
  blockStart = 0;
  blockStyle = 0;
  blockChomp = 0;
  /** Where the block scalar's value goes: its container (null: the root) and key. */
  blockContainer: Mapping | Value[] | null = null;
  blockKey = "";
  /** A plain scalar that may go on over the next rows: the column they must be right of (-1: none), where it starts and ends. */
  plainParent = -1;
  plainStart = 0;
  plainEnd = 0;
  plainRows = 0;
  plainContainer: Mapping | Value[] | null = null;
  plainKey = "";
  /** Where a flow collection ended: its row and the offset after it. */
  flowRow = 0;
  flowAt = 0;
  /** The key keyAt read last. */
  key = "";

  constructor(reading: FastReading) {
    this.reading = reading;
  }

  /** Makes the reader ready for a new text (one reader serves every text: a fresh one per file costs more than its reading). */
  start(text: string, reading: FastReading): void {
    this.text = text;
    const starts = this.starts;
    starts.length = 0;
    starts.push(0);
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    this.rowCount = starts.length;
    this.hashes.reset(text);
    this.colons.reset(text);
    this.backslashes.reset(text);
    this.reading = reading;
    this.maxDepth = reading.maxDepth;
    this.open.length = 0;
    this.out.length = 0;
    this.root = null;
    this.jsonExact = true;
    this.pendingIndent = -1;
    this.blockParent = -1;
    this.plainParent = -1;
    this.currentRow = 0;
    this.blockContainer = this.plainContainer = this.fBaseContainer = null;
    this.fContainers.length = 0;
  }

  /** Where row `r` ends: its line break, or the end of the text. */
  rowEnd(r: number): number {
    return r + 1 < this.rowCount ? (this.starts[r + 1] as number) - 1 : this.text.length;
  }

  /** Where the first comment (` #`) whose space is at or after `from` starts, before `end`; -1 when there is none. */
  comment(from: number, end: number): number {
    const text = this.text;
    for (let hash = this.hashes.from(from + 1); hash < end; hash = this.hashes.from(hash + 1)) {
      if (text.charCodeAt(hash - 1) === SPACE) return hash - 1;
    }
    return -1;
  }

  /** A `: ` (a colon then a space) in text[from, end). */
  colonSpace(from: number, end: number): boolean {
    const text = this.text;
    for (let colon = this.colons.from(from); colon < end; colon = this.colons.from(colon + 1)) {
      if (text.charCodeAt(colon + 1) === SPACE) return true;
    }
    return false;
  }

  /** The innermost open block collection; no index -1 is asked for when none is (the engine's compiled code gives up on one). */
  top(): Open | undefined {
    const depth = this.open.length;
    return depth > 0 ? this.open[depth - 1] : undefined;
  }

  /** Puts a value where the next one goes: the open mapping's key, the open list's end, or the root. */
  put(value: Value): void {
    if (notJson(value)) this.jsonExact = false;
    const top = this.top();
    if (top === undefined) this.root = value;
    else if (top.isMapping) (top.value as Mapping)[top.key] = value;
    else (top.value as Value[]).push(value);
  }

  /** The container the next value goes into (null: the root), and its key. */
  containerHere(): Mapping | Value[] | null {
    const top = this.top();
    return top === undefined ? null : top.value;
  }

  keyHere(): string {
    const top = this.top();
    return top === undefined ? "" : top.key;
  }

  /** Sets a value that was put earlier (a plain or block scalar whose rows are all read now). */
  set(container: Mapping | Value[] | null, key: string, value: Value): void {
    if (notJson(value)) this.jsonExact = false;
    if (container === null) this.root = value;
    else if (Array.isArray(container)) container[container.length - 1] = value;
    else container[key] = value;
  }

  /** A scalar node: its line, and its value where it goes. */
  scalar(line: number, value: Value): void {
    this.out.push(base36(line));
    this.put(value);
  }

  /** Opens a block collection at column `indent`; false past the depth js-yaml is left to limit. */
  openCollection(isMapping: boolean, line: number, indent: number): boolean {
    if (this.open.length >= this.maxDepth) return false;
    const value: Mapping | Value[] = isMapping ? {} : [];
    this.put(value);
    this.open.push({ value, indent, isMapping, slot: this.out.length, key: "" });
    this.out.push(base36(line));
    return true;
  }

  close(): void {
    const top = this.open.pop() as Open;
    this.out[top.slot] += size36(this.out.length - top.slot);
  }

  /** Ends a plain scalar that went on over several rows: js-yaml folds it, then resolves it. */
  endPlain(): void {
    if (this.plainParent < 0) return;
    if (this.plainRows > 1) {
      const folded = this.reading.decode(this.text, STYLE.plain, this.plainStart, this.plainEnd, -1, CHOMP.clip);
      this.set(this.plainContainer, this.plainKey, this.reading.resolve(folded) as Value);
    }
    this.plainParent = -1;
  }

  /** Ends a block scalar whose content ends where row `r` starts. */
  endBlock(r: number): void {
    const end = r < this.rowCount ? (this.starts[r] as number) : this.text.length;
    this.set(
      this.blockContainer,
      this.blockKey,
      this.reading.decode(this.text, this.blockStyle, this.blockStart, end, this.blockIndent, this.blockChomp),
    );
    this.blockParent = -1;
  }

  /**
   * A node starting at offset `at` of block row `r`: a list, a mapping, a
   * scalar or a flow collection, at `line`, inside a block whose column is
   * `parent`. The row the reading goes on after, or -1 when it gives up.
   */
  nodeAt(r: number, at: number, line: number, parent: number, isItem: boolean): number {
    const text = this.text;
    if (text.charCodeAt(at) === DASH && endsWord(text, at + 1)) {
      if (!this.openCollection(false, line, at - this.rowStart)) return -1;
      return this.item(r, at);
    }
    const keyEnd = this.keyAt(at);
    if (keyEnd === -2) return -1;
    if (keyEnd >= 0) {
      if (!this.openCollection(true, line, at - this.rowStart)) return -1;
      return this.entry(r, at, keyEnd);
    }
    return this.value(r, at, line, parent, isItem);
  }

  /** A `-` item at offset `at` of the open list. */
  item(r: number, at: number): number {
    const text = this.text;
    let content = at + 1;
    while (text.charCodeAt(content) === SPACE) content++;
    if (content === this.end || text.charCodeAt(content) === HASH) {
      this.pendingIndent = at - this.rowStart;
      this.pendingLine = r + 1;
      this.pendingKey = false;
      return r;
    }
    return this.nodeAt(r, content, r + 1, at - this.rowStart, true);
  }

  /** The entry of the open mapping at offset `at` whose key (in this.key) ends after its colon at `keyEnd`. */
  entry(r: number, at: number, keyEnd: number): number {
    const text = this.text;
    const top = this.top() as Open;
    const mapping = top.value as Mapping;
    // A key written twice is js-yaml's to refuse; `__proto__` and index keys are js-yaml's to place.
    if (Object.hasOwn(mapping, this.key) || keyLeftToJsYaml(this.key)) return -1;
    top.key = this.key;
    let content = keyEnd;
    while (text.charCodeAt(content) === SPACE) content++;
    if (content === this.end || text.charCodeAt(content) === HASH) {
      // Held until its value is seen; a key with none is null.
      this.pendingIndent = at - this.rowStart;
      this.pendingLine = r + 1;
      this.pendingKey = true;
      return r;
    }
    // A value on the key's row is a scalar or a flow collection: `a: - b` and `a: b: c` are errors.
    if (text.charCodeAt(content) === DASH && endsWord(text, content + 1)) return -1;
    return this.value(r, content, r + 1, at - this.rowStart, false);
  }

  /**
   * The implicit key at offset `at` of the block row (`name:`, `'name':`):
   * the offset after its colon, the key in this.key as js-yaml makes it; -1
   * when the row holds no key there; -2 when it holds one not read here.
   */
  keyAt(at: number): number {
    const text = this.text;
    const first = text.charCodeAt(at);
    if (first === SINGLE || first === DOUBLE) {
      const end = this.quoted(at, this.end);
      if (end < 0) return -2;
      let colon = end;
      while (text.charCodeAt(colon) === SPACE) colon++;
      if (text.charCodeAt(colon) !== COLON) return -1;
      if (!endsWord(text, colon + 1)) return -2;
      this.key = this.quotedText;
      return colon + 1;
    }
    if (first === QUESTION && isMarker(text, at)) return -2;
    if (isIndicator(first)) return -1;
    for (let from = at; ; ) {
      const colon = this.colons.from(from);
      if (colon >= this.end) return -1;
      if (endsWord(text, colon + 1)) {
        let end = colon;
        while (end > at && text.charCodeAt(end - 1) === SPACE) end--;
        // A comment before the colon: the row holds no key (the text before `#` has no `: `, or this colon would not be the first).
        if (this.comment(at, end) !== -1) return -1;
        // An implicit key is at most 1024 characters in YAML, and a `-`, `?` or `:` then a space starts no key.
        if (end === at || end - at > 1024 || isMarker(text, at)) return -2;
        this.key = pieces.read(text, at, end, KEY, this.reading) as string;
        return colon + 1;
      }
      from = colon + 1;
    }
  }

  /** The content of the quoted scalar quoted() read last. */
  quotedText = "";

  /** A quoted scalar at `at`, on its row (which ends at `end`): the offset after its closing quote, its content in quotedText; -1 when it is not read here. */
  quoted(at: number, end: number): number {
    const text = this.text;
    if (text.charCodeAt(at) === DOUBLE) {
      let close = at + 1;
      for (;;) {
        close = text.indexOf('"', close);
        if (close === -1 || close >= end) return -1;
        // A quote after an odd run of backslashes is escaped.
        let slashes = 0;
        while (text.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        close++;
      }
      if (this.backslashes.from(at + 1) < close) {
        if (!escapesAreRead(text, at + 1, close)) return -1;
        this.quotedText = this.reading.decode(text, STYLE.double, at + 1, close, -1, CHOMP.clip);
      } else this.quotedText = pieces.read(text, at + 1, close, QUOTED, this.reading) as string;
      return close + 1;
    }
    let content = "";
    let from = at + 1;
    for (;;) {
      const close = text.indexOf("'", from);
      if (close === -1 || close >= end) return -1;
      if (text.charCodeAt(close + 1) !== SINGLE) {
        this.quotedText =
          from === at + 1 ? (pieces.read(text, from, close, QUOTED, this.reading) as string) : content + text.slice(from, close);
        return close + 1;
      }
      content += `${text.slice(from, close)}'`;
      from = close + 2;
    }
  }

  /** The row being read. */
  currentRow = 0;

  /** A scalar or flow collection at offset `at` of block row `r`, a node at `line` inside a block whose column is `parent`. */
  value(r: number, at: number, line: number, parent: number, isItem: boolean): number {
    const text = this.text;
    const first = text.charCodeAt(at);
    if (first === 124 || first === 62) {
      // `|` or `>`, maybe a chomping sign, no explicit indentation, then nothing or a comment.
      let after = at + 1;
      const sign = text.charCodeAt(after);
      if (sign === 45 || sign === 43) after++;
      if (!restIsEmpty(text, after)) return -1;
      if (r + 1 >= this.rowCount) return -1;
      this.blockStyle = first === 124 ? STYLE.literal : STYLE.folded;
      this.blockChomp = sign === 45 ? CHOMP.strip : sign === 43 ? CHOMP.keep : CHOMP.clip;
      this.blockStart = this.starts[r + 1] as number;
      this.blockParent = parent;
      this.blockIndent = -1;
      this.blockBlank = 0;
      this.blockContainer = this.containerHere();
      this.blockKey = this.keyHere();
      // js-yaml places an item's block scalar at the row after its header (its content's first row).
      this.scalar(isItem ? r + 2 : line, "");
      return r;
    }
    if (first === SINGLE || first === DOUBLE) {
      const end = this.quoted(at, this.end);
      if (end < 0 || !restIsEmpty(text, end)) return -1;
      this.scalar(line, this.quotedText);
      return r;
    }
    if (first === 91 || first === 123) {
      if (!this.flow(r, at, line, parent)) return -1;
      return restIsEmpty(text, this.flowAt) ? this.flowRow : -1;
    }
    if (isIndicator(first) || isMarker(text, at)) return -1;
    const comment = this.comment(at, this.end);
    let end = comment === -1 ? this.end : comment;
    while (text.charCodeAt(end - 1) === SPACE) end--;
    // `a: b: c` and `a: b:` are errors in YAML: no mapping in a value on one row.
    if (this.colonSpace(at, end) || text.charCodeAt(end - 1) === COLON) return -1;
    this.plainContainer = this.containerHere();
    this.plainKey = this.keyHere();
    this.scalar(line, pieces.read(text, at, end, PLAIN, this.reading) as Value);
    // A comment ends a plain scalar; without one, the next rows may go on with it.
    if (comment === -1) {
      this.plainParent = parent;
      this.plainStart = at;
      this.plainEnd = end;
      this.plainRows = 1;
    }
    return r;
  }

  // A flow collection being read: its row (index and end), the offset, the block column its rows must be right of,
  // and per open collection its value, its entry in the lines and its current key.
  fRow = 0;
  fEnd = 0;
  fAt = 0;
  fParent = -1;
  /** Where the outermost flow collection goes: its container (null: the root) and key. */
  fBaseContainer: Mapping | Value[] | null = null;
  fBaseKey = "";
  readonly fContainers: (Mapping | Value[])[] = [];
  readonly fSlots: number[] = [];
  readonly fKeys: string[] = [];
  fLine = 0;

  /**
   * A flow collection (`[a, b]`, `{k: v}`) from offset `at` of row `r`,
   * possibly over several rows: scalars plain or quoted on one row, nested
   * collections, a value for every key, no empty entry. Where it ends is
   * left in flowRow and flowAt.
   */
  flow(r: number, at: number, line: number, parent: number): boolean {
    const text = this.text;
    this.fRow = r;
    this.fEnd = this.rowEnd(r);
    this.fAt = at;
    this.fParent = parent;
    this.fBaseContainer = this.containerHere();
    this.fBaseKey = this.keyHere();
    this.fLine = line;
    const containers = this.fContainers;
    containers.length = 0;
    this.fSlots.length = 0;
    this.fKeys.length = 0;
    for (;;) {
      const code = text.charCodeAt(this.fAt);
      if (code === 91 || code === 123) {
        // A collection opens.
        if (this.open.length + containers.length >= this.maxDepth) return false;
        const container: Mapping | Value[] = code === 123 ? {} : [];
        this.flowPut(container);
        this.fSlots.push(this.out.length);
        this.out.push(base36(this.fLine));
        containers.push(container);
        this.fKeys.push("");
        this.fAt++;
        if (!this.flowSkip()) return false;
        if (text.charCodeAt(this.fAt) !== (code === 123 ? 125 : 93)) {
          this.fLine = this.fRow + 1;
          if (!this.flowEntryStart()) return false;
          continue;
        }
        // An empty collection: it closes below.
      } else {
        const end = this.flowScalar(this.fAt, this.fEnd, false);
        if (end < 0) return false;
        // A plain scalar that goes on to the next row is folded: js-yaml reads those.
        if (end === this.fEnd && this.fRow + 1 < this.rowCount && !this.rowEndsFlowScalar(this.fRow + 1)) return false;
        this.out.push(base36(this.fLine));
        this.flowPut(this.flowValue as Value);
        this.fAt = end;
        // In a list, `a: b` is a one-pair mapping: js-yaml reads those.
        if (Array.isArray(containers[containers.length - 1])) {
          let j = end;
          while (text.charCodeAt(j) === SPACE) j++;
          if (text.charCodeAt(j) === COLON) return false;
        }
      }
      // After a node: `,` and the next entry, or the collection closes (maybe several).
      for (;;) {
        if (!this.flowSkip()) return false;
        const container = containers[containers.length - 1] as Mapping | Value[];
        const after = text.charCodeAt(this.fAt);
        if (after === 44) {
          this.fAt++;
          if (!this.flowSkip()) return false;
          const next = text.charCodeAt(this.fAt);
          if (next === 44 || next === 93 || next === 125) return false;
          this.fLine = this.fRow + 1;
          if (!this.flowEntryStart()) return false;
          break;
        }
        if (after !== (Array.isArray(container) ? 93 : 125)) return false;
        this.fAt++;
        containers.pop();
        this.fKeys.pop();
        const slot = this.fSlots.pop() as number;
        this.out[slot] += size36(this.out.length - slot);
        if (containers.length === 0) {
          this.flowRow = this.fRow;
          this.flowAt = this.fAt;
          this.currentRow = this.fRow;
          return true;
        }
      }
    }
  }

  /** Row `r` starts (after its spaces) with what ends a plain scalar of the row before in a flow: `,`, `]`, `}`, `#`, or nothing. */
  rowEndsFlowScalar(r: number): boolean {
    const text = this.text;
    let i = this.starts[r] as number;
    while (text.charCodeAt(i) === SPACE) i++;
    const code = text.charCodeAt(i);
    return i >= text.length || code === NEWLINE || code === 44 || code === 93 || code === 125 || code === HASH;
  }

  /** Skips spaces, comments and line breaks in a flow; false at the end of the text or at a row not right of the block's column. */
  flowSkip(): boolean {
    const text = this.text;
    for (;;) {
      let i = this.fAt;
      while (text.charCodeAt(i) === SPACE) i++;
      this.fAt = i;
      if (i < this.fEnd) {
        // A `#` at the row's start or after a space starts a comment.
        const before = text.charCodeAt(i - 1);
        if (!(text.charCodeAt(i) === HASH && (i === 0 || before === SPACE || before === NEWLINE))) return true;
      }
      this.fRow++;
      if (this.fRow >= this.rowCount) return false;
      const start = this.starts[this.fRow] as number;
      this.fEnd = this.rowEnd(this.fRow);
      this.currentRow = this.fRow;
      let content = start;
      while (text.charCodeAt(content) === SPACE) content++;
      if (content < this.fEnd && content - start <= this.fParent) return false;
      this.fAt = content;
    }
  }

  /** Puts a value into the open flow collection (or where the flow goes). */
  flowPut(value: Value): void {
    if (notJson(value)) this.jsonExact = false;
    const depth = this.fContainers.length;
    if (depth === 0) {
      const base = this.fBaseContainer;
      if (base === null) this.root = value;
      else if (Array.isArray(base)) base.push(value);
      else base[this.fBaseKey] = value;
      return;
    }
    const container = this.fContainers[depth - 1] as Mapping | Value[];
    if (Array.isArray(container)) container.push(value);
    else container[this.fKeys[depth - 1] as string] = value;
  }

  /** In a mapping, an entry's key and colon: false for `{a}`, `{a: }`, a key written twice and the keys js-yaml places itself. */
  flowEntryStart(): boolean {
    const depth = this.fContainers.length;
    const container = this.fContainers[depth - 1] as Mapping | Value[];
    if (Array.isArray(container)) return true;
    const text = this.text;
    const end = this.flowScalar(this.fAt, this.fEnd, true);
    if (end < 0) return false;
    const key = this.flowKey;
    if (Object.hasOwn(container, key) || keyLeftToJsYaml(key)) return false;
    this.fKeys[depth - 1] = key;
    let i = end;
    while (text.charCodeAt(i) === SPACE) i++;
    if (text.charCodeAt(i) !== COLON) return false;
    i++;
    while (text.charCodeAt(i) === SPACE) i++;
    const next = text.charCodeAt(i);
    if (i === this.fEnd || next === 44 || next === 125 || next === HASH) return false;
    this.fLine = this.fRow + 1;
    this.fAt = i;
    return true;
  }

  /** The value and the key flowScalar read last. */
  flowValue: unknown = null;
  flowKey = "";

  /** A scalar in a flow collection at `at`, on its row (which ends at `rowEnd`): quoted, or plain up to a flow indicator, `: ` or ` #`. The offset after it, or -1. */
  flowScalar(at: number, rowEnd: number, isKey: boolean): number {
    const text = this.text;
    const first = text.charCodeAt(at);
    if (first === SINGLE || first === DOUBLE) {
      const end = this.quoted(at, rowEnd);
      if (end < 0) return -1;
      this.flowValue = this.flowKey = this.quotedText;
      return end;
    }
    if (isIndicator(first)) return -1;
    if (first === COLON || first === QUESTION || first === DASH) {
      // In a flow, `-`, `?` and `:` start text only before a character that is neither a space nor a flow indicator.
      const next = text.charCodeAt(at + 1);
      if (at + 1 === rowEnd || next === SPACE || next === 44 || next === 91 || next === 93 || next === 123 || next === 125) return -1;
    }
    // A flow indicator ends the scalar; `:` ends it before a space, a flow indicator or the row's end, `#` after a space.
    let end = at;
    for (; end < rowEnd; end++) {
      const code = text.charCodeAt(end);
      if (code === 44 || code === 91 || code === 93 || code === 123 || code === 125) break;
      if (code === COLON) {
        const next = text.charCodeAt(end + 1);
        if (end + 1 === rowEnd || next === SPACE || next === 44 || next === 91 || next === 93 || next === 123 || next === 125) break;
      } else if (code === HASH && text.charCodeAt(end - 1) === SPACE) break;
    }
    while (text.charCodeAt(end - 1) === SPACE) end--;
    if (end === at) return -1;
    if (isKey) this.flowKey = pieces.read(text, at, end, KEY, this.reading) as string;
    else this.flowValue = pieces.read(text, at, end, PLAIN, this.reading);
    return end;
  }

  /** Reads every row; false when the text is not one the fast path reads. */
  run(): boolean {
    const { text, starts, open, rowCount } = this;
    let started = false;
    let documentStart = false;
    for (let r = 0; r < rowCount; r++) {
      const rowStart = starts[r] as number;
      const end = r + 1 < rowCount ? (starts[r + 1] as number) - 1 : text.length;
      this.rowStart = rowStart;
      this.end = end;
      this.currentRow = r;
      let at = rowStart;
      // Bounded by the row: past the text's end charCodeAt gives NaN, which the compiled loop was not made for.
      while (at < end && text.charCodeAt(at) === SPACE) at++;
      const indent = at - rowStart;
      const blank = at === end;
      if (this.blockParent >= 0) {
        if (blank) {
          if (indent > this.blockBlank) this.blockBlank = indent;
          continue;
        }
        if (indent > this.blockParent) {
          if (this.blockIndent < 0) {
            // Leading blank rows wider than the first content row are an error in YAML.
            if (this.blockBlank > indent) return false;
            this.blockIndent = indent;
          } else if (indent < this.blockIndent) return false;
          continue;
        }
        // A block scalar with no content row: js-yaml reads those.
        if (this.blockIndent < 0) return false;
        this.endBlock(r);
      }
      if (blank) continue;
      const first = text.charCodeAt(at);
      if (first === HASH) {
        this.endPlain();
        continue;
      }
      if (this.plainParent >= 0) {
        if (indent > this.plainParent) {
          // The plain scalar goes on: a row of text, nothing YAML would read as structure.
          if (
            isIndicator(first) ||
            isMarker(text, at) ||
            this.colonSpace(at, end) ||
            text.charCodeAt(end - 1) === COLON ||
            this.comment(at, end) !== -1
          )
            return false;
          let last = end;
          while (text.charCodeAt(last - 1) === SPACE) last--;
          this.plainEnd = last;
          this.plainRows++;
          continue;
        }
        this.endPlain();
      }
      if (indent === 0 && (text.startsWith("---", rowStart) || text.startsWith("...", rowStart))) {
        // One `---` before any content starts the document; anything else is a second one, or its end.
        if (
          started ||
          documentStart ||
          !text.startsWith("---", rowStart) ||
          (end > rowStart + 3 && text.charCodeAt(rowStart + 3) !== SPACE) ||
          !restIsEmpty(text, rowStart + 3)
        )
          return false;
        documentStart = true;
        continue;
      }
      if (first === 37) return false; // a directive
      const dash = first === DASH && endsWord(text, at + 1);
      let next: number;
      if (this.pendingIndent >= 0) {
        const waitingIndent = this.pendingIndent;
        const waitingKey = this.pendingKey;
        this.pendingIndent = -1;
        if (indent > waitingIndent || (waitingKey && indent === waitingIndent && dash)) {
          // The value starts on its own row: a mapping's takes its key's line, an item its own.
          next = this.nodeAt(r, at, waitingKey ? this.pendingLine : r + 1, waitingIndent, !waitingKey);
          if (next < 0) return false;
          r = next;
          continue;
        }
        // An empty item's line in js-yaml is where its reading stood, not its own: js-yaml reads those.
        if (!waitingKey) return false;
        this.scalar(this.pendingLine, null);
      }
      while (open.length > 0 && (open[open.length - 1] as Open).indent > indent) this.close();
      // A list written at its key's column ends where a row at that column is not an item.
      let top = this.top();
      if (top !== undefined && !top.isMapping && top.indent === indent && !dash) {
        this.close();
        top = this.top();
      }
      if (top === undefined) {
        if (started) return false;
        started = true;
        next = this.nodeAt(r, at, r + 1, -1, true);
        // The document is a mapping or a list, as every dbt yml is.
        if (open.length === 0 && (this.root === null || typeof this.root !== "object")) return false;
      } else if (top.indent !== indent) return false;
      else if (!top.isMapping) next = this.item(r, at);
      else {
        const keyEnd = this.keyAt(at);
        if (keyEnd < 0) return false;
        next = this.entry(r, at, keyEnd);
      }
      if (next < 0) return false;
      r = next;
    }
    if (this.blockParent >= 0) {
      // A last row of spaces with no line break after it: js-yaml ends the content before it.
      const last = text.slice(starts[rowCount - 1] as number);
      if (this.blockIndent < 0 || (last.length > 0 && last.trim() === "")) return false;
      this.endBlock(rowCount);
    }
    this.endPlain();
    if (this.pendingIndent >= 0) {
      if (!this.pendingKey) return false;
      this.scalar(this.pendingLine, null);
    }
    while (open.length > 0) this.close();
    return !(documentStart && this.out.length === 0);
  }
}

let shared: FastReader | undefined;

/** Reads a YAML text the fast way: its value and lines, or null when js-yaml must read it. */
export function readFast(text: string, reading: FastReading): FastResult {
  if (text.charCodeAt(0) === 0xfeff || (LOOK_CLOSER.test(text) && (NOT_READ.test(text) || LONE_SURROGATE.test(text)))) return null;
  const reader = (shared ??= new FastReader(reading));
  reader.start(text, reading);
  const read = reader.run();
  const result = read ? { value: reader.root, lines: reader.out.join(","), jsonExact: reader.jsonExact } : null;
  // Nothing of this text stays reachable from the shared reader.
  reader.start("", reading);
  return result;
}

/**
 * The reader stays out of JavaScriptCore's top tier (the FTL). slp reads
 * each yml once, in a fresh process: the FTL compiles these large, inlined
 * functions on a background thread for more CPU than its code gives back
 * before the reading is done (a CI runner has two cores, and the rest of
 * slp wants the second). The tier below (the DFG) still compiles them.
 * Measured on the 2,000 bench ymls: CPU 102 -> 76 ms for the isolated
 * parse, and about 40 ms off `slp check`'s wall time; only a process that
 * reads several times more YAML would be better off with the FTL.
 */
for (const reader of [FastReader.prototype, Pieces.prototype, NextOf.prototype]) {
  for (const [name, { value }] of Object.entries(Object.getOwnPropertyDescriptors(reader))) {
    if (name !== "constructor" && typeof value === "function") noFTL(value);
  }
}
for (const helper of [
  notJson,
  keyLeftToJsYaml,
  base36,
  size36,
  isIndicator,
  endsWord,
  isMarker,
  restIsEmpty,
  escapeLength,
  escapesAreRead,
  readPiece,
  readFast,
])
  noFTL(helper);
