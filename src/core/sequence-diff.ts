/**
 * Aligns two sequences (jsdiff's Myers diff; the only module that imports
 * `diff`): the mutation source map aligns tokens with it, the git merge
 * aligns lines.
 */
import { diffArrays } from "diff";

/** A run of items both sequences share (neither flag), or that only the first (removed) or the second (added) has. */
export interface SequenceChange<T> {
  value: T[];
  added: boolean;
  removed: boolean;
}

/** The changes that turn `before` into `after`, in order; items compare with ===. */
export function diffSequences<T>(before: T[], after: T[]): SequenceChange<T>[] {
  return diffArrays(before, after).map((change) => ({ value: change.value, added: change.added, removed: change.removed }));
}

/**
 * The same, giving up (null) past `maxEdits` inserted and removed items:
 * the search costs about the input's length times the edits, so input
 * nobody trusts is aligned within a bound.
 */
export function diffSequencesWithin<T>(before: T[], after: T[], maxEdits: number): SequenceChange<T>[] | null {
  const changes = diffArrays(before, after, { maxEditLength: maxEdits });
  return changes === undefined ? null : changes.map((change) => ({ value: change.value, added: change.added, removed: change.removed }));
}
