select customer_id, count(*) as order_count, sum(total_cents) as total_cents
from {{ ref('stg_orders') }}
group by customer_id
