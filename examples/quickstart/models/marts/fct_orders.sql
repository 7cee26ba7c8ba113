-- One row per order the shop counts as revenue.
select
    orders.order_id,
    orders.customer_id,
    customers.customer_email,
    orders.status,
    orders.amount_cents / 100.0 as order_total,
    orders.ordered_at
from {{ ref('stg_orders') }} as orders
left join {{ ref('stg_customers') }} as customers
    on orders.customer_id = customers.customer_id
where orders.status in ('shipped', 'delivered', 'partially_shipped')
