/**
 * When two pre-registrations are one prediction: canonically equal once the
 * `reason` is read for its words only and `altered_columns` as a set. A
 * prediction copied from the base with its reason re-spaced, re-cased or
 * re-punctuated, or its columns reordered, is still the base's (Stage
 * B: "a pre-registration belongs to one PR"), for gate's G8 and G15 and for
 * compare's stale set (C0, C7) alike.
 */
import { canonicalJson, isMapping, type Value } from "../../core/values.ts";

/** The reason's words: lower-cased, every run of whitespace, punctuation and symbols dropped. */
function reasonWords(reason: string): string {
  return reason
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, "");
}

/**
 * The text two pre-registrations share when they are the same prediction
 * (null stays null): the reason's words, and `altered_columns` as the set of
 * names it is (the schema makes them unique; a warehouse folds their case).
 */
function preRegistrationIdentity(value: Value): string {
  if (!isMapping(value)) return canonicalJson(value);
  const identity = { ...value };
  if (typeof value.reason === "string") identity.reason = reasonWords(value.reason);
  const columns = value.altered_columns;
  if (Array.isArray(columns) && columns.every((column) => typeof column === "string")) {
    identity.altered_columns = [...new Set(columns.map((column) => column.toLowerCase()))].sort();
  }
  return canonicalJson(identity);
}

/** True when `value` is the prediction `base` already holds (both non-null). */
export function samePreRegistration(value: Value, base: Value | undefined): boolean {
  if (value === null || base === undefined || base === null) return false;
  return preRegistrationIdentity(value) === preRegistrationIdentity(base);
}
