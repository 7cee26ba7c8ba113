/** The red-team suite: every cheat, by category, and the honest changes that must stay silent. */
import type { Cheat } from "./cheat.ts";
import { checkCheats } from "./check.ts";
import { dataTestCheats } from "./data-tests.ts";
import { environmentCheats } from "./environment.ts";
import { integrityCheats } from "./integrity.ts";
import { projectFileCheats } from "./project-files.ts";
import { seedCheats } from "./seeds.ts";
import { singularTestCheats } from "./singular-tests.ts";
import { specCheats } from "./specs.ts";
import { authorCheats, tcrCheats } from "./tcr.ts";
import { unitTestCheats } from "./unit-tests.ts";

export const cheats: Cheat[] = [
  ...dataTestCheats,
  ...unitTestCheats,
  ...singularTestCheats,
  ...projectFileCheats,
  ...seedCheats,
  ...specCheats,
  ...environmentCheats,
  ...tcrCheats,
  ...authorCheats,
  ...checkCheats,
  ...integrityCheats,
];

export { legitChanges } from "./legit.ts";
