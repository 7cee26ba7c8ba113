/** The reconciliation arithmetic C6 judges and I2 prints, written once. */

/** `0.1%`: the number before `%` is the tolerance; Python's `$` also matches before one final newline, as the reference's pattern does. */
export const TOLERANCE = /^([0-9]+(?:\.[0-9]+)?)%\n?$/;

/**
 * |model - truth| / |truth| x 100, in this order in double precision (so
 * 100.1 against 100 is 0.0999... and passes 0.1%); null when the source of
 * truth is 0 and no percentage exists.
 */
export function reconciliationDrift(model: number, truth: number): number | null {
  if (truth === 0) return null;
  return (Math.abs(model - truth) / Math.abs(truth)) * 100;
}
