/**
 * check's rule registry: an explicit list of static imports, one per rule
 * file under check/, in the order check runs them. Apart from the other
 * commands' rules so check loads only its own (src/rules/index.ts joins them).
 */
import type { AnyRule } from "./define-rule.ts";
import edgeReadout from "./check/edge-readout.ts";
import gapsWithoutPreRegistration from "./check/gaps-without-pre-registration.ts";
import inconsistentPreRegistration from "./check/inconsistent-pre-registration.ts";
import invalidPreRegistration from "./check/invalid-pre-registration.ts";
import invalidSpec from "./check/invalid-spec.ts";
import missingSpec from "./check/missing-spec.ts";
import pkUniquenessTest from "./check/pk-uniqueness-test.ts";
import sensitiveLineage from "./check/sensitive-lineage.ts";
import specModelMismatch from "./check/spec-model-mismatch.ts";
import undeclaredModel from "./check/undeclared-model.ts";
import unmockedInput from "./check/unmocked-input.ts";
import unownedModel from "./check/unowned-model.ts";
import untestedEdge from "./check/untested-edge.ts";

/** check, in the reference's order: S1, S4, S2, S3, S5, S6 (slp's own), P1, P2, T1, T2, T3, I5, I7. */
export const checkRules = [
  missingSpec,
  undeclaredModel,
  invalidSpec,
  specModelMismatch,
  unownedModel,
  sensitiveLineage,
  invalidPreRegistration,
  inconsistentPreRegistration,
  pkUniquenessTest,
  untestedEdge,
  unmockedInput,
  edgeReadout,
  gapsWithoutPreRegistration,
] as const satisfies readonly AnyRule[];
