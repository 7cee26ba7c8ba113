/**
 * Random YAML documents in the styles dbt projects are written in (block
 * mappings and lists, compact lists, flow collections, plain, quoted and
 * block scalars, comments), with every scalar where YAML 1.1 and 1.2 part
 * ways in the pool, awkward keys and characters, and random damage of the
 * kinds that break a file (a line twice, a shifted indent, a tab, a second
 * document, an anchor, an alias, a tag, a cut line, a stray indicator).
 * Deterministic for a seed.
 */

/** A small seeded generator (mulberry32): the same documents on every run. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Plain scalars where YAML 1.1 (PyYAML, dbt) and YAML 1.2's core schema read
 * differently, and their neighbours that both read alike: booleans, nulls,
 * octal, hex, binary, underscores, sexagesimal, exponents, infinities and
 * NaN, dates and timestamps, signs and zeros (after the tables of
 * perlpunk/yaml-test-schema), and the merge and value indicators.
 */
export const DIVERGENT = [
  "yes",
  "Yes",
  "YES",
  "no",
  "No",
  "NO",
  "on",
  "On",
  "ON",
  "off",
  "Off",
  "OFF",
  "y",
  "Y",
  "n",
  "N",
  "true",
  "True",
  "TRUE",
  "TrUE",
  "false",
  "False",
  "FALSE",
  "fAlse",
  "null",
  "Null",
  "NULL",
  "nuLL",
  "~",
  ".inf",
  ".Inf",
  ".INF",
  ".inF",
  "inf",
  "+.inf",
  "-.inf",
  "-.Inf",
  ".nan",
  ".NaN",
  ".NAN",
  "nan",
  "0",
  "00",
  "0011",
  "010",
  "07",
  "08",
  "09",
  "02_0",
  "23",
  "100_000",
  "-0",
  "-23",
  "-0100_200",
  "+0",
  "+23",
  "+0100_200",
  "0o0",
  "0o7",
  "0o10",
  "0x0",
  "0x10",
  "0x42",
  "0xa",
  "0xA",
  "0XA",
  "-0x30",
  "0x2_0",
  "0b0",
  "+0b100",
  "-0b101",
  "0b100_101",
  "190:20:30",
  "-190:20:30",
  "+190:20:30",
  "1:30",
  "12:60",
  "190:20:30.15",
  ".0",
  ".14",
  ".1_4",
  ".",
  "._",
  "._14",
  "_._",
  "3.",
  "0.0",
  "3.14",
  "03.14",
  "3.140",
  "001.23",
  "85_230.15",
  "-3.14",
  "+3.14",
  "-0.0",
  ".3e3",
  ".3e+3",
  ".3E-1",
  "0.3e3",
  "3.3e+3",
  "3e3",
  "1e3",
  "1E3",
  "85.230_15e+03",
  "+0.3e+3",
  "+0.3e3",
  "6.8523015e+5",
  "2024-05-01",
  "2024-5-1",
  "2024-13-45",
  "2024-05-01T08:00:00",
  "2024-05-01 08:00:00",
  "2001-12-14t21:59:43.10-05:00",
  "2001-12-14 21:59:43.10 -5",
  "2001-12-15T02:59:43.1Z",
  "2002-12-14",
  "12345678901234567890",
  "9007199254740993",
  "1_",
  "=",
  "<<",
  "-",
  "--",
  "+",
  "1,000",
  "1.0.0",
  "2 rows",
  "10%",
];

const WORDS = [
  "order_id",
  "amount",
  "status",
  "fct_orders",
  "stg_orders",
  "ref('stg_orders')",
  "a@example.com",
  "one row per order",
  "cancelled",
  "sum of amount net of refunds",
  "shipped",
  "data_change",
  "not_null",
  "unique",
  "x",
  "é ü",
  "→ row excluded",
  "a: b",
  "a #b",
  "a#b",
  "a, b",
  "[x]",
  "{x}",
  "it's",
  'say "hi"',
  "back\\slash",
  "{{ var('x') }}",
  "*star",
  "&amp",
  "!bang",
  "%pct",
  "@at",
  "`tick`",
  "|pipe",
  ">gt",
  "? q",
  ": c",
  "- d",
  "#hash",
  "trailing ",
  " leading",
  "x\u0001y",
  "x\u007fy",
  "x\u0085y",
  "x\u2028y",
  "x\u00a0y",
  "x\ufeffy",
  "x\ufffey",
  "\ud83d\ude00",
  "\ud800",
  "a\\nb",
  'a"b',
  "a'b",
  "''",
  "' '",
  "a:b",
  "a:",
  "-a",
  "?a",
  ":a",
  "a,b",
  "a]b",
  "a}b",
];
const KEYS = [
  "name",
  "description",
  "meta",
  "spec",
  "grain",
  "tier",
  "columns",
  "data_tests",
  "config",
  "given",
  "rows",
  "expect",
  "model",
  "input",
  "min",
  "max",
  "yes",
  "on",
  "1",
  "2",
  "010",
  "true",
  "null",
  "~",
  "a b",
  "é",
  "__proto__",
  "constructor",
  "<<",
  "k:v",
  "1.5",
];

/** One document. */
export function generate(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const chance = (p: number) => random() < p;
  const scalarText = (): string =>
    chance(0.35) ? pick(DIVERGENT) : chance(0.2) ? String(Math.floor(random() * 2000) - 1000) : pick(WORDS);
  const quoteSingle = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const quoteDouble = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  const flowScalar = (): string => {
    const s = scalarText();
    return chance(0.3) ? quoteSingle(s) : chance(0.2) ? quoteDouble(s) : s;
  };
  const flow = (depth: number): string => {
    if (depth > 2 || chance(0.5)) return flowScalar();
    if (chance(0.5)) return `[${Array.from({ length: Math.floor(random() * 4) }, () => flow(depth + 1)).join(pick([", ", ",", " , "]))}]`;
    return `{${Array.from({ length: Math.floor(random() * 4) }, () => `${chance(0.2) ? quoteSingle(pick(KEYS)) : pick(KEYS)}: ${flow(depth + 1)}`).join(", ")}}`;
  };
  const lines: string[] = [];
  const key = () => (chance(0.1) ? quoteSingle(pick(KEYS)) : chance(0.05) ? quoteDouble(pick(KEYS)) : pick(KEYS));
  const comment = () => (chance(0.1) ? pick([" # note", "  #x", " #"]) : "");
  /** A value after `key:` or `- `, at `indent` for its nested lines. */
  const inline = (indent: number, depth: number): string | null => {
    const roll = random();
    if (depth < 5 && roll < 0.3) return null; // a nested block follows
    if (roll < 0.45) return flow(0) + comment();
    if (roll < 0.55) {
      const header = pick(["|", ">", "|-", ">-", "|+", ">+"]);
      const pad = " ".repeat(indent + pick([1, 2, 4]));
      const body = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
        chance(0.15) ? "" : pad + (chance(0.2) ? "  " : "") + pick(WORDS),
      );
      return `${header}${comment()}\n${body.join("\n")}`;
    }
    if (roll < 0.6) return `${pick(WORDS)}\n${" ".repeat(indent + 2)}${pick(WORDS)}`; // plain over two lines
    if (roll < 0.62) return "";
    return (chance(0.2) ? quoteSingle(scalarText()) : chance(0.1) ? quoteDouble(scalarText()) : scalarText()) + comment();
  };
  const block = (indent: number, depth: number, asSequence: boolean): void => {
    const count = 1 + Math.floor(random() * 4);
    const pad = " ".repeat(indent);
    for (let i = 0; i < count; i++) {
      if (chance(0.05)) lines.push(chance(0.5) ? "" : `${pad}# comment`);
      if (asSequence) {
        if (depth < 5 && chance(0.4)) {
          // `- key: value` then the mapping's other keys under it.
          lines.push(`${pad}- ${key()}: ${inline(indent + 2, depth + 1) ?? scalarText()}`);
          if (chance(0.6)) block(indent + 2, depth + 1, false);
          continue;
        }
        const value = inline(indent, depth);
        if (value === null) {
          lines.push(`${pad}-`);
          block(indent + 2, depth + 1, chance(0.3));
        } else lines.push(`${pad}- ${value}`);
      } else {
        const value = inline(indent, depth);
        if (value === null) {
          lines.push(`${pad}${key()}:${comment()}`);
          const sequence = chance(0.4);
          block(sequence && chance(0.4) ? indent : indent + pick([2, 2, 4]), depth + 1, sequence);
        } else lines.push(`${pad}${key()}: ${value}`);
      }
    }
  };
  if (chance(0.1)) lines.push("---");
  if (chance(0.1)) lines.push("# header comment");
  block(0, 0, chance(0.15));
  let text = `${lines.join("\n")}\n`;
  if (chance(0.3)) text = damage(text, random);
  return text;
}

/** One random change of the kind that breaks a file or makes YAML read it differently. */
function damage(text: string, random: () => number): string {
  const rows = text.split("\n");
  const at = Math.floor(random() * rows.length);
  const row = rows[at] ?? "";
  switch (Math.floor(random() * 10)) {
    case 0:
      rows.splice(at, 0, row);
      break; // a line twice: a duplicate key, mostly
    case 1:
      rows[at] = ` ${row}`;
      break;
    case 2:
      rows[at] = row.slice(1);
      break;
    case 3:
      rows[at] = row.replace(" ", "\t");
      break;
    case 4:
      rows.splice(at, 0, "---");
      break;
    case 5:
      rows[at] = `${row} &anchor`;
      break;
    case 6:
      rows[at] = row.replace(": ", ": *alias ");
      break;
    case 7:
      rows[at] = row.replace(": ", ": !!str ");
      break;
    case 8:
      rows[at] = row.slice(0, Math.floor(random() * row.length));
      break;
    default:
      rows[at] = `${row}${"[{]}:,'\"#-"[Math.floor(random() * 10)]}`;
      break;
  }
  return rows.join("\n");
}

/**
 * A valid document written the way people write dbt ymls, with what it is
 * known to hold: the line of every key and list item written (what a
 * finding points at), whether YAML must refuse it (a key written twice, in
 * any spelling of the same key, or a second document) and at which line, and
 * which features it uses. An oracle that does not come from either parser.
 */
export interface WrittenDocument {
  text: string;
  /** Each key and list item outside flows spanning rows and aliased subtrees, at the line it was written on. */
  declarations: { path: (string | number)[]; line: number }[];
  /** What YAML refuses the text for, and the line named; null for a text read. */
  refusal: { kind: "duplicate" | "documents"; line: number } | null;
  /** Merge keys change which keys a mapping holds: its declarations are not checked. */
  merges: boolean;
  features: Set<Feature>;
}

export const FEATURES = [
  "block mapping",
  "block list",
  "compact list",
  "list of mappings",
  "flow",
  "multi-line flow",
  "single-quoted",
  "double-quoted",
  "escape",
  "multi-line quoted",
  "block scalar",
  "indentation indicator",
  "keep chomping",
  "multi-line plain",
  "comment",
  "comment-like content",
  "blank line",
  "tab",
  "anchor",
  "alias",
  "merge key",
  "tag",
  "YAML 1.1 scalar",
  "YAML 1.1 key",
  "empty value",
  "duplicate key",
  "second document",
  "document start",
  "document end",
  "directive",
  "CRLF",
  "no final newline",
  "root list",
] as const;
export type Feature = (typeof FEATURES)[number];

/** Plain keys and the key each is in JavaScript after PyYAML's resolvers (`yes` is true, `010` is 8, `~` is null). */
const KEY_SPELLINGS: [written: string, key: string][] = [
  ["name", "name"],
  ["description", "description"],
  ["meta", "meta"],
  ["columns", "columns"],
  ["data_tests", "data_tests"],
  ["config", "config"],
  ["given", "given"],
  ["rows", "rows"],
  ["expect", "expect"],
  ["grain", "grain"],
  ["a b", "a b"],
  ["é", "é"],
  ["k:v", "k:v"],
  ["yes", "true"],
  ["Yes", "true"],
  ["on", "true"],
  ["ON", "true"],
  ["true", "true"],
  ["True", "true"],
  ["no", "false"],
  ["off", "false"],
  ["False", "false"],
  ["null", "null"],
  ["~", "null"],
  ["Null", "null"],
  ["y", "y"],
  ["n", "n"],
  ["1", "1"],
  ["010", "8"],
  ["0x10", "16"],
  ["1.5", "1.5"],
  ["-1", "-1"],
  ["1e3", "1e3"],
  ["2024-05-01", "2024-05-01"],
];
const YAML11_KEYS = new Set(["yes", "Yes", "on", "ON", "True", "no", "off", "False", "~", "Null", "010", "0x10"]);
/** Plain scalars valid as a block value (no `: `, ` #`, no leading indicator). */
const PLAIN_WORDS = [
  "order_id",
  "amount",
  "status",
  "fct_orders",
  "ref('stg_orders')",
  "a@example.com",
  "one row per order",
  "x",
  "sum of amount net of refunds",
  "é ü",
  "→ row excluded",
  "a#b",
  "a, b",
  "it's",
  'say "hi"',
  "back\\slash",
  "a:b",
  "-a",
  ":a",
  "a]b",
  "a}b",
  "\ud83d\ude00",
  "x\u00a0y",
  "x {{ var('x') }}",
];
/** Plain scalars valid inside a flow too (none of `,[]{}`, no `: `). */
const FLOW_WORDS = PLAIN_WORDS.filter((word) => !/[,[\]{}]/.test(word));
/** Plain words that may sit inside single quotes as they are. */
const QUOTABLE_WORDS = FLOW_WORDS.filter((word) => !word.includes("'"));
/** Text for quoted scalars and block scalar rows: anything printable. */
const ANY_TEXT = [
  ...PLAIN_WORDS,
  "a: b",
  "a #b",
  "#hash",
  "- d",
  "? q",
  "[x]",
  "{x}",
  "*star",
  "&amp",
  "!bang",
  "%pct",
  "@at",
  "`tick`",
  "|pipe",
  ">gt",
  "trailing ",
  " leading",
  "''",
  "x\u0085y",
  "x\u2028y",
  "x\ufeffy",
  "--- x",
  "... y",
  "a\tb",
];
const DOUBLE_ESCAPES = [
  "\\n",
  "\\t",
  "\\\\",
  '\\"',
  "\\x41",
  "\\u00e9",
  "\\U0001F600",
  "\\/",
  "\\0",
  "\\a",
  "\\b",
  "\\e",
  "\\N",
  "\\_",
  "\\L",
  "\\P",
  "\\ ",
  "\\r",
];
const DIVERGENT_VALUES = DIVERGENT.filter((scalar) => scalar !== "-");
/** Of those, the ones that stay one scalar in a flow (`1,000` is two there). */
const DIVERGENT_IN_FLOW = DIVERGENT_VALUES.filter((scalar) => !scalar.includes(","));

/** One valid document (or one YAML must refuse, when `refusal` says so), deterministic for the generator. */
export function writeDocument(random: () => number): WrittenDocument {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const chance = (p: number) => random() < p;
  const rows: string[] = [];
  const doc: WrittenDocument = { text: "", declarations: [], refusal: null, merges: false, features: new Set() };
  const use = (feature: Feature) => doc.features.add(feature);
  const nextLine = () => rows.length + 1;
  const declare = (path: (string | number)[], line: number) => doc.declarations.push({ path, line });
  const anchors: { name: string; mapping: boolean }[] = [];

  const quoteSingle = (s: string) => {
    use("single-quoted");
    return `'${s.replace(/'/g, "''")}'`;
  };
  const quoteDouble = (s: string, escapes = true) => {
    use("double-quoted");
    let body = s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
    if (escapes && chance(0.4)) {
      use("escape");
      body += pick(DOUBLE_ESCAPES);
    }
    if (body.includes("\t")) use("tab");
    return `"${body}"`;
  };
  const quoted = (s: string) => (chance(0.5) ? quoteSingle(s) : quoteDouble(s));
  const trailingComment = () => {
    if (!chance(0.12)) return "";
    use("comment");
    if (chance(0.15)) {
      use("tab");
      return "\t# note";
    }
    return pick([" # note", "  #x", " #", " # a: b"]);
  };
  /** A scalar as written after `key: ` or `- ` in block context. */
  const blockScalarText = (): string => {
    const roll = random();
    if (roll < 0.3) {
      use("YAML 1.1 scalar");
      return pick(DIVERGENT_VALUES);
    }
    if (roll < 0.55) return pick(PLAIN_WORDS);
    if (roll < 0.65) return String(Math.floor(random() * 2000) - 1000);
    if (roll < 0.7) {
      use("tag");
      return chance(0.5) ? `!!str ${pick(DIVERGENT_VALUES)}` : `!!int "${Math.floor(random() * 100)}"`;
    }
    return quoted(chance(0.3) ? pick(DIVERGENT) : pick(ANY_TEXT));
  };
  /** A key spelled some way, and what it is in JavaScript. */
  const writtenKey = (inFlow: boolean): [string, string] => {
    const [written, key] = pick(KEY_SPELLINGS);
    if (YAML11_KEYS.has(written)) use("YAML 1.1 key");
    if (chance(0.15)) return [quoteSingle(key), key];
    if (chance(0.05)) return [quoteDouble(key, false), key];
    if (inFlow && written.includes(":")) return [quoteSingle(key), key];
    return [written, key];
  };
  /** A key for a mapping holding `used`: a new one, or now and then one it holds already, spelled some way (the refusal). */
  const nextKey = (used: Set<string>, inFlow: boolean, line: number): [string, string] | null => {
    if (doc.refusal === null && used.size > 0 && chance(0.03)) {
      const again = pick([...used]);
      const spellings = KEY_SPELLINGS.filter(([, key]) => key === again).map(([written]) => written);
      const written = spellings.length > 0 && chance(0.6) ? pick(spellings) : quoteSingle(again);
      if (inFlow && written.includes(":") && !written.startsWith("'")) return null;
      use("duplicate key");
      doc.refusal = { kind: "duplicate", line };
      return [written, again];
    }
    for (let attempt = 0; attempt < 8; attempt++) {
      const [written, key] = writtenKey(inFlow);
      if (!used.has(key)) {
        used.add(key);
        return [written, key];
      }
    }
    return null;
  };
  /** A flow collection or scalar; declares what it holds at `line` when it stays on one row. */
  const flow = (depth: number, path: (string | number)[], line: number | null): string => {
    if (depth > 2 || chance(0.4)) {
      if (chance(0.3)) return quoted(pick(ANY_TEXT));
      if (chance(0.4)) {
        use("YAML 1.1 scalar");
        return pick(DIVERGENT_IN_FLOW);
      }
      return pick(FLOW_WORDS);
    }
    use("flow");
    const separator = pick([", ", ",", " , "]);
    if (chance(0.5)) {
      const items = Array.from({ length: Math.floor(random() * 4) }, (_, i) => {
        if (line !== null) declare([...path, i], line);
        return flow(depth + 1, [...path, i], line);
      });
      return `[${items.join(separator)}]`;
    }
    const used = new Set<string>();
    const pairs: string[] = [];
    for (let i = Math.floor(random() * 4); i > 0; i--) {
      const key = nextKey(used, true, line ?? 0);
      if (key === null) continue;
      if (line !== null) declare([...path, key[1]], line);
      pairs.push(`${key[0]}: ${flow(depth + 1, [...path, key[1]], line)}`);
    }
    return `{${pairs.join(separator)}}`;
  };
  /** A block scalar's header and rows, its content `step` in from `indent`. */
  const blockScalar = (head: string, indent: number) => {
    use("block scalar");
    const step = pick([1, 2, 2, 4]);
    let header = pick(["|", ">", "|-", ">-", "|+", ">+"]);
    if (header.endsWith("+")) use("keep chomping");
    if (chance(0.15)) {
      use("indentation indicator");
      header += String(step);
    }
    rows.push(`${head} ${header}${trailingComment()}`);
    const pad = " ".repeat(indent + step);
    const count = 1 + Math.floor(random() * 3);
    for (let i = 0; i < count; i++) {
      const roll = random();
      if (roll < 0.1 && i > 0) {
        use("blank line");
        rows.push("");
      } else if (roll < 0.2) {
        use("comment-like content");
        rows.push(`${pad}# not a comment`);
      } else {
        const text = pick(ANY_TEXT).trimStart();
        if (text.includes("\t")) use("tab");
        // Deeper rows only after the first: the first row sets the content's indentation.
        rows.push(pad + (i > 0 && chance(0.2) ? "  " : "") + text);
      }
    }
    if (header.includes("+") && chance(0.5)) rows.push("");
  };
  let anchorCount = 0;
  /** A new anchor's name; an alias may name it once `complete` is called (a collection is then written whole: no cycles). */
  const anchor = (mapping: boolean) => {
    use("anchor");
    const name = `a${anchorCount++}`;
    return { text: `&${name}`, complete: () => anchors.push({ name, mapping }) };
  };
  /** Writes `head` (`  key:` or `  -`) and its value; a nested block sits `indent` deeper than nothing. Returns the value's own line. */
  const value = (head: string, indent: number, path: (string | number)[], depth: number, isKey: boolean): number => {
    const roll = random();
    const line = nextLine();
    if (depth < 5 && roll < 0.3) {
      const mapping = chance(0.6);
      const anchored = chance(0.08) ? anchor(mapping) : null;
      rows.push(`${head}${anchored ? ` ${anchored.text}` : ""}${trailingComment()}`);
      const compact = !mapping && isKey && chance(0.4);
      if (compact) use("compact list");
      const first = mapping
        ? blockMapping(indent + pick([2, 2, 4]), path, depth + 1)
        : blockList(compact ? indent : indent + 2, path, depth + 1);
      anchored?.complete();
      return anchored || isKey ? line : first;
    }
    if (roll < 0.42) {
      const multiRow = chance(0.05);
      if (multiRow) {
        use("multi-line flow");
        rows.push(`${head} [${pick(FLOW_WORDS)},`);
        rows.push(`${" ".repeat(indent + 2)}${pick(FLOW_WORDS)}]`);
      } else rows.push(`${head} ${flow(0, path, line)}${trailingComment()}`);
    } else if (roll < 0.52) {
      blockScalar(head, indent);
      // A list item that is a block scalar starts where its text does (the parsers' node start), a key's value at the key.
      if (!isKey) return line + 1;
    } else if (roll < 0.56) {
      use("multi-line plain");
      rows.push(`${head} ${pick(FLOW_WORDS)}`);
      rows.push(`${" ".repeat(indent + 2)}${pick(FLOW_WORDS)}`);
    } else if (roll < 0.58) {
      use("multi-line quoted");
      rows.push(`${head} '${pick(QUOTABLE_WORDS)}`);
      rows.push(`${" ".repeat(indent + 2)}${pick(QUOTABLE_WORDS)}'`);
    } else if (roll < 0.6 && isKey) {
      use("empty value");
      rows.push(`${head}${trailingComment()}`);
    } else if (roll < 0.64 && anchors.length > 0) {
      use("alias");
      rows.push(`${head} *${pick(anchors).name}${trailingComment()}`);
    } else {
      const anchored = chance(0.04) ? anchor(false) : null;
      const tab = chance(0.03);
      if (tab) use("tab");
      rows.push(`${head}${tab ? "\t" : " "}${anchored ? `${anchored.text} ` : ""}${blockScalarText()}${trailingComment()}`);
      anchored?.complete();
    }
    return line;
  };
  const between = (pad: string) => {
    if (!chance(0.08)) return;
    if (chance(0.5)) {
      use("blank line");
      rows.push(chance(0.5) ? "" : pad);
    } else {
      use("comment");
      rows.push(`${" ".repeat(Math.floor(random() * (pad.length + 3)))}# comment`);
    }
  };
  /** A block mapping at `indent`; the first entry's row may start with `lead` (`- ` of a list of mappings). Returns its first key's line. */
  const blockMapping = (indent: number, path: (string | number)[], depth: number, lead?: string): number => {
    use("block mapping");
    const pad = " ".repeat(indent);
    const used = new Set<string>();
    let first = 0;
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      if (i > 0 || lead === undefined) between(pad);
      const start = i === 0 && lead !== undefined ? lead : pad;
      const key = nextKey(used, false, nextLine());
      if (key === null) continue;
      const line = nextLine();
      first ||= line;
      declare([...path, key[1]], line);
      value(`${start}${key[0]}:`, indent, [...path, key[1]], depth, true);
    }
    if (first === 0) {
      // Every key drawn was taken: one more, so the mapping is not empty.
      const line = nextLine();
      const key = `k${depth}_${line}`;
      declare([...path, key], line);
      rows.push(`${lead ?? pad}${key}: x`);
      first = line;
    }
    const mappings = anchors.filter((a) => a.mapping);
    if (mappings.length > 0 && chance(0.05)) {
      // Last: js-yaml refuses a key that overrides a merged one when the key is not text (`<<` then `True:`), which PyYAML allows.
      use("merge key");
      doc.merges = true;
      rows.push(`${pad}<<: *${pick(mappings).name}`);
    }
    return first;
  };
  /** A block list at `indent`; returns its first item's line. */
  const blockList = (indent: number, path: (string | number)[], depth: number): number => {
    use("block list");
    const pad = " ".repeat(indent);
    let first = 0;
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      between(pad);
      const line = nextLine();
      first ||= line;
      if (depth < 5 && chance(0.4)) {
        use("list of mappings");
        declare([...path, i], line);
        blockMapping(indent + 2, [...path, i], depth + 1, `${pad}- `);
      } else {
        const declaration = { path: [...path, i], line };
        doc.declarations.push(declaration);
        declaration.line = value(`${pad}-`, indent, [...path, i], depth, false);
      }
    }
    return first;
  };

  if (chance(0.03)) {
    use("directive");
    rows.push("%YAML 1.1");
    rows.push("---");
  } else if (chance(0.1)) {
    use("document start");
    rows.push(chance(0.8) ? "---" : "--- # start");
  }
  if (chance(0.1)) {
    use("comment");
    rows.push("# header comment");
  }
  if (chance(0.12)) {
    use("root list");
    blockList(0, [], 0);
  } else blockMapping(0, [], 0);
  if (chance(0.05)) {
    use("document end");
    rows.push("...");
  } else if (chance(0.04) && doc.refusal === null) {
    use("second document");
    doc.refusal = { kind: "documents", line: nextLine() };
    rows.push("---");
    rows.push("b: 2");
  }
  doc.text = rows.join("\n");
  if (chance(0.9)) doc.text += "\n";
  else use("no final newline");
  if (chance(0.03)) {
    use("CRLF");
    doc.text = doc.text.replace(/\n/g, "\r\n");
  }
  return doc;
}
