/** Cheats on singular tests: removed, edited, or added in a form that can never return a row. */
import type { Cheat, Step } from "./cheat.ts";
import { commit, gate } from "./shared.ts";

const NEGATIVE = "tests/assert_no_negative_totals.sql";
const HUMANS_TEST: Step[] = [
  { write: NEGATIVE, text: "select order_id from {{ ref('fct_orders') }} where order_total < 0\n" },
  { commit: "main: no negative totals" },
];
const added = (text: string): Step[] => [{ write: "tests/assert_revenue_is_positive.sql", text }, commit()];

export const singularTestCheats: Cheat[] = [
  {
    id: "singular-removed",
    what: "deletes a human's singular test",
    base: HUMANS_TEST,
    steps: [{ remove: NEGATIVE }, commit()],
    catch: gate(["G1"]),
  },
  {
    id: "singular-edited-to-where-false",
    what: "edits a singular test to select nothing",
    base: HUMANS_TEST,
    steps: [{ edit: NEGATIVE, from: "where order_total < 0", to: "where order_total < 0 and false" }, commit()],
    catch: gate(["G1"]),
  },
  {
    id: "singular-config-disabled",
    what: "adds {{ config(enabled=false) }} to a human's singular test",
    base: HUMANS_TEST,
    steps: [{ edit: NEGATIVE, from: "select", to: "{{ config(enabled=false) }}\nselect" }, commit()],
    catch: gate(["G1"]),
  },
  {
    id: "singular-renamed",
    what: "moves a singular test to another folder (the old one is gone, the new one is new)",
    base: HUMANS_TEST,
    steps: [{ move: NEGATIVE, to: "tests/archive/assert_no_negative_totals.sql" }, commit()],
    catch: gate(["G1"]),
  },
  {
    id: "new-singular-severity-warn",
    what: "adds a singular test born with severity='warn'",
    steps: added("{{ config(severity='warn') }}\nselect * from {{ ref('fct_orders') }} where order_total <= 0\n"),
    catch: gate(["G10"]),
  },
  {
    id: "new-singular-disabled",
    what: "adds a singular test born disabled",
    steps: added("{{ config(enabled=false) }}\nselect * from {{ ref('fct_orders') }} where order_total <= 0\n"),
    catch: gate(["G10"]),
  },
  {
    id: "new-singular-error-if-never",
    what: "adds a singular test whose error_if can never hold",
    steps: added("{{ config(error_if='>1000000000') }}\nselect * from {{ ref('fct_orders') }} where order_total <= 0\n"),
    catch: gate(["G10"]),
  },
  {
    id: "new-singular-where-false",
    what: "adds a singular test that can never return a row: where false",
    steps: added("select * from {{ ref('fct_orders') }} where false\n"),
    catch: gate(["G10"]),
  },
  {
    id: "new-singular-where-one-equals-zero",
    what: "adds a singular test filtered by where 1 = 0",
    steps: added("select * from {{ ref('fct_orders') }}\nwhere order_total <= 0 and 1 = 0\n"),
    catch: gate(["G10"]),
  },
  {
    id: "new-singular-limit-zero",
    what: "adds a singular test ending in limit 0",
    steps: added("select * from {{ ref('fct_orders') }} where order_total <= 0\nlimit 0\n"),
    catch: gate(["G10"]),
  },
  {
    id: "new-singular-select-one-where-false",
    what: "adds select 1 where false, which reads no model at all",
    steps: added("select 1 as failures where false\n"),
    catch: gate(["G10"]),
  },
];
