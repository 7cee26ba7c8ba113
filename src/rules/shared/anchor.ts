/**
 * The spec's `external_validation` is prose around one number from outside
 * the warehouse ("gross_revenue for 2025-12 = 307.99 in the monthly close"):
 * it exists because the spec can be wrong (framework Stage A). When the
 * reconciliation's source of truth says another number, one of the two is
 * wrong, and a reader must know. Read by the review, which flags a disagreement (compare keeps the reference's verdict).
 */

/** The number the anchor states, and how many decimals it was written with; null when the text holds no single number. */
export interface AnchorNumber {
  value: number;
  /** The number as written (`14,203,118.40`). */
  text: string;
  decimals: number;
}

/**
 * A number as people write one in prose: optional sign, thousands grouped by
 * commas or not, optional decimals. Not part of a word (`Q1`), of a date
 * (`2025-12`) or of a longer token (`v2.1.3`).
 */
const NUMBER = /(?<![\w.,\-/:])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w\-/:]|[.,]\d)/g;

/**
 * The anchor's number: the first number after the last `=`, or, without one,
 * the text's only number. Several numbers and no `=` is no number: guessing
 * which one is meant would flag, or pass, the wrong one.
 */
export function anchorNumber(text: string): AnchorNumber | null {
  const equals = text.lastIndexOf("=");
  const scope = equals === -1 ? text : text.slice(equals + 1);
  const found = [...scope.matchAll(NUMBER)].map((match) => match[0]);
  if (found.length === 0 || (equals === -1 && found.length > 1)) return null;
  const written = found[0] as string;
  const plain = written.replace(/,/g, "");
  const value = Number(plain);
  if (!Number.isFinite(value)) return null;
  return { value, text: written, decimals: plain.includes(".") ? (plain.split(".")[1] as string).length : 0 };
}

/**
 * True when the source of truth says the anchor's number, to the decimals the
 * anchor was written with (307.99 against 307.9900001 agrees; 14,203,118.40
 * against 14,203,118.4 agrees; against 14,250,000 it does not).
 */
export function anchorAgrees(anchor: AnchorNumber, truth: number): boolean {
  if (!Number.isFinite(truth)) return false;
  // Half a unit of the last written digit, with room for binary-float noise.
  const half = 0.5 * 10 ** -anchor.decimals;
  return Math.abs(truth - anchor.value) <= half * (1 + 1e-9);
}
