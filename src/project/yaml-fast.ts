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
import type { Mapping, Value } from "../core/values.ts";

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
/** What sends a text to the closer look: a character NOT_READ holds, or a surrogate (a lone one is not printable either). */
const LOOK_CLOSER = /[\x00-\x09\x0B-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A key JavaScript would move ahead of the others (an array index): the value's order would not be the text's. */
const INDEX_KEY = /^(?:0|[1-9][0-9]{0,9})$/;

/** A key the fast path leaves to js-yaml: one JavaScript orders or treats apart (`__proto__`), or a merge key. */
function keyLeftToJsYaml(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first >= 48 && first <= 57) return INDEX_KEY.test(key);
  return key === "__proto__" || key === "<<";
}

/** Where a plain scalar in a flow may end: a flow indicator, `:` or `#` (the last two only sometimes). */
const FLOW_STOP = /[,[\]{}:#]/g;

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

/** `-`, `?` or `:` followed by a space or the end of the row: an indicator, not text. */
function isMarker(row: string, at: number): boolean {
  const code = row.charCodeAt(at);
  if (code !== DASH && code !== QUESTION && code !== COLON) return false;
  return at + 1 === row.length || row.charCodeAt(at + 1) === SPACE;
}

/** Nothing but spaces and maybe a comment from `at` on. */
function restIsEmpty(row: string, at: number): boolean {
  let i = at;
  while (row.charCodeAt(i) === SPACE) i++;
  return i === row.length || (row.charCodeAt(i) === HASH && i > at);
}

/** A comment (` #`) starting inside row[from, end). */
function hasComment(row: string, from: number, end: number): boolean {
  for (let i = row.indexOf("#", from + 1); i !== -1 && i < end; i = row.indexOf("#", i + 1)) if (row.charCodeAt(i - 1) === SPACE) return true;
  return false;
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

/** True when every escape of a double-quoted scalar's content (row[start, end)) is one js-yaml reads, to a code point that is not a lone surrogate. */
function escapesAreRead(row: string, start: number, end: number): boolean {
  for (let i = row.indexOf("\\", start); i !== -1 && i < end; i = row.indexOf("\\", i)) {
    const length = escapeLength(row.charCodeAt(i + 1));
    if (length < 0 || i + 2 + length > end) return false;
    if (length > 0) {
      const hex = row.slice(i + 2, i + 2 + length);
      if (!/^[0-9a-fA-F]+$/.test(hex)) return false;
      const point = parseInt(hex, 16);
      if ((point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return false;
    }
    i += 2 + length;
  }
  return true;
}

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
  rows: string[] = [];
  /** The offset of row `offsetRow` in the text: rows are only read forward, so offsetOf walks on from the last one asked. */
  offsetRow = 0;
  offsetAt = 0;
  reading: FastReading;
  /** The reading's maxDepth, asked once a text. */
  maxDepth = 0;
  readonly open: Open[] = [];
  /** Each node's line in walk order (base 36), containers with `:size` added on closing. */
  out: string[] = [];
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
  /** Where a flow collection ended: its row and the column after it. */
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
    this.rows = text.split("\n");
    this.reading = reading;
    this.maxDepth = reading.maxDepth;
    this.offsetRow = 0;
    this.offsetAt = 0;
    this.open.length = 0;
    this.out = [];
    this.root = null;
    this.jsonExact = true;
    this.pendingIndent = -1;
    this.blockParent = -1;
    this.plainParent = -1;
    this.currentRow = 0;
    this.blockContainer = this.plainContainer = this.fBaseContainer = null;
    this.fContainers.length = 0;
  }

  /** The offset of row `r` in the text. */
  offsetOf(r: number): number {
    if (r < this.offsetRow) {
      this.offsetRow = 0;
      this.offsetAt = 0;
    }
    while (this.offsetRow < r) this.offsetAt += (this.rows[this.offsetRow++] as string).length + 1;
    return this.offsetAt;
  }

  /** Puts a value where the next one goes: the open mapping's key, the open list's end, or the root. */
  put(value: Value): void {
    if (notJson(value)) this.jsonExact = false;
    const top = this.open[this.open.length - 1];
    if (top === undefined) this.root = value;
    else if (top.isMapping) (top.value as Mapping)[top.key] = value;
    else (top.value as Value[]).push(value);
  }

  /** The container the next value goes into (null: the root), and its key. */
  containerHere(): Mapping | Value[] | null {
    const top = this.open[this.open.length - 1];
    return top === undefined ? null : top.value;
  }

  keyHere(): string {
    const top = this.open[this.open.length - 1];
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
    const end = r < this.rows.length ? this.offsetOf(r) : this.text.length;
    this.set(
      this.blockContainer,
      this.blockKey,
      this.reading.decode(this.text, this.blockStyle, this.blockStart, end, this.blockIndent, this.blockChomp),
    );
    this.blockParent = -1;
  }

  /**
   * A node starting at column `at` of row `r`: a list, a mapping, a scalar or
   * a flow collection, at `line`, inside a block whose column is `parent`.
   * The row the reading goes on after, or -1 when it gives up.
   */
  nodeAt(r: number, row: string, at: number, line: number, parent: number, isItem: boolean): number {
    if (row.charCodeAt(at) === DASH && (at + 1 === row.length || row.charCodeAt(at + 1) === SPACE)) {
      if (!this.openCollection(false, line, at)) return -1;
      return this.item(r, row, at);
    }
    const keyEnd = this.keyAt(row, at);
    if (keyEnd === -2) return -1;
    if (keyEnd >= 0) {
      if (!this.openCollection(true, line, at)) return -1;
      return this.entry(r, row, at, keyEnd);
    }
    return this.value(r, row, at, line, parent, isItem);
  }

  /** A `-` item at column `at` of the open list. */
  item(r: number, row: string, at: number): number {
    let content = at + 1;
    while (row.charCodeAt(content) === SPACE) content++;
    if (content === row.length || row.charCodeAt(content) === HASH) {
      this.pendingIndent = at;
      this.pendingLine = r + 1;
      this.pendingKey = false;
      return r;
    }
    return this.nodeAt(r, row, content, r + 1, at, true);
  }

  /** The entry of the open mapping at column `at` whose key (in this.key) ends after its colon at `keyEnd`. */
  entry(r: number, row: string, at: number, keyEnd: number): number {
    const top = this.open[this.open.length - 1] as Open;
    const mapping = top.value as Mapping;
    // A key written twice is js-yaml's to refuse; `__proto__` and index keys are js-yaml's to place.
    if (Object.hasOwn(mapping, this.key) || keyLeftToJsYaml(this.key)) return -1;
    top.key = this.key;
    let content = keyEnd;
    while (row.charCodeAt(content) === SPACE) content++;
    if (content === row.length || row.charCodeAt(content) === HASH) {
      // Held until its value is seen; a key with none is null.
      this.pendingIndent = at;
      this.pendingLine = r + 1;
      this.pendingKey = true;
      return r;
    }
    // A value on the key's row is a scalar or a flow collection: `a: - b` and `a: b: c` are errors.
    if (row.charCodeAt(content) === DASH && (content + 1 === row.length || row.charCodeAt(content + 1) === SPACE)) return -1;
    return this.value(r, row, content, r + 1, at, false);
  }

  /**
   * The implicit key at column `at` (`name:`, `'name':`): the column after
   * its colon, the key in this.key as js-yaml makes it; -1 when the row
   * holds no key there; -2 when it holds one that is not read here.
   */
  keyAt(row: string, at: number): number {
    const first = row.charCodeAt(at);
    if (first === SINGLE || first === DOUBLE) {
      const end = this.quoted(row, at);
      if (end < 0) return -2;
      let colon = end;
      while (row.charCodeAt(colon) === SPACE) colon++;
      if (row.charCodeAt(colon) !== COLON) return -1;
      if (colon + 1 < row.length && row.charCodeAt(colon + 1) !== SPACE) return -2;
      this.key = this.quotedText;
      return colon + 1;
    }
    if (first === QUESTION && isMarker(row, at)) return -2;
    if (isIndicator(first)) return -1;
    for (let from = at; ; ) {
      const colon = row.indexOf(":", from);
      if (colon === -1) return -1;
      if (colon + 1 === row.length || row.charCodeAt(colon + 1) === SPACE) {
        let end = colon;
        while (end > at && row.charCodeAt(end - 1) === SPACE) end--;
        // A comment before the colon: the row holds no key (the text before `#` has no `: `, or this colon would not be the first).
        if (hasComment(row, at, end)) return -1;
        // An implicit key is at most 1024 characters in YAML, and a `-`, `?` or `:` then a space starts no key.
        if (end === at || end - at > 1024 || isMarker(row, at)) return -2;
        this.key = String(this.reading.resolve(row.slice(at, end)));
        return colon + 1;
      }
      from = colon + 1;
    }
  }

  /** The content of the quoted scalar quoted() read last. */
  quotedText = "";

  /** A quoted scalar on one row: the column after its closing quote, its content in quotedText; -1 when it is not read here. */
  quoted(row: string, at: number): number {
    if (row.charCodeAt(at) === DOUBLE) {
      let close = at + 1;
      for (;;) {
        close = row.indexOf('"', close);
        if (close === -1) return -1;
        // A quote after an odd run of backslashes is escaped.
        let slashes = 0;
        while (row.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        close++;
      }
      if (row.lastIndexOf("\\", close) > at) {
        if (!escapesAreRead(row, at + 1, close)) return -1;
        const start = this.offsetOf(this.currentRow) + at + 1;
        this.quotedText = this.reading.decode(this.text, STYLE.double, start, start + close - at - 1, -1, CHOMP.clip);
      } else this.quotedText = row.slice(at + 1, close);
      return close + 1;
    }
    let text = "";
    let from = at + 1;
    for (;;) {
      const close = row.indexOf("'", from);
      if (close === -1) return -1;
      text += row.slice(from, close);
      if (row.charCodeAt(close + 1) !== SINGLE) {
        this.quotedText = text;
        return close + 1;
      }
      text += "'";
      from = close + 2;
    }
  }

  /** The row being read (quoted() needs its offset). */
  currentRow = 0;

  /** A scalar or flow collection at column `at` of row `r`, a node at `line` inside a block whose column is `parent`. */
  value(r: number, row: string, at: number, line: number, parent: number, isItem: boolean): number {
    const first = row.charCodeAt(at);
    if (first === 124 || first === 62) {
      // `|` or `>`, maybe a chomping sign, no explicit indentation, then nothing or a comment.
      let after = at + 1;
      const sign = row.charCodeAt(after);
      if (sign === 45 || sign === 43) after++;
      if (!restIsEmpty(row, after)) return -1;
      if (r + 1 >= this.rows.length) return -1;
      this.blockStyle = first === 124 ? STYLE.literal : STYLE.folded;
      this.blockChomp = sign === 45 ? CHOMP.strip : sign === 43 ? CHOMP.keep : CHOMP.clip;
      this.blockStart = this.offsetOf(r + 1);
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
      const end = this.quoted(row, at);
      if (end < 0 || !restIsEmpty(row, end)) return -1;
      this.scalar(line, this.quotedText);
      return r;
    }
    if (first === 91 || first === 123) {
      if (!this.flow(r, at, line, parent)) return -1;
      return restIsEmpty(this.rows[this.flowRow] as string, this.flowAt) ? this.flowRow : -1;
    }
    if (isIndicator(first) || isMarker(row, at)) return -1;
    const comment = row.indexOf(" #", at);
    let end = comment === -1 ? row.length : comment;
    while (row.charCodeAt(end - 1) === SPACE) end--;
    const plain = row.slice(at, end);
    // `a: b: c` and `a: b:` are errors in YAML: no mapping in a value on one row.
    if (plain.includes(": ") || plain.charCodeAt(plain.length - 1) === COLON) return -1;
    this.plainContainer = this.containerHere();
    this.plainKey = this.keyHere();
    this.scalar(line, this.reading.resolve(plain) as Value);
    // A comment ends a plain scalar; without one, the next rows may go on with it.
    if (comment === -1) {
      this.plainParent = parent;
      this.plainStart = this.offsetOf(r) + at;
      this.plainEnd = this.offsetOf(r) + end;
      this.plainRows = 1;
    }
    return r;
  }

  // A flow collection being read: its row (index and text), the column, the block column its rows must be right of,
  // and per open collection its value, its entry in the lines and its current key.
  fRow = 0;
  fText = "";
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
   * A flow collection (`[a, b]`, `{k: v}`) from column `at` of row `r`,
   * possibly over several rows: scalars plain or quoted on one row, nested
   * collections, a value for every key, no empty entry. Where it ends is
   * left in flowRow and flowAt.
   */
  flow(r: number, at: number, line: number, parent: number): boolean {
    this.fRow = r;
    this.fText = this.rows[r] as string;
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
      const code = this.fText.charCodeAt(this.fAt);
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
        if (this.fText.charCodeAt(this.fAt) !== (code === 123 ? 125 : 93)) {
          this.fLine = this.fRow + 1;
          if (!this.flowEntryStart()) return false;
          continue;
        }
        // An empty collection: it closes below.
      } else {
        const row = this.fText;
        const end = this.flowScalar(row, this.fAt, false);
        if (end < 0) return false;
        // A plain scalar that goes on to the next row is folded: js-yaml reads those.
        if (end === row.length && this.fRow + 1 < this.rows.length && !/^ *(?:[,\]}#]|$)/.test(this.rows[this.fRow + 1] as string))
          return false;
        this.out.push(base36(this.fLine));
        this.flowPut(this.flowValue as Value);
        this.fAt = end;
        // In a list, `a: b` is a one-pair mapping: js-yaml reads those.
        if (Array.isArray(containers[containers.length - 1])) {
          let j = end;
          while (row.charCodeAt(j) === SPACE) j++;
          if (row.charCodeAt(j) === COLON) return false;
        }
      }
      // After a node: `,` and the next entry, or the collection closes (maybe several).
      for (;;) {
        if (!this.flowSkip()) return false;
        const container = containers[containers.length - 1] as Mapping | Value[];
        const after = this.fText.charCodeAt(this.fAt);
        if (after === 44) {
          this.fAt++;
          if (!this.flowSkip()) return false;
          const next = this.fText.charCodeAt(this.fAt);
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

  /** Skips spaces, comments and line breaks in a flow; false at the end of the text or at a row not right of the block's column. */
  flowSkip(): boolean {
    for (;;) {
      const row = this.fText;
      let i = this.fAt;
      while (row.charCodeAt(i) === SPACE) i++;
      this.fAt = i;
      if (i < row.length && !(row.charCodeAt(i) === HASH && (i === 0 || row.charCodeAt(i - 1) === SPACE))) return true;
      this.fRow++;
      if (this.fRow >= this.rows.length) return false;
      const next = this.rows[this.fRow] as string;
      this.fText = next;
      this.currentRow = this.fRow;
      let indent = 0;
      while (next.charCodeAt(indent) === SPACE) indent++;
      if (indent < next.length && indent <= this.fParent) return false;
      this.fAt = indent;
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
    const row = this.fText;
    const end = this.flowScalar(row, this.fAt, true);
    if (end < 0) return false;
    const key = this.flowKey;
    if (Object.hasOwn(container, key) || keyLeftToJsYaml(key)) return false;
    this.fKeys[depth - 1] = key;
    let i = end;
    while (row.charCodeAt(i) === SPACE) i++;
    if (row.charCodeAt(i) !== COLON) return false;
    i++;
    while (row.charCodeAt(i) === SPACE) i++;
    const next = row.charCodeAt(i);
    if (i === row.length || next === 44 || next === 125 || next === HASH) return false;
    this.fLine = this.fRow + 1;
    this.fAt = i;
    return true;
  }

  /** The value and the key flowScalar read last. */
  flowValue: unknown = null;
  flowKey = "";

  /** A scalar in a flow collection, on one row: quoted, or plain up to a flow indicator, `: ` or ` #`. The column after it, or -1. */
  flowScalar(row: string, at: number, isKey: boolean): number {
    const first = row.charCodeAt(at);
    if (first === SINGLE || first === DOUBLE) {
      const end = this.quoted(row, at);
      if (end < 0) return -1;
      this.flowValue = this.flowKey = this.quotedText;
      return end;
    }
    if (isIndicator(first)) return -1;
    if (first === COLON || first === QUESTION || first === DASH) {
      // In a flow, `-`, `?` and `:` start text only before a character that is neither a space nor a flow indicator.
      const next = row.charCodeAt(at + 1);
      if (at + 1 === row.length || next === SPACE || next === 44 || next === 91 || next === 93 || next === 123 || next === 125) return -1;
    }
    let end = row.length;
    for (FLOW_STOP.lastIndex = at; FLOW_STOP.exec(row) !== null; ) {
      const stop = FLOW_STOP.lastIndex - 1;
      const code = row.charCodeAt(stop);
      // `:` ends the scalar before a space or a flow indicator, `#` after a space; the others always.
      if (code === COLON) {
        const next = row.charCodeAt(stop + 1);
        if (stop + 1 < row.length && next !== SPACE && next !== 44 && next !== 91 && next !== 93 && next !== 123 && next !== 125) continue;
      } else if (code === HASH && row.charCodeAt(stop - 1) !== SPACE) continue;
      end = stop;
      break;
    }
    while (row.charCodeAt(end - 1) === SPACE) end--;
    if (end === at) return -1;
    const value = this.reading.resolve(row.slice(at, end));
    if (isKey) this.flowKey = String(value);
    else this.flowValue = value;
    return end;
  }

  /** Reads every row; false when the text is not one the fast path reads. */
  run(): boolean {
    const { rows, open } = this;
    let started = false;
    let documentStart = false;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as string;
      this.currentRow = r;
      let indent = 0;
      while (row.charCodeAt(indent) === SPACE) indent++;
      const blank = indent === row.length;
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
      const first = row.charCodeAt(indent);
      if (first === HASH) {
        this.endPlain();
        continue;
      }
      if (this.plainParent >= 0) {
        if (indent > this.plainParent) {
          // The plain scalar goes on: a row of text, nothing YAML would read as structure.
          if (
            isIndicator(first) ||
            isMarker(row, indent) ||
            row.includes(": ") ||
            row.charCodeAt(row.length - 1) === COLON ||
            row.includes(" #")
          )
            return false;
          let end = row.length;
          while (row.charCodeAt(end - 1) === SPACE) end--;
          this.plainEnd = this.offsetOf(r) + end;
          this.plainRows++;
          continue;
        }
        this.endPlain();
      }
      if (indent === 0 && (row.startsWith("---") || row.startsWith("..."))) {
        // One `---` before any content starts the document; anything else is a second one, or its end.
        if (started || documentStart || !row.startsWith("---") || (row.length > 3 && row.charCodeAt(3) !== SPACE) || !restIsEmpty(row, 3))
          return false;
        documentStart = true;
        continue;
      }
      if (first === 37) return false; // a directive
      const dash = first === DASH && (indent + 1 === row.length || row.charCodeAt(indent + 1) === SPACE);
      let next: number;
      if (this.pendingIndent >= 0) {
        const waitingIndent = this.pendingIndent;
        const waitingKey = this.pendingKey;
        this.pendingIndent = -1;
        if (indent > waitingIndent || (waitingKey && indent === waitingIndent && dash)) {
          // The value starts on its own row: a mapping's takes its key's line, an item its own.
          next = this.nodeAt(r, row, indent, waitingKey ? this.pendingLine : r + 1, waitingIndent, !waitingKey);
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
      let top = open[open.length - 1];
      if (top !== undefined && !top.isMapping && top.indent === indent && !dash) {
        this.close();
        top = open[open.length - 1];
      }
      if (top === undefined) {
        if (started) return false;
        started = true;
        next = this.nodeAt(r, row, indent, r + 1, -1, true);
        // The document is a mapping or a list, as every dbt yml is.
        if (open.length === 0 && (this.root === null || typeof this.root !== "object")) return false;
      } else if (top.indent !== indent) return false;
      else if (!top.isMapping) next = this.item(r, row, indent);
      else {
        const keyEnd = this.keyAt(row, indent);
        if (keyEnd < 0) return false;
        next = this.entry(r, row, indent, keyEnd);
      }
      if (next < 0) return false;
      r = next;
    }
    if (this.blockParent >= 0) {
      // A last row of spaces with no line break after it: js-yaml ends the content before it.
      const last = rows[rows.length - 1] as string;
      if (this.blockIndent < 0 || (last.length > 0 && last.trim() === "")) return false;
      this.endBlock(rows.length);
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
