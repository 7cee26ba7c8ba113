/** Paths and edits of the quickstart that several cheats share. */
import type { Catch, Step } from "./cheat.ts";

export const ORDERS_YML = "models/marts/fct_orders.yml";
export const ORDERS_SQL = "models/marts/fct_orders.sql";
export const DAILY_YML = "models/marts/finance/fct_revenue_daily.yml";
export const DAILY_SQL = "models/marts/finance/fct_revenue_daily.sql";
export const STAGING_YML = "models/staging/_staging.yml";
export const STG_ORDERS_SQL = "models/staging/stg_orders.sql";
export const RECONCILIATION = "analyses/reconciliation_fct_revenue_daily.sql";
export const DBT_PROJECT = "dbt_project.yml";

/** fct_orders' order_id tests as the quickstart declares them. */
export const ORDER_ID_TESTS = "        data_tests: [unique, not_null]\n";

/** Replaces order_id's `[unique, not_null]` with the given block (indented as a column's data_tests). */
export function orderIdTests(block: string): Step {
  return { edit: ORDERS_YML, from: ORDER_ID_TESTS, to: block };
}

/** Both marts get pre-registrations of this branch's own (G8 for fct_orders' SQL, G15 for the mart downstream). */
export function preRegisterBoth(why: string): Step[] {
  return [
    { edit: ORDERS_YML, from: "about one order in five", to: `about one order in five; ${why}` },
    { edit: DAILY_YML, from: "two days gain revenue and orders", to: `two days gain revenue and orders; ${why}` },
  ];
}

export const gate = (rules: string[], exit = 1): Catch => ({ run: ["gate", "--base", "main"], exit, rules });
export const check = (rules: string[], exit = 1): Catch => ({ run: ["check"], exit, rules });
export const commit = (message = "agent: step"): Step => ({ commit: message });
