/**
 * The declared fallback: when the SQL parser has no grammar for the model's
 * warehouse, or refuses its SQL, sites are found the way the reference's
 * mutate_model.py finds them (spec/rules.md §7.3): on a copy of the SQL with
 * comments and string literals blanked, by pattern. It knows only the
 * reference's classes, and every run that uses it says so.
 */
import { plusOne } from "./operators/literal-altered.ts";

export interface ScannedSite {
  code: string;
  start: number;
  end: number;
  replacement: string;
}

const blank = (text: string) => text.replace(/[^\n]/g, " ");

/** Comments blanked (strings kept), and comments and strings blanked; offsets and lines preserved. */
function maskSql(sql: string): { noComments: string; masked: string } {
  const noComments = sql.replace(/\/\*[\s\S]*?\*\/|--[^\n]*|'(?:[^'\\]|\\.|'')*'/g, (match) =>
    match.startsWith("'") ? match : blank(match),
  );
  const masked = noComments.replace(/'(?:[^'\\]|\\.|'')*'/g, blank);
  return { noComments, masked };
}

const CMP: Record<string, [string, string]> = {
  "!=": ["cmp", "="],
  "<>": ["cmp", "="],
  "<=": ["boundary", "<"],
  ">=": ["boundary", ">"],
  "<": ["boundary", "<="],
  ">": ["boundary", ">="],
  "=": ["cmp", "<>"],
};

const STOP = /^(group\s+by|order\s+by|having|qualify|window|limit|union|intersect|except)\b/i;

export function scanSites(sql: string): ScannedSite[] {
  const { noComments, masked } = maskSql(sql);
  const sites: ScannedSite[] = [];
  const add = (code: string, start: number, end: number, replacement: string) => sites.push({ code, start, end, replacement });

  for (const match of masked.matchAll(/!=|<>|<=|>=|<|>|=/g)) {
    const [code, replacement] = CMP[match[0]] as [string, string];
    add(code, match.index, match.index + match[0].length, replacement);
  }
  for (const match of masked.matchAll(/\bwhere\b/gi)) {
    for (const [start, end] of wherePredicates(masked, noComments, match.index + match[0].length)) add("where", start, end, "true");
  }
  for (const match of masked.matchAll(/\b(sum|min|max|avg)(\s*)\(/gi)) {
    add("agg", match.index, match.index + (match[1] as string).length, (match[1] as string).toLowerCase() === "max" ? "min" : "max");
  }
  for (const match of masked.matchAll(/\bcount\s*\(\s*distinct\b\s*/gi)) add("agg", match.index, match.index + match[0].length, "count(");
  for (const match of masked.matchAll(/\bleft(\s+outer)?\s+join\b/gi))
    add("join", match.index, match.index + match[0].length, "inner join");
  for (const match of masked.matchAll(/\binner\s+join\b/gi)) add("join", match.index, match.index + match[0].length, "left join");
  for (const match of masked.matchAll(/\bcoalesce\s*\(/gi)) {
    const open = match.index + match[0].length;
    const call = topLevelArguments(masked, open);
    if (!call || call.commas.length === 0) continue;
    const first = noComments.slice(open, call.commas[0]).trim();
    if (first !== "") add("coalesce", match.index, call.close + 1, first);
  }
  for (const match of masked.matchAll(/\bselect\s+distinct\b/gi)) add("distinct", match.index, match.index + match[0].length, "select");
  for (const match of masked.matchAll(/(?<![\p{L}\p{N}_.])\d+(\.\d+)?(?![\p{L}\p{N}_.])/gu))
    add("literal", match.index, match.index + match[0].length, plusOne(match[0]));
  for (const match of noComments.matchAll(/'(?:[^'\\]|\\.|'')*'/g))
    add("literal", match.index, match.index + match[0].length, `${match[0].slice(0, -1)}_'`);
  for (const match of masked.matchAll(/\bnot(\s+)(in|exists|like)\b/gi))
    add("not", match.index, match.index + match[0].length, (match[2] as string).toLowerCase());
  for (const match of masked.matchAll(/\bis(\s+)not(\s+)null\b/gi)) add("null", match.index, match.index + match[0].length, "is null");
  return sites;
}

/** The predicates of a WHERE clause starting at `from`: cut at depth-0 and/or, ending at a clause keyword, `;` or a closing parenthesis. */
function wherePredicates(masked: string, noComments: string, from: number): [number, number][] {
  const pieces: [number, number][] = [];
  let depth = 0;
  let start = from;
  let at = from;
  const push = (end: number) => {
    // Trimmed on the copy with strings kept, so `status = 'paid'` keeps its string.
    const text = noComments.slice(start, end);
    const lead = text.length - text.trimStart().length;
    const trail = text.length - text.trimEnd().length;
    if (text.trim() !== "") pieces.push([start + lead, end - trail]);
  };
  for (; at < masked.length; at++) {
    const ch = masked[at] as string;
    if (ch === "(") depth++;
    else if (ch === ")") {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0) {
      if (ch === ";") break;
      const rest = masked.slice(at, at + 20);
      const boundary = at === 0 || !/[\p{L}\p{N}_]/u.test(masked[at - 1] as string);
      if (boundary && STOP.test(rest)) break;
      const connective = boundary ? /^(and|or)\b/i.exec(rest) : null;
      if (connective) {
        push(at);
        at += connective[0].length - 1;
        start = at + 1;
      }
    }
  }
  push(at);
  return pieces;
}

/** The commas at depth 0 inside a call whose `(` is just before `open`, and its closing parenthesis. */
function topLevelArguments(masked: string, open: number): { commas: number[]; close: number } | null {
  let depth = 0;
  const commas: number[] = [];
  for (let at = open; at < masked.length; at++) {
    const ch = masked[at];
    if (ch === "(") depth++;
    else if (ch === ")") {
      if (depth === 0) return { commas, close: at };
      depth--;
    } else if (ch === "," && depth === 0) commas.push(at);
  }
  return null;
}
