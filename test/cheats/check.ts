/** Cheats check catches on the work tree: a mart with nothing that judges it. */
import type { Cheat } from "./cheat.ts";
import { check, ORDERS_YML } from "./shared.ts";

export const checkCheats: Cheat[] = [
  {
    id: "new-mart-without-spec",
    what: "adds a mart with a yml but no spec",
    steps: [
      { write: "models/marts/fct_customers.sql", text: "select customer_id from {{ ref('stg_customers') }}\n" },
      { write: "models/marts/fct_customers.yml", text: "version: 2\nmodels:\n  - name: fct_customers\n" },
    ],
    catch: check(["S1"]),
  },
  {
    id: "new-mart-without-yml",
    what: "adds a mart's SQL and no yml at all",
    steps: [{ write: "models/marts/fct_customers.sql", text: "select customer_id from {{ ref('stg_customers') }}\n" }],
    catch: check(["S4"]),
  },
  {
    id: "pk-test-muted-by-where",
    what: "the primary key's unique test gets where: 1 = 0 (check sees it before any commit)",
    steps: [
      {
        edit: ORDERS_YML,
        from: "        data_tests: [unique, not_null]\n",
        to: '        data_tests:\n          - unique:\n              where: "1 = 0"\n          - not_null\n',
      },
    ],
    catch: check(["T1"]),
  },
  {
    id: "edge-without-unit-test-once-pre-registered",
    what: "the human adds an edge; the agent pre-registers its change and writes no unit test for it",
    steps: [
      {
        edit: ORDERS_YML,
        from: '          - "amount_cents=1999 → order_total=19.99"\n',
        to: '          - "amount_cents=1999 → order_total=19.99"\n          - "status=\'returned\' → row excluded"\n',
      },
    ],
    catch: check(["T2"]),
  },
];
