/**
 * Every mutant of a model's compiled SQL: each operator's sites in the
 * syntax tree (or, as a declared fallback, the masked-text scanner's), in the
 * reference's order (start offset, operator code, end offset), numbered per
 * operator (`cmp/1`) with the occurrence of each original text.
 */
import { compareCodePoints } from "../core/text.ts";
import { parseSql } from "../sql/parser.ts";
import { SqlTree } from "./define-operator.ts";
import { operators } from "./operators/index.ts";
import { scanSites } from "./scanner.ts";

export interface PlannedMutant {
  /** `<operator code>/<n>`. */
  id: string;
  /** The operator's code (`cmp`). */
  operator: string;
  start: number;
  end: number;
  original: string;
  replacement: string;
  /** The n-th time this operator meets this exact original text in the model. */
  occurrence: number;
}

export interface SiteFinder {
  /** "parser": sql-parser-cst in `grammar`; "scanner": the masked-text fallback, because of `reason`. */
  kind: "parser" | "scanner";
  grammar: string | null;
  reason: string | null;
}

export function planMutants(sql: string, warehouse: string): { mutants: PlannedMutant[]; finder: SiteFinder } {
  const parsed = parseSql(sql, warehouse);
  let found: { code: string; start: number; end: number; replacement: string }[];
  let finder: SiteFinder;
  if ("root" in parsed) {
    const tree = new SqlTree(sql, parsed.root);
    found = operators.flatMap((operator) => operator.sites(tree).map((site) => ({ code: operator.code, start: site.start, end: site.end, replacement: operator.mutate(site, tree) })));
    finder = { kind: "parser", grammar: parsed.grammar, reason: null };
  } else {
    found = scanSites(sql);
    finder = { kind: "scanner", grammar: parsed.grammar, reason: parsed.error };
  }
  found.sort((a, b) => a.start - b.start || compareCodePoints(a.code, b.code) || a.end - b.end);
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  const occurrences = new Map<string, number>();
  const mutants: PlannedMutant[] = [];
  for (const site of found) {
    const original = sql.slice(site.start, site.end);
    // Two operators planting the very same text at the same place are one mutant (the first operator's).
    const key = `${site.start}:${site.end}:${site.replacement}`;
    if (original === site.replacement || seen.has(key)) continue;
    seen.add(key);
    const n = (counts.get(site.code) ?? 0) + 1;
    counts.set(site.code, n);
    const textKey = `${site.code}\u0000${original}`;
    const occurrence = (occurrences.get(textKey) ?? 0) + 1;
    occurrences.set(textKey, occurrence);
    mutants.push({ id: `${site.code}/${n}`, operator: site.code, start: site.start, end: site.end, original, replacement: site.replacement, occurrence });
  }
  return { mutants, finder };
}

/** The SQL with one mutant planted. */
export function applyMutant(sql: string, mutant: { start: number; end: number; replacement: string }): string {
  return `${sql.slice(0, mutant.start)}${mutant.replacement}${sql.slice(mutant.end)}`;
}
