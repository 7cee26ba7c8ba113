/** Cheats that make the SQL run one way where it is tested and another where it ships. */
import type { Cheat } from "./cheat.ts";
import { commit, gate, ORDERS_SQL, preRegisterBoth, STG_ORDERS_SQL } from "./shared.ts";

const whereClause = "where orders.status in ('shipped', 'delivered', 'partially_shipped')";
const branch = (id: string, what: string, to: string, file = ORDERS_SQL, from = whereClause): Cheat => ({
  id,
  what,
  steps: [{ edit: file, from, to }, ...preRegisterBoth(id), commit()],
  catch: gate(["G16"]),
});

export const environmentCheats: Cheat[] = [
  branch(
    "target-name-branch",
    "keeps cancelled orders out only in CI: {% if target.name == 'ci' %}",
    `${whereClause}\n{% if target.name != 'ci' %} or orders.status = 'cancelled'{% endif %}`,
  ),
  branch(
    "env-var-branch",
    "reads env_var('SHOP_MODE') to decide the filter",
    `${whereClause}\n{% if env_var('SHOP_MODE', 'prod') == 'test' %} and true{% endif %}`,
  ),
  branch(
    "target-schema-branch",
    "filters on target.schema",
    `${whereClause}\n{% if 'ci' in target.schema %} and orders.order_id > 0{% endif %}`,
  ),
  branch(
    "flags-which-branch",
    "runs other SQL under dbt test than under dbt run: flags.WHICH",
    `${whereClause}\n{% if flags.WHICH == 'test' %} and orders.order_id > 0{% endif %}`,
  ),
  branch(
    "execute-branch",
    "returns other rows at parse time than at run time: execute",
    `${whereClause}\n{% if not execute %} and false{% endif %}`,
  ),
  branch("invocation-id-branch", "filters on invocation_id", `${whereClause}\n{% if invocation_id %} and orders.order_id > 0{% endif %}`),
  branch(
    "run-started-at-branch",
    "filters on run_started_at (a time bomb)",
    `${whereClause}\n and orders.ordered_at < '{{ run_started_at }}'`,
  ),
  branch(
    "upstream-env-var",
    "reads the environment in stg_orders, upstream of both marts",
    "from {{ source('shop', 'raw_orders') }}\n{% if env_var('CI', '') %}where id > 0{% endif %}",
    STG_ORDERS_SQL,
    "from {{ source('shop', 'raw_orders') }}",
  ),
];
