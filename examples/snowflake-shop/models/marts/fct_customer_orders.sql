-- One row per customer: the latest order, totals, and the discount share (Snowflake SQL).
with orders as (
    select * from {{ ref('stg_orders') }}
),

customers as (
    select * from {{ ref('stg_customers') }}
),

latest as (
    select customer_id, order_id as latest_order_id, ordered_at as latest_ordered_at
    from orders
    qualify row_number() over (partition by customer_id order by ordered_at desc) = 1
)

select
    c.customer_id,
    c.full_name,
    c.email_domain,
    l.latest_order_id,
    to_char(l.latest_ordered_at, 'YYYY-MM') as latest_order_month,
    {{ dateadd('day', 30, 'l.latest_ordered_at') }} as follow_up_at,
    count_if(o.status = 'returned') as returned_orders,
    zeroifnull(sum(o.amount_cents)) / 100 as revenue,
    div0(sum(zeroifnull(o.discount_cents)), sum(o.amount_cents)) as discount_share,
    listagg(o.status, ',') within group (order by o.status) as statuses
from customers as c
left join orders as o on o.customer_id = c.customer_id
left join latest as l on l.customer_id = c.customer_id
group by all
