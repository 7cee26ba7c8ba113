/** The names a mistyped one was probably meant to be: fewest edits (a swap of two neighbours is one), close enough to be a typo. */

/** The candidates at the smallest edit distance from `name`, if that distance is small for its length; in the candidates' order. */
export function nearestNames(name: string, candidates: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best = limit + 1;
  let nearest: string[] = [];
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < best) {
      best = distance;
      nearest = [candidate];
    } else if (distance === best) nearest.push(candidate);
  }
  return nearest;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of adjacent characters, one each. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const d: number[] = new Array(rows * columns).fill(0);
  for (let i = 0; i < rows; i++) d[i * columns] = i;
  for (let j = 0; j < columns; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (d[(i - 1) * columns + j] as number) + 1,
        (d[i * columns + j - 1] as number) + 1,
        (d[(i - 1) * columns + j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (d[(i - 2) * columns + j - 2] as number) + 1);
      }
      d[i * columns + j] = value;
    }
  }
  return d[rows * columns - 1] as number;
}
