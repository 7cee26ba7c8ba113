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
  "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N",
  "true", "True", "TRUE", "TrUE", "false", "False", "FALSE", "fAlse", "null", "Null", "NULL", "nuLL", "~",
  ".inf", ".Inf", ".INF", ".inF", "inf", "+.inf", "-.inf", "-.Inf", ".nan", ".NaN", ".NAN", "nan",
  "0", "00", "0011", "010", "07", "08", "09", "02_0", "23", "100_000", "-0", "-23", "-0100_200", "+0", "+23", "+0100_200",
  "0o0", "0o7", "0o10", "0x0", "0x10", "0x42", "0xa", "0xA", "0XA", "-0x30", "0x2_0", "0b0", "+0b100", "-0b101", "0b100_101",
  "190:20:30", "-190:20:30", "+190:20:30", "1:30", "12:60", "190:20:30.15",
  ".0", ".14", ".1_4", ".", "._", "._14", "_._", "3.", "0.0", "3.14", "03.14", "3.140", "001.23", "85_230.15", "-3.14", "+3.14", "-0.0",
  ".3e3", ".3e+3", ".3E-1", "0.3e3", "3.3e+3", "3e3", "1e3", "1E3", "85.230_15e+03", "+0.3e+3", "+0.3e3", "6.8523015e+5",
  "2024-05-01", "2024-5-1", "2024-13-45", "2024-05-01T08:00:00", "2024-05-01 08:00:00", "2001-12-14t21:59:43.10-05:00",
  "2001-12-14 21:59:43.10 -5", "2001-12-15T02:59:43.1Z", "2002-12-14",
  "12345678901234567890", "9007199254740993", "1_", "=", "<<", "-", "--", "+", "1,000", "1.0.0", "2 rows", "10%",
];

const WORDS = ["order_id", "amount", "status", "fct_orders", "stg_orders", "ref('stg_orders')", "a@example.com", "one row per order", "cancelled",
  "sum of amount net of refunds", "shipped", "data_change", "not_null", "unique", "x", "é ü", "→ row excluded", "a: b", "a #b", "a#b", "a, b", "[x]", "{x}", "it's", 'say "hi"',
  "back\\slash", "{{ var('x') }}", "*star", "&amp", "!bang", "%pct", "@at", "`tick`", "|pipe", ">gt", "? q", ": c", "- d", "#hash", "trailing ", " leading",
  "x\u0001y", "x\u007fy", "x\u0085y", "x\u2028y", "x\u00a0y", "x\ufeffy", "x\ufffey", "\ud83d\ude00", "\ud800", "a\\nb", "a\"b", "a'b", "''", "' '", "a:b", "a:", "-a", "?a", ":a", "a,b", "a]b", "a}b"];
const KEYS = ["name", "description", "meta", "spec", "grain", "tier", "columns", "data_tests", "config", "given", "rows", "expect", "model", "input", "min", "max",
  "yes", "on", "1", "2", "010", "true", "null", "~", "a b", "é", "__proto__", "constructor", "<<", "k:v", "1.5"];

/** One document. */
export function generate(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const chance = (p: number) => random() < p;
  const scalarText = (): string => (chance(0.35) ? pick(DIVERGENT) : chance(0.2) ? String(Math.floor(random() * 2000) - 1000) : pick(WORDS));
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
      const body = Array.from({ length: 1 + Math.floor(random() * 3) }, () => (chance(0.15) ? "" : pad + (chance(0.2) ? "  " : "") + pick(WORDS)));
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
    case 0: rows.splice(at, 0, row); break; // a line twice: a duplicate key, mostly
    case 1: rows[at] = ` ${row}`; break;
    case 2: rows[at] = row.slice(1); break;
    case 3: rows[at] = row.replace(" ", "\t"); break;
    case 4: rows.splice(at, 0, "---"); break;
    case 5: rows[at] = `${row} &anchor`; break;
    case 6: rows[at] = row.replace(": ", ": *alias "); break;
    case 7: rows[at] = row.replace(": ", ": !!str "); break;
    case 8: rows[at] = row.slice(0, Math.floor(random() * row.length)); break;
    default: rows[at] = `${row}${"[{]}:,'\"#-"[Math.floor(random() * 10)]}`; break;
  }
  return rows.join("\n");
}
