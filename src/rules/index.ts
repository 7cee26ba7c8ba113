/**
 * The rule registry: an explicit list of static imports, one per rule file,
 * in the order each command runs them. A test proves it equals the folders.
 * check's own list lives in check-rules.ts, so `slp check` loads no gate or
 * compare rule (nor what they import) at start.
 */
import { checkRules } from "./check-rules.ts";
import type { AnyRule } from "./define-rule.ts";
import alteredColumns from "./compare/altered-columns.ts";
import bandTooWide from "./compare/band-too-wide.ts";
import diffContract from "./compare/diff-contract.ts";
import diffReadout from "./compare/diff-readout.ts";
import metricOutside from "./compare/metric-outside.ts";
import missingDiff from "./compare/missing-diff.ts";
import reconciliationDrift from "./compare/reconciliation-drift.ts";
import refactoringMoved from "./compare/refactoring-moved.ts";
import removedPksOver from "./compare/removed-pks-over.ts";
import rowDeltaOutside from "./compare/row-delta-outside.ts";
import newTestWithWhere from "./gate/new-test-with-where.ts";
import packagePinChanged from "./gate/package-pin-changed.ts";
import preRegistrationAfterDiff from "./gate/pre-registration-after-diff.ts";
import preRegistrationEdits from "./gate/pre-registration-edits.ts";
import protectedPathChanged from "./gate/protected-path-changed.ts";
import reconciliationChangedWithModel from "./gate/reconciliation-changed-with-model.ts";
import commitOutsideTcr from "./gate/commit-outside-tcr.ts";
import environmentBranching from "./gate/environment-branching.ts";
import martsModelLeft from "./gate/marts-model-left.ts";
import upstreamChangeWithoutPreRegistration from "./gate/upstream-change-without-pre-registration.ts";
import redCommit from "./gate/red-commit.ts";
import singularTestCannotFail from "./gate/singular-test-cannot-fail.ts";
import specEdited from "./gate/spec-edited.ts";
import specWrittenOnBranch from "./gate/spec-written-on-branch.ts";
import sqlWithoutPreRegistration from "./gate/sql-without-pre-registration.ts";
import tcrCommitRed from "./gate/tcr-commit-red.ts";
import tcrStrikesReset from "./gate/tcr-strikes-reset.ts";
import testCannotFail from "./gate/test-cannot-fail.ts";
import testRemoved from "./gate/test-removed.ts";
import unitTestChanged from "./gate/unit-test-changed.ts";
import whereAdded from "./gate/where-added.ts";

export { checkRules };

/**
 * gate, in the reference's order: G1, G2, G3, I3, G4, G5, G6, G9, G10, G7, I4, G8, I1, I6,
 * with slp's own after G8: G14 (a mart leaves marts), G15 (lineage), G16 (the environment),
 * and after I1: G17 (a pre-registration edited once its diff was committed);
 * then the TCR record (with --verify-commits or tcr: required): G11, G12, G13.
 */
export const gateRules = [
  testRemoved,
  whereAdded,
  testCannotFail,
  newTestWithWhere,
  unitTestChanged,
  reconciliationChangedWithModel,
  packagePinChanged,
  protectedPathChanged,
  singularTestCannotFail,
  specEdited,
  specWrittenOnBranch,
  sqlWithoutPreRegistration,
  martsModelLeft,
  upstreamChangeWithoutPreRegistration,
  environmentBranching,
  preRegistrationEdits,
  preRegistrationAfterDiff,
  redCommit,
  tcrCommitRed,
  commitOutsideTcr,
  tcrStrikesReset,
] as const satisfies readonly AnyRule[];

/** The gate rules that read the TCR loop's record, run only when gate verifies commits. */
export const tcrRecordRules: readonly AnyRule[] = [tcrCommitRed, commitOutsideTcr, tcrStrikesReset];

/**
 * compare, once per diff, in the reference's order: C0 (the contract: the
 * runner lets C1-I2 read a diff only when it blocked nothing), C1, C2, C3,
 * C4, C5, C6, then slp's C8 (band ceilings), then I2.
 */
export const compareDiffRules = [
  diffContract,
  rowDeltaOutside,
  removedPksOver,
  alteredColumns,
  metricOutside,
  refactoringMoved,
  reconciliationDrift,
  bandTooWide,
  diffReadout,
] as const satisfies readonly AnyRule[];

/** compare, once per run after every diff: C7. */
export const compareRunRules = [missingDiff] as const satisfies readonly AnyRule[];

/** compare: C0, C1, C2, C3, C4, C5, C6, C8, I2 per diff, then C7 once. */
export const compareRules = [...compareDiffRules, ...compareRunRules] as const;

/** Every rule of every command. */
export const allRules: readonly AnyRule[] = [...checkRules, ...gateRules, ...compareRules];

/** A rule by code (T1) or name (pk-uniqueness-test), case-insensitive on the code. */
export function findRule(id: string): AnyRule | undefined {
  return allRules.find((rule) => rule.code.toLowerCase() === id.toLowerCase() || rule.name === id);
}
