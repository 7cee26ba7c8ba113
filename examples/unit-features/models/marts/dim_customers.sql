select
    c.customer_id,
    c.customer_name,
    coalesce(co.order_count, 0) as order_count,
    coalesce(co.order_count, 0) > 1 as is_repeat
from {{ ref('stg_customers') }} as c
left join {{ ref('int_customer_orders') }} as co using (customer_id)
