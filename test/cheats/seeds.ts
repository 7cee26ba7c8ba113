/** Cheats on seeds: the data a test compares against, edited so the test agrees. */
import type { Cheat, Step } from "./cheat.ts";
import { commit, gate, ORDERS_YML } from "./shared.ts";

const STATUSES = "seeds/order_statuses.csv";
const RELATIONSHIP: Step[] = [
  { write: STATUSES, text: "status\nshipped\ndelivered\npartially_shipped\n" },
  {
    edit: ORDERS_YML,
    from: "      - name: status\n        data_type: varchar\n        data_tests:\n",
    to: "      - name: status\n        data_type: varchar\n        data_tests:\n          - relationships:\n              arguments:\n                to: ref('order_statuses')\n                field: status\n",
  },
  { commit: "main: statuses are a seed" },
];
const EXPECTED = "seeds/expected_daily_revenue.csv";
const SINGULAR: Step[] = [
  { write: EXPECTED, text: "date_day,gross_revenue\n2025-12-01,15.5\n" },
  {
    write: "tests/assert_daily_revenue_matches_close.sql",
    text: "select d.date_day from {{ ref('fct_revenue_daily') }} d\njoin {{ ref('expected_daily_revenue') }} e using (date_day)\nwhere d.gross_revenue <> e.gross_revenue\n",
  },
  { commit: "main: revenue checked against the close" },
];

export const seedCheats: Cheat[] = [
  {
    id: "seed-a-test-compares-against-edited",
    what: "adds 'cancelled' to the seed the status relationships test compares against",
    base: RELATIONSHIP,
    steps: [{ edit: STATUSES, from: "partially_shipped\n", to: "partially_shipped\ncancelled\n" }, commit()],
    catch: gate(["G1"]),
  },
  {
    id: "seed-a-singular-test-reads-edited",
    what: "edits the expected numbers a singular test joins against, so they match the new output",
    base: SINGULAR,
    steps: [{ edit: EXPECTED, from: "15.5", to: "17.5" }, commit()],
    catch: gate(["G1"]),
  },
];
