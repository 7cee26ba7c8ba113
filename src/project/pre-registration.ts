/**
 * When two pre-registrations are one prediction: canonically equal once the
 * `reason` is read for its words only. A prediction copied from the base with
 * its reason re-spaced, re-cased or re-punctuated is still the base's (Stage
 * B: "a pre-registration belongs to one PR"), for gate's G8 and G15 and for
 * compare's stale set (C0, C7) alike.
 */
import { canonicalJson, isMapping, type Value } from "../core/values.ts";

/** The reason's words: lower-cased, every run of whitespace, punctuation and symbols dropped. */
export function reasonWords(reason: string): string {
  return reason.normalize("NFKC").toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, "");
}

/** The text two pre-registrations share when they are the same prediction (null stays null). */
export function preRegistrationIdentity(value: Value): string {
  if (!isMapping(value) || typeof value.reason !== "string") return canonicalJson(value);
  return canonicalJson({ ...value, reason: reasonWords(value.reason) });
}

/** True when `value` is the prediction `base` already holds (both non-null). */
export function samePreRegistration(value: Value, base: Value | undefined): boolean {
  if (value === null || base === undefined || base === null) return false;
  return preRegistrationIdentity(value) === preRegistrationIdentity(base);
}
