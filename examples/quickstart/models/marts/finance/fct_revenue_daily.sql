-- Revenue per calendar day (UTC), the number finance reports.
select
    cast(ordered_at as date) as date_day,
    sum(order_total) as gross_revenue,
    count(*) as order_count
from {{ ref('fct_orders') }}
group by 1
