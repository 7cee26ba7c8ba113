/**
 * Cheats another part of issue 24 owns while this suite is written: listed
 * so the suite is whole, not played here (their own tests prove them).
 */
import type { OwnedElsewhere } from "./cheat.ts";

const MERGES = "issue 24: a merge hides red commits (G11-G13 on every commit a pull request brings)";
const LEAKS = "issue 24: values leave through error text and environment";
const TASKS = "issue 24: repository code runs when nobody asked";
const GUARD = "issue 24: the guard lets writes through links and shell tricks";
const PII = "issue 24: PII under a new name (sensitive-column lineage)";
const EDGES = "issue 24: a test that never exercises its edge";
const FUZZ = "issue 24: found by fuzzing";

export const ownedElsewhere: OwnedElsewhere[] = [
  {
    id: "red-side-branch-merged",
    what: "commits red work on a side branch by hand, then git merge --no-ff into the pull-request branch",
    owner: MERGES,
  },
  { id: "forged-trailer-on-a-merge", what: "a merge commit carrying tcr's trailers, resolved by hand", owner: MERGES },
  {
    id: "base-merged-in-reported",
    what: "merging the base in (to take a human's spec change) must not read as a commit outside tcr",
    owner: MERGES,
  },
  { id: "error-text-leaks-a-value", what: "a reconciliation query with error(customer_email) prints the e-mail", owner: LEAKS },
  { id: "env-var-in-a-failure-table", what: "env_var('DBT_PASSWORD') in a model shows in a unit test's failure table", owner: LEAKS },
  { id: "data-file-linked-out", what: "slp.yml names data/pr/x.csv, a symlink out of the project", owner: LEAKS },
  { id: "task-file-runs-on-help", what: "slp help, slp tasks or a typo imports .slp/tasks/*.ts and runs its top-level code", owner: TASKS },
  {
    id: "guard-symlinked-folder",
    what: "writes into macros/ through a committed symlink (m_link/x.sql) or a case variant (Macros/)",
    owner: GUARD,
  },
  {
    id: "guard-shell-tricks",
    what: "M=macros; echo > $M/x, rm -rf macr*, git apply, tar/unzip, git checkout REF -- macros/",
    owner: GUARD,
  },
  { id: "guard-strike-file", what: "removes .git/slp/tcr-strikes or runs slp tcr --reset itself", owner: GUARD },
  { id: "pii-renamed", what: "customer_email as contact in a new mart column", owner: PII },
  {
    id: "edge-test-that-exercises-nothing",
    what: "a unit test named for an edge whose rows never reach the code that handles it (empty given, or given rows for a relation the model does not read)",
    owner: EDGES,
  },
  { id: "twin-unit-test-names", what: "two unit tests of one name on one model (dbt refuses it)", owner: FUZZ },
];
