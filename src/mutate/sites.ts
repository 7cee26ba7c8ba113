/**
 * Every mutant of a model's compiled SQL: each operator's sites in the
 * syntax tree (or, as a declared fallback, the masked-text scanner's), in the
 * reference's order (start offset, operator code, end offset), numbered per
 * operator (`cmp/1`) with the occurrence of each original text; placed in the
 * model's own .sql, merged across the renderings its tests run, and cut to
 * the cap round robin. A real run and a dry run plant from here alike.
 */
import { compareCodePoints } from "../core/text.ts";
import { parseSql } from "../sql/parser.ts";
import { SqlTree } from "./define-operator.ts";
import { operators } from "./operators/index.ts";
import { scanSites } from "./scanner.ts";
import { SourceMap } from "../sql/source-map.ts";

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
    found = operators.flatMap((operator) =>
      operator
        .sites(tree)
        .map((site) => ({ code: operator.code, start: site.start, end: site.end, replacement: operator.mutate(site, tree) })),
    );
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
    mutants.push({
      id: `${site.code}/${n}`,
      operator: site.code,
      start: site.start,
      end: site.end,
      original,
      replacement: site.replacement,
      occurrence,
    });
  }
  return { mutants, finder };
}

/** The SQL with one mutant planted. */
export function applyMutant(sql: string, mutant: { start: number; end: number; replacement: string }): string {
  return `${sql.slice(0, mutant.start)}${mutant.replacement}${sql.slice(mutant.end)}`;
}

/** A mutant placed in the model's own .sql, with each rendering it is planted in (`G`: what runs that rendering). */
export interface ModelMutant<G> {
  planned: PlannedMutant;
  /** `<operator>/<n>` over the merged list. */
  id: string;
  occurrence: number;
  position: { line: number; column: number; endLine: number; endColumn: number };
  plants: { sql: string; group: G; mutated: string; start: number; end: number }[];
}

/**
 * The model's mutants over its renderings (most shared first): one mutant per
 * operator, original, replacement and place in the source, numbered in the
 * first rendering's order, then what only others have. The site finder is the
 * scanner's when any rendering needed it.
 */
export function modelMutants<G>(
  source: string,
  renderings: readonly (readonly [string, G])[],
  warehouse: string,
): { mutants: ModelMutant<G>[]; finder: SiteFinder | null } {
  const merged = new Map<string, Omit<ModelMutant<G>, "id" | "occurrence">>();
  let finder: SiteFinder | null = null;
  for (const [sql, group] of renderings) {
    const planned = planMutants(sql, warehouse);
    finder ??= planned.finder;
    if (planned.finder.kind === "scanner") finder = planned.finder;
    const map = new SourceMap(source, sql);
    for (const mutant of planned.mutants) {
      const start = map.position(mutant.start);
      const end = map.position(Math.max(mutant.start, mutant.end - 1));
      const key = `${mutant.operator}\u0000${mutant.original}\u0000${mutant.replacement}\u0000${start.line}:${start.column}:${start.exact}`;
      let entry = merged.get(key);
      if (!entry) {
        entry = {
          planned: mutant,
          position: { line: start.line, column: start.column, endLine: end.line, endColumn: end.column + 1 },
          plants: [],
        };
        merged.set(key, entry);
      }
      entry.plants.push({
        sql,
        group,
        mutated: applyMutant(sql, mutant),
        start: mutant.start,
        end: mutant.start + mutant.replacement.length,
      });
    }
  }
  const counts = new Map<string, number>();
  const occurrences = new Map<string, number>();
  const mutants = [...merged.values()].map((entry) => {
    const n = (counts.get(entry.planned.operator) ?? 0) + 1;
    counts.set(entry.planned.operator, n);
    const textKey = `${entry.planned.operator}\u0000${entry.planned.original}`;
    const occurrence = (occurrences.get(textKey) ?? 0) + 1;
    occurrences.set(textKey, occurrence);
    return { ...entry, id: `${entry.planned.operator}/${n}`, occurrence };
  });
  return { mutants, finder };
}

/**
 * The cap: at most `max` mutants, round robin across operators (in code
 * order), so a model with forty comparisons and one join still tests the
 * join; the kept ones in site order, and what the cap left out per operator.
 */
export function capMutants<T extends { planned: { operator: string } }>(
  mutants: readonly T[],
  max: number,
): { kept: T[]; elided: Record<string, number> } {
  const chosen = new Set<T>();
  const queues = new Map<string, T[]>();
  for (const mutant of mutants) queues.set(mutant.planned.operator, [...(queues.get(mutant.planned.operator) ?? []), mutant]);
  const codes = [...queues.keys()].sort(compareCodePoints);
  for (let round = 0; chosen.size < Math.min(max, mutants.length); round++) {
    for (const code of codes) {
      const next = queues.get(code)?.[round];
      if (next && chosen.size < max) chosen.add(next);
    }
  }
  const elided: Record<string, number> = {};
  for (const mutant of mutants) if (!chosen.has(mutant)) elided[mutant.planned.operator] = (elided[mutant.planned.operator] ?? 0) + 1;
  return { kept: mutants.filter((mutant) => chosen.has(mutant)), elided };
}
