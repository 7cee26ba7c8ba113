/**
 * The mutation operators, one file each, listed explicitly (a test proves
 * this list equals the folder), sorted by code: the order mutants of one
 * offset are numbered in, and the order the cap's round robin visits them.
 */
import type { Operator } from "../define-operator.ts";
import aggregateSwapped from "./aggregate-swapped.ts";
import andOrSwapped from "./and-or-swapped.ts";
import boundaryMoved from "./boundary-moved.ts";
import caseBranchRemoved from "./case-branch-removed.ts";
import coalesceRemoved from "./coalesce-removed.ts";
import comparisonFlipped from "./comparison-flipped.ts";
import dateTruncGrainChanged from "./date-trunc-grain-changed.ts";
import distinctRemoved from "./distinct-removed.ts";
import groupByColumnDropped from "./group-by-column-dropped.ts";
import joinTypeSwapped from "./join-type-swapped.ts";
import literalAltered from "./literal-altered.ts";
import negationRemoved from "./negation-removed.ts";
import nullCheckFlipped from "./null-check-flipped.ts";
import ratioInverted from "./ratio-inverted.ts";
import unionAllSwapped from "./union-all-swapped.ts";
import whereDropped from "./where-predicate-dropped.ts";
import windowFrameShifted from "./window-frame-shifted.ts";

export const operators: readonly Operator<any>[] = [
  aggregateSwapped,
  boundaryMoved,
  caseBranchRemoved,
  comparisonFlipped,
  coalesceRemoved,
  distinctRemoved,
  windowFrameShifted,
  dateTruncGrainChanged,
  groupByColumnDropped,
  joinTypeSwapped,
  literalAltered,
  andOrSwapped,
  negationRemoved,
  nullCheckFlipped,
  ratioInverted,
  unionAllSwapped,
  whereDropped,
];
